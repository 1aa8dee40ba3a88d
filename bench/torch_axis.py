#!/usr/bin/env python3
"""The cases of fusecl-axis-probe (bench/probe/axis_probe.cpp) in PyTorch on a CUDA GPU:
torch eager and torch.compile (Inductor, default mode, one static-shape
compilation per case), the same expressions written the same way, float32
inputs uniform in [-4, 4) on the GPU. Each case is called 20 times, then the
stream is synchronized; the median of 5 such rounds is the time per call
(wall clock, Python included), as the probe measures fusecl.

With a dtype field (f64, i32, i16, i8, u8), x is cast from x * 16 as the
probe's is (ints truncated; u8 from |x| * 16).

  python3 bench/torch_axis.py softmax:8192x8192:0 layer_norm:4096x4096:0 sum:65536x40:1:i8 ...
"""
import statistics
import sys
import time


def expression(torch, name):
    def softmax(x, a):
        e = torch.exp(x - torch.amax(x, a, keepdim=True))
        return e / torch.sum(e, a, keepdim=True)

    def logsumexp(x, a):
        m = torch.amax(x, a, keepdim=True)
        return torch.log(torch.sum(torch.exp(x - m), a, keepdim=True)) + m

    table = {
        "softmax": softmax,
        "layer_norm": lambda x, a: (x - torch.mean(x, a, keepdim=True))
        / torch.sqrt(torch.var(x, a, unbiased=False, keepdim=True) + 1e-5),
        "max": lambda x, a: torch.amax(x, a, keepdim=True),
        "min": lambda x, a: torch.amin(x, a, keepdim=True),
        "sum": lambda x, a: torch.sum(x, a, keepdim=True),
        "var": lambda x, a: torch.var(x, a, unbiased=False, keepdim=True),
        "mean_var": lambda x, a: torch.var_mean(x, a, unbiased=False, keepdim=True),
        "logsumexp": logsumexp,
        "sum_exp": lambda x, a: torch.sum(torch.exp(x), a, keepdim=True),
        "norm": lambda x, a: torch.sqrt(torch.sum(x * x, a, keepdim=True)),
        "mean_scaled": lambda x, a: torch.mean(x, a, keepdim=True) * 2.0 + 1.0,
        "rstd": lambda x, a: 1.0 / torch.sqrt(torch.var(x, a, unbiased=False, keepdim=True) + 1e-5),
        "cv": lambda x, a: torch.std(x, a, unbiased=False, keepdim=True) / torch.mean(x, a, keepdim=True),
        "normalize": lambda x, a: x / torch.sum(x, a, keepdim=True),
        "center": lambda x, a: x - torch.mean(x, a, keepdim=True),
        "argmax": lambda x, a: torch.argmax(x, a, keepdim=True),
        "argmin": lambda x, a: torch.argmin(x, a, keepdim=True),
    }
    if name not in table:
        raise SystemExit(f"unknown expression {name}")
    return table[name]


def per_call(torch, fn, x, axis):
    for _ in range(3):
        fn(x, axis)
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(20):
            fn(x, axis)
        torch.cuda.synchronize()
        rounds.append((time.perf_counter() - t0) / 20 * 1e6)
    return statistics.median(rounds), min(rounds)


def main():
    import torch
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for spec in sys.argv[1:]:
        name, shape_text, axis, *rest = spec.split(":")
        dtype = rest[0] if rest else "f32"
        shape = tuple(int(d) for d in shape_text.split("x"))
        axis = int(axis)
        x = torch.rand(shape, device="cuda", dtype=torch.float32) * 8 - 4
        if dtype != "f32":
            types = {"f64": torch.float64, "i32": torch.int32, "i16": torch.int16, "i8": torch.int8, "u8": torch.uint8}
            if dtype not in types:
                raise SystemExit(f"unknown dtype {dtype}")
            x = ((x.abs() if dtype == "u8" else x) * 16).to(types[dtype])
        f = expression(torch, name)
        torch._dynamo.reset()
        compiled = torch.compile(f, dynamic=False)
        eager = per_call(torch, f, x, axis)
        comp = per_call(torch, compiled, x, axis)
        label = name if dtype == "f32" else f"{name}:{dtype}"
        print(f"{label:10s} {shape_text:16s} axis {axis}: eager {eager[0]:9.1f} us (best {eager[1]:9.1f}), "
              f"torch.compile {comp[0]:9.1f} us (best {comp[1]:9.1f})", flush=True)


if __name__ == "__main__":
    main()
