//! Recursion unrolled by the jit's inliner (jit/src/opt/inline.rs: three
//! levels, the base case peeled at the calls left): `spy-interp jit
//! bench/jit/fib.spy` shows 16 calls left in `fib`, and a recursion error
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
fn fib_keeps_sixteen_calls() {
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
    assert_eq!(calls, 16, "{code}");
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
