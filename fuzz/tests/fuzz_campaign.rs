//! CI's differential-fuzzing run: a short deterministic campaign (fixed
//! seed, fixed case count) through every engine of `Engine::ALL`; any
//! finding fails the test and prints the minimized reproducer.
//!
//! The features of `campaign::KNOWN_BUGS` (engine bugs found by the
//! fuzzer and not fixed yet) are switched off; remove an entry there when
//! its bug is fixed.

use spy_fuzz::campaign::{self, Campaign};
use spy_fuzz::reduce::ReduceBudget;

/// Enough cases to take a few seconds in a debug build on 2 cores.
const CASES: u64 = 400;

#[test]
fn short_campaign_finds_nothing() {
    let mut c = Campaign::new(0x5eed_2026);
    c.cases = Some(CASES);
    c.allowed = campaign::features_avoiding_known_bugs();
    c.reduce = Some(ReduceBudget { max_tries: 2_000 });
    let report = campaign::run(&c);
    eprintln!("{}", report.stats.summary());
    assert_eq!(report.stats.programs, CASES);
    // The generator must make valid programs, and most must finish.
    assert!(report.stats.rejected * 100 <= CASES, "{}", report.stats.summary());
    assert!(report.stats.timeouts * 10 <= CASES, "{}", report.stats.summary());
    assert!(report.stats.covered() >= 20, "{}", report.stats.coverage_table());
    let mut msg = String::new();
    for f in &report.findings {
        let src = f.reduced.as_ref().map_or(&f.source, |r| &r.source);
        msg.push_str(&format!(
            "\nFINDING {}\nreplay: {}\n{src}\n",
            f.signature, f.replay
        ));
    }
    assert!(report.findings.is_empty(), "{msg}");
}

#[test]
fn cases_replay_exactly() {
    let a = spy_fuzz::generate(&campaign::case_bytes(42, 7));
    let b = spy_fuzz::generate(&campaign::case_bytes(42, 7));
    assert_eq!(a.source, b.source);
    assert_ne!(a.source, spy_fuzz::generate(&campaign::case_bytes(42, 8)).source);
}

/// The reproducers of `campaign::KNOWN_BUGS` (fuzz/known-bugs/) still
/// diverge; when one stops, its bug is fixed: remove the `KNOWN_BUGS`
/// entry (so the CI campaign covers the feature again) and move the file
/// to the conformance suite.
#[test]
fn known_bugs_still_diverge() {
    use spy_fuzz::oracle::{check, OracleConfig, Verdict};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("known-bugs");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/known-bugs")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "spy"))
        .collect();
    files.sort();
    assert!(files.len() >= campaign::KNOWN_BUGS.len());
    for f in files {
        let source = std::fs::read_to_string(&f).unwrap();
        let verdict = check(&source, &OracleConfig::default()).verdict;
        assert!(
            matches!(verdict, Verdict::Finding(_)),
            "{} no longer diverges: its bug is fixed, update campaign::KNOWN_BUGS",
            f.display()
        );
    }
}

/// Slack past `--seconds` for the program or reduction step in flight when
/// the deadline passes (a debug build on a shared machine).
const OVERRUN: std::time::Duration = std::time::Duration::from_secs(2);

/// Run `c` in a pool of its own: in rayon's global pool it would wait for
/// the other tests' campaigns, and its time would not be its own.
fn run_alone(c: &Campaign) -> campaign::Report {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a thread pool")
        .install(|| campaign::run(c))
}

/// Without findings nothing needs minimizing: generation runs (almost) the
/// whole `--seconds`, not the share a campaign with findings keeps.
#[test]
fn campaign_without_findings_generates_all_its_seconds() {
    let seconds = std::time::Duration::from_secs(3);
    let mut c = Campaign::new(0x5eed_2027);
    c.time = Some(seconds);
    c.allowed = campaign::features_avoiding_known_bugs();
    c.reduce = Some(ReduceBudget::default());
    let start = std::time::Instant::now();
    let report = run_alone(&c);
    let total = start.elapsed();
    assert!(report.findings.is_empty() && report.unreduced.is_empty());
    assert!(
        report.stats.elapsed >= seconds.mul_f64(0.95),
        "generation stopped after {:?} of {seconds:?}",
        report.stats.elapsed
    );
    assert!(
        total <= seconds + OVERRUN,
        "campaign took {total:?} of {seconds:?}"
    );
}

/// With a planted bug found early, generation leaves time for minimizing,
/// and the whole campaign (minimization included) still ends by
/// `--seconds`.
#[test]
fn campaign_with_findings_ends_by_its_seconds() {
    let seconds = std::time::Duration::from_secs(6);
    let mut c = Campaign::new(1);
    // Seed 1 first shows this bug at case 49: start a little before it.
    c.start = 45;
    c.time = Some(seconds);
    c.allowed = campaign::features_avoiding_known_bugs();
    c.oracle.mutations = spy_interp::engine::Mutation::FloorDivRoundsTowardZero.into();
    c.reduce = Some(ReduceBudget::default());
    let start = std::time::Instant::now();
    let report = run_alone(&c);
    let total = start.elapsed();
    assert!(
        !report.findings.is_empty() || !report.unreduced.is_empty(),
        "the planted bug was not found: {}",
        report.stats.summary()
    );
    assert!(
        report.stats.elapsed <= seconds.mul_f64(1.0 - campaign::REDUCE_SHARE_FOUND) + OVERRUN,
        "generation ran {:?} after a finding",
        report.stats.elapsed
    );
    assert!(
        total <= seconds + OVERRUN,
        "campaign took {total:?} of {seconds:?}"
    );
}

/// The same finding gives the same reproducer whatever the campaign's
/// length, number of threads and their timing: reductions are budgeted in
/// candidates, not time, and minimized in waves of a fixed size
/// (`campaign::REDUCE_WAVE`). A planted bug's campaign on 1 thread and a
/// longer one on 3 threads: every finding file of the short one is in the
/// long one, byte for byte.
#[test]
fn reproducers_do_not_depend_on_threads_or_campaign_length() {
    let run = |threads: usize, cases: u64| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "spy-fuzz-stable-{threads}-{cases}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut c = Campaign::new(1);
        c.start = 150;
        c.cases = Some(cases);
        c.allowed = campaign::features_avoiding_known_bugs();
        c.oracle.mutations = spy_interp::engine::Mutation::FloorDivRoundsTowardZero.into();
        c.reduce = Some(ReduceBudget { max_tries: 1_500 });
        c.out = Some(dir.clone());
        let report = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool")
            .install(|| campaign::run(&c));
        let _ = std::fs::create_dir_all(&dir);
        let mut files = std::collections::BTreeMap::new();
        for e in std::fs::read_dir(&dir).expect("the findings directory") {
            let p = e.expect("an entry").path();
            let name = p.file_name().expect("a name").to_string_lossy().into_owned();
            files.insert(name, std::fs::read(&p).expect("a finding file"));
        }
        let _ = std::fs::remove_dir_all(&dir);
        (report, files)
    };
    let (short, short_files) = run(1, 60);
    let (long, long_files) = run(3, 120);
    assert!(!short.findings.is_empty(), "{}", short.stats.summary());
    assert!(long.findings.len() >= short.findings.len());
    for (name, text) in &short_files {
        assert_eq!(
            long_files.get(name).map(|t| String::from_utf8_lossy(t)),
            Some(String::from_utf8_lossy(text)),
            "{name} differs"
        );
    }
    eprintln!(
        "short: {} finding(s), {} file(s); long: {} finding(s), {} file(s)",
        short.findings.len(),
        short_files.len(),
        long.findings.len(),
        long_files.len()
    );
}
