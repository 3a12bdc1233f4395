//! The planted-bug trial shared by `fuzz_finds_planted_bugs` (doppler) and
//! `fuzz_finds_planted_jit_bugs` (spy-jit): a fixed-seed campaign with the
//! bug planted runs until its first finding and then `AFTER` more cases
//! (so the bug shows up again and again, as in a real campaign), minimizes
//! and deduplicates everything it found, and writes the finding files. The
//! trial checks the bounds: at most `MAX_FILES` finding files for
//! the one bug, each reproducer at most `MAX_LINES` non-blank lines.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Instant;

use spy_fuzz::campaign::{self, Campaign};
use spy_fuzz::reduce::ReduceBudget;
use spy_fuzz::worker::Isolation;
use spy_interp::engine::Mutation;

/// Cases a campaign may spend to find one planted bug.
pub const BUDGET: u64 = 4_000;
/// Cases run after the first finding.
pub const AFTER: u64 = 300;
/// Finding files one planted bug may leave.
pub const MAX_FILES: usize = 3;
/// Non-blank lines a minimized reproducer may have.
pub const MAX_LINES: usize = 15;

/// The table's header (`row` below).
pub const HEADER: &str = "| mutation | first case | time to find | findings (raw → files) | time to find + minimize all | lines |\n|---|---|---|---|---|---|";

/// Why a trial failed.
pub enum Failed {
    /// The bug was not found at all (or the trial could not run).
    NotFound(String),
    /// Found, but the reproducers break the bounds: the table row and why.
    Bounds(String, String),
}

/// How much a trial may spend after the first finding.
#[derive(Clone, Copy)]
pub struct Spend {
    /// Cases run after the first finding.
    pub after: u64,
    /// Candidates each reduction may try (a step budget, not time: the
    /// reproducers must not depend on the machine's load).
    pub reduce_tries: usize,
}

/// The trial: `AFTER` cases more, 3,000 candidates per reduction.
pub const FULL: Spend = Spend {
    after: AFTER,
    reduce_tries: 3_000,
};

/// Run the trial of `m`; the table row, or what failed.
pub fn trial(m: Mutation, isolation: Option<Isolation>) -> Result<String, Failed> {
    trial_spending(m, isolation, FULL)
}

/// `trial` with `spend` instead of `FULL` after the first finding.
pub fn trial_spending(m: Mutation, isolation: Option<Isolation>, spend: Spend) -> Result<String, Failed> {
    let nf = Failed::NotFound;
    let dir = scratch_dir(m);
    let _ = std::fs::remove_dir_all(&dir);
    let start = Instant::now();
    let mut c = Campaign::new(1);
    c.cases = Some(BUDGET);
    c.allowed = campaign::features_avoiding_known_bugs();
    c.oracle.mutations = m.into();
    c.oracle.isolation = isolation;
    c.cases_after_finding = Some(spend.after);
    c.out = Some(dir.clone());
    c.reduce = Some(ReduceBudget {
        max_tries: spend.reduce_tries,
    });
    let report = campaign::run(&c);
    let total = start.elapsed();
    let first = report
        .findings
        .iter()
        .min_by_key(|f| f.case)
        .ok_or_else(|| nf(format!("{}: not found in {BUDGET} cases", m.name())))?;
    let mut files = vec![];
    for e in std::fs::read_dir(&dir).map_err(|e| nf(e.to_string()))? {
        let p = e.map_err(|e| nf(e.to_string()))?.path();
        if p.extension().is_some_and(|x| x == "spy") {
            files.push(p);
        }
    }
    files.sort();
    let mut lines = vec![];
    let mut problems = vec![];
    for f in &report.findings {
        let r = f
            .reduced
            .as_ref()
            .ok_or_else(|| nf("a finding was not reduced".into()))?;
        println!(
            "--- {} ({}, case {}, {} hit(s), {} merged)\n{}",
            m.name(),
            f.signature,
            f.case,
            f.hits,
            f.merged,
            r.source
        );
        lines.push(r.lines());
        if r.lines() > MAX_LINES {
            problems.push(format!(
                "reproducer of {} lines (case {}):\n{}",
                r.lines(),
                f.case,
                r.source
            ));
        }
    }
    if !report.unreduced.is_empty() {
        problems.push(format!("{} finding(s) left unreduced", report.unreduced.len()));
    }
    if files.len() > MAX_FILES || files.len() != report.findings.len() {
        problems.push(format!(
            "{} finding files ({} findings), at most {MAX_FILES}: {files:?}",
            files.len(),
            report.findings.len()
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let raw = report.findings.len() + report.findings.iter().map(|f| f.merged as usize).sum::<usize>();
    let row = format!(
        "| {} | {} | {:.1} s | {raw} → {} | {:.1} s | {:?} |",
        m.name(),
        first.case,
        report.stats.first_finding_after.unwrap_or_default().as_secs_f64(),
        files.len(),
        total.as_secs_f64(),
        lines
    );
    if problems.is_empty() {
        Ok(row)
    } else {
        Err(Failed::Bounds(
            row,
            format!("{}: {}", m.name(), problems.join("\n")),
        ))
    }
}

fn scratch_dir(m: Mutation) -> PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "spy-fuzz-planted-{}-{}",
        m.name(),
        std::process::id()
    ))
}
