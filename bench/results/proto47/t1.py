#!/usr/bin/env python3
"""Session 47: a fusecl row kernel (register form, whole vectors of 4, T
work-items a row) rewritten with one work-item a row: 128 rows a group, every
vector of its row held (no chunk past the row's end), no shuffles. The sums
then run in another order: not bit-identical. argv: kernel; writes the result."""
import re
import sys

s = open(sys.argv[1]).read()
m = int(re.search(r"const long m = (\d+)L;", s).group(1))
T = int(re.search(r"const int sl = lid % (\d+);", s).group(1))
K = int(re.search(r"float4 rc0\[(\d+)\];", s).group(1))
assert m % 4 == 0
V = m // 4
s = s.replace(f"const int sl = lid % {T};", "const int sl = 0;")
s = re.sub(r"\(long\)get_group_id\(0\) \* \d+ \+ lid / " + str(T), "(long)get_group_id(0) * 128 + lid", s)
s = re.sub(r"(rc\d+)\[" + str(K) + r"\];", r"\1[" + str(V) + "];", s)
s = s.replace(f"k < {K}; ++k", f"k < {V}; ++k")
s = s.replace(f"(long)k * {T}", "(long)k")
s = re.sub(r"k < \d+ \|\| ", f"k < {V} || ", s)
s = re.sub(r"k >= \d+ && ", f"k >= {V} && ", s)
s, n1 = re.subn(r"\n    \{\n      float y_;\n(      .*\n)+?    \}", "", s)
s, n2 = re.subn(r"\n    acc = as_float\(fcl_shfl_idx\(.*\);", "", s)
assert n1 == n2 and n1 > 0, (n1, n2)
sys.stdout.write(s)
