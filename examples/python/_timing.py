"""Shared by the Python examples: best-of-N wall time and the report line."""
import time

import fusecl


def best_time(fn, repeat=5):
    """The fastest of `repeat` runs of fn() in seconds, after one warm-up run
    (which builds or loads the kernels), and fn()'s last result."""
    result = fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def report(name, t_fusecl, t_numpy, kernels):
    dev = fusecl.default_device()
    print(f"{name} on {dev.info['name']} ({dev.info['type']})")
    print(f"  NumPy : {t_numpy * 1e3:9.2f} ms")
    print(f"  fusecl: {t_fusecl * 1e3:9.2f} ms  ({t_numpy / t_fusecl:.2f}x NumPy), "
          f"{kernels} kernel(s) launched per evaluation")
