//! ASTFrame vs CPython: one timed run of each benchmark program.
//!
//! ```text
//! cargo bench --bench astframe_vs_cpython [-- NAME...]
//! ```
//!
//! For every `NAME` (default: all of [`PROGRAMS`]; arguments after `--`
//! select by substring) this runs `bench/NAME.spy` through ASTFrame
//! in-process (the same `engine::run_program` the conformance runner
//! uses; its time includes parsing, resolution and the interpreter thread's
//! start-up) and `python3 bench/NAME.py` (or `$SPY_BENCH_PYTHON
//! bench/NAME.py`) as a subprocess (its time includes process and
//! interpreter start-up; nothing is subtracted: the start-up of a bare
//! `python3 -c pass` is printed for reference). Both outputs must be equal,
//! else the benchmark panics. The table gives seconds and the ratio
//! ASTFrame / CPython (below 1.0 means ASTFrame is faster).
//!
//! Not a test: it asserts no timing, it only reports.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use spy_interp::engine::{run_program, Engine, RunConfig};

/// The benchmark programs: `bench/<name>.spy` and `bench/<name>.py`.
const PROGRAMS: &[&str] = &["fib", "float_loop", "str_build"];

/// The CPython executable: `$SPY_BENCH_PYTHON`, else `python3` from PATH
/// (a pyenv shim adds ~0.1 s of start-up per run; point the variable at the
/// real binary, e.g. `$(pyenv which python3)`, to leave that out).
fn python() -> String {
    std::env::var("SPY_BENCH_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Run `bench/<name>.spy` in ASTFrame: (stdout, wall time).
fn run_astframe(root: &Path, name: &str) -> (String, Duration) {
    let rel = format!("bench/{name}.spy");
    let source = std::fs::read(root.join(&rel)).unwrap_or_else(|e| panic!("cannot read {rel}: {e}"));
    let start = Instant::now();
    let outcome = run_program(Engine::Interp, &rel, &source, RunConfig::default());
    let elapsed = start.elapsed();
    if outcome.exit != 0 || outcome.error.is_some() || outcome.bug.is_some() {
        panic!(
            "{rel} failed in ASTFrame (exit {}, bug {:?}):\n{}",
            outcome.exit,
            outcome.bug,
            outcome.report.unwrap_or_default()
        );
    }
    (outcome.stdout, elapsed)
}

/// Run `python3 <args>` from the repository root: (stdout, wall time), or
/// None if python3 cannot be started.
fn run_python(root: &Path, args: &[&str]) -> Option<(String, Duration)> {
    let python = python();
    let start = Instant::now();
    let output = match Command::new(&python).args(args).current_dir(root).output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("cannot run {python} {args:?}: {e}"),
    };
    let elapsed = start.elapsed();
    if !output.status.success() {
        panic!(
            "{python} {args:?} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let stdout = String::from_utf8(output.stdout).expect("CPython printed non-UTF-8 output");
    Some((stdout, elapsed))
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument selects programs.
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let selected: Vec<&str> = PROGRAMS
        .iter()
        .copied()
        .filter(|p| filters.is_empty() || filters.iter().any(|f| p.contains(f.as_str())))
        .collect();
    let root = repo_root();
    let python = python();

    let Some((_, startup)) = run_python(&root, &["-c", "pass"]) else {
        println!("astframe_vs_cpython: `{python}` not found on PATH; skipping the benchmark.");
        return;
    };
    let version = Command::new(&python)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();

    println!("ASTFrame (in-process, release) vs {version} (`{python} bench/X.py` subprocess)");
    println!(
        "one run each; CPython times include process start-up, nothing subtracted \
         (`{python} -c pass`: {:.3} s)",
        startup.as_secs_f64()
    );
    println!();
    println!(
        "{:<12} {:>12} {:>12} {:>16}",
        "program", "ASTFrame s", "CPython s", "ASTFrame/CPython"
    );
    for name in selected {
        let (spy_out, spy_time) = run_astframe(&root, name);
        let py_script = format!("bench/{name}.py");
        let (py_out, py_time) = run_python(&root, &[&py_script])
            .unwrap_or_else(|| panic!("`{python}` disappeared while running {py_script}"));
        assert_eq!(
            spy_out, py_out,
            "bench/{name}: ASTFrame and CPython printed different output"
        );
        println!(
            "{:<12} {:>12.3} {:>12.3} {:>16.2}",
            name,
            spy_time.as_secs_f64(),
            py_time.as_secs_f64(),
            spy_time.as_secs_f64() / py_time.as_secs_f64()
        );
    }
}
