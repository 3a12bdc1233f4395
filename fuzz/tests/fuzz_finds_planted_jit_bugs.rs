//! Proof that the differential fuzzer finds native-code bugs: each planted
//! code-generation bug of spy-jit (`Mutation::Jit`, hooks in
//! `jit/src/x64/codegen.rs` and `regalloc.rs`) must be found by a
//! fixed-seed campaign within its case budget and minimized to at most 15
//! lines. The jit runs in worker processes (`spy_fuzz::worker`), so a
//! mutation that crashes native code (SIGSEGV, SIGFPE) is a finding too:
//! this test binary is its own worker (`harness = false`, argument
//! `fuzz-worker`). It prints the table of cases, times and sizes.
//!
//! `cargo test -p spy-fuzz --test fuzz_finds_planted_jit_bugs [-- NAME]`

use std::time::{Duration, Instant};

use spy_fuzz::campaign::{self, Campaign};
use spy_fuzz::reduce::ReduceBudget;
use spy_fuzz::worker::Isolation;
use spy_interp::engine::Mutation;

/// Cases a campaign may spend to find one planted bug.
const BUDGET: u64 = 4_000;
/// Non-blank lines a minimized reproducer may have.
const MAX_LINES: usize = 15;

/// Find `m`; the table row or why not.
fn find(m: Mutation) -> Result<String, String> {
    let mut c = Campaign::new(1);
    c.cases = Some(BUDGET);
    c.allowed = campaign::features_avoiding_known_bugs();
    c.oracle.mutations = m.into();
    c.oracle.isolation = Some(Isolation {
        exe: std::env::current_exe().map_err(|e| e.to_string())?,
        args: vec!["fuzz-worker".into()],
        timeout: Duration::from_secs(10),
    });
    c.stop_on_finding = true;
    c.reduce = Some(ReduceBudget {
        max_tries: 3_000,
        max_time: Duration::from_secs(60),
    });
    let start = Instant::now();
    let report = campaign::run(&c);
    let took = start.elapsed();
    let f = report
        .findings
        .iter()
        .min_by_key(|f| f.case)
        .ok_or_else(|| format!("{}: not found in {BUDGET} cases", m.name()))?;
    let r = f.reduced.as_ref().ok_or("not reduced")?;
    println!("--- {} ({})\n{}", m.name(), f.signature, r.source);
    if r.lines() > MAX_LINES {
        return Err(format!("{}: reproducer of {} lines:\n{}", m.name(), r.lines(), r.source));
    }
    Ok(format!(
        "| {} | {} | {} | {:.1} s | {} |",
        m.name(),
        f.case,
        report.stats.programs,
        took.as_secs_f64(),
        r.lines()
    ))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("fuzz-worker") {
        std::process::exit(spy_fuzz::worker::serve_stdio());
    }
    // libtest-style arguments: a bare word filters by mutation name.
    let filter = args.iter().find(|a| !a.starts_with('-'));
    if args.iter().any(|a| a == "--list") {
        for m in Mutation::ALL.iter().filter(|m| m.is_jit()) {
            println!("{}: test", m.name());
        }
        return;
    }
    let mut rows = vec![];
    let mut failures = vec![];
    for m in Mutation::ALL.iter().copied().filter(|m| m.is_jit()) {
        if filter.is_some_and(|f| !m.name().contains(f.as_str())) {
            continue;
        }
        match find(m) {
            Ok(row) => rows.push(row),
            Err(e) => failures.push(e),
        }
    }
    println!("\n| mutation | first case | programs run | time to find + minimize | lines |\n|---|---|---|---|---|");
    for r in &rows {
        println!("{r}");
    }
    if !failures.is_empty() {
        eprintln!("\nFAILED:\n{}", failures.join("\n"));
        std::process::exit(1);
    }
}
