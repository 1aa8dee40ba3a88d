#!/usr/bin/python3
"""first_result.cpp's programs in NumPy, for the time to first result a NumPy
user gets: bench/first_result/run.sh --user times this script's whole process
(interpreter start, `import numpy`, the work) from outside, as it times
fusecl-first-result. Prints the same JSON fields; "value" is the same checksum.

  numpy_first_result.py [ELEMENTS [demo|ten]]
"""

import json
import sys
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402  (timed: a NumPy user's script pays for it)


def ten_inputs(n):
    i = np.arange(n)
    x = (i % 1000).astype(np.float32) / np.float32(250) - np.float32(2)
    y = (i % 777).astype(np.float32) / np.float32(388.5) - np.float32(1)
    return x, y


def ten_expressions(x, y, n):
    f = np.float32
    at = lambda a: float(a[n // 3])
    check = at(np.sqrt(x * x + y * y) * np.sin(x) + np.exp(-y) * f(0.5))
    check += at(x * f(2) + f(1))
    check += at(f(2.5) * x + y)
    check += float(np.sum(x * x))
    check += float(np.mean(y))
    check += at(np.where(x > 0, x, f(0.1) * x))
    check += at(np.tanh(x) * y)
    check += at(np.clip(x, f(-1), f(1)))
    check += at(np.log1p(np.abs(x)))
    check += float(np.max(x) - np.min(y))
    return check


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    program = sys.argv[2] if len(sys.argv) > 2 else "demo"
    if program not in ("demo", "ten"):
        sys.exit(f"numpy_first_result.py: unknown program '{program}' (demo or ten)")
    if program == "demo":
        x, y = np.full(n, 0.5, dtype=np.float32), np.full(n, 1.5, dtype=np.float32)
    else:
        x, y = ten_inputs(n)
    t_ready = time.perf_counter()
    if program == "demo":
        value = float((np.sqrt(x * x + y * y) * np.sin(x) + np.exp(-y) * np.float32(0.5))[0])
    else:
        value = ten_expressions(x, y, n)
    t1 = time.perf_counter()
    print(json.dumps({"program": program, "device": "NumPy on the host", "driver": f"numpy {np.__version__}",
                      "elements": n, "total_ms": round((t1 - t0) * 1e3, 2), "setup_ms": round((t_ready - t0) * 1e3, 2),
                      "evaluate_ms": round((t1 - t_ready) * 1e3, 2), "value": round(value, 6)}))


if __name__ == "__main__":
    main()
