//! End-to-end tests of the `spy-interp` binary: exit codes, the separation of
//! program output (stdout) from diagnostics (stderr), and diagnostics'
//! content. The binary is the one cargo builds for this package's tests.

use std::path::PathBuf;
use std::process::{Command, Output};

/// The binary cargo built for these tests.
fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_spy-interp"))
}

/// Write `source` to a fresh file named `<name>.spy` and return its path.
fn program(name: &str, source: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.spy"));
    std::fs::write(&path, source).unwrap();
    path
}

fn run(args: &[&str]) -> Output {
    Command::new(binary())
        .args(args)
        .output()
        .expect("spawn spy-interp")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn execute_prints_program_output_and_exits_zero() {
    let p = program("hello", "def main() -> None:\n    print(\"hello\", 1 + 2)\n");
    let out = run(&["execute", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "hello 3\n");
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn file_alone_is_shorthand_for_execute() {
    let p = program("short", "def main() -> None:\n    print(7 // 2)\n");
    let out = run(&[p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "3\n");
}

#[test]
fn exit_code_is_mains_result() {
    let p = program("code", "def main() -> i32:\n    return 40 + 2\n");
    let out = run(&["execute", "--engine", "interp", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(42));
}

#[test]
fn argv_is_the_file_as_given_then_every_later_argument() {
    let src =
        "def main(argv: list[str]) -> i32:\n    for a in argv:\n        print(a)\n    return len(argv)\n";
    let p = program("argv", src);
    let file = p.to_str().unwrap();
    let expected = format!("{file}\nx\n--max-steps\n-v\n");
    for engine in ["interp", "doppler"] {
        let out = run(&["execute", "--engine", engine, file, "x", "--max-steps", "-v"]);
        assert_eq!(out.status.code(), Some(4), "{engine}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected, "{engine}");
    }
    // the `spy-interp FILE ARGS...` shorthand passes them too
    let out = run(&[file, "x", "--max-steps", "-v"]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(text(&out.stdout), expected);
}

#[test]
fn runtime_error_goes_to_stderr_with_traceback_and_location() {
    let p = program(
        "boom",
        "def main() -> None:\n    print(\"before\")\n    x = 1\n    print(x // 0)\n",
    );
    let out = run(&["execute", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "before\n");
    let err = text(&out.stderr);
    assert!(err.contains("Traceback (most recent call last):"), "{err}");
    assert!(
        err.lines()
            .any(|l| l == "ZeroDivisionError: integer division or modulo by zero"),
        "{err}"
    );
    assert!(err.contains("boom.spy:4:"), "{err}");
    assert!(err.contains("print(x // 0)"), "{err}");
}

#[test]
fn parse_error_has_location_excerpt_and_no_stdout() {
    let p = program("bad", "def main() -> None:\n    x = (1 +\n");
    let out = run(&["execute", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    let err = text(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("ParseError: ")), "{err}");
    assert!(err.contains("bad.spy:"), "{err}");
}

#[test]
fn type_error_is_lazy_and_annotated() {
    let p = program(
        "lazy",
        "def main() -> None:\n    print(\"ok\")\n    if False:\n        x = 1 + \"a\"\n    y = 2 + \"b\"\n",
    );
    let out = run(&["execute", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "ok\n");
    let err = text(&out.stderr);
    assert!(
        err.lines().any(|l| l == "TypeError: cannot do `i32` + `str`"),
        "{err}"
    );
    assert!(err.contains("this is `str`"), "{err}");
    assert!(err.contains("lazy.spy:5:"), "{err}");
}

#[test]
fn deep_recursion_is_a_recursion_error_not_a_crash() {
    let p = program(
        "rec",
        "def f(n: i32) -> i32:\n    return f(n + 1)\n\ndef main() -> None:\n    f(0)\n",
    );
    let out = run(&["execute", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.lines()
            .any(|l| l == "RecursionError: maximum recursion depth exceeded"),
        "{err}"
    );
}

#[test]
fn max_steps_bounds_a_runaway_loop() {
    let p = program("spin", "def main() -> None:\n    while True:\n        pass\n");
    let out = run(&["execute", "--max-steps", "1000", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.lines()
            .any(|l| l == "StepLimitError: execution exceeded the step limit (1000 steps)"),
        "{err}"
    );
}

#[test]
fn parse_subcommand_dumps_the_ast() {
    let p = program("dump", "def main() -> None:\n    pass\n");
    let out = run(&["parse", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("main"), "{}", text(&out.stdout));
}

#[test]
fn missing_file_and_bad_engine_are_usage_errors() {
    let out = run(&["execute", "/nonexistent/x.spy"]);
    assert_eq!(out.status.code(), Some(2));
    let p = program("eng", "def main() -> None:\n    pass\n");
    let out = run(&["execute", "--engine", "nope", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("invalid value 'nope'"), "{stderr}");
    assert!(
        stderr.contains("interp, doppler, jit, interp-general"),
        "{stderr}"
    );
}

#[test]
fn conformance_command_reports_failures_with_exit_code() {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("spy-conf-{}", std::process::id()));
    let area = dir.join("a");
    std::fs::create_dir_all(&area).unwrap();
    std::fs::write(area.join("ok.spy"), "def main() -> None:\n    print(1)\n").unwrap();
    std::fs::write(area.join("ok.snap"), "---\nsource: x\n---\nexit: 0\nstdout:\n1\n").unwrap();
    let out = run(&["conformance", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    std::fs::write(area.join("bad.spy"), "def main() -> None:\n    print(2)\n").unwrap();
    std::fs::write(
        area.join("bad.snap"),
        "---\nsource: x\n---\nexit: 0\nstdout:\n3\n",
    )
    .unwrap();
    let out = run(&["conformance", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("FAIL [interp] a/bad"),
        "{}",
        text(&out.stdout)
    );
    let out = run(&["conformance", "--shard", "1/2", dir.to_str().unwrap()]);
    assert!(text(&out.stdout).contains("1 cases"), "{}", text(&out.stdout));
}

#[test]
fn redshift_prints_residual_source_that_runs() {
    let p = program(
        "rs",
        "from __spy__ import UNROLL_RANGE\n\ndef f(x: i32) -> i32:\n    acc = 0\n    for i in UNROLL_RANGE(3):\n        acc = acc + x * i\n    return acc\n\ndef main() -> None:\n    print(f(2))\n",
    );
    let out = run(&["redshift", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let residual = text(&out.stdout);
    assert!(residual.contains("acc = acc + x * 2"), "{residual}");
    assert!(!residual.contains("UNROLL_RANGE"), "{residual}");
    // The printed residual module is a program that runs to the same result.
    let q = program("rs", &residual);
    let run_residual = run(&[q.to_str().unwrap()]);
    assert_eq!(text(&run_residual.stdout), "6\n");
    let doppler = run(&["execute", "--engine", "doppler", p.to_str().unwrap()]);
    assert_eq!(text(&doppler.stdout), "6\n");
}

#[test]
fn redshift_is_eager_by_default_and_lazy_on_request() {
    let p = program(
        "eager",
        "def never() -> i32:\n    return 1 + \"a\"\n\ndef main() -> None:\n    print(\"ok\")\n",
    );
    let out = run(&["redshift", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.lines().any(|l| l == "TypeError: cannot do `i32` + `str`"),
        "{err}"
    );
    assert!(err.contains("[redshift] eager::never"), "{err}");
    let lazy = run(&["redshift", "-E", "lazy", p.to_str().unwrap()]);
    assert_eq!(lazy.status.code(), Some(0));
    assert!(
        text(&lazy.stdout).contains("raise TypeError('cannot do `i32` + `str`')"),
        "{}",
        text(&lazy.stdout)
    );
    let doppler = run(&["execute", "--engine", "doppler", p.to_str().unwrap()]);
    assert_eq!(doppler.status.code(), Some(0));
    assert_eq!(text(&doppler.stdout), "ok\n");
}

#[test]
fn redshift_provenance_names_the_original_call() {
    let p = program(
        "prov",
        "def add[T](x: T, y: T) -> T:\n    return x + y\n\ndef main() -> None:\n    print(add[i32](1, 2))\n",
    );
    let out = run(&["redshift", "--provenance", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let residual = text(&out.stdout);
    assert!(
        residual.contains("def `add[i32]`(x: i32, y: i32) -> i32:"),
        "{residual}"
    );
    assert!(
        residual.contains("# `prov::add[i32]`: from `def add`"),
        "{residual}"
    );
    assert!(residual.contains("`add[i32]` at "), "{residual}");
}

#[test]
fn execute_engine_jit_runs_natively_and_reports_errors_like_interp() {
    let src = "def g(x: i32, y: i32) -> i32:\n    return x // y\n\ndef main() -> i32:\n    print(\"a\", 7 // 2, 1.5 ** 2.0, 'x' + 'y')\n    print(g(1, 0))\n    return 0\n";
    let p = program("jit_err", src);
    let jit = run(&["execute", "--engine", "jit", p.to_str().unwrap()]);
    let interp = run(&["execute", "--engine", "interp", p.to_str().unwrap()]);
    assert_eq!(jit.status.code(), Some(1));
    assert_eq!(text(&jit.stdout), "a 3 2.25 xy\n");
    assert_eq!(text(&jit.stdout), text(&interp.stdout));
    let last = |o: &Output| {
        text(&o.stderr)
            .lines()
            .find(|l| l.starts_with("ZeroDivisionError"))
            .map(str::to_string)
    };
    assert_eq!(
        last(&jit),
        Some("ZeroDivisionError: integer division or modulo by zero".into())
    );
    assert_eq!(last(&jit), last(&interp));
    // The traceback names the same frames.
    for frame in ["jit_err::main", "jit_err::g"] {
        assert!(text(&jit.stderr).contains(frame), "{}", text(&jit.stderr));
    }
    let ok = program("jit_exit", "def main() -> i32:\n    return 300\n");
    assert_eq!(
        run(&["execute", "--engine", "jit", ok.to_str().unwrap()])
            .status
            .code(),
        Some(300 & 0xff)
    );
}

#[test]
fn execute_engine_jit_refuses_max_steps_and_names_what_it_cannot_compile() {
    let p = program("jit_steps", "def main() -> None:\n    print(1)\n");
    let out = run(&[
        "execute",
        "--engine",
        "jit",
        "--max-steps",
        "10",
        p.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--max-steps is not supported by --engine jit"));
    let dynamic = program(
        "jit_dynamic",
        "def show(d: dynamic) -> None:\n    print(d)\n\ndef main() -> None:\n    show(1)\n",
    );
    let out = run(&["execute", "--engine", "jit", dynamic.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    // Located in the user's source (mapped back from the residual module).
    assert!(err.contains("jit_dynamic.spy:1:"), "{err}");
    assert!(!err.contains("residual code"), "{err}");
    assert!(err.contains("the JIT cannot compile"), "{err}");
    assert_eq!(text(&out.stdout), "");
}

/// `fuzz-merge` keeps one finding file per class (the campaign's own
/// classes: signature header + reproducer shape) across shard directories.
#[test]
fn fuzz_merge_drops_findings_of_a_class_already_kept() {
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-cli-{}-fuzz-merge", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (a, b, out) = (root.join("a"), root.join("b"), root.join("out"));
    let finding = |dir: &PathBuf, name: &str, expr: &str| {
        std::fs::create_dir_all(dir).unwrap();
        let text = format!(
            "# Fuzz finding [interp/doppler] stdout: -N ≠ -N\n# replay: spy-interp fuzz --seed 1 --case 3\ndef main() -> None:\n    print({expr})\n"
        );
        std::fs::write(dir.join(format!("{name}.spy")), text).unwrap();
        std::fs::write(dir.join(format!("{name}.snap")), "-4\n").unwrap();
    };
    finding(&a, "fuzz_a", "-7 // 2");
    finding(&b, "fuzz_b", "-9 // 4");
    finding(&b, "fuzz_c", "-9 % 4");
    let r = run(&[
        "fuzz-merge",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", text(&r.stderr));
    let stdout = text(&r.stdout);
    assert!(stdout.contains("2 finding(s) copied"), "{stdout}");
    assert!(
        stdout.contains("duplicate:") && stdout.contains("fuzz_b.spy"),
        "{stdout}"
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["fuzz_a.snap", "fuzz_a.spy", "fuzz_c.snap", "fuzz_c.spy"]);
    // A directory that does not exist is an error, not a silent no-op.
    let r = run(&[
        "fuzz-merge",
        root.join("nope").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(2), "{}", text(&r.stderr));
    let _ = std::fs::remove_dir_all(&root);
}

/// SIGINT, SIGTERM and SIGHUP during `execute` flush what the program
/// printed (block-buffered into a pipe) and exit with 130, on every engine;
/// for `execute` the main thread waits for these signals itself while the
/// program runs on the evaluator thread.
#[test]
fn a_signal_during_execute_flushes_the_output_and_exits_130() {
    let p = program(
        "interrupted",
        "def main() -> None:\n    print(\"started\")\n    i: i64 = 0\n    while i < i64(1000000000000000):\n        i = i + i64(1)\n    print(i)\n",
    );
    for (engine, signal) in [
        ("interp", libc::SIGINT),
        ("doppler", libc::SIGTERM),
        ("jit", libc::SIGHUP),
        ("jit", libc::SIGINT),
    ] {
        let child = Command::new(binary())
            .args(["execute", "--engine", engine, p.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn spy-interp");
        let pid = child.id();
        // The evaluator thread exists once the signals are blocked and
        // waited for (before that a signal would end the process
        // unflushed); the program prints its line a few ms later.
        let tasks = format!("/proc/{pid}/task");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while std::fs::read_dir(&tasks).map_or(0, |d| d.count()) < 2 {
            assert!(
                std::time::Instant::now() < deadline,
                "{engine}: no evaluator thread"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        std::thread::sleep(std::time::Duration::from_secs(1));
        // SAFETY: signalling our own child.
        assert_eq!(unsafe { libc::kill(pid as i32, signal) }, 0);
        let out = child.wait_with_output().expect("wait for spy-interp");
        assert_eq!(out.status.code(), Some(130), "{engine} {signal}: {out:?}");
        assert_eq!(text(&out.stdout), "started\n", "{engine} {signal}");
    }
}
