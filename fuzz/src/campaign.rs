//! The campaign runner behind `spy-interp fuzz`: stable Rust, no
//! libFuzzer. Case `i` of seed `S` is generated from bytes derived only
//! from `(S, i)`, so any case replays exactly (`--seed S --case i`).
//! rayon workers pull case numbers from a shared counter until the time
//! or case budget is spent; an indicatif line shows programs/s, %
//! rejected, % timeouts, feature coverage and findings. Each distinct
//! signature keeps its lowest case number; at the end every finding is
//! minimized (`reduce`) and written to `--out` as a conformance case with
//! the command that replays it.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use spy_conformance::snapshot;

use spy_interp::engine::{Engine, Mutation};

use crate::config::{Feature, FeatureSet};
use crate::dedup::{class_key, line_class};
use crate::gen::generate_restricted;
use crate::oracle::{check, check_case, OracleConfig, Signature, Verdict};
use crate::reduce::{reduce, reduce_until, write_case, CaseFiles, ReduceBudget, Reduced, Stop};
use crate::worker::Isolation;

/// Engine bugs the fuzzer found and that are not fixed yet, with the
/// generator feature that provokes each (reproducers: `fuzz/known-bugs/`).
/// The CI campaign and the cargo-fuzz targets switch these features off,
/// so a campaign reports only new findings; remove an entry when its bug
/// is fixed. None is open.
pub const KNOWN_BUGS: &[(Feature, &str)] = &[
    // Fixed so far, with reproducers in conformance/cases/differential/:
    // `and`/`or` conversions, inlined result conversions, lazy folding
    // errors, reordered OpSpec arguments, the colors of `a if c else b` and
    // `a and b`, the operand order of a `__contains__` dunder, calling a
    // struct-valued field, a SIMD lane converted by a hook, a metafunc
    // `__eq__` under field-wise `==`, conversion hooks reordered with later
    // arguments, blue code reading a module `var` (now an error, spec §9.6).
];

/// Every feature except those of `KNOWN_BUGS`.
pub fn features_avoiding_known_bugs() -> FeatureSet {
    KNOWN_BUGS
        .iter()
        .fold(FeatureSet::all(), |s, (f, _)| s.without(*f))
}

/// The share of `--seconds` kept for minimizing once a campaign has found
/// something: generation stops at `1 - REDUCE_SHARE_FOUND` of it (or at
/// once, if that point has passed). Without findings nothing needs
/// minimizing, and generation runs the whole `--seconds`.
pub const REDUCE_SHARE_FOUND: f64 = 0.5;

/// Bytes fed to the generator for each case.
pub const INPUT_LEN: usize = 4096;

/// `spy-interp fuzz` options (the command line's flags, parsed by the CLI).
#[derive(Clone, Debug)]
pub struct FuzzOptions {
    /// Stop after this many seconds (10 when `cases` is not given either).
    pub seconds: Option<f64>,
    /// Stop after this many cases.
    pub cases: Option<u64>,
    /// Campaign seed: case i is generated from (seed, i) alone.
    pub seed: u64,
    /// Run only case I of the seed (replay), print it and its outcomes.
    pub case: Option<u64>,
    /// Where minimized findings are written.
    pub out: PathBuf,
    /// Step fuel of the reference engine per program.
    pub fuel: u64,
    /// Memory budget of every run of a program, in bytes (`--max-memory`).
    pub max_memory: u64,
    /// Worker threads (None: one per core).
    pub jobs: Option<usize>,
    /// Only these features (comma-separated names).
    pub features: Option<String>,
    /// Never these features (comma-separated names).
    pub without: Option<String>,
    /// Planted bug for the non-reference engines (test of the fuzzer).
    pub mutation: Option<Mutation>,
    /// Minimize the program in this file instead of generating programs;
    /// the case goes to `out`.
    pub reduce: Option<PathBuf>,
    /// Do not minimize findings.
    pub no_reduce: bool,
    /// No progress line.
    pub quiet: bool,
    /// The engines compared, reference first (None: `Engine::ALL`).
    pub engines: Option<Vec<Engine>>,
    /// Run the jit engine in this process instead of worker processes
    /// (`crate::worker`; a crash of native code then ends the campaign).
    pub in_process: bool,
    /// `i/n`: run only the case numbers `≡ i (mod n)`.
    pub shard: Option<String>,
}

impl Default for FuzzOptions {
    fn default() -> Self {
        FuzzOptions {
            seconds: None,
            cases: None,
            seed: 0,
            case: None,
            out: PathBuf::from("fuzz-findings"),
            fuel: 20_000,
            max_memory: crate::oracle::FUZZ_MAX_MEMORY,
            jobs: None,
            features: None,
            without: None,
            mutation: None,
            reduce: None,
            no_reduce: false,
            quiet: false,
            engines: None,
            in_process: false,
            shard: None,
        }
    }
}

/// A campaign, as a library call.
#[derive(Clone, Debug)]
pub struct Campaign {
    pub seed: u64,
    /// First case number.
    pub start: u64,
    pub cases: Option<u64>,
    pub time: Option<Duration>,
    pub oracle: OracleConfig,
    pub allowed: FeatureSet,
    /// Where findings are written (None: not written).
    pub out: Option<PathBuf>,
    pub reduce: Option<ReduceBudget>,
    pub progress: bool,
    /// Stop at the first finding.
    pub stop_on_finding: bool,
    /// After the first finding (at case `i`), run only the cases up to
    /// `i + n` (of this shard) and drop findings past them: a campaign that
    /// goes on a little past its first finding, deterministically (tests
    /// of deduplication).
    pub cases_after_finding: Option<u64>,
    /// `(i, n)`: run only the case numbers `≡ i (mod n)` (`--shard i/n`),
    /// so `n` machines split one campaign without overlap; `cases` counts
    /// this shard's cases.
    pub shard: (u64, u64),
}

impl Campaign {
    pub fn new(seed: u64) -> Campaign {
        Campaign {
            seed,
            start: 0,
            cases: None,
            time: None,
            oracle: OracleConfig::default(),
            allowed: FeatureSet::all(),
            out: None,
            reduce: Some(ReduceBudget::default()),
            progress: false,
            stop_on_finding: false,
            cases_after_finding: None,
            shard: (0, 1),
        }
    }
}

/// Counters of a campaign.
#[derive(Clone, Debug)]
pub struct Stats {
    pub programs: u64,
    pub rejected: u64,
    pub timeouts: u64,
    /// Programs the jit engine could not run natively (not findings).
    pub not_native: u64,
    pub findings: u64,
    /// When the first finding was seen (from the campaign's start).
    pub first_finding_after: Option<Duration>,
    /// Programs using each feature (`Feature::ALL` order).
    pub coverage: [u64; Feature::ALL.len()],
    pub elapsed: Duration,
}

// By hand: `[u64; N]` is `Default` only up to N = 32.
impl Default for Stats {
    fn default() -> Self {
        Stats {
            programs: 0,
            rejected: 0,
            timeouts: 0,
            not_native: 0,
            findings: 0,
            first_finding_after: None,
            coverage: [0; Feature::ALL.len()],
            elapsed: Duration::ZERO,
        }
    }
}

impl Stats {
    fn add(&mut self, o: &Stats) {
        self.programs += o.programs;
        self.rejected += o.rejected;
        self.timeouts += o.timeouts;
        self.not_native += o.not_native;
        self.findings += o.findings;
        self.first_finding_after = match (self.first_finding_after, o.first_finding_after) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        for (a, b) in self.coverage.iter_mut().zip(o.coverage) {
            *a += b;
        }
    }

    pub fn per_second(&self) -> f64 {
        self.programs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    fn pct(&self, n: u64) -> f64 {
        100.0 * n as f64 / self.programs.max(1) as f64
    }

    /// Features used by at least one program.
    pub fn covered(&self) -> usize {
        self.coverage.iter().filter(|c| **c > 0).count()
    }

    pub fn summary(&self) -> String {
        format!(
            "{} programs in {:.1}s ({:.0}/s), {:.1}% rejected, {:.1}% timeouts, {:.1}% not native (jit), coverage {}/{}, {} finding(s)",
            self.programs,
            self.elapsed.as_secs_f64(),
            self.per_second(),
            self.pct(self.rejected),
            self.pct(self.timeouts),
            self.pct(self.not_native),
            self.covered(),
            Feature::ALL.len(),
            self.findings
        )
    }

    pub fn coverage_table(&self) -> String {
        Feature::ALL
            .iter()
            .zip(self.coverage)
            .map(|(f, n)| format!("{:>20} {:>5.1}%", f.name(), self.pct(n)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One distinct finding.
#[derive(Clone, Debug)]
pub struct FoundBug {
    pub signature: Signature,
    /// The lowest case number that showed it, and how many did.
    pub case: u64,
    pub hits: u64,
    /// Other raw signatures merged into this finding (same class).
    pub merged: u64,
    pub source: String,
    pub reduced: Option<Reduced>,
    /// Where the finding was written, or why it could not be.
    pub files: Option<Result<CaseFiles, String>>,
    /// Replays the original case.
    pub replay: String,
}

#[derive(Clone, Debug, Default)]
pub struct Report {
    pub stats: Stats,
    pub findings: Vec<FoundBug>,
    /// Findings left unminimized at `--seconds` (listed in
    /// `UNREDUCED_FILE`, not written as cases).
    pub unreduced: Vec<FoundBug>,
}

/// The generator's input for case `i` of `seed` (splitmix64 stream).
pub fn case_bytes(seed: u64, i: u64) -> Vec<u8> {
    let mut state = seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5DEE_CE66_D1CE_4E5B;
    let mut out = Vec::with_capacity(INPUT_LEN);
    while out.len() < INPUT_LEN {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.extend_from_slice(&z.to_le_bytes());
    }
    out
}

fn replay_command(c: &Campaign, case: u64) -> String {
    let mut cmd = format!(
        "spy-interp fuzz --seed {} --case {case} --fuel {}",
        c.seed, c.oracle.fuel
    );
    if c.oracle.engines != Engine::ALL {
        let names: Vec<_> = c.oracle.engines.iter().map(|e| e.name()).collect();
        cmd.push_str(&format!(" --engines {}", names.join(",")));
    }
    if c.allowed != FeatureSet::all() {
        cmd.push_str(&format!(" --features {}", c.allowed.names()));
    }
    if let Some(m) = Mutation::ALL.iter().find(|m| c.oracle.mutations.has(**m)) {
        cmd.push_str(&format!(" --mutation {}", m.name()));
    }
    cmd
}

/// Run a campaign.
pub fn run(c: &Campaign) -> Report {
    let next = AtomicU64::new(c.start);
    let stop = AtomicBool::new(false);
    let total = Mutex::new(Stats::default());
    // Raw findings by (engines, kind, class of the first differing line):
    // the numbers of a line (with their signs) do not make a new finding.
    let found: Mutex<BTreeMap<(String, String), FoundBug>> = Mutex::new(BTreeMap::new());
    let any_found = AtomicBool::new(false);
    let start = Instant::now();
    let bar = if c.progress {
        let b = ProgressBar::new_spinner();
        b.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let end = c.cases.map(|n| c.start + n);
    // Lowered by `cases_after_finding` (case numbers `k`, before sharding).
    let end_found = AtomicU64::new(u64::MAX);
    // `--seconds` bounds the whole campaign, minimization included: with
    // no findings generation has all of it; once something is found it
    // stops early enough to leave `REDUCE_SHARE_FOUND` for minimizing,
    // which stops at `deadline` itself.
    let deadline = c.time.map(|t| start + t);
    let generate_until = c.time;
    let found_share = if c.reduce.is_some() {
        1.0 - REDUCE_SHARE_FOUND
    } else {
        1.0
    };
    let generate_until_found = c.time.map(|t| t.mul_f64(found_share));
    let workers = rayon::current_num_threads().max(1);
    (0..workers).into_par_iter().for_each(|_| {
        let mut local = Stats::default();
        loop {
            let until = if any_found.load(Ordering::Relaxed) {
                generate_until_found
            } else {
                generate_until
            };
            if stop.load(Ordering::Relaxed) || until.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
            let k = next.fetch_add(1, Ordering::Relaxed);
            if end.is_some_and(|e| k >= e) || k > end_found.load(Ordering::Relaxed) {
                break;
            }
            // This machine's share of the case numbers (`--shard i/n`).
            let i = k * c.shard.1 + c.shard.0;
            let program = generate_restricted(&case_bytes(c.seed, i), c.allowed);
            let checked = check_case(&program.source, &c.oracle, i);
            local.programs += 1;
            for (k, f) in Feature::ALL.iter().enumerate() {
                if program.features.has(*f) {
                    local.coverage[k] += 1;
                }
            }
            if checked.rejected {
                local.rejected += 1;
            }
            if checked.not_native {
                local.not_native += 1;
            }
            match checked.verdict {
                Verdict::Agree => {}
                Verdict::Timeout => local.timeouts += 1,
                Verdict::Finding(f) => {
                    local.findings += 1;
                    if local.first_finding_after.is_none() {
                        local.first_finding_after = Some(start.elapsed());
                    }
                    if let Some(n) = c.cases_after_finding {
                        end_found.fetch_min(k.saturating_add(n), Ordering::Relaxed);
                    }
                    let mut map = found.lock().unwrap_or_else(|e| e.into_inner());
                    any_found.store(true, Ordering::Relaxed);
                    let key = (
                        format!("{}|{}", f.signature.engines, f.signature.kind.name()),
                        line_class(&f.signature.line),
                    );
                    let entry = map.entry(key).or_insert_with(|| FoundBug {
                        signature: f.signature.clone(),
                        case: i,
                        hits: 0,
                        merged: 0,
                        source: program.source.clone(),
                        reduced: None,
                        files: None,
                        replay: String::new(),
                    });
                    entry.hits += 1;
                    if i < entry.case {
                        entry.case = i;
                        entry.source = program.source.clone();
                        entry.signature = f.signature.clone();
                    }
                    if c.stop_on_finding {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
            if local.programs % 64 == 0 {
                let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
                t.add(&local);
                t.elapsed = start.elapsed();
                bar.set_message(t.summary());
                bar.tick();
                local = Stats::default();
            }
        }
        total.lock().unwrap_or_else(|e| e.into_inner()).add(&local);
    });
    let mut stats = total.into_inner().unwrap_or_else(|e| e.into_inner());
    stats.elapsed = start.elapsed();
    bar.finish_and_clear();
    let last = end_found.load(Ordering::Relaxed);
    let mut findings: Vec<FoundBug> = found
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_values()
        .filter(|f| (f.case - c.shard.0) / c.shard.1 <= last)
        .collect();
    findings.sort_by_key(|f| f.case);
    let (mut findings, unreduced) = minimize_and_merge(c, findings, deadline);
    for f in &mut findings {
        if let Some(dir) = &c.out {
            let source = f.reduced.as_ref().map_or(&f.source, |r| &r.source);
            let name = format!("fuzz_{}", f.signature.slug().replace('-', "_"));
            let mut comment = format!(
                "Fuzz finding {}\nreplay: {}\nrun:    spy-interp execute --engine ENGINE --max-steps {} {name}.spy",
                f.signature, f.replay, c.oracle.fuel
            );
            if f.reduced.as_ref().is_some_and(|r| r.cut) {
                comment
                    .push_str("\nNOT FULLY REDUCED: --seconds ran out during the reduction (reduced so far)");
            }
            f.files = Some(write_case(dir, &name, &comment, source).map_err(|e| e.to_string()));
        }
    }
    if let (Some(dir), false) = (&c.out, unreduced.is_empty()) {
        let text: String = unreduced
            .iter()
            .map(|f| format!("{}  # {}\n", f.replay, f.signature))
            .collect();
        let path = dir.join(UNREDUCED_FILE);
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: cannot write {}: {e}", path.display());
        }
    }
    Report {
        stats,
        findings,
        unreduced,
    }
}

/// Where the findings the campaign had no time to minimize are listed (one
/// replay command a line) instead of being written as cases.
pub const UNREDUCED_FILE: &str = "unreduced.txt";

/// Findings minimized side by side in one wave of `minimize_and_merge`. A
/// constant, not the number of threads: which findings share a wave (and
/// so cannot see each other's trails) must not depend on the machine, or
/// the files written would.
pub const REDUCE_WAVE: usize = 4;

/// Minimize the findings (sorted by case) in waves of `REDUCE_WAVE`, in
/// case order, and merge those of one class: a finding whose program,
/// before or during its reduction, falls into the class of a program that
/// an earlier wave's reduction went through (`Reduced::trail`) is given up
/// at once and merged into that finding; two of one wave that end in one
/// class are merged into the lower case. What the earlier waves know is
/// fixed while a wave runs, and reductions are budgeted in steps
/// (`ReduceBudget`), so the result depends on the findings alone, not on
/// the number of threads, their timing or the machine's load. Findings
/// whose wave would start after `deadline` are returned apart, unreduced;
/// a reduction the deadline cuts short is kept as reduced so far
/// (`Reduced::cut`).
fn minimize_and_merge(
    c: &Campaign,
    mut findings: Vec<FoundBug>,
    deadline: Option<Instant>,
) -> (Vec<FoundBug>, Vec<FoundBug>) {
    for f in &mut findings {
        f.replay = replay_command(c, f.case);
    }
    let Some(budget) = c.reduce else {
        return (findings, vec![]);
    };
    // Class key → index (in `findings`) of the finding that owns it.
    let mut known: BTreeMap<String, usize> = BTreeMap::new();
    let mut owner: Vec<Option<usize>> = vec![None; findings.len()];
    let mut done = 0;
    while done < findings.len() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let wave = done..(done + REDUCE_WAVE).min(findings.len());
        let known_now = &known;
        let reduced: Vec<(Reduced, Option<usize>)> = findings[wave.clone()]
            .par_iter()
            .map(|f| {
                let sig = &f.signature;
                let hit = Mutex::new(None);
                let abandon = |text: &str| {
                    let found = known_now.get(&class_key(sig, text)).copied();
                    if found.is_some() {
                        *hit.lock().unwrap_or_else(|e| e.into_inner()) = found;
                    }
                    found.is_some()
                };
                let stop = Stop {
                    deadline,
                    abandon: &abandon,
                };
                let r = reduce_until(&f.source, sig, &c.oracle, budget, &stop);
                (r, hit.into_inner().unwrap_or_else(|e| e.into_inner()))
            })
            .collect();
        for (k, (r, hit)) in wave.clone().zip(reduced) {
            let key = class_key(&findings[k].signature, &r.source);
            match hit.or_else(|| known.get(&key).copied()) {
                Some(j) => owner[k] = Some(j),
                None => {
                    for text in &r.trail {
                        known.entry(class_key(&findings[k].signature, text)).or_insert(k);
                    }
                    known.insert(key, k);
                }
            }
            findings[k].reduced = Some(r);
        }
        done = wave.end;
    }
    let unreduced = findings.split_off(done);
    // Merge each into its owner (owners are always of a lower index).
    for k in (0..findings.len()).rev() {
        if let Some(j) = owner[k] {
            let (hits, merged) = (findings[k].hits, findings[k].merged);
            findings[j].hits += hits;
            findings[j].merged += 1 + merged;
        }
    }
    let kept = findings
        .into_iter()
        .zip(owner)
        .filter(|(_, o)| o.is_none())
        .map(|(f, _)| f)
        .collect();
    (kept, unreduced)
}

fn parse_features(args: &FuzzOptions) -> Result<FeatureSet, String> {
    let mut allowed = match &args.features {
        Some(list) => FeatureSet::parse(list)?,
        None => FeatureSet::all(),
    };
    if let Some(list) = &args.without {
        allowed = allowed.intersect(FeatureSet(!FeatureSet::parse(list)?.0));
    }
    Ok(allowed)
}

/// `I/N` with `I < N`.
pub fn parse_shard(text: &str) -> Option<(u64, u64)> {
    let (i, n) = text.split_once('/')?;
    let (i, n) = (i.trim().parse().ok()?, n.trim().parse().ok()?);
    (i < n).then_some((i, n))
}

/// `dir` exists (or can be made) and a file can be written in it: checked
/// before a campaign starts, so no finding is lost at its end.
pub fn check_writable(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".spy-fuzz-probe-{}", std::process::id()));
    std::fs::write(&probe, b"probe")?;
    std::fs::remove_file(&probe)
}

/// `spy-interp fuzz`: writes its report to `out` and returns the exit
/// code: 1 if anything was found, or if every program timed out (nothing
/// was compared), or if a finding could not be written; 2 for bad
/// options or an unwritable `--out`. `Err` is a failed write to `out`.
pub fn main(args: FuzzOptions, out: &mut dyn Write) -> std::io::Result<i32> {
    let allowed = match parse_features(&args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(2);
        }
    };
    let mut c = Campaign::new(args.seed);
    c.allowed = allowed;
    c.oracle.fuel = args.fuel;
    c.oracle.max_memory = args.max_memory;
    if let Some(engines) = &args.engines {
        if engines.first().is_none_or(|e| !e.is_reference()) {
            eprintln!("error: --engines must start with the reference engine `interp`");
            return Ok(2);
        }
        c.oracle.engines = engines.clone();
    }
    if let Some(m) = args.mutation {
        c.oracle.mutations = m.into();
    }
    if !args.in_process && c.oracle.engines.contains(&Engine::Jit) {
        match Isolation::this_binary() {
            Ok(iso) => c.oracle.isolation = Some(iso),
            Err(e) => {
                eprintln!("error: cannot find this binary to start jit workers ({e}); use --in-process");
                return Ok(2);
            }
        }
    }
    if let Some(i) = args.case {
        return replay(&c, i, out);
    }
    if let Err(e) = check_writable(&args.out) {
        eprintln!("error: cannot write findings to {}: {e}", args.out.display());
        return Ok(2);
    }
    if let Some(file) = &args.reduce {
        return reduce_file(&c, file, &args.out, out);
    }
    c.cases = args.cases;
    if let Some(text) = &args.shard {
        match parse_shard(text) {
            Some(s) => c.shard = s,
            None => {
                eprintln!("error: --shard {text} is not I/N with 0 <= I < N");
                return Ok(2);
            }
        }
    }
    c.time = match (args.seconds, args.cases) {
        (Some(s), _) => match Duration::try_from_secs_f64(s) {
            Ok(d) if !d.is_zero() => Some(d),
            _ => {
                eprintln!("error: --seconds {s} is not a duration above 0");
                return Ok(2);
            }
        },
        (None, None) => Some(Duration::from_secs(10)),
        (None, Some(_)) => None,
    };
    c.out = Some(args.out.clone());
    c.reduce = (!args.no_reduce).then(ReduceBudget::default);
    c.progress = !args.quiet;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build();
    let report = match pool {
        Ok(p) => p.install(|| run(&c)),
        Err(_) => run(&c),
    };
    writeln!(out, "{}", report.stats.summary())?;
    if !args.quiet {
        writeln!(
            out,
            "feature coverage (share of programs):\n{}",
            report.stats.coverage_table()
        )?;
    }
    let mut lost = 0;
    for f in &report.findings {
        writeln!(
            out,
            "\nFINDING {} ({} hit(s), first at case {})",
            f.signature, f.hits, f.case
        )?;
        if let Some(r) = &f.reduced {
            writeln!(
                out,
                "  minimized to {} lines ({} candidates tried{}){}",
                r.lines(),
                r.tries,
                if r.cut { ", cut at --seconds" } else { "" },
                if f.merged > 0 {
                    format!(", {} other signature(s) of the same class merged", f.merged)
                } else {
                    String::new()
                }
            )?;
        }
        match &f.files {
            Some(Ok(files)) => writeln!(
                out,
                "  case:   {}\n  outcome: {}",
                files.spy.display(),
                files.snap.display()
            )?,
            Some(Err(e)) => {
                lost += 1;
                eprintln!(
                    "error: cannot write finding {} to {}: {e}",
                    f.signature,
                    args.out.display()
                );
            }
            None => {}
        }
        writeln!(out, "  replay: {}", f.replay)?;
    }
    if !report.unreduced.is_empty() {
        writeln!(
            out,
            "\n{} more finding(s) not minimized before --seconds ran out: their replay commands are in {}",
            report.unreduced.len(),
            args.out.join(UNREDUCED_FILE).display()
        )?;
    }
    let compared = report.stats.programs - report.stats.timeouts;
    if compared == 0 {
        eprintln!(
            "error: no program was compared: all {} timed out (fuel {}); raise --fuel",
            report.stats.programs, c.oracle.fuel
        );
        return Ok(1);
    }
    if lost > 0 {
        eprintln!("error: {lost} finding(s) could not be written (see above)");
    }
    Ok(i32::from(
        !report.findings.is_empty() || !report.unreduced.is_empty() || lost > 0,
    ))
}

/// Print case `i` and what every engine did with it.
fn replay(c: &Campaign, i: u64, out: &mut dyn Write) -> std::io::Result<i32> {
    let program = generate_restricted(&case_bytes(c.seed, i), c.allowed);
    writeln!(out, "{}", program.source)?;
    writeln!(out, "# features: {}", program.features.names())?;
    // The campaign's own check of case `i` (its residual route included).
    let checked = check_case(&program.source, &c.oracle, i);
    writeln!(out, "# reference outcome:\n{}", snapshot(&checked.reference))?;
    Ok(match checked.verdict {
        Verdict::Agree => {
            writeln!(out, "# all engines agree")?;
            0
        }
        Verdict::Timeout => {
            writeln!(out, "# timeout (fuel {})", c.oracle.fuel)?;
            0
        }
        Verdict::Finding(f) => {
            writeln!(
                out,
                "# FINDING {}\n# {} outcome:\n{}",
                f.signature,
                f.other.0.name(),
                snapshot(&f.other.1)
            )?;
            1
        }
    })
}

/// `--reduce FILE`: minimize one program and write it as a case.
fn reduce_file(c: &Campaign, file: &Path, dir: &Path, out: &mut dyn Write) -> std::io::Result<i32> {
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", file.display());
            return Ok(2);
        }
    };
    let Verdict::Finding(f) = check(&source, &c.oracle).verdict else {
        writeln!(out, "no finding: every engine agrees on {}", file.display())?;
        return Ok(0);
    };
    let r = reduce(&source, &f.signature, &c.oracle, ReduceBudget::default());
    let name = format!("fuzz_{}", f.signature.slug().replace('-', "_"));
    let comment = format!("Fuzz finding {}\nreduced from {}", f.signature, file.display());
    writeln!(out, "FINDING {}\n{}", f.signature, r.source)?;
    match write_case(dir, &name, &comment, &r.source) {
        Ok(files) => writeln!(
            out,
            "case: {}\noutcome: {}",
            files.spy.display(),
            files.snap.display()
        )?,
        Err(e) => eprintln!("error: cannot write the case to {}: {e}", dir.display()),
    }
    Ok(1)
}
