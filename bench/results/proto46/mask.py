#!/usr/bin/env python3
"""Session 46, call 13: a fusecl row kernel (register form, whole vectors) whose
output loops compute every chunk, the one past the row's end on the clamped
duplicate its load holds, and store under a predicate instead of breaking out
of the loop at the row's end. The reductions' loops are unchanged. argv: kernel."""
import re
import sys

src = open(sys.argv[1]).read()
at = src.index("  if (o < n) {")
head, out = src[:at], src[at:]
tests = re.findall(r"if \((k >= \d+ && q >= m / 4)\) break;", out)
assert tests, "no row-end test in the output loops"
out = re.sub(r"if \((k >= \d+ && q >= m / 4)\) break;", r"const bool in_ = !(\1);", out)
out, stores = re.subn(r"\*\(__global float4\*\)\(out0 \+ p\) = (v\d+);", r"if (in_) *(__global float4*)(out0 + p) = \1;", out)
assert stores == len(tests), (stores, len(tests))
sys.stdout.write(head + out)
