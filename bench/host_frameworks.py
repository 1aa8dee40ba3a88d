#!/usr/bin/python3
"""fusecl-bench's workloads in NumPy and numexpr on the host CPU, checked against fusecl.

What a NumPy user would otherwise run, on the same machine, the same float32
inputs (bit for bit: bench/workloads.py makes fusecl-bench's), the same sizes,
in the same run as fusecl-bench (bench/compare.sh runs the two back to back).
Each case is run once untimed, its results checked against fusecl's (the
fingerprints fusecl-bench --check_out wrote; bench/fusecl_check.py), then
timed call by call: wall clock, mean over calls, at least 3 calls and
--min-time seconds, as Google Benchmark times fusecl. A wrong answer is
recorded as that case's error, and the exit status is 1.

  numpy    the workload as a NumPy user writes it: one ufunc call and one
           temporary array per operation, float32 throughout; single-threaded
  numexpr  numexpr.evaluate for the elementwise work (multi-threaded, blocked;
           float constants passed as float32 variables, since a float literal
           would make numexpr compute and return float64); reductions and
           random numbers with NumPy, because numexpr has no max, its sum() is
           single-threaded and sums float32 naively (0.3% off at 2^22 floats,
           which fails the check), and it has no random numbers

  host_frameworks.py --like RUN.json --check CHECK.jsonl --out HOST.json
      The cases of a fusecl-bench JSON file; JSON for bench/report.py.
  host_frameworks.py --short [--bench build/bench/fusecl-bench]
      The test: runs fusecl-bench itself (fused_device of all thirteen workloads at
      2^10 and 2^14), then NumPy and numexpr on those cases, and checks them
      against fusecl. Prints a table; no timing is judged. Exit 0 when all agree.

Run it with a python3 that has NumPy (Debian: /usr/bin/python3 with
python3-numpy and python3-numexpr, scripts/setup.sh --bench); numexpr is
optional and skipped with a message when missing.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fusecl_check  # noqa: E402
from workloads import (EARTH_RADIUS_KM, EXPRESSIONS, INPUTS, cases_like, POLY, RATE, ROW_NORM_EPS,  # noqa: E402
                       VOLATILITY, WORKLOADS, as_tuple, fusecl_inputs, numpy_namespace)

SHORT_SIZES = (10, 14)


class Unavailable(Exception):
    pass


class NumpyWay:
    key = "numpy"

    def __init__(self, np):
        self.np = np

    def version(self):
        return f"numpy {self.np.__version__}"

    def make(self, workload, n):
        expr = EXPRESSIONS[workload]
        if workload == "monte_carlo_pi":
            ns = numpy_namespace(self.np, self.np.random.default_rng(1))
            return lambda: expr(ns, n)
        ns = numpy_namespace(self.np)
        return lambda *xs: expr(ns, *xs)


class NumexprWay:
    key = "numexpr"

    def __init__(self, np):
        try:
            import numexpr
        except ImportError as e:
            raise Unavailable(f"numexpr not importable by {sys.executable} ({e}); Debian: apt-get install python3-numexpr")
        self.np, self.ne = np, numexpr
        f32 = np.float32
        # Every constant as a float32 variable (a literal 0.5 would be float64 to numexpr).
        self.c = {"two": f32(2), "one": f32(1), "half": f32(0.5), "a": f32(2.5), "vol": f32(VOLATILITY),
                  "mrate": f32(-RATE), "mu": f32(RATE + 0.5 * VOLATILITY * VOLATILITY), "p": f32(0.2316419),
                  "b1": f32(0.319381530), "b2": f32(-0.356563782), "b3": f32(1.781477937), "b4": f32(-1.821255978),
                  "b5": f32(1.330274429), "isq": f32(0.39894228040143267794), "mhalf": f32(-0.5),
                  "diameter": f32(2.0 * EARTH_RADIUS_KM), "eps": f32(ROW_NORM_EPS)}
        self.c.update({f"p{k}": f32(v) for k, v in enumerate(POLY)})
        self.poly = "x * p10 + p9"
        for k in range(8, -1, -1):
            self.poly = f"({self.poly}) * x + p{k}"

    def version(self):
        return f"numexpr {self.ne.__version__} ({self.ne.nthreads} threads)"

    def ev(self, text, **arrays):
        return self.ne.evaluate(text, local_dict={**self.c, **arrays})

    def normal_cdf(self, d):
        k = self.ev("one / (one + p * abs(d))", d=d)
        upper = self.ev("isq * exp(mhalf * d * d) * (k * (b1 + k * (b2 + k * (b3 + k * (b4 + k * b5)))))", d=d, k=k)
        return self.ev("where(d < 0, upper, one - upper)", d=d, upper=upper)

    def black_scholes(self, s, k, t):
        vst = self.ev("vol * sqrt(t)", t=t)
        d1 = self.ev("(log(s / k) + mu * t) / vst", s=s, k=k, t=t, vst=vst)
        d2 = self.ev("d1 - vst", d1=d1, vst=vst)
        n1, n2 = self.normal_cdf(d1), self.normal_cdf(d2)
        dk = self.ev("k * exp(mrate * t)", k=k, t=t)
        return (self.ev("s * n1 - dk * n2", s=s, n1=n1, dk=dk, n2=n2),
                self.ev("dk * (one - n2) - s * (one - n1)", s=s, n1=n1, dk=dk, n2=n2))

    def softmax(self, x):
        m = x.max(axis=1, keepdims=True)
        e = self.ev("exp(x - m)", x=x, m=m)
        return self.ev("e / s", e=e, s=e.sum(axis=1, keepdims=True))

    def softmax_axis0(self, x):
        # Column max and sum with NumPy, as in softmax; numexpr broadcasts the (1, c) rows.
        m = x.max(axis=0, keepdims=True)
        e = self.ev("exp(x - m)", x=x, m=m)
        return self.ev("e / s", e=e, s=e.sum(axis=0, keepdims=True))

    def haversine(self, lat1, lon1, lat2, lon2):
        a = self.ev("sin((lat2 - lat1) * half) ** 2 + cos(lat1) * cos(lat2) * sin((lon2 - lon1) * half) ** 2",
                    lat1=lat1, lon1=lon1, lat2=lat2, lon2=lon2)
        return self.ev("diameter * arcsin(sqrt(where(a < one, a, one)))", a=a)

    def row_norm(self, x):
        # Row mean and variance with NumPy (numexpr has no axis reductions), as in softmax.
        m = x.mean(axis=1, keepdims=True)
        v = self.ev("(x - m) * (x - m)", x=x, m=m).mean(axis=1, keepdims=True)
        return self.ev("(x - m) / sqrt(v + eps)", x=x, m=m, v=v)

    def mean_std(self, x):
        mean = x.mean()
        return mean, self.np.sqrt(self.ev("(x - m) * (x - m)", x=x, m=mean).mean())

    def make(self, workload, n):
        ev, np = self.ev, self.np
        if workload == "monte_carlo_pi":
            rng = np.random.default_rng(1)
            return lambda: np.count_nonzero(ev("u * u + v * v <= one", u=rng.random(n, dtype=np.float32),
                                               v=rng.random(n, dtype=np.float32)))
        return {
            "chain2": lambda x: ev("x * two + one", x=x),
            "sqrt_sin_exp": lambda x, y: ev("sqrt(x * x + y * y) * sin(x) + exp(-y) * half", x=x, y=y),
            "poly20": lambda x: ev(self.poly, x=x),
            "black_scholes": self.black_scholes,
            "haversine": self.haversine,
            "saxpy": lambda x, y: ev("a * x + y", x=x, y=y),
            # numexpr reads the transposed view strided, block by block.
            "transpose_add": lambda x, y: ev("x + yt", x=x, yt=y.T),
            "softmax": self.softmax,
            "softmax_axis0": self.softmax_axis0,
            "row_norm": self.row_norm,
            "sum_squares": lambda x: ev("x * x", x=x).sum(),
            "mean_std": self.mean_std,
        }[workload]


def time_calls(fn, args, min_time):
    """(mean wall seconds per call, calls): at least 3 calls and min_time seconds."""
    calls, wall = 0, 0.0
    while calls < 3 or wall < min_time:
        t0 = time.perf_counter()
        fn(*args)
        wall += time.perf_counter() - t0
        calls += 1
    return wall / calls, calls


def run_case(np, way, workload, log2, inputs, line, min_time):
    n = 1 << log2
    entry = {"workload": workload, "framework": way.key, "log2": log2}
    try:
        fn = way.make(workload, n)
        got = as_tuple(fn(*inputs))  # the untimed first call
        problem = fusecl_check.results_problem(np, workload, n, line, got) if line else "fusecl has no result to check against"
        if problem:
            entry["error"] = f"wrong answer: {problem}" if line else problem
        else:
            entry["time_s"], entry["calls"] = time_calls(fn, inputs, min_time)
    except Exception as e:  # one case failing must not end the run
        entry["error"] = f"{type(e).__name__}: {str(e).strip()[:300]}"
    return entry


def cpu_name():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for text in f:
                if text.startswith("model name"):
                    return text.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run_fusecl_short(bench, folder):
    """fusecl-bench's fused_device at the short sizes; returns (json path, check path)."""
    run, check = os.path.join(folder, "run.json"), os.path.join(folder, "check.jsonl")
    cmd = [bench, f"--min_log2={SHORT_SIZES[0]}", f"--max_log2={SHORT_SIZES[-1]}",
           f"--log2_step={SHORT_SIZES[1] - SHORT_SIZES[0]}", "--benchmark_filter=^BM_[a-z0-9_]+/fused_device/",
           "--benchmark_min_time=0.01", "--benchmark_format=json", f"--benchmark_out={run}", f"--check_out={check}"]
    print("host_frameworks.py: running " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if r.returncode != 0:
        sys.exit(f"host_frameworks.py: {bench} failed with status {r.returncode}")
    return run, check


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--like", help="run the cases of this fusecl-bench JSON file")
    parser.add_argument("--check", help="fusecl-bench --check_out file to check results against")
    parser.add_argument("--out", help="JSON file to write (for bench/report.py)")
    parser.add_argument("--min-time", type=float, default=0.1, help="seconds of timed calls per case")
    parser.add_argument("--frameworks", default="numpy,numexpr")
    parser.add_argument("--short", action="store_true", help="the test: run fusecl-bench small, then check")
    parser.add_argument("--bench", default="build/bench/fusecl-bench", help="fusecl-bench for --short")
    args = parser.parse_args()

    try:
        import numpy as np
    except ImportError:
        sys.exit(f"host_frameworks.py: NumPy is not importable by {sys.executable}. On Debian install python3-numpy "
                 "(scripts/setup.sh --bench) and run this with /usr/bin/python3.")

    with tempfile.TemporaryDirectory() as tmp:
        if args.short:
            args.like, args.check = run_fusecl_short(args.bench, tmp)
            args.min_time = 0.0
        if not args.like or not args.check:
            parser.error("--like and --check are needed (or --short)")
        cases = cases_like(args.like)
        checks = fusecl_check.load(args.check)
        return run(np, args, cases, checks)


def run(np, args, cases, checks):
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    ways, skipped = [], []
    for cls in (NumpyWay, NumexprWay):
        if cls.key in args.frameworks.split(","):
            try:
                ways.append(cls(np))
            except Unavailable as e:
                skipped.append(f"{cls.key}: {e}")
                print(f"host_frameworks.py: skipping {cls.key}: {e}", file=sys.stderr)

    results, wrong = [], 0
    for workload, log2 in cases:
        inputs = fusecl_inputs(workload, log2, np)
        line = checks.get((workload, log2))
        problem = fusecl_check.inputs_problem(np, line, inputs) if line else None
        for way in ways:
            if problem:
                entry = {"workload": workload, "framework": way.key, "log2": log2,
                         "error": f"wrong answer: inputs differ from fusecl-bench's: {problem}"}
            else:
                entry = run_case(np, way, workload, log2, inputs, line, args.min_time)
            wrong += entry.get("error", "").startswith("wrong answer")
            results.append(entry)
            shown = f"{entry['time_s'] * 1e6:10.1f} us  checked" if "time_s" in entry else entry["error"]
            print(f"{workload:>15} 2^{log2:<2} {way.key:>8}: {shown}", file=sys.stderr)

    context = {
        "kind": "fusecl-host-frameworks",
        "date": started,
        "device": f"{cpu_name()}, {os.cpu_count()} CPUs (host)",
        "versions": ", ".join([w.version() for w in ways] + [f"python {platform.python_version()}"]),
        "command": " ".join(shlex.quote(a) for a in [sys.executable] + sys.argv),
        "load_avg": load,
        "checked_against": os.path.basename(args.check),
        "timing": "wall clock per call from host arrays to host results, mean over calls after one untimed call",
    }
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"context": context, "benchmarks": results, "skipped": skipped}, f, indent=2)
            f.write("\n")
    checked = sum("time_s" in r for r in results)
    print(f"host_frameworks.py: {checked} of {len(results)} results agree with fusecl's"
          + (f"; {wrong} WRONG" if wrong else ""), file=sys.stderr)
    unchecked = len(results) - checked - wrong
    if wrong or (args.short and (unchecked or not results)):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
