//! Proof that the differential fuzzer finds native-code bugs: each planted
//! code-generation bug of spy-jit (`Mutation::Jit`, hooks in
//! `jit/src/x64/codegen.rs` and `regalloc.rs`) must be found by a
//! fixed-seed campaign within its case budget, and everything the campaign
//! found in the cases after it must minimize and deduplicate to at most 3
//! finding files of at most 15 lines (`common::trial`); so must the
//! residual printer's planted bug, found on the worker's sampled printed
//! residual route (`runs_in_worker`). The jit runs in
//! worker processes (`spy_fuzz::worker`), so a
//! mutation that crashes native code (SIGSEGV, SIGFPE) is a finding too:
//! this test binary is its own worker (`harness = false`, argument
//! `fuzz-worker`). It prints the table of cases, times and sizes.
//!
//! `cargo test -p spy-fuzz --test fuzz_finds_planted_jit_bugs [-- NAME]`

mod common;

use std::time::Duration;

use spy_fuzz::worker::Isolation;
use spy_interp::engine::Mutation;

/// Planted bugs the campaign cannot reach yet, with the reason. Checked
/// both ways: one of these that is found fails the test (delete its row).
const UNREACHABLE: &[(&str, &str)] = &[];

/// Planted bugs that are found but whose reproducers do not meet the
/// bounds yet (at most 3 files, 15 lines), with the reason. Checked both
/// ways: one that meets them fails the test (delete its row).
const LOOSE: &[(&str, &str)] = &[];

/// What a `LOOSE` row spends after its first finding. Its reductions do
/// not converge within `common::FULL` either (they reach the budget, which
/// made the row alone take about 5 minutes of CI), so the row checks only
/// what it can: the bug is still found (else it fails) and what the short
/// run found is minimized and written (meeting the bounds fails it too).
const LOOSE_SPEND: common::Spend = common::Spend {
    after: 30,
    reduce_tries: 300,
};

/// The planted bugs tried here: spy-jit's, and the residual printer's,
/// which only the worker's sampled printed residual route
/// (`oracle::check_case`: 1 case in 8) can find, since the worker runs
/// redshift's own tree on the other cases.
fn runs_in_worker(m: Mutation) -> bool {
    m.is_jit() || m == Mutation::PrinterRightOperandUnparenthesized
}

fn find(m: Mutation, spend: common::Spend) -> Result<String, common::Failed> {
    let iso = Isolation {
        exe: std::env::current_exe().map_err(|e| common::Failed::NotFound(e.to_string()))?,
        args: vec!["fuzz-worker".into()],
        cpu_limit: Duration::from_secs(2),
        wall_limit: Duration::from_secs(60),
    };
    common::trial_spending(m, Some(iso), spend)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("fuzz-worker") {
        std::process::exit(spy_fuzz::worker::serve_stdio());
    }
    // libtest-style arguments: a bare word filters by mutation name.
    let filter = args.iter().find(|a| !a.starts_with('-'));
    if args.iter().any(|a| a == "--list") {
        for m in Mutation::ALL.iter().filter(|m| runs_in_worker(**m)) {
            println!("{}: test", m.name());
        }
        return;
    }
    let mutations: Vec<Mutation> = Mutation::ALL
        .iter()
        .copied()
        .filter(|m| runs_in_worker(*m) && filter.is_none_or(|f| m.name().contains(f.as_str())))
        .collect();
    let spend_of = |m: Mutation| {
        if LOOSE.iter().any(|(n, _)| *n == m.name()) {
            LOOSE_SPEND
        } else {
            common::FULL
        }
    };
    // The trials are independent and each is deterministic (step budgets),
    // and a trial runs on one core: run them on every core, one per thread.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let outcomes: Vec<std::sync::Mutex<Option<Result<String, common::Failed>>>> =
        mutations.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(&m) = mutations.get(i) else { break };
                let outcome = find(m, spend_of(m));
                *outcomes[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
            });
        }
    });
    let mut rows = vec![];
    let mut failures = vec![];
    for (&m, outcome) in mutations.iter().zip(outcomes) {
        let unreachable = UNREACHABLE.iter().find(|(n, _)| *n == m.name());
        let loose = LOOSE.iter().find(|(n, _)| *n == m.name());
        let outcome = outcome
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .unwrap_or_else(|| {
                Err(common::Failed::NotFound(format!(
                    "{}: the trial did not run",
                    m.name()
                )))
            });
        match (outcome, unreachable, loose) {
            (Ok(_), Some(_), _) => {
                failures.push(format!("{}: found now; delete its row of UNREACHABLE", m.name()))
            }
            (Ok(_), None, Some(_)) => failures.push(format!(
                "{}: meets the bounds now; delete its row of LOOSE",
                m.name()
            )),
            (Ok(row), None, None) => rows.push(row),
            (Err(common::Failed::Bounds(row, why)), None, Some((_, reason))) => {
                eprintln!("{why}");
                rows.push(format!("{row} (bounds not met yet: {reason})"))
            }
            (Err(common::Failed::Bounds(_, e) | common::Failed::NotFound(e)), None, _) => failures.push(e),
            (Err(_), Some((name, why)), _) => {
                rows.push(format!("| {name} | not reachable yet: {why} | | | | |"))
            }
        }
    }
    println!("\n{}", common::HEADER);
    for r in &rows {
        println!("{r}");
    }
    if !failures.is_empty() {
        eprintln!("\nFAILED:\n{}", failures.join("\n"));
        std::process::exit(1);
    }
}
