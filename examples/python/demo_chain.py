"""The demo's chain, sqrt(x*x + y*y) * sin(x) + exp(-y) * 0.5, from NumPy
arrays to a NumPy array: fusecl uploads x and y, runs one fused kernel and
downloads the result; NumPy makes seven temporary arrays.

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


def with_fusecl():
    fx, fy = fusecl.asarray(x), fusecl.asarray(y)  # two uploads
    z = fusecl.sqrt(fx * fx + fy * fy) * fusecl.sin(fx) + fusecl.exp(-fy) * 0.5  # lazy, float32 (NEP 50)
    return z.numpy()  # one kernel, one download


t_np, want = best_time(with_numpy)
fusecl.reset_stats()
t_cl, got = best_time(with_fusecl)
kernels = fusecl.stats()["kernels_launched"] // 6
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
report(f"demo chain over {n} float32 (NumPy array in, NumPy array out)", t_cl, t_np, kernels)
fx = fusecl.asarray(x[:8])
print("\nthe kernel:\n" + fusecl.kernel_source(fusecl.sqrt(fx * fx + fx * fx) * fusecl.sin(fx) + fusecl.exp(-fx) * 0.5))
