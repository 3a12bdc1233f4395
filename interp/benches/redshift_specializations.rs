//! Benchmark (not a timed test): redshift of a module whose blue code makes
//! ~1,000 specializations, reported as time per specialization (goal:
//! at most 50 µs). Run: `cargo bench --bench redshift_specializations`.
//!
//! Two shapes: a PEP 695 generic `add[T, n]` called with 1,000 distinct
//! `n`, and a metafunc whose OpSpec target depends on a blue argument.

use std::time::Instant;

use spy_interp::frames::{Interp, RunConfig};
use spy_interp::redshift::RedshiftOptions;

fn generic_module(n: usize) -> String {
    let mut s = String::from(
        "def add[T, k](x: T) -> T:\n    return x + k\n\ndef main() -> None:\n    var acc: i32 = 0\n",
    );
    for k in 0..n {
        s.push_str(&format!("    acc = acc + add[i32, {k}](1)\n"));
    }
    s.push_str("    print(acc)\n");
    s
}

fn metafunc_module(n: usize) -> String {
    let mut s = String::from(
        "from operator import OpSpec\n\n@blue.metafunc\ndef scale(m_x, m_k):\n    k = m_k.blueval\n    def impl(x: i32, kk: i32) -> i32:\n        return x * k\n    return OpSpec(impl)\n\ndef main() -> None:\n    var acc: i32 = 0\n",
    );
    for k in 0..n {
        s.push_str(&format!("    acc = acc + scale(acc, {k})\n"));
    }
    s.push_str("    print(acc)\n");
    s
}

fn time_redshift(name: &str, source: &str, specializations: usize) {
    let src = source.to_string();
    let run = move || {
        let mut sink = Vec::new();
        let mut interp = Interp::new(&mut sink, RunConfig::default());
        let start = Instant::now();
        let residual = interp.redshift_with("bench.spy", src.as_bytes(), RedshiftOptions::default());
        let elapsed = start.elapsed();
        let functions = residual.map(|r| r.body().len()).unwrap_or(0);
        (elapsed, functions)
    };
    let (elapsed, functions) =
        spy_interp::native_stack::run(RunConfig::default().limits.max_depth, run).expect("redshift thread");
    let per = elapsed.as_secs_f64() * 1e6 / specializations as f64;
    println!(
        "{name:<10} {specializations:>5} specializations, {functions:>5} residual defs, total {:>8.2} ms, {per:>7.1} µs/specialization",
        elapsed.as_secs_f64() * 1e3
    );
}

fn main() {
    let n = 1000;
    println!("redshift, release build, one run each (includes parsing and module init)");
    time_redshift("generic", &generic_module(n), n);
    time_redshift("metafunc", &metafunc_module(n), n);
}
