#!/usr/bin/env python3
"""ctest's report_keeps_hand_written_sections: bench/report.py's `table --out`
rewrites the tables it makes from bench/results/*.json and keeps, byte for
byte, everything from its marker line on (each session's measurements,
written by hand), appending no note of bench/results that part already
holds. bench/RESULTS.md carries the marker, so bench/compare.sh loses none of
its sections. Standard library only; no chart is drawn.
    python3 tests/report_keeps_test.py SOURCE_DIR"""
import glob
import os
import subprocess
import sys
import tempfile

src = sys.argv[1]
report = os.path.join(src, "bench", "report.py")
sys.path.insert(0, os.path.join(src, "bench"))
import report as rp  # noqa: E402  (KEPT_MARKER, kept_part)

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def table(out, files):
    subprocess.run([sys.executable, report, "table", "--out", out] + files, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as f:
        return f.read()


results = os.path.join(src, "bench", "results")
jsons = sorted(p for p in glob.glob(os.path.join(results, "*.json"))
               if not p.endswith((".host.json", ".frameworks.json")))
notes = sorted(glob.glob(os.path.join(results, "*.md")))
if not jsons or not notes:
    # Said plainly rather than as an IndexError further down.
    print("FAIL: bench/results holds no fusecl JSON to make a table of, or no note to append")
    sys.exit(1)
with open(notes[0], encoding="utf-8") as f:
    note = f.read().strip()

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "RESULTS.md")
    # A file without the marker is rewritten whole (as before).
    with open(out, "w", encoding="utf-8") as f:
        f.write("an old table\n")
    fresh = table(out, jsons[:1])
    check("an old table" not in fresh and rp.KEPT_MARKER not in fresh, "a file without the marker was not rewritten whole")
    check(note in fresh, "a note of bench/results was not appended")
    # With the marker: the old tables go, the hand-written part stays as it
    # was, and a note it already holds is not appended again.
    hand = rp.KEPT_MARKER + "\n\n## A session's measurements\n\nwritten by hand, | a | table |\n\n" + note + "\n"
    with open(out, "w", encoding="utf-8") as f:
        f.write("an old table\n\n" + hand)
    kept = table(out, jsons[:1])
    check("an old table" not in kept, "the old tables were kept")
    check(kept.endswith(hand), "the hand-written part was not kept byte for byte at the end")
    check(kept.count(note) == 1, "a note the hand-written part holds was appended again")
    check(kept.startswith(fresh.split(note)[0]), "the tables differ from those of a fresh file")
    check(table(out, jsons[:1]) == kept, "a second regeneration changed the file")

# The repository's results file carries the marker, after its generated tables.
with open(os.path.join(src, "bench", "RESULTS.md"), encoding="utf-8") as f:
    text = f.read()
check(text.count(rp.KEPT_MARKER) == 1, "bench/RESULTS.md does not carry the marker once")
check(text.find(rp.KEPT_MARKER) > text.find("### fusecl against NumPy and numexpr"),
      "bench/RESULTS.md's marker comes before its generated tables")

for what in failures:
    print("FAIL:", what)
print("report_keeps_test:", "failed" if failures else "passed", f"({len(failures)} failures)")
sys.exit(1 if failures else 0)
