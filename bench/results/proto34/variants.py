"""Black-Scholes kernel variants for bs_harness.cpp (issue 13, thirty-fourth session).

bs_lit.cl: bs_args.cl with its 29 scalar arguments as literals of the source
(the values bs_harness.cpp passes), the question being what passing them as
arguments costs NVIDIA's compiler.
"""
import re
import struct

import numpy as np

f32 = np.float32
rate, vol, pp = f32(0.02), f32(0.3), f32(0.2316419)
b = [f32(0.319381530), f32(-0.356563782), f32(1.781477937), f32(-1.821255978), f32(1.330274429)]
isq = f32(0.39894228040143267794)
values = [rate + f32(0.5) * vol * vol, vol, 0, isq, -0.5, 1, 1, pp, *b, 1, -rate, 0, isq, -0.5, 1, 1, pp, *b, 1, 1, 1]


def literal(v):
    return float(f32(v)).hex() + "f"


src = open("bs_args.cl").read()
src = re.sub(r"\n    const float s\d+,", "", src)
src = re.sub(r"\bs(\d+)\b", lambda m: "(" + literal(values[int(m.group(1))]) + ")", src)
open("bs_lit.cl", "w").write(src)
