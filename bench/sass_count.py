#!/usr/bin/env python3
"""Instructions an NVIDIA GPU issues for a kernel, from its SASS: what makes a
compute-bound kernel's arithmetic limit (bench/RESULTS.md, Black-Scholes).

  python3 bench/sass_count.py ENTRY...

ENTRY: a fusecl kernel-cache entry (NVIDIA's program binary holds PTX, which
ptxas compiles for --arch, sm_90 by default) or a .cubin (Triton's cache, for
torch.compile's kernels). Needs ptxas and cuobjdump (CUDA's bin folder, or
$CUDA_HOME/bin). For each function it prints the registers, the instructions
in the code, and the fast path: the code up to the first EXIT (for fusecl's
elementwise kernels, the full-vector case: a work-item's W elements, W from
the entry's .cl source beside it where FUSECL_CACHE_SAVE_SOURCE kept one),
less the blocks that a predicated branch skips (the slow paths of IEEE
division and square root, taken only for operands near the ends of the
range). The fast path divided by W is the instructions issued per element;
times the elements, over the device's issue rate (SMs x 4 schedulers x 32
lanes x clock), it is the time the arithmetic needs.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

INSTR = re.compile(r"\s+/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)([^;]*);")


def tool(name):
    for d in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]:
        p = os.path.join(d, "bin", name) if d else ""
        if p and os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def cubin_of(path, arch, tmp):
    data = open(path, "rb").read()
    if data[:4] == b"\x7fELF":
        return path
    start = data.find(b".version")
    if start < 0:
        return None  # not NVIDIA's: no PTX inside
    end = data.find(b"\0", start)
    ptx = os.path.join(tmp, "k.ptx")
    with open(ptx, "wb") as f:
        f.write(data[start:end if end > 0 else len(data)])
    out = os.path.join(tmp, "k.cubin")
    subprocess.run([tool("ptxas"), "-arch=" + arch, ptx, "-o", out], check=True)
    return out


def functions(sass):
    name, body = None, []
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
            continue
        m = INSTR.match(line)
        if m and name:
            body.append((int(m.group(1), 16), m.group(2) or "", m.group(3), m.group(4)))
    if name:
        yield name, body


def fast_path(body):
    end = next((i for i, x in enumerate(body) if x[2] == "EXIT" and not x[1]), len(body) - 1)
    head = body[: end + 1]
    skipped = set()
    for k, (_, pred, op, args) in enumerate(head):
        if op == "BRA" and pred.startswith("@!P"):
            # "0x0330" or, for a branch on a second predicate, "!P1, 0x0330"
            target = int(re.search(r"0x[0-9a-f]+", args).group(0), 16)
            for addr, *_ in head[k + 1:]:
                if addr >= target:
                    break
                skipped.add(addr)
    return [x for x in head if x[0] not in skipped]


def width_of(entry):
    src = os.path.splitext(entry)[0] + ".cl"
    if not os.path.exists(src):
        return None
    m = re.search(r"get_global_id\(0\) \* (\d+);", open(src).read())
    return int(m.group(1)) if m else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("entries", nargs="+")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--sass", metavar="DIR", help="also write each entry's whole SASS to DIR/<entry>.sass (loops: read them)")
    args = ap.parse_args()
    if not tool("ptxas") or not tool("cuobjdump"):
        sys.exit("sass_count.py: needs CUDA's ptxas and cuobjdump (set CUDA_HOME)")
    with tempfile.TemporaryDirectory() as tmp:
        for entry in args.entries:
            cubin = cubin_of(entry, args.arch, tmp)
            if not cubin:
                print(f"{entry}: no PTX or cubin inside, skipped", file=sys.stderr)
                continue
            regs = subprocess.run([tool("cuobjdump"), "-res-usage", cubin], capture_output=True, text=True).stdout
            sass = subprocess.run([tool("cuobjdump"), "-sass", cubin], capture_output=True, text=True, check=True).stdout
            if args.sass:
                os.makedirs(args.sass, exist_ok=True)
                with open(os.path.join(args.sass, os.path.basename(entry) + ".sass"), "w") as f:
                    f.write(sass)
            width = width_of(entry)
            for name, body in functions(sass):
                fast = fast_path(body)
                r = re.search(r"Function " + re.escape(name) + r":\s*REG:(\d+)", regs)
                ops = collections.Counter(x[2].split(".")[0] for x in fast)
                per = f", {len(fast) / width:.1f} per element (W = {width})" if width else ""
                print(f"{os.path.basename(entry)} {name}: {r.group(1) if r else '?'} registers, {len(body)} instructions, "
                      f"fast path {len(fast)}{per}")
                print("  " + ", ".join(f"{op} {n}" for op, n in ops.most_common(16)))


if __name__ == "__main__":
    main()
