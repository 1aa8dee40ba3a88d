"""fusecl-bench's thirteen workloads for Python array libraries (bench/workloads.hpp is
the original; keep the two in step).

Each expression is written once against a namespace `m` of array functions
(sqrt, sin, cos, arcsin, exp, log, abs, where, minimum, transpose, rowmax,
rowsum, rowmean, rowvar, colmax, colsum, total, mean, std, count, uniform), so that NumPy, CuPy and PyTorch evaluate literally the same formula.
`fusecl_inputs` makes the very same float32 inputs fusecl-bench makes
(bench/case_data.cpp's SplitMix64), bit for bit, so results can be compared
with fusecl's (bench/fusecl_check.py).

Imported by bench/host_frameworks.py (NumPy, numexpr) and bench/gpu_frameworks.py
(CuPy, PyTorch); needs NumPy only in the functions that take `np`.
"""

import json
import math

INPUTS = {  # value range of each input array (workloads.hpp's InputRange)
    "chain2": [(-4, 4)],
    "sqrt_sin_exp": [(-4, 4), (-4, 4)],
    "poly20": [(-1, 1)],
    "black_scholes": [(5, 30), (1, 100), (0.25, 10)],
    "haversine": [(-1.5, 1.5), (-3.1, 3.1), (-1.5, 1.5), (-3.1, 3.1)],
    "saxpy": [(-4, 4), (-4, 4)],
    "transpose_add": [(-4, 4), (-4, 4)],
    "softmax": [(-4, 4)],
    "softmax_axis0": [(-4, 4)],
    "row_norm": [(-4, 4)],
    "sum_squares": [(-1, 1)],
    "mean_std": [(1, 3)],
    "monte_carlo_pi": [],
}
WORKLOADS = list(INPUTS)
# fusecl-bench's (rtol, atol): |got - want| <= atol + rtol*|want| passes.
TOLERANCE = {"chain2": (1e-6, 1e-6), "sqrt_sin_exp": (1e-5, 1e-5), "poly20": (1e-5, 1e-5),
             "black_scholes": (1e-4, 1e-3), "haversine": (1e-5, 10), "saxpy": (1e-6, 1e-6),
             "transpose_add": (1e-6, 1e-6), "softmax": (1e-4, 1e-7),
             "softmax_axis0": (1e-4, 1e-7), "row_norm": (1e-5, 1e-5),
             "sum_squares": (1e-4, 1e-6), "mean_std": (1e-4, 1e-6), "monte_carlo_pi": (1e-6, 2)}
POLY = [1.0 / math.factorial(k) for k in range(11)]
RATE, VOLATILITY = 0.02, 0.30
EARTH_RADIUS_KM = 6371.0
ROW_NORM_EPS = 1e-5
ELEMENTWISE = {"chain2", "sqrt_sin_exp", "poly20", "black_scholes", "haversine", "saxpy"}
# workloads.hpp's Layout: flat (n,) unless listed; TRANSPOSED: inputs with the shape reversed.
LAYOUT = {"softmax": "rows_of_1024", "softmax_axis0": "square", "row_norm": "rows_of_1024", "transpose_add": "square"}
TRANSPOSED = {"transpose_add": {1}}


def shape_of(workload, n):
    """The shape of the workload's arrays (and array results) at n = 2^log2 elements."""
    layout = LAYOUT.get(workload, "flat")
    if layout == "rows_of_1024":
        return (n // min(n, 1024), min(n, 1024))
    if layout == "square":
        log2 = n.bit_length() - 1
        return (1 << (log2 // 2), 1 << (log2 - log2 // 2))
    return (n,)


def input_shape(workload, n, i):
    """The shape of input i: the workload's, reversed where the input is transposed."""
    shape = shape_of(workload, n)
    return shape[::-1] if i in TRANSPOSED.get(workload, ()) else shape


def chain2(m, x):
    return x * 2.0 + 1.0


def sqrt_sin_exp(m, x, y):
    return m.sqrt(x * x + y * y) * m.sin(x) + m.exp(-y) * 0.5


def poly20(m, x):
    p = x * POLY[10] + POLY[9]
    for k in range(8, -1, -1):
        p = p * x + POLY[k]
    return p


def normal_cdf(m, d):  # Abramowitz-Stegun 26.2.17, as in workloads.hpp
    k = 1.0 / (1.0 + 0.2316419 * m.abs(d))
    poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))))
    upper = 0.39894228040143267794 * m.exp(-0.5 * d * d) * poly
    return m.where(d < 0.0, upper, 1.0 - upper)


def black_scholes(m, spot, strike, years):
    vol_sqrt_t = VOLATILITY * m.sqrt(years)
    d1 = (m.log(spot / strike) + (RATE + 0.5 * VOLATILITY * VOLATILITY) * years) / vol_sqrt_t
    d2 = d1 - vol_sqrt_t
    n1, n2 = normal_cdf(m, d1), normal_cdf(m, d2)
    discounted = strike * m.exp(-RATE * years)
    return spot * n1 - discounted * n2, discounted * (1.0 - n2) - spot * (1.0 - n1)


def haversine(m, lat1, lon1, lat2, lon2):
    """Great-circle distance in km; a clamped to 1, as in workloads.hpp (rounding
    can push it past 1 for nearly antipodal points, and arcsin would give NaN)."""
    sin_dlat = m.sin((lat2 - lat1) * 0.5)
    sin_dlon = m.sin((lon2 - lon1) * 0.5)
    a = sin_dlat * sin_dlat + m.cos(lat1) * m.cos(lat2) * sin_dlon * sin_dlon
    return (2.0 * EARTH_RADIUS_KM) * m.arcsin(m.sqrt(m.minimum(a, 1.0)))


def saxpy(m, x, y):
    return 2.5 * x + y


def transpose_add(m, x, y):
    return x + m.transpose(y)


def softmax(m, x):
    e = m.exp(x - m.rowmax(x))
    return e / m.rowsum(e)


def softmax_axis0(m, x):
    """Softmax of each column: reductions along the leading axis, kept as a row."""
    e = m.exp(x - m.colmax(x))
    return e / m.colsum(e)


def row_norm(m, x):
    """Layer norm without the affine part, spelled out (population variance)."""
    return (x - m.rowmean(x)) / m.sqrt(m.rowvar(x) + ROW_NORM_EPS)


def sum_squares(m, x):
    return m.total(x * x)


def mean_std(m, x):
    return m.mean(x), m.std(x)


def monte_carlo_pi(m, n):
    u, v = m.uniform(n), m.uniform(n)
    return m.count(u * u + v * v <= 1.0)


EXPRESSIONS = {f.__name__: f for f in (chain2, sqrt_sin_exp, poly20, black_scholes, haversine, saxpy, transpose_add,
                                       softmax, softmax_axis0, row_norm, sum_squares, mean_std, monte_carlo_pi)}


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def numpy_namespace(np, rng=None):
    """NumPy's functions under the names the expressions use (float32 stays float32:
    Python float constants are weak in NumPy 1.24's value-based casting and in NEP 50)."""
    return type("NumpyOps", (), dict(
        sqrt=staticmethod(np.sqrt), sin=staticmethod(np.sin), cos=staticmethod(np.cos),
        arcsin=staticmethod(np.arcsin), exp=staticmethod(np.exp), log=staticmethod(np.log),
        abs=staticmethod(np.abs), where=staticmethod(np.where), minimum=staticmethod(np.minimum),
        transpose=staticmethod(np.transpose),
        rowmax=staticmethod(lambda x: x.max(axis=1, keepdims=True)),
        rowsum=staticmethod(lambda x: x.sum(axis=1, keepdims=True)),
        rowmean=staticmethod(lambda x: x.mean(axis=1, keepdims=True)),
        rowvar=staticmethod(lambda x: x.var(axis=1, keepdims=True)),
        colmax=staticmethod(lambda x: x.max(axis=0, keepdims=True)),
        colsum=staticmethod(lambda x: x.sum(axis=0, keepdims=True)),
        total=staticmethod(lambda x: x.sum()), mean=staticmethod(lambda x: x.mean()),
        std=staticmethod(lambda x: x.std()), count=staticmethod(np.count_nonzero),
        uniform=staticmethod(lambda k: rng.random(k, dtype=np.float32))))


# ---- fusecl-bench's inputs, bit for bit ---------------------------------------------------

_GOLDEN = 0x9E3779B97F4A7C15
_CHUNK = 1 << 22  # bounds the uint64 temporaries at 2^26 elements


def _splitmix64_floats(np, seed, n, lo, hi):
    """bench/case_data.cpp's fill_uniform: state += golden; z = mix(state);
    u = (z >> 40) * 2^-24; value = lo + (hi - lo) * u, all in float32."""
    out = np.empty(n, dtype=np.float32)
    lo32, span32 = np.float32(lo), np.float32(hi) - np.float32(lo)
    scale = np.float32(2.0 ** -24)
    with np.errstate(over="ignore"):
        for start in range(0, n, _CHUNK):
            count = min(_CHUNK, n - start)
            i = np.arange(start + 1, start + count + 1, dtype=np.uint64)
            z = np.uint64(seed) + i * np.uint64(_GOLDEN)  # wraps modulo 2^64, as in C++
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            z = z ^ (z >> np.uint64(31))
            u = (z >> np.uint64(40)).astype(np.float32) * scale
            out[start:start + count] = lo32 + span32 * u
    return out


def fusecl_inputs(workload, log2, np):
    """The float32 inputs fusecl-bench uses for this case (seed log2 << 8 | input index)."""
    n = 1 << log2
    return [_splitmix64_floats(np, (log2 << 8) | i, n, lo, hi).reshape(input_shape(workload, n, i))
            for i, (lo, hi) in enumerate(INPUTS[workload])]


def cases_like(path):
    """(workload, log2) pairs of a fusecl-bench JSON file, in its order."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    out = []
    for b in doc.get("benchmarks", []):
        parts = b.get("run_name", b.get("name", "")).split("/")
        if len(parts) >= 3 and parts[0][3:] in INPUTS and parts[2].isdigit():
            case = (parts[0][3:], int(parts[2]))
            if case not in out:
                out.append(case)
    return out
