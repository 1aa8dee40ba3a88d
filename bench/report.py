#!/usr/bin/env python3
"""fusecl-bench JSON (with host_frameworks.py's and gpu_frameworks.py's) to Markdown tables and charts.

  report.py slug FILE
      Prints the device slug of a fusecl-bench JSON file (the name its
      results are kept under: bench/results/<slug>.json).
  report.py stamp FILE KEY=VALUE...
      Adds entries to the file's "context" (compare.sh records its command
      and the git commit this way).
  report.py table [--out FILE] [--plot-dir DIR] [--summary-only] FILE...
      One section per fusecl-bench file, with the NumPy/numexpr file
      (<slug>.host.json) and the CUDA frameworks file (<slug>.frameworks.json)
      of the same device merged in; Markdown to --out (or stdout), and with
      --plot-dir a chart speedup_<slug>.png per section (gnuplot): fusecl's
      speedup over NumPy by size, device-resident and end to end.

Standard library only: the GPU machines that run this have python3 but
nothing else can be assumed.
"""

import argparse
import glob
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_plot  # noqa: E402

WAYS = ["cpp_loop", "device_eager", "fused_device", "fuse_device", "fused_e2e", "host_view"]
OLD_WAY_NAMES = {"host_eager": "cpp_loop"}  # result files written before the C++ loop was named for what it is
FRAMEWORKS = [("cupy", "CuPy"), ("cupy_fuse", "cupy.fuse"), ("torch", "torch"), ("torch_compile", "torch.compile")]
HOST_FRAMEWORKS = [("numpy", "NumPy"), ("numexpr", "numexpr")]
UNIT_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def slugify(text):
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:48].rstrip("-") or "device"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def is_frameworks(doc):
    return doc.get("context", {}).get("kind") == "fusecl-gpu-frameworks"


def is_host_frameworks(doc):
    return doc.get("context", {}).get("kind") == "fusecl-host-frameworks"


# ---- reading fusecl-bench results ------------------------------------------------------


class Result:
    def __init__(self, seconds=None, counters=None, error=None):
        self.seconds = seconds
        self.counters = counters or {}
        self.error = error


def parse_name(run_name):
    """BM_<workload>/<way>/<log2>[/real_time] -> (workload, way, log2), or None."""
    parts = run_name.split("/")
    if len(parts) < 3 or not parts[0].startswith("BM_"):
        return None
    try:
        return parts[0][3:], OLD_WAY_NAMES.get(parts[1], parts[1]), int(parts[2])
    except ValueError:
        return None


def fusecl_results(doc):
    """{(workload, log2): {way: Result}} from Google Benchmark JSON. With
    repetitions, the median aggregate (or the median of the repetitions)."""
    entries = {}
    medians = {}
    for b in doc.get("benchmarks", []):
        key = parse_name(b.get("run_name", b.get("name", "")))
        if key is None:
            continue
        if b.get("error_occurred"):
            entries.setdefault(key, []).append(Result(error=b.get("error_message", "error")))
            continue
        seconds = b["real_time"] * UNIT_SECONDS[b.get("time_unit", "ns")]
        counters = {k: v for k, v in b.items() if isinstance(v, (int, float))}
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                medians[key] = Result(seconds, counters)
        else:
            entries.setdefault(key, []).append(Result(seconds, counters))
    out = {}
    for key in dict.fromkeys(list(entries) + list(medians)):  # run order, each once
        workload, way, log2 = key
        runs = entries.get(key, [])
        if key in medians:
            r = medians[key]
        elif any(x.error for x in runs):
            r = next(x for x in runs if x.error)
        else:
            r = sorted(runs, key=lambda x: x.seconds)[len(runs) // 2]
        out.setdefault((workload, log2), {})[way] = r
    return out


def frameworks_results(doc):
    """{(workload, log2): {framework: seconds or error text}}."""
    out = {}
    for b in doc.get("benchmarks", []):
        value = b.get("error") or b.get("time_s")
        out.setdefault((b["workload"], int(b["log2"])), {})[b["framework"]] = value
    return out


# ---- formatting ---------------------------------------------------------------------


def fmt_time(s):
    if s is None:
        return "—"
    if isinstance(s, str):
        return "error"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def fmt_ratio(a, b):
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or b <= 0:
        return "—"
    r = a / b
    return f"{r:.3g}×" if r < 100 else f"{r:.0f}×"


def fmt_bytes_rate(bps):
    return "—" if bps is None else f"{bps / 1e9:.3g} GB/s"


def fmt_percent(fraction):
    if fraction is None:
        return "—"
    p = 100 * fraction
    return f"{p:.0f}%" if p >= 10 else f"{p:.2g}%"


def fmt_count(x):
    if x is None:
        return "—"
    return f"{x:.0f}" if abs(x - round(x)) < 1e-6 else f"{x:.2f}"


def cell_time(r):
    if r is None:
        return "—"
    return "error" if r.error else fmt_time(r.seconds)


def md_table(header, rows, numeric=True):
    """A Markdown table; with `numeric`, every column but the first is right-aligned."""
    align = lambda i: "---:" if numeric and i else "---"
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align(i) for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# ---- one device's section -------------------------------------------------------------


class Section:
    def __init__(self, path, doc, frameworks=None, host=None):
        self.path = path
        self.ctx = doc.get("context", {})
        self.results = fusecl_results(doc)
        self.frameworks = frameworks  # (path, doc) of gpu_frameworks.py, or None
        self.fw = frameworks_results(frameworks[1]) if frameworks else {}
        self.host_doc = host  # (path, doc) of host_frameworks.py, or None
        self.host = frameworks_results(host[1]) if host else {}
        self.device = self.ctx.get("fusecl_device", "unknown device")
        self.slug = slugify(self.device)
        self.copy_bw = float(self.ctx.get("fusecl_copy_bandwidth_Bps", "nan"))

    def workloads(self):
        """Workload names in the order they ran (the suite's order)."""
        names = []
        for (w, _), ways in self.results.items():
            if w not in ("copy", "overhead") and w not in names and any(k in WAYS for k in ways):
                names.append(w)
        return names

    def sizes(self, workload):
        return sorted(l for (w, l) in self.results if w == workload)

    def fw_columns(self):
        present = {f for v in self.fw.values() for f in v}
        return [(k, label) for k, label in FRAMEWORKS if k in present]

    def host_columns(self):
        present = {f for v in self.host.values() for f in v}
        return [(k, label) for k, label in HOST_FRAMEWORKS if k in present]

    def host_time(self, workload, log2, key):
        """NumPy's or numexpr's seconds, or None (absent or failed)."""
        v = self.host.get((workload, log2), {}).get(key)
        return v if isinstance(v, (int, float)) else None

    def stats_for(self, workload, log2):
        ways = self.results.get((workload, log2), {})
        get = lambda w: ways.get(w)
        t = {w: (get(w).seconds if get(w) and not get(w).error else None) for w in WAYS}
        for key, _ in HOST_FRAMEWORKS:
            t[key] = self.host_time(workload, log2, key)
        fused = get("fused_device")
        counters = fused.counters if fused and not fused.error else {}
        eager = get("device_eager")
        ideal = counters.get("ideal_B")
        # A workload that reads no inputs (Monte Carlo) has no meaningful bandwidth.
        bw = counters.get("eff_bw") if ideal is not None and ideal >= (1 << log2) else None
        return {
            "t": t,
            "ways": ways,
            "kernels_eager": eager.counters.get("kernels") if eager and not eager.error else None,
            "kernels_fused": counters.get("kernels"),
            "bw": bw,
            "of_copy": counters.get("of_copy") if bw is not None else None,
            # End to end: the pinned bus's time for the bytes moved over the time taken.
            "of_bus": (ways["fused_e2e"].counters.get("of_bus")
                       if ways.get("fused_e2e") and not ways["fused_e2e"].error else None),
            "of_bus_hv": (ways["host_view"].counters.get("of_bus")
                          if ways.get("host_view") and not ways["host_view"].error else None),
        }

    def pays_off_from(self, workload, baseline, way):
        """The smallest size from which `way` is faster than `baseline` at that size
        and every larger one measured: "2^k", "no" (slower at the largest) or "—"."""
        answer = "—"
        for log2 in reversed(self.sizes(workload)):
            t = self.stats_for(workload, log2)["t"]
            if t[baseline] is None or t[way] is None:
                break
            if t[way] >= t[baseline]:
                return answer if answer != "—" else "no"
            answer = f"2^{log2}"
        return answer

    def header_lines(self):
        c = self.ctx
        cmd = c.get("compare_command")
        bench_cmd = c.get("fusecl_bench_command", "?")
        rows = [
            ("Device", f"{self.device} ({c.get('fusecl_device_type', '?')}, {c.get('fusecl_device_vendor', '?')}, "
                       f"{c.get('fusecl_compute_units', '?')} compute units)"),
            ("Platform", c.get("fusecl_platform", "?")),
            ("Driver", c.get("fusecl_driver", "?")),
            ("Date", c.get("date", "?")),
            ("Command", (f"`{cmd}`, which ran " if cmd else "") + f"`{bench_cmd}`"),
            ("Commit", c.get("git_commit", "not recorded")),
            ("Host", f"{c.get('host_name', '?')}, {c.get('num_cpus', '?')} CPUs at {c.get('mhz_per_cpu', '?')} MHz, "
                     f"load average {', '.join(f'{x:.2f}' for x in c.get('load_avg', [])) or '?'} at start"),
            ("Copy bandwidth", f"{fmt_bytes_rate(self.copy_bw)} ({c.get('fusecl_copy_bandwidth_at', '?')}; "
                               f"best of 7 batches): the 100% of \"% copy\""),
            ("Bus", (f"pinned write {fmt_bytes_rate(float(c['fusecl_bus_pinned_write_Bps']))}, read "
                     f"{fmt_bytes_rate(float(c['fusecl_bus_pinned_read_Bps']))}; pageable write "
                     f"{fmt_bytes_rate(float(c['fusecl_bus_pageable_write_Bps']))}, read "
                     f"{fmt_bytes_rate(float(c['fusecl_bus_pageable_read_Bps']))} ({c.get('fusecl_bus_at', '?')}): "
                     "the 100% of \"e2e % of bus\"") if "fusecl_bus_pinned_write_Bps" in c else "not measured"),
            ("Sizes", c.get("fusecl_sizes", "?")),
            ("Google Benchmark", f"library built as '{c.get('library_build_type', '?')}' (it only keeps time; "
                                 "the workloads are compiled by this build)"),
        ]
        if self.host_doc:
            h = self.host_doc[1].get("context", {})
            rows.append(("NumPy, numexpr", f"{h.get('device', '?')}; {h.get('versions', '?')}; {h.get('date', '?')}; "
                                           f"load average {h.get('load_avg', '?')} at start; `{h.get('command', '?')}`; "
                                           f"results checked against fusecl's ({h.get('checked_against', '?')})"))
            for note in self.host_doc[1].get("skipped", []):
                rows.append(("Skipped", note))
        if self.frameworks:
            f = self.frameworks[1].get("context", {})
            rows.append(("Frameworks", f"{f.get('device', '?')}, driver {f.get('driver', '?')}, CUDA {f.get('cuda', '?')}; "
                                       f"{f.get('versions', '?')}; {f.get('date', '?')}; `{f.get('command', '?')}`; "
                                       "their columns are wall-clock per call including the wait for the GPU"))
            skipped = self.frameworks[1].get("skipped", [])
            if skipped:
                rows.append(("Frameworks skipped", "; ".join(skipped)))
        return md_table(["", ""], rows, numeric=False)

    def largest(self):
        """(workload, largest log2) pairs."""
        return [(w, self.sizes(w)[-1]) for w in self.workloads() if self.sizes(w)]

    def numpy_table(self):
        """fusecl against NumPy and numexpr at the largest size: the headline."""
        rows = []
        for w, log2 in self.largest():
            t = self.stats_for(w, log2)["t"]
            rows.append([w, f"2^{log2}", fmt_time(t["numpy"]), fmt_time(t["numexpr"]), fmt_time(t["fused_device"]),
                         fmt_time(t["fused_e2e"]), fmt_ratio(t["numpy"], t["fused_device"]),
                         fmt_ratio(t["numpy"], t["fused_e2e"]), fmt_ratio(t["numexpr"], t["fused_device"]),
                         fmt_ratio(t["numexpr"], t["fused_e2e"]), self.pays_off_from(w, "numpy", "fused_device"),
                         self.pays_off_from(w, "numpy", "fused_e2e")])
        return md_table(["workload", "size", "NumPy", "numexpr", "fusecl device", "fusecl e2e", "device vs NumPy",
                         "e2e vs NumPy", "device vs numexpr", "e2e vs numexpr", "device faster than NumPy from",
                         "e2e faster than NumPy from"], rows)

    def gpu_table(self):
        """fusecl against the CUDA frameworks (and NumPy on the host) at the largest size."""
        fw_cols = self.fw_columns()
        rows = []
        for w, log2 in self.largest():
            t = self.stats_for(w, log2)["t"]
            fw = self.fw.get((w, log2), {})
            num = lambda k: fw.get(k) if isinstance(fw.get(k), (int, float)) else None
            rows.append([w, f"2^{log2}", fmt_time(t["numpy"]), fmt_time(t["fused_device"]), fmt_time(t["fuse_device"]),
                         fmt_time(t["fused_e2e"])] +
                        [fmt_time(fw.get(k)) for k, _ in fw_cols] +
                        [fmt_ratio(num(k), t["fused_device"]) for k, _ in fw_cols])
        return md_table(["workload", "size", "NumPy (host CPU)", "fusecl device", "fusecl fuse()", "fusecl e2e"] +
                        [label for _, label in fw_cols] + [f"fusecl vs {label}" for _, label in fw_cols], rows)

    def inside_table(self):
        """fusecl against its own unfused kernels and the scalar C++ loop."""
        rows = []
        for w, log2 in self.largest():
            s = self.stats_for(w, log2)
            t = s["t"]
            rows.append([w, f"2^{log2}", fmt_time(t["fused_device"]), fmt_ratio(t["device_eager"], t["fused_device"]),
                         fmt_ratio(t["cpp_loop"], t["fused_device"]),
                         f"{fmt_count(s['kernels_eager'])} → {fmt_count(s['kernels_fused'])}",
                         fmt_bytes_rate(s["bw"]), fmt_percent(s["of_copy"]), fmt_percent(s["of_bus"]),
                         fmt_percent(s["of_bus_hv"])])
        return md_table(["workload", "size", "fused device", "vs device eager", "vs scalar C++ loop",
                         "kernels (eager → fused)", "eff. bandwidth", "% copy", "e2e % of bus",
                         "host view % of bus"], rows)

    def workload_table(self, w):
        fw_cols = self.fw_columns()
        header = ["size", "NumPy", "numexpr", "C++ loop", "device eager", "fused device", "fuse()", "fused e2e", "host view", "dev. vs NumPy",
                  "e2e vs NumPy", "dev. vs numexpr", "vs dev. eager", "kernels", "eff. BW", "% copy"] + \
                 [label for _, label in fw_cols]
        rows = []
        for log2 in self.sizes(w):
            s = self.stats_for(w, log2)
            t, ways = s["t"], s["ways"]
            fw = self.fw.get((w, log2), {})
            host = self.host.get((w, log2), {})
            rows.append([f"2^{log2}", fmt_time(host.get("numpy")), fmt_time(host.get("numexpr"))] +
                        [cell_time(ways.get(x)) for x in WAYS] +
                        [fmt_ratio(t["numpy"], t["fused_device"]), fmt_ratio(t["numpy"], t["fused_e2e"]),
                         fmt_ratio(t["numexpr"], t["fused_device"]), fmt_ratio(t["device_eager"], t["fused_device"]),
                         f"{fmt_count(s['kernels_eager'])} → {fmt_count(s['kernels_fused'])}",
                         fmt_bytes_rate(s["bw"]), fmt_percent(s["of_copy"])] +
                        [fmt_time(fw.get(k)) for k, _ in fw_cols])
        return md_table(header, rows)

    def copy_table(self):
        rows = []
        for (w, log2), ways in sorted(self.results.items(), key=lambda kv: kv[0][1]):
            r = ways.get("opencl_kernel")
            if w == "copy" and r:
                rows.append([f"2^{log2}", cell_time(r), fmt_bytes_rate(None if r.error else r.counters.get("eff_bw"))])
        return md_table(["size", "time", "bandwidth (read + write)"], rows) if rows else ""

    def overhead_table(self):
        rows = []
        for (w, log2), ways in sorted(self.results.items()):
            if w != "overhead":
                continue
            for way, r in sorted(ways.items()):
                if r.error:
                    rows.append([way, f"2^{log2}", "error", "—"])
                    continue
                per_s = r.counters.get("items_per_second")
                rows.append([way, f"2^{log2}", f"{per_s:,.0f}" if per_s else "—", fmt_time(1 / per_s) if per_s else "—"])
        return md_table(["variant", "size", "evaluations / s", "time per evaluation"], rows) if rows else ""

    def errors(self):
        out = []
        for (w, log2), ways in sorted(self.results.items()):
            for way, r in ways.items():
                if r.error:
                    out.append(f"- BM_{w}/{way}/{log2}: {r.error}")
        for table in (self.host, self.fw):
            for (w, log2), fws in sorted(table.items()):
                for fw, value in fws.items():
                    if isinstance(value, str):
                        out.append(f"- {fw} {w} 2^{log2}: {value}")
        return out

    def markdown(self, plot_name=None, summary_only=False):
        # A run stamped with the machine it ran on (report.py stamp FILE machine=...)
        # says so in its heading: PoCL on two machines has one device name.
        machine = self.ctx.get("machine")
        parts = [f"## {self.device}" + (f", {machine}" if machine else ""), "", self.header_lines(), ""]
        if self.host:
            parts += ["### fusecl against NumPy and numexpr, at the largest size", "",
                      "Ratios are NumPy's (numexpr's) time over fusecl's: above 1× fusecl is faster, below 1× slower. "
                      "\"device\": fusecl's inputs already on the device, results left there; \"e2e\": from host "
                      "arrays to host results, uploads and downloads included (what NumPy's times always include). "
                      "\"faster from\": the smallest size from which fusecl is faster at every larger size measured.",
                      "", self.numpy_table(), ""]
        if self.fw:
            parts += ["### fusecl against CUDA frameworks, at the largest size", "", self.gpu_table(), ""]
        parts += ["### Inside fusecl: fused against one kernel per operation and the scalar C++ loop", "",
                  self.inside_table(), ""]
        if plot_name:
            parts += [f"![fusecl speedup on {self.device}]({plot_name})", ""]
        if summary_only:
            return "\n".join(parts)
        for w in self.workloads():
            formula = self.ctx.get(f"fusecl_workload:{w}", "")
            parts += [f"### {w}" + (f": `{formula}`" if formula else ""), "", self.workload_table(w), ""]
        copy = self.copy_table()
        if copy:
            parts += ["### Copy kernel (the baseline)", "", copy, ""]
        overhead = self.overhead_table()
        if overhead:
            parts += ["### Host overhead: `x*2 + 1` on 1024 floats, kernel cached", "",
                      "sync: eval + finish per evaluation; async: 64 evaluations per finish.", "", overhead, ""]
        errors = self.errors()
        if errors:
            parts += ["### Errors", ""] + errors + [""]
        return "\n".join(parts)

    def speedup_series(self):
        """{panel title: {workload: [(log2, speedup)]}} for the chart: over NumPy
        (device-resident and end to end) when NumPy ran, else over the C++ loop
        and over device eager."""
        if self.host:
            panels = [("device-resident: NumPy time / fusecl fused_device", "numpy", "fused_device"),
                      ("end to end (host arrays in and out): NumPy time / fusecl fused_e2e", "numpy", "fused_e2e")]
        else:
            panels = [("over the scalar C++ loop (one loop + temporary per op)", "cpp_loop", "fused_device"),
                      ("over device eager (fusion off: one kernel per op)", "device_eager", "fused_device")]
        out = {}
        for title, base, way in panels:
            series = out.setdefault(title, {})
            for w in self.workloads():
                for log2 in self.sizes(w):
                    t = self.stats_for(w, log2)["t"]
                    value = t[base] / t[way] if t[base] and t[way] else math.nan
                    series.setdefault(w, []).append((log2, value))
        return out


# ---- commands -------------------------------------------------------------------------


def same_device_file(path, doc, docs, suffix, device_key):
    """The file of `docs` kept as <stem>.<suffix>.json beside <stem>.json, else
    one whose context names the same device."""
    stem = os.path.splitext(path)[0]
    for fpath, fdoc in docs:
        if fpath.endswith(f".{suffix}.json") and fpath[:-len(f".{suffix}.json")] == stem:
            return fpath, fdoc
    name = doc.get("context", {}).get("fusecl_device", "").strip().lower()
    for fpath, fdoc in docs:
        if device_key and fdoc.get("context", {}).get(device_key, "").strip().lower() == name:
            return fpath, fdoc
    return None


PREAMBLE = """# fusecl benchmark results

Written by `bench/report.py` from `bench/results/*.json`; regenerate with
`bench/compare.sh` (see `bench/README.md` for what each way and counter means).
Each device's section leads with fusecl against what a user would otherwise
run: NumPy and numexpr on the same machine, in the same run, on the same
float32 inputs, their results checked against fusecl's.

- **NumPy**: the workload as a NumPy user writes it, float32, one temporary per operation (single-threaded).
- **numexpr**: `numexpr.evaluate` for the elementwise work (all cores), NumPy for reductions and random numbers.
- **C++ loop**: one scalar C++ loop and one temporary array per operation, single-threaded: NumPy's evaluation
  model without its SIMD math (several times slower than NumPy); the reference every fusecl result is checked against.
- **device eager**: fusecl with fusion off: one kernel and one intermediate buffer per operation; inputs on the device.
- **fused device**: fusecl, fused; inputs on the device, results left there; building the expression, `eval` and `finish` timed.
- **fused e2e**: fusecl, fused, from host vectors to host vectors: uploads and downloads timed (NumPy's times are e2e by nature).
- **vs X** = X's time / fusecl's: above 1× fusecl is faster.
- **kernels**: launched per evaluation, device eager → fused device.
- **eff. BW**: bytes a perfect implementation moves (inputs read once, results written once) / fused device time;
  **% copy**: that against the device's copy bandwidth measured in the same run. Both are "—" where nothing is read.

Times are wall-clock per evaluation: Google Benchmark's `real_time` for fusecl and the C++ loop, the mean over the
iterations of one run; the mean over at least 3 calls and the same minimum time for NumPy and numexpr.
"""


# The line from which a results file is written by hand (each session's
# measurements and what they mean): `table --out` keeps it and all after it
# as they are, so that regenerating the tables (bench/compare.sh) loses none
# of them.
KEPT_MARKER = "<!-- Written by hand from here on: bench/report.py keeps this line and what follows. -->"


def kept_part(path):
    """The part of the file at `path` from KEPT_MARKER on ("" if none)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return ""
    at = text.find(KEPT_MARKER)
    return text[at:].rstrip() + "\n" if at >= 0 else ""


def cmd_table(args):
    docs = [(p, load(p)) for p in args.files]
    framework_docs = [(p, d) for p, d in docs if is_frameworks(d)]
    host_docs = [(p, d) for p, d in docs if is_host_frameworks(d)]
    sections = [Section(p, d, same_device_file(p, d, framework_docs, "frameworks", "device"),
                        same_device_file(p, d, host_docs, "host", None))
                for p, d in docs if not is_frameworks(d) and not is_host_frameworks(d)]
    # Devices measured beside NumPy lead: that comparison is what the file is for.
    sections.sort(key=lambda s: s.host_doc is None)
    used = {s.frameworks[0] for s in sections if s.frameworks} | {s.host_doc[0] for s in sections if s.host_doc}
    for p, _ in framework_docs + host_docs:
        if p not in used:
            print(f"report.py: {p}: no fusecl results of the same device; not shown", file=sys.stderr)
    out = [] if args.summary_only else [PREAMBLE]
    for s in sections:
        plot_name = None
        if args.plot_dir:
            plot_name = f"speedup_{s.slug}.png"
            if not report_plot.plot(s.speedup_series(), f"{s.device}, {s.ctx.get('date', '')[:10]}",
                                    os.path.join(args.plot_dir, plot_name)):
                plot_name = None
        out.append(s.markdown(plot_name, args.summary_only))
    kept = "" if args.summary_only or not args.out else kept_part(args.out)
    if not args.summary_only:
        # Measurements that are not Google Benchmark runs (time to first result,
        # notes on a GPU run) are kept as Markdown beside the JSON, each with its
        # own date, device, driver and command; they are appended in name order
        # (but for those the kept part already holds).
        folders = sorted({os.path.dirname(os.path.abspath(p)) for p in args.files})
        for folder in folders:
            for md in sorted(glob.glob(os.path.join(folder, "*.md"))):
                with open(md, encoding="utf-8") as f:
                    note = f.read().rstrip() + "\n"
                if note.strip() not in kept:
                    out.append(note)
    if kept:
        out.append(kept)
    text = "\n".join(out).rstrip() + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def cmd_slug(args):
    print(slugify(load(args.file).get("context", {}).get("fusecl_device", "device")))


def cmd_stamp(args):
    doc = load(args.file)
    for item in args.entries:
        key, sep, value = item.partition("=")
        if not sep:
            sys.exit(f"report.py stamp: '{item}' is not KEY=VALUE")
        doc.setdefault("context", {})[key] = value
    with open(args.file, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def cmd_busplot(args):
    """End-to-end throughput against the bus rate by size: for each workload,
    the pinned bus's time for the bytes moved over the time taken (the
    `of_bus` counter), host to host through from_host/to_host and through
    host views."""
    doc = load(args.file)
    panels = {"fused_e2e (from_host, to_host): share of the pinned bus": {},
              "host_view (streamed in chunks): share of the pinned bus": {}}
    ways = {"fused_e2e": list(panels)[0], "host_view": list(panels)[1]}
    for b in doc.get("benchmarks", []):
        m = re.match(r"BM_([a-z0-9_]+)/([a-z0-9_]+)/(\d+)", b.get("name", ""))
        if not m or m.group(2) not in ways or "of_bus" not in b or b.get("error_occurred"):
            continue
        panels[ways[m.group(2)]].setdefault(m.group(1), []).append((int(m.group(3)), float(b["of_bus"])))
    ctx = doc.get("context", {})
    rates = (f"pinned write {float(ctx.get('fusecl_bus_pinned_write_Bps', 'nan')) / 1e9:.1f} GB/s, "
             f"read {float(ctx.get('fusecl_bus_pinned_read_Bps', 'nan')) / 1e9:.1f} GB/s")
    if not report_plot.plot(panels, f"{ctx.get('date', '')[:10]}, {rates}", args.out, heading="host to host",
                            ylabel="share of the pinned bus rate", reference="the pinned bus rate", logscale=False):
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("table", help="Markdown tables (and charts) from result files")
    p.add_argument("files", nargs="+")
    p.add_argument("--out", help="write the Markdown here instead of stdout")
    p.add_argument("--plot-dir", help="write speedup_<slug>.png charts here")
    p.add_argument("--summary-only", action="store_true", help="only the header and the largest-size summary")
    p.set_defaults(run=cmd_table)
    p = sub.add_parser("busplot", help="chart of end-to-end throughput against the bus rate by size")
    p.add_argument("file")
    p.add_argument("--out", required=True, help="the PNG to write")
    p.set_defaults(run=cmd_busplot)
    p = sub.add_parser("slug", help="device slug of a fusecl-bench result file")
    p.add_argument("file")
    p.set_defaults(run=cmd_slug)
    p = sub.add_parser("stamp", help="add KEY=VALUE entries to a result file's context")
    p.add_argument("file")
    p.add_argument("entries", nargs="+")
    p.set_defaults(run=cmd_stamp)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
