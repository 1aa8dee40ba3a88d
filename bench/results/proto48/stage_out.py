#!/usr/bin/env python3
"""Session 48: a whole-vector row kernel (fusecl's, rows of m floats, m a
multiple of 4, R rows a group) rewritten so that its float4 stores go to local
memory, and after a barrier the group writes its rows' span (R * m floats,
one contiguous stretch of out0) in float4s, work-item i taking vectors
i, i + L, ...: every warp's store then covers whole 32-byte sectors, where the
kernel's own stores over rows of an odd number of vectors start every other
row mid-sector. Same values, same places: rows_multi compares bit for bit.
With --warp each warp stages only its own rows (T < 32 work-items a row:
32 / T whole rows a warp) and syncs with PTX's bar.warp.sync instead of the
group's barrier.
usage: stage_out.py [--warp] in.cl out.cl"""
import re, sys

warp = sys.argv[1] == "--warp"
args = sys.argv[2:] if warp else sys.argv[1:]
src = open(args[0]).read()
m = int(re.search(r"const long m = (\d+)L;", src).group(1))
R = int(re.search(r"get_group_id\(0\) \* (\d+) \+ lid", src).group(1))
L = int(re.search(r"reqd_work_group_size\((\d+),", src).group(1))
assert m % 4 == 0, "whole vectors only"
nv = R * m // 4
decl = (f"  __local float4 so0v[{nv}];\n"
        f"  const long sb_ = (long)get_group_id(0) * {R * m}L, se_ = min(sb_ + {R * m}L, n * m);\n")
anchor = re.search(r"  const long mo = [^\n]*\n", src)
src = src[:anchor.end()] + decl + src[anchor.end():]
src, k = re.subn(r"\*\(__global float4\*\)\(out0 \+ p\) = (v\d+);", r"so0v[(int)((p - sb_) / 4)] = \1;", src)
assert k >= 1
T = L // R
if warp:
    assert T < 32
    W = 32 // T * m  # floats a warp's rows hold
    flush = ('  asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");\n'
             "  {\n"
             f"    const long wb_ = sb_ + (long)(lid / 32) * {W}L, we_ = min(wb_ + {W}L, n * m);\n"
             "    const int nv_ = (int)((we_ - wb_) / 4), i0_ = (int)((wb_ - sb_) / 4);\n"
             "    for (int i = lid % 32; i < nv_; i += 32)\n"
             "      *(__global float4*)(out0 + wb_ + (long)i * 4) = so0v[i0_ + i];\n"
             "  }\n")
else:
  flush = ("  barrier(CLK_LOCAL_MEM_FENCE);\n"
         "  {\n"
         "    const int nv_ = (int)((se_ - sb_) / 4);\n"
         f"    for (int i = lid; i < nv_; i += {L})\n"
         "      *(__global float4*)(out0 + sb_ + (long)i * 4) = so0v[i];\n"
         "  }\n")
end = src.rstrip().rfind("}")
src = src[:end] + flush + src[end:]
open(args[1], "w").write(src)
