"""Variants of ln_out.cl (fusecl's layer norm output kernel over a middle
axis) for ln_harness.cpp, issue 13, thirty-fourth session:
  ln_out32.cl   the coordinates in 32-bit unsigned arithmetic
  ln_shift.cl   the coordinates by constant shifts and masks (64 x 1024 x 1024
                only: the lower bound of what the index costs)
  ln_nodiv.cl   as generated but sqrt and the division replaced by a multiply
                (what the arithmetic costs; results differ)
"""
src = open("ln_out.cl").read()
a = src.replace("long r_ = i0;", "uint r_ = (uint)i0;").replace("long r_ = i;", "uint r_ = (uint)i;")
a = a.replace("r_ % d2; r_ /= d2;", "r_ % (uint)d2; r_ /= (uint)d2;").replace("r_ % d1; r_ /= d1;", "r_ % (uint)d1; r_ /= (uint)d1;")
open("ln_out32.cl", "w").write(a)
b = src.replace("r_ % d2; r_ /= d2;", "r_ & 1023; r_ >>= 10;").replace("r_ % d1; r_ /= d1;", "r_ & 1023; r_ >>= 10;")
open("ln_shift.cl", "w").write(b)
c = src.replace("sqrt(v5)", "(v5)").replace("((v2) / (v6))", "((v2) * (v6))")
open("ln_nodiv.cl", "w").write(c)
