#!/usr/bin/env python3
"""Session 47: a fusecl row kernel (register form, whole vectors) whose
reduction loops, like its output loop since 9fbfee2, visit every chunk: the
chunk past the row's end (its load repeats the row's last vector) is computed
and only its accumulator update is skipped, under `in_`, instead of leaving
the loop there. Softmax's kept exp values then exist for every chunk, so its
output loop stores under the predicate too. argv: kernel [phases]; writes the
result. phases (default "01o"): the digits of the reduction loops to change,
in order (0: the first reduction phase), and `o` for the output loops.
Softmax's output loops need its sum phase's ("1")."""
import re
import sys

lines = open(sys.argv[1]).read().split("\n")
out = []
brk = re.compile(r"^(\s*)if \((k >= \d+ && q >= m / \d+)\) break;$")
store = re.compile(r"^(\s*)(\*\(__global \w+\*\)\(out\d+ \+ p\) = v\d+;)$")
sel = sys.argv[2] if len(sys.argv) > 2 else "01o"
phase = -1  # the reduction loop being read
in_output = False
wrap_indent = None  # the indentation of the loop body whose updates are predicated
changed = 0
for line in lines:
    if line.startswith("  if (o < n) {"):
        in_output = True
    if wrap_indent is not None and line == " " * (len(wrap_indent) - 2) + "}":
        wrap_indent = None
    m = brk.match(line)
    if m and not in_output:
        phase += 1
    if m and (("o" in sel) if in_output else (str(phase) in sel)):
        out.append(f"{m.group(1)}const bool in_ = !({m.group(2)});")
        wrap_indent = m.group(1)
        changed += 1
        continue
    if wrap_indent is not None and line.startswith(wrap_indent) and not line.startswith(wrap_indent + " "):
        body = line[len(wrap_indent):]
        assert "in0" not in body, "a loop that loads from memory: not the register form"
        if not in_output and "accv" in body and not body.startswith("const "):
            out.append(f"{wrap_indent}if (in_) {body}" if body.startswith("{") else f"{wrap_indent}if (in_) {{ {body} }}")
            continue
        s = store.match(line)
        if in_output and s:
            out.append(f"{s.group(1)}if (in_) {s.group(2)}")
            continue
    out.append(line)
assert changed, "no row-end test in any loop"
sys.stdout.write("\n".join(out))
