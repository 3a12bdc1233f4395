//! Proof that the differential fuzzer finds bugs: each planted bug of
//! `RunConfig::mutations` (test-only hooks in the doppler engine) must be
//! found by a short campaign within its case budget and minimized to a
//! small reproducer. The sizes are printed (`--nocapture`).

use std::time::Duration;

use spy_fuzz::campaign::{self, Campaign};
use spy_fuzz::reduce::ReduceBudget;
use spy_interp::engine::Mutation;

/// Cases a campaign may spend to find one planted bug.
const BUDGET: u64 = 2_000;
/// Non-blank lines a minimized reproducer may have.
const MAX_LINES: usize = 16;

fn find(m: Mutation) {
    let mut c = Campaign::new(1);
    c.cases = Some(BUDGET);
    c.allowed = campaign::features_avoiding_known_bugs();
    c.oracle.mutations = m.into();
    c.stop_on_finding = true;
    c.reduce = Some(ReduceBudget {
        max_tries: 3_000,
        max_time: Duration::from_secs(60),
    });
    let report = campaign::run(&c);
    let f = report
        .findings
        .iter()
        .min_by_key(|f| f.case)
        .unwrap_or_else(|| panic!("{}: not found in {BUDGET} cases", m.name()));
    let r = f.reduced.as_ref().expect("reduced");
    println!(
        "{}: found at case {} ({} programs run), {} -> {} lines ({} candidates)\n{}",
        m.name(),
        f.case,
        report.stats.programs,
        f.source.lines().count(),
        r.lines(),
        r.tries,
        r.source
    );
    assert!(
        r.lines() <= MAX_LINES,
        "{}: reproducer too big:\n{}",
        m.name(),
        r.source
    );
}

#[test]
fn finds_floordiv_rounding_toward_zero() {
    find(Mutation::FloorDivRoundsTowardZero);
}

#[test]
fn finds_unroll_off_by_one() {
    find(Mutation::UnrollOffByOne);
}

#[test]
fn finds_splat_evaluated_twice() {
    find(Mutation::SplatTwice);
}

#[test]
fn finds_simd_lane_order() {
    find(Mutation::SimdLaneOrder);
}
