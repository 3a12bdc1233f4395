//! Recursion unrolled by the jit's inliner (jit/src/opt/inline.rs: up to
//! three levels within its statement budget, the base case peeled at the
//! calls left) after leaf folding (jit/src/opt/fold.rs: `fib(2)` and
//! `fib(3)` are constants behind their depth checks): `spy-interp jit
//! bench/jit/fib.spy` shows 12 calls left in `fib`, and a recursion error
//! reported by the jit is the interpreter's report, traceback included, at
//! every depth limit (the error raised at an inlined level, a peeled base
//! case or a real call, through the first or the second call site).

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{bench_program, binary};

fn run(args: &[&str], file: &PathBuf) -> (String, String, Option<i32>) {
    let out = Command::new(binary())
        .args(args)
        .arg(file)
        .output()
        .expect("spawn spy-interp");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

#[test]
fn fib_keeps_twelve_calls() {
    let file = bench_program("fib", 20);
    let (text, err, code) = run(&["jit"], &file);
    assert_eq!(code, Some(0), "{err}");
    let fib = text
        .split("== fib::fib\n")
        .nth(1)
        .and_then(|t| t.split("\n== ").next())
        .expect("fib's listing");
    let code = fib.split("-- machine code").nth(1).expect("machine code");
    let calls = code.lines().filter(|l| l.contains("  call ")).count();
    assert_eq!(calls, 12, "{code}");
    // The depth counter (x64/codegen/depth.rs): an activation, inlined or
    // not, only compares r14; it is written only around a call (`sub r14,
    // o; call; jb; add r14, o`), never per activation.
    let insts: Vec<&str> = code
        .lines()
        .filter(|l| !l.trim_start().starts_with(';'))
        .collect();
    let mut checks = 0;
    for (k, l) in insts.iter().enumerate() {
        if !l.contains("r14") {
            continue;
        }
        if l.contains("cmp r14,") {
            checks += 1;
        } else if l.contains("sub r14,") {
            assert!(
                insts[k + 1].contains("  call "),
                "a sub of r14 not before a call: {l}\n{code}"
            );
        } else if l.contains("add r14,") {
            assert!(
                insts[k - 2].contains("  call ") && insts[k - 1].contains(" jb "),
                "an add to r14 not after a call: {l}\n{code}"
            );
        } else {
            panic!("r14 used otherwise: {l}\n{code}");
        }
    }
    assert!(checks >= 12, "one check per activation: {checks}\n{code}");
    let want = run(&["execute", "--engine", "interp"], &file);
    assert_eq!(run(&["execute", "--engine", "jit"], &file), want);
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}

#[test]
fn recursion_errors_match_the_interpreter_at_every_limit() {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("spy-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // fib, and the same with its calls swapped (the deep chain then goes
    // through the second call site).
    let programs = [
        ("fib", "fib(n - 1) + fib(n - 2)"),
        ("swapped", "fib(n - 2) + fib(n - 1)"),
    ];
    for (name, body) in programs {
        let src = format!(
            "def fib(n: i32) -> i32:\n    if n < 2:\n        return n\n    return {body}\n\n\ndef main() -> None:\n    print(fib(22))\n"
        );
        let file = dir.join(format!("{name}.spy"));
        std::fs::write(&file, src).expect("write");
        for limit in [2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 17, 21, 22, 23, 30] {
            let depth = limit.to_string();
            let args = |engine: &'static str| ["execute", "--engine", engine, "--max-depth"];
            let mut interp: Vec<&str> = args("interp").to_vec();
            interp.push(&depth);
            let mut jit: Vec<&str> = args("jit").to_vec();
            jit.push(&depth);
            assert_eq!(
                run(&jit, &file),
                run(&interp, &file),
                "{name}, --max-depth {limit}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two inlined calls in a row in a loop (the second's depth check is the
/// first's): at `--max-depth 1` the first call raises, as in the
/// interpreter. Before the depth counter was rewritten (x64/codegen/
/// depth.rs), the loop's copy without depth checks left that pairing
/// behind for the checked copy, whose first call then skipped its check:
/// the jit printed 20 here.
#[test]
fn paired_inlined_calls_in_a_loop_raise_at_the_limit() {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("spy-pair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("pair.spy");
    let src = "def f(x: i32) -> i32:\n    return x + 1\n\n\ndef main() -> None:\n    i = 0\n    s = 0\n    while i < 10:\n        s = f(s)\n        s = f(s)\n        i += 1\n    print(s)\n";
    std::fs::write(&file, src).expect("write");
    for limit in ["1", "2", "3"] {
        let want = run(&["execute", "--engine", "interp", "--max-depth", limit], &file);
        let got = run(&["execute", "--engine", "jit", "--max-depth", limit], &file);
        assert_eq!(got, want, "--max-depth {limit}");
        assert_eq!(
            want.2,
            Some(if limit == "1" { 1 } else { 0 }),
            "--max-depth {limit}: {want:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
