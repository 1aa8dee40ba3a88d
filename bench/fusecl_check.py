"""Checks another implementation's results against fusecl's, case by case.

fusecl-bench --check_out=FILE writes one JSON line per case (bench/check_log.hpp):
samples of each input and, for each result, its element count, sum, sum of
magnitudes and samples at fixed indices. Here the same fingerprint is taken of
a Python library's results and the two are compared: inputs exactly (so a
difference is the computation's, never the data's), results within twice
fusecl-bench's tolerance for the workload (both sides are within one tolerance
of the C++ loop's float32 answer; this is the triangle), sums within the sum
of the per-element bounds. Monte Carlo draws different random numbers in each
library, so only the estimate of pi/4 is compared, within 6 standard deviations
of the difference of two estimates.
"""

import json
import math

from workloads import TOLERANCE


def load(path):
    """{(workload, log2): line} of a check file."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            if text.strip():
                try:
                    line = json.loads(text)
                except json.JSONDecodeError as e:
                    raise ValueError(f"{path}:{number}: not JSON ({e})") from None
                out[(line["workload"], int(line["log2"]))] = line
    return out


def sample_indices(n, k=97):
    """check_log.cpp's sample_indices."""
    if n <= k:
        return list(range(n))
    return [j * (n - 1) // (k - 1) for j in range(k)]


def _flat(np, a):
    return np.asarray(a).ravel()


def inputs_problem(np, line, inputs):
    """None when the inputs equal fusecl-bench's at every sampled element."""
    if len(line["inputs"]) != len(inputs):
        return f"{len(inputs)} inputs, fusecl-bench had {len(line['inputs'])}"
    for i, (want, a) in enumerate(zip(line["inputs"], inputs)):
        flat = _flat(np, a)
        if flat.size != want["n"]:
            return f"input {i} has {flat.size} elements, fusecl-bench's {want['n']}"
        got = [float(flat[j]) for j in sample_indices(flat.size)]
        if got != [float(v) for v in want["samples"]]:
            j = next(k for k, (g, w) in enumerate(zip(got, want["samples"])) if g != w)
            return f"input {i} differs from fusecl-bench's at sample {j}: {got[j]!r} against {want['samples'][j]!r}"
    return None


def _close(got, want, rtol, atol):
    if want is None or got is None or math.isnan(got):
        return (want is None) == (got is None or math.isnan(got) or math.isinf(got))
    return abs(got - want) <= atol + rtol * abs(want)


def results_problem(np, workload, n, line, results):
    """None when `results` (arrays or scalars, in fusecl's order) agree with fusecl's; else what differs."""
    want_all = line["results"]
    if len(results) != len(want_all):
        return f"{len(results)} results, fusecl has {len(want_all)}"
    if workload == "monte_carlo_pi":
        ours = float(_flat(np, results[0]).astype(np.float64).sum()) / n
        theirs = want_all[0]["sum"] / n
        sigma = math.sqrt(max(theirs * (1 - theirs), 1e-12) / n)
        if abs(ours - theirs) <= 6 * math.sqrt(2) * sigma + 2.0 / n:
            return None
        return f"fraction inside {ours:.6f}, fusecl's {theirs:.6f} (more than 6 standard deviations apart)"
    rtol, atol = (2 * t for t in TOLERANCE[workload])
    for r, (want, got) in enumerate(zip(want_all, results)):
        flat = _flat(np, got).astype(np.float64)
        if flat.size != want["n"]:
            return f"result {r} has {flat.size} elements, fusecl's {want['n']}"
        for j, w in zip(sample_indices(flat.size), want["samples"]):
            g = float(flat[j])
            if not _close(g, w, rtol, atol):
                return f"result {r} element {j} is {g!r}, fusecl's {w!r} (rtol {rtol:g}, atol {atol:g})"
        total = float(flat.sum())
        bound = atol * flat.size + rtol * (want["abs_sum"] or 0.0)
        if want["sum"] is not None and not _close(total, want["sum"], 0.0, bound):
            return f"result {r} sums to {total!r}, fusecl's to {want['sum']!r} (allowed difference {bound:.3g})"
    return None
