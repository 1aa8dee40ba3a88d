"""The speedup chart of one device's section: two panels side by side, one
line per workload, speedup against size on log axes, a dashed line at 1×
(below it fusecl is slower). gnuplot draws it; without gnuplot there is no
chart, with a note. Standard library only, like report.py."""

import math
import os
import shutil
import subprocess
import sys
import tempfile


def plot(panels, title, png_path, heading="fusecl speedup", ylabel="speedup (×)", reference="1× (same speed)",
         logscale=True):
    """panels: {panel title: {workload: [(log2, value)]}} (two panels), a
    dashed line at 1 labelled `reference`. Returns False when gnuplot is missing."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        print("report.py: gnuplot not found; no chart (scripts/setup.sh --bench installs it)", file=sys.stderr)
        return False
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        for p, (panel_title, series) in enumerate(panels.items()):
            blocks = []
            for w, points in series.items():
                lines = [f"# {w}"] + [f"{log2} {v:.6g}" for log2, v in points if not math.isnan(v)]
                blocks.append("\n".join(lines) if len(lines) > 1 else f"# {w}\nNaN NaN")
            data = os.path.join(tmp, f"panel{p}.dat")
            with open(data, "w", encoding="utf-8") as f:
                f.write("\n\n\n".join(blocks) + "\n")  # two blank lines separate gnuplot "index" blocks
            curves = ", ".join(f"'{data}' index {i} using 1:2 with linespoints title '{w}'"
                               for i, w in enumerate(series))
            plots.append(f"set title '{panel_title}'\nplot {curves}, 1 with lines dt 2 lc rgb 'gray' title '{reference}'")
        title = title.replace('"', "'")
        script = f"""
set terminal pngcairo size 1400,560 font ',10' noenhanced
set output '{png_path}'
set multiplot layout 1,2 title "{heading} — {title}"
{"set logscale y" if logscale else "set yrange [0:*]"}
set grid
set xlabel 'elements (log2)'
set xtics 1
set offsets 0.2, 0.2, 0, 0
set key left top
set ytics nomirror
set ylabel '{ylabel}'
{chr(10).join(plots)}
unset multiplot
"""
        subprocess.run([gnuplot], input=script, text=True, check=True)
    return True
