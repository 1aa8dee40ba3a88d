#!/usr/bin/env python3
"""Fits the float64 polynomial of codegen/helpers.cpp's fp64_trig.

sin y = y + y^3 P(y^2) on [-pi/2, pi/2], P of degree 5, minimizing the largest
relative error of sin by Lawson's iteration (weighted least squares that
converges to the minimax fit) on 4000 Chebyshev points. Prints P's
coefficients as C hex literals, lowest degree first, and the largest relative
error, which must stay far below float's half ulp (2^-25) for the result,
rounded once to float, to stay within 0.501 ulp. Needs NumPy only.

    python3 tools/fit_sin_poly.py [degree]
"""
import sys

import numpy as np


def fit(degree, half_width=np.pi / 2, points=4000, rounds=200):
    t = np.cos(np.pi * (np.arange(points) + 0.5) / points)
    y = (t + 1) / 2 * half_width
    y = y[y > 1e-4]  # below, float64 cancels most digits of sin(y)/y - 1, and P's share of sin y is under 1e-8
    z = y * y
    target = (np.sin(y) / y - 1) / z
    basis = np.vstack([z**k for k in range(degree + 1)]).T
    scale = y**3 / np.sin(y)  # turns P's error into sin's relative error
    weight = np.ones_like(z)
    for _ in range(rounds):
        w = weight * scale
        coef, *_ = np.linalg.lstsq(basis * w[:, None], target * w, rcond=None)
        err = (basis @ coef - target) * scale
        weight = weight * np.abs(err) ** 0.5
        weight /= weight.max()
    return coef, float(np.abs(err).max())


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    coef, err = fit(degree)
    print("P:", ", ".join(float(c).hex() for c in coef))
    print(f"largest relative error of sin: {err:.3g} (2^{np.log2(err):.1f})")


if __name__ == "__main__":
    main()
