#!/usr/bin/env python3
"""The cases of fusecl-axis-probe (bench/probe/axis_probe.cpp) in PyTorch on a CUDA GPU:
torch eager and torch.compile (Inductor, default mode, one static-shape
compilation per case), the same expressions written the same way, float32
inputs uniform in [-4, 4) on the GPU. Each case is called 20 times, then the
stream is synchronized; the median of 5 such rounds is the time per call
(wall clock, Python included), as the probe measures fusecl.

  python3 bench/torch_axis.py softmax:8192x8192:0 layer_norm:4096x4096:0 ...
"""
import statistics
import sys
import time


def expression(torch, name):
    if name == "softmax":
        def f(x, a):
            e = torch.exp(x - torch.amax(x, a, keepdim=True))
            return e / torch.sum(e, a, keepdim=True)
    elif name == "layer_norm":
        def f(x, a):
            return (x - torch.mean(x, a, keepdim=True)) / torch.sqrt(torch.var(x, a, unbiased=False, keepdim=True) + 1e-5)
    elif name == "max":
        def f(x, a):
            return torch.amax(x, a, keepdim=True)
    elif name == "sum":
        def f(x, a):
            return torch.sum(x, a, keepdim=True)
    elif name == "var":
        def f(x, a):
            return torch.var(x, a, unbiased=False, keepdim=True)
    elif name == "logsumexp":
        def f(x, a):
            m = torch.amax(x, a, keepdim=True)
            return torch.log(torch.sum(torch.exp(x - m), a, keepdim=True)) + m
    elif name == "sum_exp":
        def f(x, a):
            return torch.sum(torch.exp(x), a, keepdim=True)
    elif name == "normalize":
        def f(x, a):
            return x / torch.sum(x, a, keepdim=True)
    elif name == "center":
        def f(x, a):
            return x - torch.mean(x, a, keepdim=True)
    elif name == "min":
        def f(x, a):
            return torch.amin(x, a, keepdim=True)
    elif name == "argmax":
        def f(x, a):
            return torch.argmax(x, a, keepdim=True)
    elif name == "argmin":
        def f(x, a):
            return torch.argmin(x, a, keepdim=True)
    else:
        raise SystemExit(f"unknown expression {name}")
    return f


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
        name, shape_text, axis = spec.split(":")
        shape = tuple(int(d) for d in shape_text.split("x"))
        axis = int(axis)
        x = torch.rand(shape, device="cuda", dtype=torch.float32) * 8 - 4
        f = expression(torch, name)
        torch._dynamo.reset()
        compiled = torch.compile(f, dynamic=False)
        eager = per_call(torch, f, x, axis)
        comp = per_call(torch, compiled, x, axis)
        print(f"{name:10s} {shape_text:16s} axis {axis}: eager {eager[0]:9.1f} us (best {eager[1]:9.1f}), "
              f"torch.compile {comp[0]:9.1f} us (best {comp[1]:9.1f})", flush=True)


if __name__ == "__main__":
    main()
