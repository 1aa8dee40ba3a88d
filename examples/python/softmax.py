"""A row softmax, exp(x - max) / sum(exp(x - max)) along the last axis: the
reductions cut it into three kernels (max, sum, the division), with no
intermediate array downloaded.

    PYTHONPATH=build/python python3 examples/python/softmax.py [rows] [cols]
"""
import sys

import numpy as np

import fusecl
from _timing import best_time, report

rows = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
cols = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
x = np.random.default_rng(2).standard_normal((rows, cols), dtype=np.float32) * 4


def softmax(xp, x):
    e = xp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


t_np, want = best_time(lambda: softmax(np, x))
fx = fusecl.asarray(x)
fusecl.reset_stats()
t_cl, got = best_time(lambda: softmax(fusecl, fx).numpy())
kernels = fusecl.stats()["kernels_launched"] // 6
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
assert np.allclose(got.sum(axis=1), 1, atol=1e-5)
report(f"row softmax of a {rows}x{cols} float32 matrix (input on the device, result downloaded)", t_cl, t_np, kernels)
