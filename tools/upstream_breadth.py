#!/usr/bin/env python3
# Needs Python >= 3.12 (upstream's tests use its syntax).
"""Measure how much of upstream SPy's own programs spy-interp runs.

Nothing of upstream is stored in this repository: point the script at a
checkout of github.com/spylang/spy that lives elsewhere.

    SPY_UPSTREAM=/tmp/spy-upstream python3 tools/upstream_breadth.py [--engine E] [-v]

Two counts are printed:

* examples: every `examples/[0-9]*/**/*.spy` is run with `spy-interp FILE`
  (absolute path, like upstream's examples/test_examples.py) and its stdout is
  normalised the way upstream normalises it (lines starting with `# ` dropped,
  the examples directory replaced by `<CWD>`, `0x...` addresses replaced by
  `<ADDR>`) and compared with `examples/expected_output/NAME.txt`; the exit
  code must be 88 for exit_code.spy and 0 otherwise. An example whose output
  differs only in lines where upstream prints an object by its address
  (`<spy `FQN` object at 0x...>`, where spy-interp prints a list, dict or
  tuple's contents: spec/differences-from-upstream.md §10, §22, §33, §46) is
  counted apart, not as a match; the normalisation itself is upstream's.

* snippets: each `test_*` method of `spy/tests/compiler/**/test_*.py` and
  `spy/tests/stdlib/test_*.py` (once per value of a string-parametrized
  fixture it takes, as pytest runs it: `test_alloc[raw]`, `test_alloc[gc]`;
  its value fills the test's f-strings) that compiles one SPy source and checks it only
  with calls whose arguments and expected results are Python literals
  (`assert mod.f(1) == 2`, `assert mod.f()`, `mod.f()`, `with
  SPyError.raises("W_Kind", match=msg): mod.f()`, `self.compile_raises(src,
  "f", expect_errors("msg", ...))`) is turned into SPy programs: the source
  plus a `main` that asserts each result (one program for the results, one per
  expected error). A test "runs" when every one of its programs behaves as
  upstream's test expects (exit 0; or exit 1 with the expected `Kind` and a
  matching message). A number passed to, or expected from, a function whose
  declared type is `i8`, `u8`, `u32`, `i64`, `u64` or `f32` (directly or
  through a module-level alias `T = u32`) is written as the typed literal
  `T(n)`, as upstream's harness wraps it by that type; an expected value may
  be integer arithmetic of literals (`200 + 30`). Files a
  test writes with `self.write_file(name, src)` (other modules the source
  imports, files it opens) are written beside the program in its temporary
  directory. Tests that look at interpreter objects (`self.vm`,
  `unwrap=False`, `B.w_...`), at captured output, at `tmpdir`, or that
  upstream skips for the interpreter are not applicable and only counted.

Without SPY_UPSTREAM (or --upstream) the script says so and exits 0.
The binary is $SPY_INTERP, or target/release/spy-interp of this checkout.
"""

import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 20


def normalise(out: str, cwd: str) -> str:
    lines = []
    for line in out.splitlines(keepends=True):
        if line.startswith("# "):
            continue
        line = line.replace(cwd, "<CWD>")
        line = re.sub(r"0x[0-9a-fA-F]+", "<ADDR>", line)
        lines.append(line)
    return "".join(lines)


def run(binary, engine, path, cwd):
    cmd = [str(binary), "execute", "--engine", engine, str(path)]
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def error_line(stderr: str) -> str:
    for line in stderr.splitlines():
        if re.match(r"^[A-Za-z_]+: ", line) and not line.startswith("  "):
            return line
    return stderr.strip().splitlines()[-1] if stderr.strip() else ""


# Upstream prints a list, dict, tuple, pointer or struct by its default
# `__repr__`, `<spy `FQN` object at 0x...>`; ours prints the contents
# (spec/differences-from-upstream.md §10, §22, §33, §46).
ADDR_REPR = re.compile(r"<spy `[^`]+` object at <ADDR>>")


def print_format_only(out: str, expected: str) -> bool:
    """Whether `out` differs from `expected` only in lines where upstream
    printed an object by its address (one of the documented print formats);
    such an example is counted apart, never as a match."""
    got, want = out.splitlines(), expected.splitlines()
    if len(got) != len(want) or got == want:
        return False
    return all(g == w or (ADDR_REPR.search(w) and not ADDR_REPR.search(g)) for g, w in zip(got, want))


def examples(upstream: Path, binary, engine, verbose):
    exdir = upstream / "examples"
    files = sorted(exdir.glob("[0-9]*/**/*.spy"))
    ok = 0
    fmt_only = 0
    for f in files:
        expected = exdir / "expected_output" / f"{f.stem}.txt"
        rc, out, err = run(binary, engine, f.absolute(), f.parent)
        want_rc = 88 if f.name == "exit_code.spy" else 0
        good = (
            expected.exists()
            and rc == want_rc
            and normalise(out, str(exdir.absolute())) == expected.read_text()
        )
        ok += good
        fmt = (
            not good
            and expected.exists()
            and rc == want_rc
            and print_format_only(normalise(out, str(exdir.absolute())), expected.read_text())
        )
        fmt_only += fmt
        if verbose:
            if fmt:
                why = "  (differs only in the documented print format of objects)"
            else:
                why = "" if good else f"  rc={rc} {error_line(err) if rc else '(output differs)'}"
            print(f"  {'ok  ' if good else 'FAIL'} example {f.relative_to(exdir)}{why}")
    return ok, fmt_only, len(files)


# ---------------------------------------------------------------- snippets

class NotApplicable(Exception):
    pass


def literal(node):
    """A Python literal as SPy source text, or NotApplicable."""
    if isinstance(node, ast.Constant):
        v = node.value
        if v is None or isinstance(v, bool):
            return repr(v)
        if isinstance(v, int):
            # a SPy int literal is an i32; a wider expected value is spelt as
            # the conversion the error message for such a literal suggests
            if -(2**31) <= v < 2**31:
                return repr(v)
            return f"i64({v})" if -(2**63) <= v < 2**63 else f"u64({v})"
        if isinstance(v, float):
            r = repr(v)
            if r in ("inf", "-inf", "nan"):
                raise NotApplicable("special float")
            return r
        if isinstance(v, str):
            return repr(v)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        if isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, int):
            return literal(ast.Constant(-node.operand.value))
        return "-" + literal(node.operand)
    # integer arithmetic of literals (`200 + 30`): its value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        v = int_value(node)
        if v is not None:
            return literal(ast.Constant(v))
    raise NotApplicable(f"non-literal {ast.dump(node)[:40]}")


def int_value(node):
    """The value of integer literals combined by `+ - *`, else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = int_value(node.operand)
        return None if v is None else -v
    if isinstance(node, ast.BinOp):
        a, b = int_value(node.left), int_value(node.right)
        if a is None or b is None:
            return None
        if isinstance(node.op, ast.Add):
            return a + b
        if isinstance(node.op, ast.Sub):
            return a - b
        if isinstance(node.op, ast.Mult):
            return a * b
    return None


def const_str(node, env):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in env:
        return env[node.id]
    # an f-string of known names (a fixture's value: `f"... {k}_ptr ..."`)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.FormattedValue) and v.conversion == -1 and v.format_spec is None:
                parts.append(const_str(v.value, env))
            else:
                parts.append(const_str(v, env))
        return "".join(parts)
    # `"... {k} ...".format(k=k)` of known names
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not node.args
        and all(kw.arg for kw in node.keywords)
    ):
        template = const_str(node.func.value, env)
        try:
            return template.format(**{kw.arg: const_str(kw.value, env) for kw in node.keywords})
        except (KeyError, IndexError, ValueError):
            raise NotApplicable("str.format")
    raise NotApplicable("non-literal string")


# Numeric types whose values upstream's test harness makes from a Python
# number by the declared type (`vm.wrap` by the function's signature); in SPy
# source such a value is the typed literal `T(lit)`.
TYPED_LITERALS = ("i8", "u8", "u32", "i64", "u64", "f32")

SIG_RE = re.compile(r"^\s*def\s+(\w+)\s*\((.*?)\)\s*(?:->\s*([\w\[\], ]+?))?\s*:", re.M)


ALIAS_RE = re.compile(r"^\s*(\w+)\s*=\s*(i8|u8|i32|u32|i64|u64|f32|f64)\s*$", re.M)


def signatures(src):
    """{function name: ([param type or None], return type or None)} of `src`
    (a module-level alias of a number type, `T = u32`, stands for it)."""
    aliases = dict(ALIAS_RE.findall(src or ""))
    sigs = {}
    for m in SIG_RE.finditer(src or ""):
        params = []
        for p in m.group(2).split(","):
            _, _, t = p.partition(":")
            t = t.split("=")[0].strip() or None
            params.append(aliases.get(t, t))
        ret = (m.group(3) or "").strip() or None
        sigs[m.group(1)] = (params, aliases.get(ret, ret))
    return sigs


INT_BITS = {"i8": (8, True), "u8": (8, False), "u32": (32, False), "i64": (64, True), "u64": (64, False)}


def typed(text, node, ty):
    """`text` (the literal of `node`) as a value of declared type `ty`; an
    integer wraps into the type, as upstream's `fixedint` wrapping does."""
    try:
        v = ast.literal_eval(node)
    except (ValueError, SyntaxError):
        v = None
    if ty in INT_BITS and type(v) is int:
        bits, signed = INT_BITS[ty]
        v %= 2**bits
        if signed and v >= 2 ** (bits - 1):
            v -= 2**bits
        return f"{ty}({v})"
    is_number = isinstance(node, ast.Constant) and type(node.value) in (int, float)
    is_number = is_number or (isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)
                              and type(node.operand.value) in (int, float))
    if ty in TYPED_LITERALS and is_number and not re.match(r"^[a-z0-9]+\(", text):
        return f"{ty}({text})"
    return text


SIGS = {}


def mod_call(node, modvar):
    """`mod.f(lit, ...)` -> 'f(lit, ...)'"""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == modvar
    ):
        if node.keywords:
            raise NotApplicable("keyword arguments")
        params = SIGS.get(node.func.attr, ([], None))[0]
        args = [typed(literal(a), a, params[i] if i < len(params) else None) for i, a in enumerate(node.args)]
        return f"{node.func.attr}({', '.join(args)})"
    return None


def result_type(node):
    """The declared return type of the `mod.f(...)` call `node`, if known."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return SIGS.get(node.func.attr, ([], None))[1]
    return None


SKIP_DECORATORS = ("only_C", "only_emscripten", "only_wasm", "no_backend", "skip")


def decorator_skips(fn):
    for d in fn.decorator_list:
        s = ast.unparse(d)
        if any(k in s for k in SKIP_DECORATORS) and "skip_backends" not in s:
            return True
        if "skip_backends" in s and "interp" in s:
            return True
    return False


FORBIDDEN = ("self.vm", "unwrap=False", "B.w_", "capsys", "self.backend",
             "tmpdir", "self.dump", "redshift", "monkeypatch", "self.builddir")


def extract(fn, bindings=None):
    """(source, checks, errors, files) for one test method; raises NotApplicable.

    files: {name: text} that the test writes with `self.write_file(name, src)`
    (dedented, as upstream's helper does) into the directory of the main
    source: other modules it imports, or files it opens. `bindings`: the
    values of the test's fixture parameters (`memkind`: "raw" or "gc")."""
    SIGS.clear()
    text = ast.unparse(fn)
    for k in FORBIDDEN:
        if k in text:
            raise NotApplicable(k)
    if decorator_skips(fn):
        raise NotApplicable("skipped for the interpreter upstream")
    env = dict(bindings or {})  # name -> str constant
    ctxs = {}       # name -> expected message (expect_errors)
    results = {}    # name -> call text
    src = None
    checks = []
    errors = []     # (call or None, kind or None, pattern, is_regex)
    files = {}      # name -> text written beside the main source

    def visit(stmts):
        nonlocal src
        for st in stmts:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
                name, v = st.targets[0].id, st.value
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    env[name] = v.value
                    continue
                if isinstance(v, ast.Name) and v.id in env:
                    env[name] = env[v.id]
                    continue
                if isinstance(v, (ast.JoinedStr, ast.Call)) and not (
                    isinstance(v, ast.Call) and ast.unparse(v.func).startswith(("self.", "mod.", "expect_errors"))
                ):
                    env[name] = const_str(v, env)
                    continue
                if isinstance(v, ast.Call) and ast.unparse(v.func) == "self.compile":
                    if src is not None:
                        raise NotApplicable("two sources")
                    src = const_str(v.args[0], env)
                    SIGS.clear()
                    SIGS.update(signatures(src))
                    if name != "mod":
                        raise NotApplicable("module not named mod")
                    continue
                if isinstance(v, ast.Call) and ast.unparse(v.func) == "expect_errors":
                    ctxs[name] = const_str(v.args[0], env)
                    continue
                c = mod_call(v, "mod")
                if c is not None:
                    results[name] = c
                    continue
                raise NotApplicable(f"statement {ast.unparse(st)[:50]}")
            elif isinstance(st, ast.Assert):
                checks.append(check(st.test))
            elif isinstance(st, ast.Expr):
                v = st.value
                if isinstance(v, ast.Call) and ast.unparse(v.func) == "self.write_file":
                    if len(v.args) != 2:
                        raise NotApplicable("write_file")
                    files[const_str(v.args[0], env)] = textwrap.dedent(const_str(v.args[1], env))
                    continue
                if isinstance(v, ast.Call) and ast.unparse(v.func) == "self.compile_raises":
                    s = const_str(v.args[0], env)
                    if src is not None and s != src:
                        raise NotApplicable("two sources")
                    src = s
                    fname = const_str(v.args[1], env)
                    ctx = v.args[2]
                    if isinstance(ctx, ast.Name) and ctx.id in ctxs:
                        msg = ctxs[ctx.id]
                    elif isinstance(ctx, ast.Call) and ast.unparse(ctx.func) == "expect_errors":
                        msg = const_str(ctx.args[0], env)
                    else:
                        raise NotApplicable("compile_raises context")
                    errors.append((f"{fname}()", None, msg, False))
                    continue
                c = mod_call(v, "mod")
                if c is None:
                    raise NotApplicable(f"statement {ast.unparse(st)[:50]}")
                checks.append(("None", c))
            elif isinstance(st, ast.With):
                if len(st.items) != 1:
                    raise NotApplicable("with")
                item = st.items[0].context_expr
                kind, pat, regex = None, None, False
                if isinstance(item, ast.Call) and ast.unparse(item.func) == "SPyError.raises":
                    kind = const_str(item.args[0], env).removeprefix("W_")
                    for kw in item.keywords:
                        if kw.arg == "match":
                            pat, regex = const_str(kw.value, env), True
                elif isinstance(item, ast.Name) and item.id in ctxs:
                    pat = ctxs[item.id]
                elif isinstance(item, ast.Call) and ast.unparse(item.func) == "expect_errors":
                    pat = const_str(item.args[0], env)
                else:
                    raise NotApplicable("with")
                if len(st.body) != 1 or not isinstance(st.body[0], (ast.Expr, ast.Assign)):
                    raise NotApplicable("with body")
                body = st.body[0].value
                if isinstance(body, ast.Call) and ast.unparse(body.func) == "self.compile":
                    if src is not None:
                        raise NotApplicable("two sources")
                    src = const_str(body.args[0], env)
                    errors.append((None, kind, pat, regex))
                    continue
                c = mod_call(body, "mod")
                if c is None:
                    raise NotApplicable("with body")
                errors.append((c, kind, pat, regex))
            elif isinstance(st, ast.Pass) or (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)):
                continue
            else:
                raise NotApplicable(f"statement {type(st).__name__}")

    def check(test):
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            return f"not {call_or_result(test.operand)}"
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            lhs = call_or_result(test.left)
            rhs = test.comparators[0]
            op = test.ops[0]
            if isinstance(op, (ast.Is, ast.Eq)) and isinstance(rhs, ast.Constant) and rhs.value is None:
                return ("None", lhs)
            rt = result_type(test.left)
            if isinstance(op, ast.Eq):
                return f"{lhs} == {typed(literal(rhs), rhs, rt)}"
            if isinstance(op, ast.NotEq):
                return f"{lhs} != {typed(literal(rhs), rhs, rt)}"
            if isinstance(op, ast.Is) and isinstance(rhs, ast.Constant) and isinstance(rhs.value, bool):
                return f"{lhs} == {literal(rhs)}"
            raise NotApplicable("comparison")
        return call_or_result(test)

    def call_or_result(node):
        if isinstance(node, ast.Name) and node.id in results:
            return results[node.id]
        c = mod_call(node, "mod")
        if c is None:
            raise NotApplicable(f"check {ast.unparse(node)[:50]}")
        return c

    visit(fn.body)
    if src is None:
        raise NotApplicable("no source")
    if not checks and not errors:
        raise NotApplicable("no checks")
    if re.search(r"^\s*def main\b", src, re.M):
        raise NotApplicable("defines main")
    if "test.spy" in files:
        raise NotApplicable("writes the main source's file")
    return textwrap.dedent(src), checks, errors, files


def program(src, body_lines):
    body = "\n".join("    " + l for l in body_lines) or "    pass"
    return f"{src.rstrip()}\n\n\ndef main() -> None:\n{body}\n"


def run_snippet(binary, engine, src, checks, errors, files=None):
    """None if it behaves as upstream expects, else the reason. `files` are
    written beside the main source first (modules it imports: spec §8.6)."""
    with tempfile.TemporaryDirectory() as d:
        for name, text in (files or {}).items():
            if "/" in name or name.startswith("."):
                return f"cannot write {name!r} beside the source"
            (Path(d) / name).write_text(text)
        path = Path(d) / "test.spy"
        if checks or not errors:
            lines = []
            for c in checks:
                # a call checked against None is only run; every other check is asserted
                lines.append(c[1] if isinstance(c, tuple) else f"assert {c}")
            path.write_text(program(src, lines))
            rc, out, err = run(binary, engine, path, d)
            if rc != 0:
                return f"rc={rc} {error_line(err)}"
        for call, kind, pat, regex in errors:
            path.write_text(program(src, [call] if call else []))
            rc, out, err = run(binary, engine, path, d)
            line = error_line(err)
            if rc != 1:
                return f"expected an error ({kind or ''} {pat}), got rc={rc}"
            k, _, msg = line.partition(": ")
            if kind and k != kind:
                return f"expected {kind}, got {line}"
            if pat:
                hit = re.search(pat, err) if regex else (pat in err)
                if not hit:
                    return f"expected message {pat!r}, got {line}"
    return None


def fixtures(tree):
    """{name: [param, ...]} of the module's `@pytest.fixture(params=[...])`
    functions whose params are string literals (upstream's `memkind`)."""
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and ast.unparse(d.func) == "pytest.fixture":
                for kw in d.keywords:
                    if kw.arg == "params" and isinstance(kw.value, (ast.List, ast.Tuple)):
                        vals = [e.value for e in kw.value.elts if isinstance(e, ast.Constant)]
                        if len(vals) == len(kw.value.elts) and all(isinstance(v, str) for v in vals):
                            out[node.name] = vals
    return out


def instances(fn, params):
    """[(suffix, bindings)]: one per combination of the fixture parameters
    the test takes (pytest's parametrization), else one plain instance."""
    names = [a.arg for a in fn.args.args[1:] if a.arg in params]
    combos = [("", {})]
    for n in names:
        combos = [(f"{s}-{v}" if s else v, {**b, n: v}) for s, b in combos for v in params[n]]
    return [(f"[{s}]" if s else "", b) for s, b in combos]


def snippets(upstream: Path, binary, engine, verbose):
    tests = upstream / "spy" / "tests"
    files = sorted((tests / "compiler").glob("**/test_*.py")) + sorted((tests / "stdlib").glob("test_*.py"))
    total = applicable = ok = 0
    for f in files:
        try:
            tree = ast.parse(f.read_text())
        except SyntaxError as e:  # a newer Python than this one
            print(f"warning: cannot parse {f} with Python {sys.version.split()[0]}: {e}; use Python >= 3.12", file=sys.stderr)
            continue
        params = fixtures(tree)
        for cls in tree.body:
            if not isinstance(cls, ast.ClassDef):
                continue
            for fn, (suffix, bindings) in (
                (fn, inst)
                for fn in cls.body
                if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_")
                for inst in instances(fn, params)
            ):
                total += 1
                name = f"{f.relative_to(tests)}::{cls.name}::{fn.name}{suffix}"
                try:
                    src, checks, errors, files = extract(fn, bindings)
                except NotApplicable as e:
                    if verbose > 1:
                        print(f"  n/a  {name}: {e}")
                    continue
                except Exception as e:  # a shape the extractor does not know
                    if verbose > 1:
                        print(f"  n/a  {name}: {type(e).__name__} {e}")
                    continue
                applicable += 1
                why = run_snippet(binary, engine, src, checks, errors, files)
                ok += why is None
                if verbose:
                    print(f"  {'ok  ' if why is None else 'FAIL'} {name}{'' if why is None else '  ' + why}")
    return ok, applicable, total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", default=os.environ.get("SPY_UPSTREAM"))
    ap.add_argument("--engine", default="interp")
    ap.add_argument("--only", choices=["examples", "snippets"])
    ap.add_argument("-v", "--verbose", action="count", default=0)
    a = ap.parse_args()
    if not a.upstream:
        print("skipped: no upstream checkout given (set SPY_UPSTREAM=/path/to/spy or pass --upstream)")
        return 0
    upstream = Path(a.upstream)
    if not (upstream / "examples" / "expected_output").is_dir():
        print(f"error: {upstream} is not a checkout of github.com/spylang/spy", file=sys.stderr)
        return 2
    binary = Path(os.environ.get("SPY_INTERP", REPO / "target" / "release" / "spy-interp")).resolve()
    if not binary.exists():
        print(f"error: {binary} does not exist (cargo build --release --bin spy-interp)", file=sys.stderr)
        return 2
    if a.only != "snippets":
        ok, fmt_only, n = examples(upstream, binary, a.engine, a.verbose)
        print(
            f"examples: {ok}/{n} match upstream's expected output; {fmt_only} more differ only"
            f" where upstream prints an object's address (engine {a.engine})"
        )
    if a.only != "examples":
        ok, n, total = snippets(upstream, binary, a.engine, a.verbose)
        pct = 100.0 * ok / n if n else 0.0
        print(f"snippets: {ok}/{n} applicable test snippets run as upstream expects ({pct:.0f}%; {total} tests, {total - n} not applicable) (engine {a.engine})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
