"""The demo's chain, sqrt(x*x + y*y) * sin(x) + exp(-y) * 0.5, from NumPy
arrays to a NumPy array, two ways: fusecl.asarray copies x and y to the
device (one upload each), fusecl.host_view reads them where they are (on a
CPU device in place, on a GPU streamed in chunks through pinned memory);
either way one fused kernel runs and one download brings the result back,
where NumPy makes seven temporary arrays.

    PYTHONPATH=build/python python3 examples/python/demo_chain.py [log2 n]
"""
import sys

import numpy as np

import fusecl
from _timing import best_time, report

n = 1 << (int(sys.argv[1]) if len(sys.argv) > 1 else 22)
rng = np.random.default_rng(0)
x = rng.standard_normal(n, dtype=np.float32)
y = rng.standard_normal(n, dtype=np.float32)


def with_numpy():
    return np.sqrt(x * x + y * y) * np.sin(x) + np.exp(-y) * np.float32(0.5)


def chain(fx, fy):
    return fusecl.sqrt(fx * fx + fy * fy) * fusecl.sin(fx) + fusecl.exp(-fy) * 0.5  # lazy, float32 (NEP 50)


def with_asarray():
    return chain(fusecl.asarray(x), fusecl.asarray(y)).numpy()  # two uploads, one kernel, one download


def with_host_view():
    return chain(fusecl.host_view(x), fusecl.host_view(y)).numpy()  # no copy in: the kernel reads x and y


t_np, want = best_time(with_numpy)
for name, way in (("fusecl.asarray", with_asarray), ("fusecl.host_view", with_host_view)):
    fusecl.reset_stats()
    t_cl, got = best_time(way)
    kernels = fusecl.stats()["kernels_launched"] // 6
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    report(f"demo chain over {n} float32 (NumPy array in, NumPy array out) with {name}", t_cl, t_np, kernels)
fx = fusecl.asarray(x[:8])
print("\nthe kernel:\n" + fusecl.kernel_source(fusecl.sqrt(fx * fx + fx * fx) * fusecl.sin(fx) + fusecl.exp(-fx) * 0.5))
