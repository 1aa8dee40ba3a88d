"""Great-circle distances from one point to a million points (the haversine
formula): about twenty operations, fused into one kernel.

    PYTHONPATH=build/python python3 examples/python/haversine.py [n]
"""
import sys

import numpy as np

import fusecl
from _timing import best_time, report

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
rng = np.random.default_rng(1)
lat = rng.uniform(-90, 90, n)
lon = rng.uniform(-180, 180, n)
lat0, lon0 = 48.8566, 2.3522  # Paris
R = 6371.0  # km


def haversine(xp, lat, lon):
    # The same code for both: xp is numpy or fusecl.
    rad = np.pi / 180
    dlat = (lat - lat0) * rad
    dlon = (lon - lon0) * rad
    a = xp.sin(dlat / 2) ** 2 + np.cos(lat0 * rad) * xp.cos(lat * rad) * xp.sin(dlon / 2) ** 2
    return 2 * R * xp.arcsin(xp.sqrt(a))


t_np, want = best_time(lambda: haversine(np, lat, lon))
flat, flon = fusecl.asarray(lat), fusecl.asarray(lon)
fusecl.reset_stats()
t_cl, got = best_time(lambda: haversine(fusecl, flat, flon).numpy())
kernels = fusecl.stats()["kernels_launched"] // 6
np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-6)
report(f"haversine over {n} float64 points (inputs on the device, result downloaded)", t_cl, t_np, kernels)
print(f"  nearest {got.min():.1f} km, farthest {got.max():.1f} km")
