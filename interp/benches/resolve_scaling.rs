//! Name-resolution scaling (a benchmark, not a test): a module of n
//! functions, each calling the one before it, is parsed once and then
//! resolved (`resolve::resolve_module`, the pass that declares every name
//! of a scope and binds every occurrence); the time per 1,000 names is
//! printed for n = 16k and 256k (best of a few runs). Linear resolution
//! gives the same figure at both sizes; a quadratic one grows 16-fold.
//!
//! Run: `cargo bench --bench resolve_scaling` (release profile);
//! `RESOLVE_BENCH_N=16000,64000` measures other sizes.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use spy_interp::resolve::resolve_module;
use spy_interp::source::SourceFile;
use spy_interp::syntax::parse_module;

/// `n` module-level functions `f0 .. f{n-1}` and a `main`; every function
/// refers to its predecessor, so each declared name is also looked up.
fn generate(n: usize) -> String {
    let mut out = String::with_capacity(n * 48);
    out.push_str("def f0(a: i32) -> i32:\n    return a\n\n");
    for i in 1..n {
        let _ = write!(out, "def f{i}(a: i32) -> i32:\n    return f{}(a)\n\n", i - 1);
    }
    let _ = writeln!(out, "def main() -> None:\n    print(f{}(1))", n - 1);
    out
}

fn measure(n: usize) -> Duration {
    let file = SourceFile::new("scaling.spy", generate(n));
    let module = parse_module(&file).expect("the generated module parses");
    let runs = if n <= 20_000 { 5 } else { 2 };
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            let resolution = resolve_module(&module, &file).expect("it resolves");
            let t = start.elapsed();
            black_box(resolution);
            t
        })
        .min()
        .expect("at least one run")
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is ignored.
    println!("name resolution, module of n functions (best run):");
    let sizes: Vec<usize> = std::env::var("RESOLVE_BENCH_N")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![16_000, 256_000]);
    for n in sizes {
        let t = measure(n);
        let per_1000 = t.as_secs_f64() * 1e6 / (n as f64 / 1000.0);
        println!(
            "  n = {n:>7}: {:>9.1} ms total, {per_1000:>8.1} µs per 1,000 names",
            t.as_secs_f64() * 1e3
        );
    }
}
