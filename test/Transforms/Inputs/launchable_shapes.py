"""Compiles one plain gemm_publish without tactics for each of a fixed set
of shapes (seeded, so every run tries the same) and checks lamport-compile
against the launch rule, stated here apart from the compiler: N a positive
multiple of 16, K a positive multiple of 32 whose chunks of 32 some splits
(1, 2, 4, 8) x warps (1..32) divide into at most 128 a thread. A shape the
rule launches must compile to PTX (the pass picks tactics, the generator
takes them); one it does not must fail with the pass's one error that
names both kernel families. Either way, no crash and no other error."""

import os
import random
import subprocess
import sys
import tempfile

COMPILE = sys.argv[1]


def launchable(n, k):
    if n <= 0 or n % 16 or k <= 0 or k % 32:
        return False
    chunks = k // 32
    return any(chunks % (s * w) == 0 and chunks // (s * w) <= 128
               for s in (1, 2, 4, 8) for w in range(1, 33))


def shapes():
    rng = random.Random(23)
    out = []
    for _ in range(24):  # whole tiles and chunks, any factors
        out.append((16 * rng.randint(1, 1024), 32 * rng.randint(1, 800)))
    for _ in range(12):  # anything up to 64 Ki
        out.append((rng.randint(1, 65536), rng.randint(1, 65536)))
    # Chunks with a prime factor past 128 or 32 x 8; the deepest K.
    out += [(1024, 32 * 2 * 311), (2048, 32 * 131), (4096, 32 * 127),
            (512, 32 * 8 * 32 * 128), (512, 32 * 8 * 32 * 129), (16, 32)]
    return out


def program(n, k, m):
    d = "?" if m is None else str(m)
    x, w, y = f"memref<{d}x{k}xbf16>", f"memref<{n}x{k}xbf16>", f"memref<{d}x{n}xbf16>"
    return (f"func.func @g(%x: {x}, %w: {w}, %y: {y}) {{\n"
            f"  lamport.gemm_publish %x, %w into %y {{pdl}} : {x}, {w}, {y}\n"
            f"  return\n}}\n")


def main():
    rng = random.Random(7)
    wrong, launched, refused = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, k in shapes():
            m = rng.choice([None, 1, 3, 8, 16])
            path = os.path.join(tmp, "g.mlir")
            with open(path, "w") as f:
                f.write(program(n, k, m))
            run = subprocess.run(
                [COMPILE, path, "--emit=ptx", "-q", "-o",
                 os.path.join(tmp, "g.ptx")],
                capture_output=True, text=True, timeout=300)
            errors = run.stderr.count("error:")
            if launchable(n, k):
                ok = run.returncode == 0 and not errors
                launched += ok
            else:
                ok = (run.returncode == 1 and errors == 1 and
                      f"no tactic launches N = {n}, K = {k}: register-direct "
                      "kernel: " in run.stderr and
                      "; bulk-stream kernel: " in run.stderr)
                refused += ok
            if not ok:
                wrong.append((n, k, m, run.returncode, run.stderr[-400:]))
    for case in wrong:
        print("WRONG N = %d, K = %d, M = %s: status %d\n%s" % case)
    print(f"{launched} launched and {refused} refused as the rule says; "
          f"{len(wrong)} wrong")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
