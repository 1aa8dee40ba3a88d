"""Python's cost per evaluation of a cached small expression, beside the C++
API's (bench/host_overhead.cpp, BM_overhead): x*2 + 1 on 1024 float32 already
on the device, its kernel built.

  sync : fusecl.eval(x * 2 + 1); fusecl.finish()   per evaluation (latency)
  async: 64 x fusecl.eval(x * 2 + 1), then one finish (throughput of queueing)
  build: x * 2 + 1 without evaluating (what the binding itself adds per op)
  numpy: fusecl.sqrt(x * 2 + 1).numpy() on 4096 float32 (to NumPy and back, the
         issue's CuPy comparison) beside NumPy's own np.sqrt(x * 2 + 1)
  cupy : where CuPy is installed (the GPU machine), the same sqrt(x * 2 + 1) on
         4096 float32 on the device, eager, waiting for the GPU each call,
         beside fusecl's (one fused kernel, a finish each call)

    PYTHONPATH=build/python python3 bench/python_overhead.py
    build/bench/fusecl-bench --benchmark_filter=BM_overhead   # the C++ numbers
"""
import time

import numpy as np

import fusecl

BATCH = 64


def per_call(fn, seconds=1.0):
    """Median over 5 rounds of the seconds per call of fn (each round ~seconds/5)."""
    fn()
    n = 1
    while True:  # calls per round
        start = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - start > seconds / 5:
            break
        n *= 2
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        rounds.append((time.perf_counter() - start) / n)
    return sorted(rounds)[2]


def main():
    x = fusecl.asarray(np.arange(1024, dtype=np.float32) * 0.5)
    fusecl.eval(x)

    def sync():
        fusecl.eval(x * 2.0 + 1.0)
        fusecl.finish()

    def batch():
        for _ in range(BATCH):
            fusecl.eval(x * 2.0 + 1.0)
        fusecl.finish()

    h = np.arange(4096, dtype=np.float32)
    fh = fusecl.asarray(h)
    fusecl.eval(fh)

    t_build = per_call(lambda: x * 2.0 + 1.0)  # the binding's own cost: two nodes, no device work
    t_sync = per_call(sync)
    t_async = per_call(batch) / BATCH
    t_round = per_call(lambda: fusecl.sqrt(fh * 2.0 + 1.0).numpy())
    t_np = per_call(lambda: np.sqrt(h * np.float32(2) + np.float32(1)))
    def fused_sync():
        fusecl.eval(fusecl.sqrt(fh * 2.0 + 1.0))
        fusecl.finish()

    t_fused = per_call(fused_sync)
    t_cupy = t_cupy_host = None
    try:
        import cupy as cp

        cx = cp.asarray(h)

        def cupy_sync():
            cp.sqrt(cx * 2 + 1)
            cp.cuda.Stream.null.synchronize()

        t_cupy = per_call(cupy_sync)
        t_cupy_host = per_call(lambda: cp.asnumpy(cp.sqrt(cx * 2 + 1)))
    except ImportError:
        pass
    dev = fusecl.default_device()
    print(f"device: {dev.info['name']} ({dev.info['type']})")
    print(f"build x*2+1 only (two graph nodes)        : {t_build * 1e6:8.1f} us per expression")
    print(f"sync  eval+finish of x*2+1 (1024 f32)     : {t_sync * 1e6:8.1f} us per evaluation")
    print(f"async eval of x*2+1, finish every {BATCH}      : {t_async * 1e6:8.1f} us per evaluation")
    print(f"sqrt(x*2+1).numpy() (4096 f32, download)  : {t_round * 1e6:8.1f} us per call")
    print(f"NumPy np.sqrt(x*2+1) (4096 f32)           : {t_np * 1e6:8.1f} us per call")
    print(f"sync  eval+finish of sqrt(x*2+1) (4096)   : {t_fused * 1e6:8.1f} us per evaluation")
    if t_cupy is not None:
        print(f"CuPy  sqrt(x*2+1), synchronize (4096 f32) : {t_cupy * 1e6:8.1f} us per call")
        print(f"CuPy  cp.asnumpy(sqrt(x*2+1)) (4096 f32)  : {t_cupy_host * 1e6:8.1f} us per call")


if __name__ == "__main__":
    main()
