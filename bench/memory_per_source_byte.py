#!/usr/bin/env python3
"""Peak memory per source byte (issue 14 item 5): generate a program of
SIZE megabytes (functions of a few statements each), run it with every
engine given as a child process, and report each child's peak RSS
(getrusage of that child) and RSS per source byte, next to a one-line
program's (the binary's own footprint).

    python3 bench/memory_per_source_byte.py [--size 3] [--bin target/release/spy-interp] [--call-all]

The default program's `main` calls only `f5` (which calls `f4` ... `f0`):
every function is parsed, resolved, initialized and redshifted, but only
six run. `--call-all` runs every function once: the functions form chains
of `CHAIN` (each calls the one before, the first of a chain returns
`a + b`), and `main` calls the last of every chain, so a cut that is free
only for code that never runs (lazy per-function work) shows as such.
"""
import argparse, os, tempfile, time

# Calls in a chain of `--call-all` (well under the recursion limit, 1,000).
CHAIN = 100

def generate(size_bytes, call_all=False):
    out = ["def f0(a: i32, b: i32) -> i32:\n    return a + b\n\n"]
    total, i = len(out[0]), 1
    while total < size_bytes:
        if call_all and i % CHAIN == 0:
            s = f"def f{i}(a: i32, b: i32) -> i32:\n    return a + b\n\n"
        else:
            s = (f"def f{i}(a: i32, b: i32) -> i32:\n    x = a * 3 + b\n    y = x - (a // 2)\n"
                 f"    if y > 100:\n        y = y % 7\n    return f{i - 1}(y, b)\n\n")
        out.append(s)
        total += len(s)
        i += 1
    if call_all:
        ends = list(range(CHAIN - 1, i - 1, CHAIN)) + ([i - 1] if (i - 1) % CHAIN != CHAIN - 1 else [])
        calls = "".join(f"    print(f{j}(1, 2))\n" for j in ends)
        out.append("def main() -> None:\n" + calls)
    else:
        out.append("def main() -> None:\n    print(f5(1, 2))\n")
    return "".join(out)

def peak_rss_kib(cmd):
    """Run `cmd` as a child and return (its peak RSS in KiB, seconds, exit).

    The child is started by GNU time when there is one: Linux counts the
    memory of the process image an `exec` replaces in the child's
    `ru_maxrss`, so a child forked from this Python process (15 MB with the
    generated program) would report at least that much. `time` is small, so
    its child's peak is the binary's own. Without it, the figure is the
    child's `wait4` rusage and a small program's peak is overstated."""
    start = time.time()
    timer = os.access("/usr/bin/time", os.X_OK)
    with tempfile.NamedTemporaryFile("r") as report:
        if timer:
            cmd = ["/usr/bin/time", "-f", "%M", "-o", report.name] + cmd
        pid = os.fork()
        if pid == 0:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.execv(cmd[0], cmd)
        _, status, usage = os.wait4(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        rss = int(report.read().split()[-1]) if timer else usage.ru_maxrss
    return rss, time.time() - start, code

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=float, default=3.0, help="program size in MB")
    ap.add_argument("--bin", default="target/release/spy-interp")
    ap.add_argument("--engines", default="interp,doppler,jit")
    ap.add_argument("--call-all", action="store_true",
                    help="main calls every function once (chains of CHAIN)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        big = os.path.join(d, "big.spy")
        tiny = os.path.join(d, "tiny.spy")
        text = generate(int(args.size * 1e6), args.call_all)
        open(big, "w").write(text)
        open(tiny, "w").write("def main() -> None:\n    print(1)\n")
        variant = "every function called" if args.call_all else "main calls f5 only"
        print(f"program: {len(text)} bytes ({variant}); binary: {args.bin}")
        for engine in args.engines.split(","):
            base, _, _ = peak_rss_kib([args.bin, "execute", "--engine", engine, tiny])
            rss, secs, code = peak_rss_kib([args.bin, "execute", "--engine", engine, big])
            per_byte = rss * 1024 / len(text)
            above = (rss - base) * 1024 / len(text)
            print(f"{engine:8} exit {code}  peak {rss / 1024:8.1f} MB  ({per_byte:5.1f}x source, "
                  f"{above:5.1f}x above a one-line program's {base / 1024:.1f} MB)  {secs:6.2f} s")

if __name__ == "__main__":
    main()
