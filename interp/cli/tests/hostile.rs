//! Hostile input for the `spy-interp` binary: programs, files and flags
//! that once crashed it, hung it, exhausted memory or lost output. Each
//! runs the binary cargo built with a wall-clock limit (the child is
//! killed past it, and the test fails) and, where memory is the point, a
//! ceiling on the child's peak RSS (`wait4`'s rusage of that one child).
//! Large inputs are generated at test time.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_spy-interp"))
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-hostile-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn program(name: &str, source: &str) -> PathBuf {
    let path = temp_dir(name).join(format!("{name}.spy"));
    std::fs::write(&path, source).unwrap();
    path
}

/// What a bounded run of the binary did.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Peak resident memory of the child, in KiB.
    max_rss_kib: i64,
    elapsed: Duration,
}

/// Run the binary with `args`, stdout to `stdout` (captured when `None`),
/// killed after `limit`; panics if it had to be killed. The child is
/// reaped by `wait4` (for its own rusage), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run_with(args: &[&str], stdout: Option<Stdio>, limit: Duration) -> Run {
    let start = Instant::now();
    let capture = stdout.is_none();
    let mut child = Command::new(binary())
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdout.unwrap_or_else(Stdio::piped))
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn spy-interp");
    let pid = child.id() as libc::pid_t;
    let read_all = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = capture.then(|| read_all(Box::new(child.stdout.take().unwrap())));
    let err = read_all(Box::new(child.stderr.take().unwrap()));
    let done = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (done, killed) = (done.clone(), killed.clone());
        std::thread::spawn(move || {
            while start.elapsed() < limit {
                if done.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if !done.load(Ordering::SeqCst) {
                killed.store(true, Ordering::SeqCst);
                // SAFETY: `pid` is our child, not reaped yet (we reap it below).
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        })
    };
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter for wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child; `status` and `usage` outlive the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    done.store(true, Ordering::SeqCst);
    let _ = watchdog.join();
    assert_eq!(waited, pid, "wait4 failed");
    let stderr = err.join().unwrap();
    assert!(
        !killed.load(Ordering::SeqCst),
        "spy-interp {args:?} did not finish within {limit:?}; stderr: {}",
        &stderr[..stderr.len().min(2000)]
    );
    Run {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout: out.map(|h| h.join().unwrap()).unwrap_or_default(),
        stderr,
        max_rss_kib: usage.ru_maxrss,
        elapsed: start.elapsed(),
    }
}

fn run(args: &[&str], limit: Duration) -> Run {
    run_with(args, None, limit)
}

const SECS: fn(u64) -> Duration = Duration::from_secs;

/// No run may end in a panic or a native crash.
fn assert_no_crash(r: &Run) {
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert!(!r.stderr.contains("overflowed its stack"), "{}", r.stderr);
    assert!(r.code.is_some(), "killed by a signal: {r:?}");
}

const PRINT_FOREVER: &str = "def main() -> None:\n    while True:\n        print(\"x\" * 100)\n";

// ---------------------------------------------------------------- output

#[test]
fn output_streams_while_the_program_runs() {
    let p = program("stream", PRINT_FOREVER);
    let mut child = Command::new(binary())
        .arg(&p)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(SECS(30));
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(
        line.expect("no output within 30 s"),
        format!("{}\n", "x".repeat(100))
    );
}

#[test]
fn a_closed_pipe_ends_the_program_with_a_message() {
    let p = program("epipe", PRINT_FOREVER);
    let mut child = Command::new(binary())
        .arg(&p)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line (as `| head -1` does), then close the pipe.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    drop(stdout);
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > SECS(30) {
            let _ = child.kill();
            panic!("spy-interp kept running after its stdout was closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(status.code(), Some(74), "{stderr}");
    assert!(
        stderr.starts_with("OSError: cannot write the program's output"),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_is_an_error_in_every_command() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let p = program("full", "def main() -> None:\n    print(\"hello\")\n");
    let p = p.to_str().unwrap();
    for args in [
        vec!["execute", p],
        vec!["execute", "--engine", "doppler", p],
        vec!["execute", "--engine", "jit", p],
        vec!["parse", p],
        vec!["redshift", p],
        vec!["fuzz", "--cases", "2", "--quiet", "--out"],
    ] {
        let mut args = args.clone();
        let out = temp_dir("full-fuzz");
        let out = out.to_str().unwrap().to_string();
        if args[0] == "fuzz" {
            args.push(&out);
        }
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let r = run_with(&args, Some(Stdio::from(full)), SECS(120));
        assert_no_crash(&r);
        assert_eq!(r.code, Some(74), "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("OSError: cannot write"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

/// `--engine jit` streams too: `while True: print(...)` into a pipe whose
/// reader takes one line and closes it (`| head -1`) ends quickly, with
/// the OSError line, exit 74 and bounded memory (the jit once collected
/// all output in memory, wrote nothing and grew without bound).
#[test]
fn the_jit_streams_into_a_pipe_closed_after_one_line_in_bounded_memory() {
    use std::os::fd::FromRawFd;
    let p = program("jit-head", PRINT_FOREVER);
    let mut fds = [0; 2];
    // Close-on-exec: no child but this one (through its stdout) may hold
    // the pipe open. SAFETY: `fds` is a valid out-parameter for two descriptors.
    assert_eq!(
        unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) },
        0,
        "pipe2"
    );
    // SAFETY: both descriptors were just created and are owned here only.
    let (read_end, write_end) = unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    };
    let head = std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(read_end).read_line(&mut line);
        line // the read end closes here
    });
    let r = run_with(
        &["execute", "--engine", "jit", p.to_str().unwrap()],
        Some(Stdio::from(write_end)),
        SECS(60),
    );
    assert_no_crash(&r);
    assert_eq!(head.join().unwrap(), format!("{}\n", "x".repeat(100)));
    assert_eq!(r.code, Some(74), "{}", r.stderr);
    assert!(
        r.stderr.starts_with("OSError: cannot write the program's output"),
        "{}",
        r.stderr
    );
    assert!(r.max_rss_kib < 256 * 1024, "peak RSS {} KiB", r.max_rss_kib);
}

/// What a program printed before its error is all on stdout, in every
/// engine, ahead of the report on stderr.
#[test]
fn output_before_an_error_is_all_written_in_every_engine() {
    let source = "def f(n: i32) -> i32:\n    return f(n + 1)\n\n\
                  def main() -> None:\n    for i in range(3000):\n        print(\"line\", i)\n    f(0)\n";
    let p = program("before-error", source);
    let expected: String = (0..3000).map(|i| format!("line {i}\n")).collect();
    for engine in ["interp", "doppler", "jit"] {
        let r = run(&["execute", "--engine", engine, p.to_str().unwrap()], SECS(60));
        assert_no_crash(&r);
        assert_eq!(r.code, Some(1), "{engine}: {}", r.stderr);
        assert!(
            r.stdout == expected,
            "{engine}: {} bytes of output",
            r.stdout.len()
        );
        assert!(
            r.stderr
                .ends_with("RecursionError: maximum recursion depth exceeded\n")
                || r.stderr
                    .contains("\nRecursionError: maximum recursion depth exceeded\n"),
            "{engine}: {}",
            r.stderr
        );
    }
}

/// Output buffered when SIGTERM arrives is flushed before the process
/// exits (130), in every engine: a program that prints 200 KB (more than
/// one 64 KiB block, so the first block shows it has started) and then
/// loops forever loses none of it.
#[test]
fn output_buffered_at_sigterm_is_flushed_in_every_engine() {
    let source = "def main() -> None:\n    for i in range(2000):\n        print(i, \"x\" * 100)\n    while True:\n        pass\n";
    let p = program("sigterm", source);
    let expected: String = (0..2000).map(|i| format!("{i} {}\n", "x".repeat(100))).collect();
    for engine in ["interp", "doppler", "jit"] {
        let mut child = Command::new(binary())
            .args(["execute", "--engine", engine, p.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut all = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if all.is_empty() {
                            let _ = tx.send(());
                        }
                        all.extend_from_slice(&buf[..n]);
                    }
                }
            }
            String::from_utf8_lossy(&all).into_owned()
        });
        let started = rx.recv_timeout(SECS(60));
        // The rest of the prints take microseconds; then it only loops.
        std::thread::sleep(Duration::from_millis(1500));
        // SAFETY: signals our own child, not reaped yet.
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > SECS(30) {
                let _ = child.kill();
                panic!("{engine}: still running 30 s after SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = reader.join().unwrap();
        started.unwrap_or_else(|_| panic!("{engine}: no output within 60 s"));
        assert_eq!(status.code(), Some(130), "{engine}");
        assert!(
            out == expected,
            "{engine}: {} of {} bytes",
            out.len(),
            expected.len()
        );
    }
}

// ---------------------------------------------------------------- stack

#[test]
fn deep_recursion_past_the_old_native_limit_is_a_recursion_error() {
    // A debug build's 1 GiB stack used to overflow at about 43,000 calls.
    let p = program(
        "deep",
        "def f(n: i32) -> i32:\n    return f(n + 1) + 1\n\ndef main() -> None:\n    print(f(0))\n",
    );
    let r = run(
        &["execute", "--max-depth", "60000", p.to_str().unwrap()],
        SECS(300),
    );
    assert_no_crash(&r);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r
        .stderr
        .contains("RecursionError: maximum recursion depth exceeded"));
    // Identical frames are counted, not printed 60,000 times (`main` is
    // one of the 60,000 calls).
    assert!(
        r.stderr.contains("  [Previous line repeated 59996 more times]\n"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.len() < 4_000, "{} bytes of stderr", r.stderr.len());
}

#[test]
fn deep_expressions_in_every_call_end_at_the_stack_guard() {
    // Each call nests 150 expressions: the stack sized for the depth limit
    // runs short first, and the guard turns that into RecursionError.
    let mut e = "f(n + 1)".to_string();
    for _ in 0..150 {
        e = format!("(1 + {e})");
    }
    let src = format!("def f(n: i32) -> i32:\n    return {e}\n\ndef main() -> None:\n    print(f(0))\n");
    let p = program("deepexpr", &src);
    for engine in ["interp", "doppler"] {
        let r = run(
            &[
                "execute",
                "--engine",
                engine,
                "--max-depth",
                "5000",
                p.to_str().unwrap(),
            ],
            SECS(300),
        );
        assert_no_crash(&r);
        assert!(
            r.stderr
                .contains("RecursionError: maximum recursion depth exceeded"),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn depth_limits_out_of_range_are_usage_errors() {
    let p = program("depthflag", "def main() -> None:\n    pass\n");
    for depth in ["0", "200000", "-1"] {
        let flag = format!("--max-depth={depth}");
        let r = run(&["execute", &flag, p.to_str().unwrap()], SECS(30));
        assert_eq!(r.code, Some(2), "{depth}: {}", r.stderr);
        assert!(r.stderr.contains("--max-depth"), "{}", r.stderr);
    }
}

// ---------------------------------------------------------------- source input

#[test]
fn a_device_as_source_is_too_large_quickly_and_in_bounded_memory() {
    if !std::path::Path::new("/dev/zero").exists() {
        return;
    }
    let r = run(&["execute", "/dev/zero"], SECS(60));
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains("ParseError: source file too large"),
        "{}",
        r.stderr
    );
    assert!(r.max_rss_kib < 400 << 10, "peak RSS {} KiB", r.max_rss_kib);
}

#[test]
fn a_huge_file_is_refused_before_it_is_read() {
    // Sparse: 5 GB of size, no disk.
    let path = temp_dir("huge").join("huge.spy");
    let f = std::fs::File::create(&path).unwrap();
    f.set_len(5 << 30).unwrap();
    for cmd in ["execute", "parse", "redshift"] {
        let r = run(&[cmd, path.to_str().unwrap()], SECS(30));
        assert_eq!(r.code, Some(1), "{}", r.stderr);
        assert!(
            r.stderr.contains("ParseError: source file too large"),
            "{}",
            r.stderr
        );
        assert!(r.max_rss_kib < 100 << 10, "peak RSS {} KiB", r.max_rss_kib);
        assert!(r.elapsed < SECS(10), "{:?}", r.elapsed);
    }
    let _ = std::fs::remove_file(&path);
}

/// The program `bench/memory_per_source_byte.py` generates, of `size`
/// bytes or a little more: functions of a few statements each, every one
/// calling the one before.
fn functions_program(size: usize) -> String {
    let mut out = String::from("def f0(a: i32, b: i32) -> i32:\n    return a + b\n\n");
    let mut i = 1;
    while out.len() < size {
        out.push_str(&format!(
            "def f{i}(a: i32, b: i32) -> i32:\n    x = a * 3 + b\n    y = x - (a // 2)\n\
             \x20   if y > 100:\n        y = y % 7\n    return f{}(y, b)\n\n",
            i - 1
        ));
        i += 1;
    }
    out.push_str("def main() -> None:\n    print(f5(1, 2))\n");
    out
}

/// A large valid program takes a bounded multiple of its size in every
/// engine (issue 14 item 5: 50 MB took 1.7 GB in interp and 4.7 GB in
/// doppler). The ceilings are peak RSS of the whole process per source
/// byte (the binary's own few MB included; measured by GNU time, see
/// below), about 10-15 % above what the binary `cargo test` builds
/// measured here when they were set: interp 22.9x, doppler 35.9x, jit
/// 35.8x (once the interp engine made `def` records on first use; 36x,
/// 55x, 55x when the ceilings were 41x, 62x, 62x; a release build at 3
/// MB, `bench/memory_per_source_byte.py --size 3`, then: 25x, 43x, 43x
/// to 44x). Before the AST nodes shrank and the allocator's purge
/// delay was cut: interp 43x, doppler and jit 69x to 75x here (ceilings
/// 50x and 85x); 30x, 55x, 56x at 3 MB.
#[test]
fn a_large_valid_program_takes_a_bounded_multiple_of_its_size() {
    let text = functions_program(1_000_000);
    let p = program("large", &text);
    // Started by GNU time, whose child's peak is the binary's own: a child
    // of this (multi-threaded, larger) test process would also count this
    // process's peak, whatever the other tests made it.
    let timer = std::path::Path::new("/usr/bin/time");
    if !timer.exists() {
        let msg = "no /usr/bin/time: the memory ceilings are not checked";
        // .ci/run installs it: under CI a missing timer is a failure
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{msg} — required under CI=true");
        }
        eprintln!("{msg}");
    }
    let report = temp_dir("large").join("rss.txt");
    for (engine, ceiling) in [("interp", 26.0), ("doppler", 41.0), ("jit", 41.0)] {
        let args = ["execute", "--engine", engine, p.to_str().unwrap()];
        if !timer.exists() {
            let r = run(&args, SECS(300));
            assert_eq!(r.code, Some(0), "{engine}: {}", r.stderr);
            assert_eq!(r.stdout, "14\n", "{engine}");
            continue;
        }
        let out = Command::new(timer)
            .args(["-f", "%M", "-o", report.to_str().unwrap()])
            .arg(binary())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("spawn /usr/bin/time");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{engine}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), "14\n", "{engine}");
        let text_report = std::fs::read_to_string(&report).unwrap();
        let kib: f64 = text_report
            .split_whitespace()
            .last()
            .and_then(|w| w.parse().ok())
            .expect("a peak RSS figure");
        let per_byte = kib * 1024.0 / text.len() as f64;
        eprintln!("{engine}: peak RSS {kib} KiB, {per_byte:.1}x the source");
        assert!(
            per_byte < ceiling,
            "{engine}: peak RSS {kib} KiB is {per_byte:.1}x the source (ceiling {ceiling}x)"
        );
    }
}

// ---------------------------------------------------------------- name resolution

#[test]
fn sixty_four_thousand_functions_resolve_in_linear_time() {
    let n = 64_000;
    let mut src = String::from("def f0(a: i32) -> i32:\n    return a\n\n");
    for i in 1..n {
        src.push_str(&format!("def f{i}(a: i32) -> i32:\n    return f{}(a)\n\n", i - 1));
    }
    src.push_str("def main() -> None:\n    print(f5(1))\n");
    let p = program("many", &src);
    // Quadratic resolution took 19 s in a release build (minutes in debug).
    let r = run(&["execute", p.to_str().unwrap()], SECS(90));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "1\n");
}

// ---------------------------------------------------------------- diagnostics

#[test]
fn a_very_long_line_is_not_echoed_whole() {
    let pad = "y".repeat(400_000);
    let src = format!("def main() -> None:\n    s = \"{pad}\" + 1\n");
    let p = program("longline", &src);
    let r = run(&["execute", p.to_str().unwrap()], SECS(60));
    assert_eq!(r.code, Some(1), "{}", &r.stderr[..r.stderr.len().min(500)]);
    assert!(
        r.stderr.contains("TypeError: cannot do `str` + `i32`"),
        "{}",
        &r.stderr[..r.stderr.len().min(2000)]
    );
    assert!(r.stderr.len() < 5_000, "{} bytes of stderr", r.stderr.len());
}

/// A large program's source text (and the doppler and jit engines'
/// residual text) is kept compressed once parsed (`source::SourceFile::
/// packed`, issue 14 item 5): its errors still show their places and
/// excerpts, the same in every engine.
#[test]
fn a_large_programs_error_shows_its_excerpt_in_every_engine() {
    let mut text = functions_program(200_000).replace("def main() -> None:\n    print(f5(1, 2))\n", "");
    assert!(text.len() > 128 << 10, "large enough to be packed");
    text.push_str(
        "def boom(a: i32) -> i32:\n    return 100 // a\n\n\
         def main() -> None:\n    print(f5(1, 2))\n    print(boom(0))\n",
    );
    let lines = text.lines().count();
    let p = program("large_error", &text);
    let path = p.to_str().unwrap();
    for engine in ["interp", "doppler", "jit"] {
        let r = run(&["execute", "--engine", engine, path], SECS(120));
        assert_eq!(r.code, Some(1), "{engine}: {}", r.stderr);
        assert_eq!(r.stdout, "14\n", "{engine}");
        let expected = [
            format!("  * large_error::main at {path}:{lines}:11"),
            "  |     print(boom(0))".to_string(),
            format!("  * large_error::boom at {path}:{}:5", lines - 4),
            "  |     return 100 // a".to_string(),
            "ZeroDivisionError: integer division or modulo by zero".to_string(),
            format!("{path}:{}:12", lines - 4),
            format!(" {} |     return 100 // a", lines - 4),
        ];
        for line in expected {
            assert!(r.stderr.contains(&line), "{engine}: no `{line}` in\n{}", r.stderr);
        }
    }
}

#[test]
fn raising_a_class_prints_its_name_alone() {
    let p = program("raiseclass", "def main() -> None:\n    raise ValueError\n");
    let r = run(&["execute", p.to_str().unwrap()], SECS(30));
    assert_eq!(r.code, Some(1));
    assert!(r.stderr.lines().any(|l| l == "ValueError"), "{}", r.stderr);
    assert!(!r.stderr.contains("ValueError:"), "{}", r.stderr);
}

// ---------------------------------------------------------------- fuzz flags

#[test]
fn bad_fuzz_flags_are_usage_errors_not_panics() {
    let out = temp_dir("fuzzflags");
    let out = out.to_str().unwrap();
    for flags in [
        ["--seconds", "inf"],
        ["--seconds", "nan"],
        ["--seconds", "1e30"],
        ["--seconds", "-5"],
        ["--seconds", "0"],
        ["--jobs", "0"],
        ["--fuel", "0"],
    ] {
        let flag = format!("{}={}", flags[0], flags[1]);
        let r = run(&["fuzz", &flag, "--out", out], SECS(30));
        assert_no_crash(&r);
        assert_eq!(r.code, Some(2), "{flags:?}: {}", r.stderr);
        assert!(r.stderr.contains(flags[0]), "{flags:?}: {}", r.stderr);
    }
}

#[test]
fn an_unwritable_findings_directory_fails_before_the_campaign() {
    let r = run(
        &[
            "fuzz",
            "--cases",
            "1000000",
            "--quiet",
            "--out",
            "/dev/null/findings",
        ],
        SECS(30),
    );
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("cannot write findings to /dev/null/findings"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_campaign_where_everything_times_out_fails() {
    let out = temp_dir("fuzztimeout");
    let r = run(
        &[
            "fuzz",
            "--cases",
            "8",
            "--fuel",
            "1",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        SECS(120),
    );
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("no program was compared"), "{}", r.stderr);
}

#[test]
fn a_crash_of_native_code_is_a_finding_and_the_campaign_goes_on() {
    // The planted bug frees 8 bytes too many in every epilogue: each jit
    // run dies with SIGSEGV in its worker process, which is restarted.
    let out = temp_dir("fuzzcrash");
    let r = run(
        &[
            "fuzz",
            "--cases",
            "6",
            "--mutation",
            "jit-epilogue-off-by-eight",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
        ],
        SECS(300),
    );
    assert_no_crash(&r);
    assert_eq!(r.code, Some(1), "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("6 programs"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("native crash: the jit worker was killed by signal N (SIGSEGV)"),
        "{}",
        r.stdout
    );
    let written = std::fs::read_dir(&out).unwrap().filter_map(Result::ok);
    assert!(written
        .into_iter()
        .any(|e| e.path().extension().is_some_and(|x| x == "spy")));
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    let out = temp_dir("fuzzshard");
    for shard in ["3/2", "1", "a/b", "0/0"] {
        let flag = format!("--shard={shard}");
        let r = run(
            &["fuzz", "--cases", "1", &flag, "--out", out.to_str().unwrap()],
            SECS(30),
        );
        assert_no_crash(&r);
        assert_eq!(r.code, Some(2), "{shard}: {}", r.stderr);
        assert!(r.stderr.contains("--shard"), "{shard}: {}", r.stderr);
    }
}

// ---------------------------------------------------------------- conformance

#[test]
fn the_bundled_suite_runs_from_anywhere() {
    // A copy of the binary, run from an empty directory: the suite is in
    // the binary, not read from this checkout.
    let dir = temp_dir("installed");
    let copy = dir.join("spy-interp");
    std::fs::copy(binary(), &copy).unwrap();
    let out = Command::new(&copy)
        .args(["conformance", "--engine", "interp", "--shard", "0/40"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let cases: usize = stdout
        .lines()
        .find_map(|l| l.split_once(" cases,").and_then(|(n, _)| n.trim().parse().ok()))
        .expect("a summary line");
    assert!(cases > 10, "{stdout}");
    let _ = std::io::stderr().flush();
}

// ---------------------------------------------------------------- memory budget

const ENGINES: [&str; 3] = ["interp", "doppler", "jit"];

#[test]
fn a_huge_allocation_is_a_memory_error_not_a_kill() {
    // Used to be killed by the kernel at 24 GB.
    let p = program(
        "hugealloc",
        "from unsafe import gc_alloc, gc_ptr\ndef main() -> None:\n    p = gc_alloc[i64](2147483647)\n    print(p[0])\n",
    );
    for engine in ENGINES {
        let r = run(&["execute", "--engine", engine, p.to_str().unwrap()], SECS(60));
        assert_no_crash(&r);
        assert!(
            r.max_rss_kib < 200 << 10,
            "{engine}: peak RSS {} KiB",
            r.max_rss_kib
        );
        if engine == "jit" && r.code == Some(3) {
            continue; // not native (yet): reported, not run
        }
        assert_eq!(r.code, Some(1), "{engine}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("MemoryError: out of memory (the limit is 4294967296 bytes"),
            "{engine}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains("hugealloc.spy"),
            "{engine}: no location: {}",
            r.stderr
        );
    }
}

#[test]
fn pointer_memory_costs_the_size_of_its_items() {
    // 100 million u8 items used to take 2.4 GB (24 bytes an item).
    let p = program(
        "u8alloc",
        "from unsafe import gc_alloc, gc_ptr\ndef main() -> None:\n    p = gc_alloc[u8](100000000)\n    p[99999999] = u8(7)\n    print(p[99999999])\n",
    );
    let r = run(&["execute", p.to_str().unwrap()], SECS(120));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(r.stdout, "7\n");
    assert!(r.max_rss_kib < 300 << 10, "peak RSS {} KiB", r.max_rss_kib);
    // The same allocation past a smaller budget is refused.
    let r = run(&["execute", "--max-memory", "64M", p.to_str().unwrap()], SECS(60));
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("MemoryError"), "{}", r.stderr);
}

/// A list growing past the budget stops with `MemoryError` at `l` in every
/// engine, after the same number of items: the jit charges its list items
/// by the interpreter's rule (issue 14 item 5), so what the program printed
/// before is the same.
#[test]
fn a_growing_list_stops_at_the_budget() {
    let p = program(
        "growlist",
        "def main() -> None:\n    l: list[i32] = list[i32]()\n    i = 0\n    while True:\n        l.append(i)\n        i += 1\n        if i % 10000 == 0:\n            print(len(l))\n",
    );
    let mut printed = Vec::new();
    for engine in ["interp", "doppler", "jit"] {
        let r = run(
            &[
                "execute",
                "--engine",
                engine,
                "--max-memory",
                "32M",
                p.to_str().unwrap(),
            ],
            SECS(120),
        );
        assert_eq!(r.code, Some(1), "{engine}: {}", r.stderr);
        assert!(
            r.stderr.contains("MemoryError: out of memory"),
            "{engine}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("growlist.spy:5:9"), "{engine}: {}", r.stderr);
        assert!(
            r.max_rss_kib < 200 << 10,
            "{engine}: peak RSS {} KiB",
            r.max_rss_kib
        );
        assert!(!r.stdout.is_empty(), "{engine}: printed nothing");
        printed.push((engine, r.stdout));
    }
    for (engine, out) in &printed[1..] {
        assert_eq!(out, &printed[0].1, "{engine} vs interp");
    }
}

#[test]
fn a_growing_dict_stops_at_the_budget() {
    let p = program(
        "growdict",
        "def main() -> None:\n    d = dict[i32, i32]()\n    i = 0\n    while True:\n        d[i] = i\n        i = i + 1\n",
    );
    for engine in ["interp", "doppler"] {
        let r = run(
            &[
                "execute",
                "--engine",
                engine,
                "--max-memory",
                "16M",
                p.to_str().unwrap(),
            ],
            SECS(120),
        );
        assert_eq!(r.code, Some(1), "{engine}: {}", r.stderr);
        assert!(
            r.stderr.contains("MemoryError: out of memory"),
            "{engine}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("growdict.spy:5:9"), "{engine}: {}", r.stderr);
        assert!(
            r.max_rss_kib < 200 << 10,
            "{engine}: peak RSS {} KiB",
            r.max_rss_kib
        );
    }
}

/// Strings count against the budget while they are alive, not one at a
/// time: a program that keeps a hundred 1 MB strings stops at a 50 MB
/// budget; one that drops each string before it makes the next does not
/// (interp and doppler; the jit keeps every str until the run ends, so
/// its total is everything made: spec/17-jit.md §17.2).
#[test]
fn live_strings_are_a_running_total_against_the_budget() {
    let keep = program(
        "keepstrs",
        "def main() -> None:\n    chunk = \"x\" * 1000000\n    keep: list[str] = []\n    i = 0\n    while i < 100:\n        keep.append(chunk + str(i))\n        i = i + 1\n    print(len(keep))\n",
    );
    let churn = program(
        "churnstrs",
        "def main() -> None:\n    chunk = \"x\" * 1000000\n    i = 0\n    n = 0\n    while i < 100:\n        s = chunk + str(i)\n        n = n + len(s)\n        i = i + 1\n    print(n)\n",
    );
    for engine in ["interp", "doppler"] {
        let r = run(
            &[
                "execute",
                "--engine",
                engine,
                "--max-memory",
                "50M",
                keep.to_str().unwrap(),
            ],
            SECS(120),
        );
        assert_eq!(r.code, Some(1), "{engine}: {}", r.stderr);
        assert!(
            r.stderr.contains("MemoryError: out of memory"),
            "{engine}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("keepstrs.spy:6:21"), "{engine}: {}", r.stderr);
        assert!(
            r.max_rss_kib < 200 << 10,
            "{engine}: peak RSS {} KiB",
            r.max_rss_kib
        );
        let r = run(
            &[
                "execute",
                "--engine",
                engine,
                "--max-memory",
                "50M",
                churn.to_str().unwrap(),
            ],
            SECS(120),
        );
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (Some(0), "100000190\n"),
            "{engine}: {}",
            r.stderr
        );
    }
}

/// `conformance --max-memory` and `fuzz --max-memory` give every run that
/// budget.
#[test]
fn conformance_and_fuzz_take_a_memory_budget() {
    let dir = temp_dir("membudget");
    let cases = dir.join("cases").join("mem");
    std::fs::create_dir_all(&cases).unwrap();
    std::fs::write(
        cases.join("alloc.spy"),
        "# 3 MB of pointer memory.\nfrom unsafe import gc_alloc\n\ndef main() -> None:\n    p = gc_alloc[u8](3000000)\n    print(1)\n",
    )
    .unwrap();
    std::fs::write(
        cases.join("alloc.snap"),
        "---\nsource: conformance/tests/suite.rs\nexpression: outcome\n---\nexit: 0\nstdout:\n1\n",
    )
    .unwrap();
    let suite = dir.join("cases");
    let suite = suite.to_str().unwrap();
    let roomy = run(&["conformance", suite, "--engine", "interp"], SECS(120));
    assert_eq!(roomy.code, Some(0), "{}{}", roomy.stdout, roomy.stderr);
    let tight = run(
        &[
            "conformance",
            suite,
            "--engine",
            "interp",
            "--max-memory",
            "2M",
            "-v",
        ],
        SECS(120),
    );
    assert_eq!(tight.code, Some(1), "{}{}", tight.stdout, tight.stderr);
    assert!(
        tight.stdout.contains("FAIL [interp] mem/alloc"),
        "{}",
        tight.stdout
    );
    assert!(tight.stdout.contains("error: MemoryError"), "{}", tight.stdout);
    let bad = run(&["conformance", suite, "--max-memory", "0"], SECS(60));
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    let bad = run(&["fuzz", "--cases", "1", "--max-memory", "5Q"], SECS(60));
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    let out = dir.join("findings");
    let r = run(
        &[
            "fuzz",
            "--cases",
            "20",
            "--quiet",
            "--max-memory",
            "64M",
            "--engines",
            "interp,doppler",
            "--out",
            out.to_str().unwrap(),
        ],
        SECS(300),
    );
    assert_no_crash(&r);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
}

#[test]
fn str_of_a_tuple_of_long_strings_is_held_to_the_string_limit() {
    // `str()` of a tuple and `repr()` used to bypass the limit, and `len`
    // then printed a wrapped negative number.
    for (name, expr) in [("strtuple", "str((s, s))"), ("reprstr", "repr((s, s))")] {
        let src =
            format!("def main() -> None:\n    s = \"x\" * 200000000\n    u = {expr}\n    print(len(u))\n");
        let p = program(name, &src);
        let r = run(&["execute", p.to_str().unwrap()], SECS(120));
        assert_eq!(r.code, Some(1), "{name}: {}", r.stderr);
        assert!(
            r.stderr
                .contains("OverflowError: string too long (the limit is 268435456 bytes)"),
            "{name}: {}",
            r.stderr
        );
        assert!(!r.stdout.contains('-'), "{name}: {}", r.stdout);
        // The excerpt has a caret under the call.
        assert!(r.stderr.contains("this string would be too long"), "{}", r.stderr);
        assert!(
            r.max_rss_kib < 1200 << 10,
            "{name}: peak RSS {} KiB",
            r.max_rss_kib
        );
    }
}

#[test]
fn max_memory_values_out_of_range_are_usage_errors() {
    let p = program("memflag", "def main() -> None:\n    pass\n");
    for v in ["0", "12", "5T", "-1", "2000G", "x"] {
        let flag = format!("--max-memory={v}");
        let r = run(&["execute", &flag, p.to_str().unwrap()], SECS(30));
        assert_eq!(r.code, Some(2), "{v}: {}", r.stderr);
        assert!(r.stderr.contains("--max-memory"), "{}", r.stderr);
    }
}

// ---------------------------------------------------------------- bounded redshift

#[test]
fn a_huge_unrolled_loop_stops_at_the_budget_naming_the_loop() {
    // Used to grow to 20 GB in a minute under doppler.
    let single = "from __spy__ import UNROLL_RANGE\ndef main() -> None:\n    x = 0\n    for i in UNROLL_RANGE(2000000000):\n        x = x + i\n    print(x)\n";
    let nested = "from __spy__ import UNROLL_RANGE\ndef main() -> None:\n    x = 0\n    for i in UNROLL_RANGE(1000):\n        for j in UNROLL_RANGE(1000):\n            for k in UNROLL_RANGE(1000):\n                x = x + k\n    print(x)\n";
    for (name, src, at) in [
        ("unroll1", single, "unroll1.spy:4:27"),
        ("unroll3", nested, "unroll3.spy:6:35"),
    ] {
        let p = program(name, src);
        for engine in ["doppler", "jit"] {
            let r = run(
                &[
                    "execute",
                    "--engine",
                    engine,
                    "--max-memory",
                    "64M",
                    p.to_str().unwrap(),
                ],
                SECS(120),
            );
            assert_no_crash(&r);
            assert_eq!(r.code, Some(1), "{name} {engine}: {}", r.stderr);
            assert!(r.stderr.contains("MemoryError: out of memory"), "{}", r.stderr);
            assert!(r.stderr.contains(at), "{name} {engine}: {}", r.stderr);
            assert!(
                r.stderr
                    .contains("this UNROLL_RANGE loop makes the residual module too large"),
                "{}",
                r.stderr
            );
            assert!(
                r.max_rss_kib < 300 << 10,
                "{name} {engine}: peak RSS {} KiB",
                r.max_rss_kib
            );
        }
    }
}

// ---------------------------------------------------------------- main

#[test]
fn a_missing_or_odd_main_is_a_located_error_in_every_engine() {
    for (name, src, headline, at) in [
        (
            "nomain",
            "def helper() -> None:\n    pass\n",
            "NameError: cannot find function `main`",
            "nomain.spy:1:1",
        ),
        (
            "mainfive",
            "main = 5\n",
            "TypeError: `main` is not a function",
            "mainfive.spy:1:1",
        ),
        (
            "bluemain",
            "@blue\ndef main() -> None:\n    print(1)\n",
            "TypeError: `main` must be a red function",
            "bluemain.spy:2:1",
        ),
    ] {
        let p = program(name, src);
        for engine in ENGINES {
            let r = run(&["execute", "--engine", engine, p.to_str().unwrap()], SECS(60));
            assert_eq!(r.code, Some(1), "{name} {engine}: {}", r.stderr);
            assert_eq!(r.stdout, "", "{name} {engine}");
            assert!(r.stderr.starts_with(headline), "{name} {engine}: {}", r.stderr);
            assert!(r.stderr.contains(at), "{name} {engine}: {}", r.stderr);
        }
    }
}

/// Errors raised by residual code (specialized, unrolled, folded by
/// redshift) are reported where ASTFrame reports them: the same traceback,
/// location and excerpt in the user's file in every engine.
#[test]
fn residual_locations_map_back_to_the_users_source() {
    let programs = [
        (
            "residualloc",
            "from __spy__ import UNROLL_RANGE\n\n@blue.generic\ndef scale(T):\n    def impl(x: T, k: T) -> T:\n        return x // k\n    return impl\n\ndef twice(x: i32) -> i32:\n    y = 100 // (x + 1)\n    return y\n\ndef main() -> None:\n    var total = 0\n    for i in UNROLL_RANGE(3):\n        total = total + twice(i)\n    print(total)\n    print(scale[i32](total, total - 183))\n",
            "residualloc.spy:6:16",
        ),
        (
            "residuallist",
            "def main() -> None:\n    l = [1, 2]\n    print(l[5])\n",
            "residuallist.spy:3:13",
        ),
        (
            "residualfold",
            "def main() -> None:\n    print(\"before\")\n    print(True and 1.5)\n",
            "residualfold.spy:3:20",
        ),
    ];
    for (name, src, at) in programs {
        let p = program(name, src);
        let reference = run(&["execute", "--engine", "interp", p.to_str().unwrap()], SECS(60));
        assert_eq!(reference.code, Some(1), "{}", reference.stderr);
        assert!(reference.stderr.contains(at), "{name}: {}", reference.stderr);
        for engine in ["doppler", "jit"] {
            let r = run(&["execute", "--engine", engine, p.to_str().unwrap()], SECS(60));
            if engine == "jit" && r.code == Some(3) {
                continue; // not native yet (lists): spec/17-jit.md
            }
            assert_eq!(r.code, Some(1), "{name} {engine}: {}", r.stderr);
            assert!(
                !r.stderr.contains("residual code"),
                "{name} {engine}: {}",
                r.stderr
            );
            if engine == "jit" && name == "residuallist" {
                // The jit rebuilds a list index error's annotation without
                // its label text (tests/error_reports.rs `KNOWN`): the
                // traceback and the `Kind: message` line agree.
                let head = |s: &str| s.lines().take(4).collect::<Vec<_>>().join("\n");
                assert_eq!(head(&r.stderr), head(&reference.stderr), "{name} {engine}");
            } else {
                assert_eq!(r.stderr, reference.stderr, "{name} {engine}");
            }
            assert_eq!(r.stdout, reference.stdout, "{name} {engine}");
        }
    }
}

/// A blue-built type nested deeper than the parser accepts: `redshift`
/// and every redshifting engine stop with the same located limit error
/// (never a residual module the parser rejects); ASTFrame runs it.
#[test]
fn residual_code_past_the_parsers_limits_is_a_located_error() {
    let src = "@blue\ndef nest(n: i32):\n    if n == 0:\n        return i32\n    return tuple[tuple[nest(n - 1)]]\n\ndef f(t: nest(510)) -> None:\n    pass\n\ndef main() -> None:\n    print(1)\n";
    let p = program("residualdeep", src);
    let path = p.to_str().unwrap();
    let r = run(&["execute", "--engine", "interp", path], SECS(60));
    assert_eq!((r.code, r.stdout.as_str()), (Some(0), "1\n"), "{}", r.stderr);
    let headline =
        "WIP: the residual code is nested too deeply to be SPy source (more than 1000 nested brackets)\n";
    for args in [
        vec!["redshift", path],
        vec!["execute", "--engine", "doppler", path],
        vec!["execute", "--engine", "jit", path],
    ] {
        let r = run(&args, SECS(60));
        assert_no_crash(&r);
        assert_eq!(r.code, Some(1), "{args:?}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{args:?}");
        assert!(r.stderr.starts_with(headline), "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("residualdeep.spy:7:7"),
            "{args:?}: {}",
            r.stderr
        );
    }
}
