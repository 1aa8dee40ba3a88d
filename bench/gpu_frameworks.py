#!/usr/bin/env python3
"""fusecl-bench's workloads with CuPy, cupy.fuse, PyTorch and torch.compile on a CUDA GPU.

The same expressions, float32 inputs of the same sizes and value ranges,
already on the GPU (device-resident, like fusecl's fused_device). Each
(framework, workload, size) is run a few times first (compilation, caching
allocators, first touch: not timed), checked against NumPy in float64, then
timed evaluation by evaluation:

  time_s      wall clock of one call plus the wait for the GPU (CUDA event
              synchronize), averaged over the run: what fusecl's fused_device
              measures (build + eval + finish), and what report.py shows
  gpu_time_s  CUDA event time from before the call to after it, on the stream

The inputs are fusecl-bench's own, bit for bit (bench/workloads.py); with
--check (fusecl-bench --check_out's file) each result is also checked against
fusecl's (bench/fusecl_check.py).

Writes JSON that bench/report.py merges into the fusecl tables of the same
device (bench/compare.sh --frameworks names it <slug>.frameworks.json). A
framework that is not installed, or cannot run a workload, is skipped with a
message; nothing here is required.

  python3 bench/gpu_frameworks.py --like bench/results/<slug>.json --out bench/results/<slug>.frameworks.json
  python3 bench/gpu_frameworks.py --max-log2 22 --workloads chain2,softmax --out fw.json
"""

import argparse
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fusecl_check  # noqa: E402
from workloads import (ELEMENTWISE, EXPRESSIONS, INPUTS, ROW_NORM_EPS, TOLERANCE, WORKLOADS, as_tuple,  # noqa: E402
                       cases_like, fusecl_inputs, numpy_namespace)


# ---- frameworks -----------------------------------------------------------------------


class Unavailable(Exception):
    pass


class CupyBase:
    """Eager CuPy: one kernel per operation (NumPy's model on the GPU)."""
    key = "cupy"

    def __init__(self):
        try:
            import cupy
            devices = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:  # ImportError, or a CUDA library or driver that fails to load
            raise Unavailable(f"cupy not usable: {e}")
        if devices < 1:
            raise Unavailable("cupy sees no CUDA device")
        self.cp = cupy
        cp = cupy
        self.ns = type("CupyOps", (), dict(
            sqrt=staticmethod(cp.sqrt), sin=staticmethod(cp.sin), cos=staticmethod(cp.cos),
            arcsin=staticmethod(cp.arcsin), exp=staticmethod(cp.exp), log=staticmethod(cp.log),
            abs=staticmethod(cp.abs), where=staticmethod(cp.where), minimum=staticmethod(cp.minimum),
            transpose=staticmethod(cp.transpose),
            rowmax=staticmethod(lambda x: x.max(axis=1, keepdims=True)),
            rowsum=staticmethod(lambda x: x.sum(axis=1, keepdims=True)),
            rowmean=staticmethod(lambda x: x.mean(axis=1, keepdims=True)),
            rowvar=staticmethod(lambda x: x.var(axis=1, keepdims=True)),
            colmax=staticmethod(lambda x: x.max(axis=0, keepdims=True)),
            colsum=staticmethod(lambda x: x.sum(axis=0, keepdims=True)),
            total=staticmethod(lambda x: x.sum()), mean=staticmethod(lambda x: x.mean()),
            std=staticmethod(lambda x: x.std()), count=staticmethod(lambda c: c.sum())))

    def version(self):
        return f"cupy {self.cp.__version__}"

    def device_name(self):
        name = self.cp.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)

    def upload(self, host_array):
        return self.cp.asarray(host_array)

    def to_numpy(self, a):
        return self.cp.asnumpy(a)

    def release(self):
        """Hands cached device memory back between cases (the pools keep it otherwise)."""
        self.cp.get_default_memory_pool().free_all_blocks()

    def timer(self):
        cp = self.cp
        start, end = cp.cuda.Event(), cp.cuda.Event()
        return start, end, lambda: cp.cuda.get_elapsed_time(start, end) / 1e3

    def make(self, workload, n):
        """A function of the device inputs, evaluating the workload."""
        expr = EXPRESSIONS[workload]
        if workload == "monte_carlo_pi":
            rng = self.cp.random.RandomState(1)
            ops = type("CupyRandomOps", (self.ns,), {
                "uniform": staticmethod(lambda k: rng.random_sample(k, dtype=self.cp.float32))})
            return lambda: expr(ops, n)
        return lambda *xs: expr(self.ns, *xs)


class CupyFuse(CupyBase):
    """cupy.fuse: elementwise chains become one kernel. A reduction can only end
    a fused function, so softmax, softmax_axis0, row_norm and mean/std are fused
    in pieces, transpose_add passes the transposed view into the fused add, and
    Monte Carlo draws its numbers with cupy.random before the fused count."""
    key = "cupy_fuse"

    def make(self, workload, n):
        cp = self.cp
        ns = self.ns
        if workload in ELEMENTWISE:
            expr = EXPRESSIONS[workload]
            # Named positional parameters, the form cupy.fuse documents, rather than *args.
            # Each fused function is named: CuPy otherwise names the kernel after the
            # Python function, and "<lambda>" is no CUDA identifier (CompileException).
            arity = len(INPUTS[workload])
            if arity == 1:
                return cp.fuse(kernel_name="fusecl_bench_1")(lambda a: expr(ns, a))
            if arity == 2:
                return cp.fuse(kernel_name="fusecl_bench_2")(lambda a, b: expr(ns, a, b))
            if arity == 3:
                return cp.fuse(kernel_name="fusecl_bench_3")(lambda a, b, c: expr(ns, a, b, c))
            return cp.fuse(kernel_name="fusecl_bench_10")(lambda a, b, c, d: expr(ns, a, b, c, d))
        if workload == "transpose_add":
            # The transpose is taken outside: a strided view, which the fused kernel reads as it is.
            add = cp.fuse(kernel_name="fusecl_bench_11")(lambda a, b: a + b)
            return lambda x, y: add(x, y.T)
        if workload == "sum_squares":
            return cp.fuse(kernel_name="fusecl_bench_4")(lambda x: cp.sum(x * x))
        if workload == "softmax":
            sum_exp = cp.fuse(kernel_name="fusecl_bench_5")(lambda x, m: cp.sum(cp.exp(x - m), axis=1))
            normalize = cp.fuse(kernel_name="fusecl_bench_6")(lambda x, m, s: cp.exp(x - m) / s)

            def run(x):
                m = x.max(axis=1, keepdims=True)
                return normalize(x, m, sum_exp(x, m)[:, None])
            return run
        if workload == "softmax_axis0":
            sum_exp = cp.fuse(kernel_name="fusecl_bench_15")(lambda x, m: cp.sum(cp.exp(x - m), axis=0))
            normalize = cp.fuse(kernel_name="fusecl_bench_16")(lambda x, m, s: cp.exp(x - m) / s)

            def run(x):
                m = x.max(axis=0, keepdims=True)
                return normalize(x, m, sum_exp(x, m)[None, :])
            return run
        if workload == "row_norm":
            row_sum = cp.fuse(kernel_name="fusecl_bench_12")(lambda x: cp.sum(x, axis=1))
            row_sq_dev = cp.fuse(kernel_name="fusecl_bench_13")(lambda x, m: cp.sum((x - m) * (x - m), axis=1))
            normalize = cp.fuse(kernel_name="fusecl_bench_14")(lambda x, m, v: (x - m) / cp.sqrt(v + ROW_NORM_EPS))

            def run(x):
                cols = x.shape[1]
                m = row_sum(x)[:, None] / cols
                return normalize(x, m, row_sq_dev(x, m)[:, None] / cols)
            return run
        if workload == "mean_std":
            total = cp.fuse(kernel_name="fusecl_bench_7")(lambda x: cp.sum(x))
            squared_deviations = cp.fuse(kernel_name="fusecl_bench_8")(lambda x, m: cp.sum((x - m) * (x - m)))

            def run(x):
                mean = total(x) / x.size
                return mean, cp.sqrt(squared_deviations(x, mean) / x.size)
            return run
        if workload == "monte_carlo_pi":
            rng = cp.random.RandomState(1)
            count = cp.fuse(kernel_name="fusecl_bench_9")(lambda u, v: cp.sum(u * u + v * v <= 1.0))
            return lambda: count(rng.random_sample(n, dtype=cp.float32), rng.random_sample(n, dtype=cp.float32))
        raise Unavailable(f"no cupy.fuse version of {workload}")


class TorchEager:
    """PyTorch eager on CUDA: one kernel per operation."""
    key = "torch"

    def __init__(self):
        try:
            import torch
        except Exception as e:
            raise Unavailable(f"torch not importable: {e}")
        if not torch.cuda.is_available():
            raise Unavailable("torch.cuda.is_available() is False")
        self.torch = torch
        major = int(torch.__version__.split(".")[0])
        # correction= arrived in 2.0; unbiased=False is the same population std (and var) before it.
        std = (lambda x: x.std(correction=0)) if major >= 2 else (lambda x: x.std(unbiased=False))
        rowvar = ((lambda x: x.var(dim=1, keepdim=True, correction=0)) if major >= 2
                  else (lambda x: x.var(dim=1, keepdim=True, unbiased=False)))
        self.ns = type("TorchOps", (), dict(
            sqrt=staticmethod(torch.sqrt), sin=staticmethod(torch.sin), cos=staticmethod(torch.cos),
            arcsin=staticmethod(torch.asin), exp=staticmethod(torch.exp),
            log=staticmethod(torch.log), abs=staticmethod(torch.abs), where=staticmethod(torch.where),
            # torch.minimum wants two tensors; clamp takes the scalar bound.
            minimum=staticmethod(lambda x, bound: torch.clamp(x, max=bound)),
            transpose=staticmethod(lambda x: x.t()),
            rowmax=staticmethod(lambda x: x.amax(dim=1, keepdim=True)),
            rowsum=staticmethod(lambda x: x.sum(dim=1, keepdim=True)),
            rowmean=staticmethod(lambda x: x.mean(dim=1, keepdim=True)), rowvar=staticmethod(rowvar),
            colmax=staticmethod(lambda x: x.amax(dim=0, keepdim=True)),
            colsum=staticmethod(lambda x: x.sum(dim=0, keepdim=True)),
            total=staticmethod(lambda x: x.sum()), mean=staticmethod(lambda x: x.mean()), std=staticmethod(std),
            count=staticmethod(lambda c: c.sum()),
            uniform=staticmethod(lambda k: torch.rand(k, device="cuda", dtype=torch.float32))))

    def version(self):
        return f"torch {self.torch.__version__} (CUDA {self.torch.version.cuda})"

    def device_name(self):
        return self.torch.cuda.get_device_name(0)

    def upload(self, host_array):
        return self.torch.from_numpy(host_array).to("cuda")

    def to_numpy(self, a):
        return a.detach().cpu().numpy()

    def release(self):
        self.torch.cuda.empty_cache()

    def timer(self):
        start = self.torch.cuda.Event(enable_timing=True)
        end = self.torch.cuda.Event(enable_timing=True)
        return start, end, lambda: start.elapsed_time(end) / 1e3

    def function(self, workload, n):
        expr = EXPRESSIONS[workload]
        if workload == "monte_carlo_pi":
            return lambda: expr(self.ns, n)
        return lambda *xs: expr(self.ns, *xs)

    def make(self, workload, n):
        self.torch.manual_seed(1)
        return self.function(workload, n)


class TorchCompile(TorchEager):
    """torch.compile (Inductor, default mode), one static-shape compilation per
    workload and size; random numbers are generated inside the compiled code."""
    key = "torch_compile"

    def __init__(self):
        super().__init__()
        if not hasattr(self.torch, "compile"):
            raise Unavailable(f"torch {self.torch.__version__} has no torch.compile")

    def make(self, workload, n):
        self.torch.manual_seed(1)
        # A fresh cache per case: otherwise Dynamo's recompile limit (8 by default)
        # would silently fall back to eager after the eighth size of a workload.
        self.torch._dynamo.reset()
        return self.torch.compile(self.function(workload, n), dynamic=False)


FRAMEWORK_CLASSES = [CupyBase, CupyFuse, TorchEager, TorchCompile]

# ---- timing and checking --------------------------------------------------------------


def time_calls(fw, fn, args, min_time, warmup=3):
    """(mean wall seconds per call incl. the wait for the GPU, mean GPU seconds, calls)."""
    start, end, elapsed = fw.timer()
    for _ in range(warmup):
        fn(*args)
        end.record()
        end.synchronize()
    calls, wall, gpu = 0, 0.0, 0.0
    while calls < 3 or wall < min_time:
        start.record()
        t0 = time.perf_counter()
        fn(*args)
        end.record()
        end.synchronize()
        wall += time.perf_counter() - t0
        gpu += elapsed()
        calls += 1
    return wall / calls, gpu / calls, calls


def numpy_reference(workload, inputs, np):
    """The workload in float64 NumPy (None for Monte Carlo, checked statistically)."""
    if workload == "monte_carlo_pi":
        return None
    ops = numpy_namespace(np)  # the host harness's functions, here on float64 copies of the inputs
    return [np.asarray(r) for r in as_tuple(EXPRESSIONS[workload](ops, *[a.astype(np.float64) for a in inputs]))]


def check(workload, n, got, reference, np):
    """None if the results agree, else what is wrong."""
    if workload == "monte_carlo_pi":
        p = float(got[0]) / n
        sigma = math.sqrt((math.pi / 4) * (1 - math.pi / 4) / n)
        return None if abs(p - math.pi / 4) <= 6 * sigma + 1.0 / n else f"fraction inside {p:.6f}, expected pi/4"
    rtol, atol = TOLERANCE[workload]
    for i, (g, w) in enumerate(zip(got, reference)):
        g, w = np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64)
        if g.shape != w.shape:
            return f"result {i} has shape {g.shape}, reference {w.shape}"
        bad = ~(np.abs(g - w) <= atol + rtol * np.abs(w))
        if bad.any():
            j = int(np.flatnonzero(bad.ravel())[0])
            return f"result {i} element {j} is {g.ravel()[j]!r}, reference {w.ravel()[j]!r}"
    return None


def run_case(fw, workload, log2, inputs, reference, min_time, np, fusecl_line=None):
    """One framework on one workload and size: a result entry with a time, or an error."""
    n = 1 << log2
    entry = {"workload": workload, "framework": fw.key, "log2": log2}
    try:
        dev_inputs = [fw.upload(a) for a in inputs]
        fn = fw.make(workload, n)
        got = [fw.to_numpy(r) for r in as_tuple(fn(*dev_inputs))]  # also the first warm-up call
        problem = check(workload, n, got, reference, np)
        if not problem and fusecl_line:
            against = fusecl_check.results_problem(np, workload, n, fusecl_line, got)
            problem = f"against fusecl: {against}" if against else None
        if problem:
            entry["error"] = f"wrong answer: {problem}"
        else:
            entry["time_s"], entry["gpu_time_s"], entry["calls"] = time_calls(fw, fn, dev_inputs, min_time)
    except Exception as e:  # one framework failing one case must not end the run
        message = str(e).strip().splitlines()
        entry["error"] = f"{type(e).__name__}: {message[0] if message else ''}"[:300]
    return entry


def nvidia_driver():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        return r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def cuda_version(frameworks):
    for f in frameworks:
        if hasattr(f, "torch"):
            return str(f.torch.version.cuda)
    for f in frameworks:
        v = f.cp.cuda.runtime.runtimeGetVersion()  # e.g. 12040
        return f"{v // 1000}.{v % 1000 // 10}"
    return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument("--like", help="run the workloads and sizes of this fusecl-bench JSON file")
    parser.add_argument("--check", help="fusecl-bench --check_out file: check results against fusecl's too")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated (without --like)")
    parser.add_argument("--min-log2", type=int, default=10)
    parser.add_argument("--max-log2", type=int, default=26)
    parser.add_argument("--log2-step", type=int, default=2)
    parser.add_argument("--min-time", type=float, default=0.1, help="seconds of timed calls per case")
    parser.add_argument("--frameworks", default=",".join(c.key for c in FRAMEWORK_CLASSES))
    args = parser.parse_args()

    if args.like:
        cases = cases_like(args.like)
    else:
        sizes = list(range(args.min_log2, args.max_log2, args.log2_step)) + [args.max_log2]
        unknown = [w for w in args.workloads.split(",") if w not in INPUTS]
        if unknown:
            parser.error(f"unknown workloads {unknown}; known: {', '.join(WORKLOADS)}")
        cases = [(w, s) for w in args.workloads.split(",") for s in sizes]

    try:
        import numpy as np
    except ImportError:
        sys.exit("gpu_frameworks.py: numpy is needed (inputs and checks); CuPy and PyTorch normally bring it")

    checks = fusecl_check.load(args.check) if args.check else {}
    frameworks, skipped = [], []
    wanted = args.frameworks.split(",")
    for cls in FRAMEWORK_CLASSES:
        if cls.key not in wanted:
            continue
        try:
            frameworks.append(cls())
        except Unavailable as e:
            skipped.append(f"{cls.key}: {e}")
            print(f"gpu_frameworks.py: skipping {cls.key}: {e}", file=sys.stderr)
    if not frameworks:
        print("gpu_frameworks.py: no framework can run here; writing an empty result", file=sys.stderr)

    context = {
        "kind": "fusecl-gpu-frameworks",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": frameworks[0].device_name() if frameworks else "unknown",
        "driver": nvidia_driver(),
        "cuda": cuda_version(frameworks),
        "versions": ", ".join([f.version() for f in frameworks if f.key in ("cupy", "torch")] +
                              [f"numpy {np.__version__}", f"python {platform.python_version()}"]),
        "command": " ".join(shlex.quote(a) for a in [sys.executable.rsplit("/", 1)[-1]] + sys.argv),
        "timing": "time_s: wall clock per call including the wait for the GPU, mean over calls after warm-up; "
                  "gpu_time_s: CUDA events around the call",
    }
    if args.check:
        context["checked_against"] = os.path.basename(args.check)

    def write(results):
        # After every case, so that a run stopped by a time limit keeps what it measured.
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"context": context, "benchmarks": results, "skipped": skipped}, f, indent=2)
            f.write("\n")

    results = []
    write(results)
    for workload, log2 in cases:
        inputs = fusecl_inputs(workload, log2, np)
        reference = numpy_reference(workload, inputs, np) if frameworks else None
        for fw in frameworks:
            entry = run_case(fw, workload, log2, inputs, reference, args.min_time, np, checks.get((workload, log2)))
            try:
                fw.release()  # the case's arrays are gone with run_case's frame
            except Exception:
                pass
            results.append(entry)
            write(results)
            shown = f"{entry['time_s'] * 1e6:.1f} us" if "time_s" in entry else entry["error"]
            print(f"{workload:>15} 2^{log2:<2} {fw.key:>13}: {shown}", file=sys.stderr)

if __name__ == "__main__":
    main()
