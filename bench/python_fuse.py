"""Black-Scholes written in Python with the rate and the volatility as Python
number arguments, the way a NumPy user writes it: fusecl.fuse (a replay per
call, the numbers filled into the plan's scalar slots) beside the same
function evaluated unfused (the graph built each call), cupy.fuse where CuPy
is installed, and NumPy on the host. Float32 inputs already on the device;
each call waits for the device (fusecl.finish, CuPy's synchronize), so the
times are wall clock per call, Python included. Each result is checked: fuse
against unfused bit for bit and NumPy within 1e-4; cupy.fuse's error against
NumPy is printed. A second fusecl.fuse row passes the numbers as np.float32
scalars (strong: float32 arithmetic, their own signature).

    PYTHONPATH=build/python python3 bench/python_fuse.py [log2 sizes, default 16 21]
"""
import sys

import numpy as np

import fusecl
from python_overhead import per_call  # this folder's: median of 5 rounds, seconds per call

RATE, VOLATILITY = 0.02, 0.30
# NumPy 2's promotion (NEP 50) on NumPy 1.24 too: there np.float32 * 0.5 would
# otherwise be float64, and the np.float32 row would time float64 arithmetic.
if hasattr(np, "_set_promotion_state"):
    np._set_promotion_state("weak")


def black_scholes(m, spot, strike, years, rate, vol):
    # bench/workloads.py's black_scholes, with the rate and volatility as arguments
    vol_sqrt_t = vol * m.sqrt(years)
    d1 = (m.log(spot / strike) + (rate + 0.5 * vol * vol) * years) / vol_sqrt_t
    d2 = d1 - vol_sqrt_t

    def normal_cdf(d):
        k = 1.0 / (1.0 + 0.2316419 * m.abs(d))
        poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
        upper = 0.39894228040143267794 * m.exp(-0.5 * d * d) * poly
        return m.where(d < 0.0, upper, 1.0 - upper)

    n1, n2 = normal_cdf(d1), normal_cdf(d2)
    discounted = strike * m.exp(-rate * years)
    return spot * n1 - discounted * n2, discounted * (1.0 - n2) - spot * (1.0 - n1)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [16, 21]
    dev = fusecl.default_device()
    print(f"device: {dev.info['name']} ({dev.info['type']}); Black-Scholes, float32, rate and volatility as Python floats")
    try:
        import cupy as cp
    except ImportError:
        cp = None
    fused = fusecl.fuse(lambda s, k, t, r, v: black_scholes(fusecl, s, k, t, r, v))
    cfused = cp.fuse(kernel_name="python_fuse_bs")(lambda s, k, t, r, v: black_scholes(cp, s, k, t, r, v)) if cp else None
    rng = np.random.default_rng(13)
    for log2 in sizes:
        n = 1 << log2
        host = [rng.uniform(lo, hi, n).astype(np.float32) for lo, hi in [(5, 30), (1, 100), (0.25, 10)]]
        args = [fusecl.asarray(h) for h in host]
        fusecl.eval(*args)
        # Every way gets other numbers than the first call's, and is checked.
        want = black_scholes(np, *host, np.float32(0.05), np.float32(0.25))
        got = fused(*args, 0.05, 0.25)
        plain = black_scholes(fusecl, *args, 0.05, 0.25)
        fusecl.eval(*plain)
        for g, p, w in zip(got, plain, want):
            assert np.array_equal(g.numpy(), p.numpy()), "fuse and unfused differ"
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-4, atol=1e-3)

        # The numbers as NumPy scalars (rates[i] of a float32 ndarray): strong, float32 arithmetic.
        np_rate, np_vol = np.float32(RATE), np.float32(VOLATILITY)
        got = fused(*args, np.float32(0.05), np.float32(0.25))
        plain = black_scholes(fusecl, *args, np.float32(0.05), np.float32(0.25))
        fusecl.eval(*plain)
        for g, p in zip(got, plain):
            assert np.array_equal(g.numpy(), p.numpy()), "fuse and unfused differ (NumPy scalars)"

        def fuse_call():
            fused(*args, RATE, VOLATILITY)
            fusecl.finish()

        def fuse_numpy_call():
            fused(*args, np_rate, np_vol)
            fusecl.finish()

        def eval_call():
            fusecl.eval(*black_scholes(fusecl, *args, RATE, VOLATILITY))
            fusecl.finish()

        rows = [("fusecl.fuse", per_call(fuse_call)), ("fusecl.fuse, np.float32 numbers", per_call(fuse_numpy_call)),
                ("fusecl eval", per_call(eval_call))]
        if cp is not None:
            cargs = [cp.asarray(h) for h in host]
            # Reported, not asserted: on an H200 (CuPy 14.2) cupy.fuse with
            # float arguments was 4e-4 off where CuPy unfused, and cupy.fuse
            # with the numbers written in, were 2e-5 off.
            err = max(float(np.max(np.abs(cp.asnumpy(g).astype(np.float64) - w) / (np.abs(w) + 1e-3)))
                      for g, w in zip(cfused(*cargs, 0.05, 0.25), want))
            print(f"2^{log2}: cupy.fuse's largest error against NumPy: {err:.2g} (relative)")

            def cupy_call():
                cfused(*cargs, RATE, VOLATILITY)
                cp.cuda.Stream.null.synchronize()

            rows.append(("cupy.fuse", per_call(cupy_call)))
        if log2 <= 16:
            rows.append(("NumPy (host)", per_call(lambda: black_scholes(np, *host, RATE, VOLATILITY))))
        print(f"2^{log2}: " + "; ".join(f"{name} {t * 1e6:.1f} us" for name, t in rows))
    info = fused.info()
    print(f"fuse: {info['traces']} traces, {info['replays']} replays, {info['unreplayed']} unreplayed")


if __name__ == "__main__":
    main()
