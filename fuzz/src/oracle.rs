//! The differential oracle: run one program on every engine of
//! `Engine::ALL` with fuel and compare each with the first (reference)
//! engine on stdout, exit code and the `Kind: message` error line.
//!
//! - Any internal error or panic (`Outcome::bug`) is a finding, in the
//!   reference too (cranelift-fuzzgen: a broken reference is a bug).
//! - Fuel exhaustion or `RecursionError` in the reference makes the case a
//!   *timeout*: dropped, counted, never a finding. The other engines get
//!   more fuel (redshift and the residual run count steps differently),
//!   and their own fuel exhaustion is a timeout too (wasmtime#6415).
//! - Findings are deduplicated by a semantic signature (OSS-Fuzz merges
//!   by stack, which conflates different divergences, oss-fuzz#8389):
//!   which engines disagree, the kind of divergence, and the first
//!   differing line with its digits normalized.

use spy_interp::engine::{
    run_program, Engine, ErrorLine, Limits, Mutations, Outcome, ResidualRoute, RunConfig,
};
use spy_interp::error::ExcKind;

use crate::worker::{self, Isolation, Request, Runs, Ticket};

/// How to run the engines.
#[derive(Clone, Debug)]
pub struct OracleConfig {
    /// The engines, reference first (normally `Engine::ALL`).
    pub engines: Vec<Engine>,
    /// Step fuel for the reference; the others get `FUEL_SLACK` times more.
    pub fuel: u64,
    /// Planted bugs for the non-reference engines (tests of the fuzzer).
    pub mutations: Mutations,
    /// The program's file name (its stem is the module name).
    pub path: String,
    /// Memory budget of every run, in bytes (`--max-memory`).
    pub max_memory: u64,
    /// Run the jit engine in a worker process (`crate::worker`), so that a
    /// crash of native code is a finding; `None` runs it in this process.
    pub isolation: Option<Isolation>,
}

/// Fuel multiplier for the non-reference engines.
pub const FUEL_SLACK: u64 = 4;

/// A campaign's memory budget per run (`fuzz --max-memory`'s default),
/// far below the engines' 4 GiB: a generated program needs a few MB, and
/// the fuel counts statements, not bytes, so a string doubled in a loop
/// (`g += g` under `UNROLL_RANGE` in a `while`) reaches a gigabyte within
/// 20,000 steps, copying for seconds: the worker's CPU limit then took it
/// for a hang (campaign seed 2812, case 34550). With this budget it ends
/// within a tenth of a second, with a `MemoryError` (a timeout) or the
/// string limit's `OverflowError`.
pub const FUZZ_MAX_MEMORY: u64 = 256 << 20;

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig {
            engines: Engine::ALL.to_vec(),
            fuel: 20_000,
            mutations: Mutations::NONE,
            path: "fuzz.spy".into(),
            max_memory: FUZZ_MAX_MEMORY,
            isolation: None,
        }
    }
}

/// The kind of a divergence, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DivergenceKind {
    /// An internal error or panic.
    Bug,
    Stdout,
    ErrorLine,
    Exit,
}

impl DivergenceKind {
    pub fn name(self) -> &'static str {
        match self {
            DivergenceKind::Bug => "bug",
            DivergenceKind::Stdout => "stdout",
            DivergenceKind::ErrorLine => "error-line",
            DivergenceKind::Exit => "exit",
        }
    }
}

/// What identifies a finding across programs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// `interp` alone for a bug of the reference, else `interp/doppler`.
    pub engines: String,
    pub kind: DivergenceKind,
    /// The first differing line(s), digits replaced by `N`.
    pub line: String,
}

impl Signature {
    /// A short file-name-safe slug with a hash of the whole signature.
    pub fn slug(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in format!("{}|{}|{}", self.engines, self.kind.name(), self.line).bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        format!(
            "{}-{}-{:08x}",
            self.engines.replace('/', "-"),
            self.kind.name(),
            h as u32
        )
    }
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}: {}", self.engines, self.kind.name(), self.line)
    }
}

/// A disagreement between engines (or a bug of one).
#[derive(Clone, Debug)]
pub struct Finding {
    pub signature: Signature,
    /// The reference engine's outcome.
    pub reference: Outcome,
    /// The engine that disagreed and its outcome.
    pub other: (Engine, Outcome),
}

/// The result of checking one program.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every engine agreed.
    Agree,
    /// Fuel or recursion depth ran out: not comparable.
    Timeout,
    Finding(Box<Finding>),
}

#[derive(Clone, Debug)]
pub struct Checked {
    pub verdict: Verdict,
    /// The reference ended with a static error (TypeError, NameError,
    /// ScopeError, ParseError, WIP): the generator made an invalid program.
    pub rejected: bool,
    pub reference: Outcome,
    /// An engine (the jit) could not run the program natively: counted,
    /// not a finding; the other engines are still compared.
    pub not_native: bool,
}

/// Error kinds that mean "the program is not valid SPy".
const STATIC_KINDS: &[ExcKind] = &[
    ExcKind::TypeError,
    ExcKind::NameError,
    ExcKind::ScopeError,
    ExcKind::ParseError,
    ExcKind::Wip,
];

/// Fuel, recursion depth or the memory budget ran out: the outcome is not
/// comparable (redshift's residual module counts against the budget too).
pub fn is_timeout(o: &Outcome) -> bool {
    o.error.as_ref().is_some_and(|e| {
        matches!(
            e.kind,
            ExcKind::StepLimitError | ExcKind::RecursionError | ExcKind::MemoryError
        )
    })
}

/// Replace each run of digits by `N` and cut long lines.
pub fn normalize_line(line: &str) -> String {
    cut(digits_as_n(line))
}

/// [`normalize_line`] for an internal error's message, cut later: its
/// class (`dedup::line_class`) is its template up to the first
/// debug-printed value, after the program names in it are abstracted, and
/// a cut at 80 characters of the raw text would land before or after that
/// point depending on how long the names are.
pub fn normalize_bug_line(line: &str) -> String {
    cut_at(digits_as_n(line), BUG_LINE_CHARS)
}

/// Characters of a signature line (then `…`).
const LINE_CHARS: usize = 80;
/// Characters of an internal error's signature line.
const BUG_LINE_CHARS: usize = 200;

fn cut(line: String) -> String {
    cut_at(line, LINE_CHARS)
}

fn cut_at(line: String, max: usize) -> String {
    if line.chars().count() > max {
        line.chars().take(max).collect::<String>() + "…"
    } else {
        line
    }
}

/// Each run of digits of `line` as `N`.
fn digits_as_n(line: &str) -> String {
    let mut out = String::new();
    let mut in_digits = false;
    for c in line.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('N');
            }
            in_digits = true;
        } else {
            in_digits = false;
            out.push(c);
        }
    }
    out
}

fn config(fuel: u64, mutations: Mutations, max_memory: u64) -> RunConfig {
    RunConfig {
        limits: Limits {
            max_steps: Some(fuel),
            max_memory,
            ..Limits::default()
        },
        mutations,
        general_paths_only: false,
        argv: None,
        // Kept out of the swarm: a fuzzed program opens no file.
        files: spy_interp::host::FileAccess::Denied,
        // nor a module file: `import m` finds no `m.spy`
        modules: spy_interp::host::ModuleSources::Memory(&[]),
    }
}

/// How a non-reference engine runs. Machine code counts no steps
/// (spec/17-jit.md): the jit engine runs without fuel a program the
/// reference finished within it.
fn other_config(engine: Engine, cfg: &OracleConfig) -> RunConfig {
    let mut run_config = config(cfg.fuel, cfg.mutations, cfg.max_memory);
    run_config.limits.max_steps = match engine {
        Engine::Jit => None,
        _ => Some(cfg.fuel * FUEL_SLACK),
    };
    run_config
}

/// Run `source` on every engine and compare (doppler and the jit run the
/// printed and re-parsed residual module, as for users).
pub fn check(source: &str, cfg: &OracleConfig) -> Checked {
    check_on(source, cfg, ResidualRoute::Printed)
}

/// One case in 8 of a campaign takes the printed residual route
/// ([`check_case`]).
pub const PRINTED_RESIDUAL_EVERY: u64 = 8;

/// [`check`] of campaign case `case`: the worker runs doppler and the jit
/// on redshift's own residual tree (`ResidualRoute::Built`: no print and
/// no parse of the residual module, about an eighth of a program's CPU),
/// except on every [`PRINTED_RESIDUAL_EVERY`]th case, which checks the
/// printer and parser on the residual module as [`check`] does. A finding
/// on the built route is checked again on the printed one, whose verdict
/// is the case's when it is a finding too: findings, their reduction and
/// their reproducers are those of the engines users run. When only the
/// built route diverges, redshift's tree and its printed-and-reparsed text
/// run differently: a finding of the residual printer or parser (or of the
/// built route itself), reported as `ENGINE-built/ENGINE-printed` with the
/// built route's line. The reducer checks the printed route, on which it
/// does not show, so such a finding is written unreduced.
pub fn check_case(source: &str, cfg: &OracleConfig, case: u64) -> Checked {
    if case % PRINTED_RESIDUAL_EVERY == 0 {
        return check(source, cfg);
    }
    let built = check_on(source, cfg, ResidualRoute::Built);
    let Verdict::Finding(built_finding) = &built.verdict else {
        return built;
    };
    let printed = check(source, cfg);
    if matches!(printed.verdict, Verdict::Finding(_)) {
        return printed;
    }
    let engine = built_finding.other.0.name();
    let finding = Finding {
        signature: Signature {
            engines: format!("{engine}-built/{engine}-printed"),
            kind: built_finding.signature.kind,
            line: built_finding.signature.line.clone(),
        },
        reference: built_finding.reference.clone(),
        other: built_finding.other.clone(),
    };
    Checked {
        verdict: Verdict::Finding(Box::new(finding)),
        ..built
    }
}

fn check_on(source: &str, cfg: &OracleConfig, residual: ResidualRoute) -> Checked {
    let engines = if cfg.engines.is_empty() {
        Engine::ALL
    } else {
        &cfg.engines[..]
    };
    let reference_engine = engines[0];
    // Which engines run in the worker, and how. All three engines: every
    // one of them there, on one parse of the program (`Runs::Every`;
    // this process only waits). Otherwise the isolated engines start
    // first and compute while the reference runs here: with both doppler
    // and the jit to run, from one redshift (`Runs::DopplerThenJit`).
    let runs = cfg.isolation.as_ref().and_then(|_| {
        let others = &engines[1..];
        if engines == Engine::ALL {
            Some(Runs::Every {
                reference_steps: Some(cfg.fuel),
                residual,
            })
        } else if others.contains(&Engine::Jit) && others.contains(&Engine::Doppler) {
            Some(Runs::DopplerThenJit)
        } else if others.contains(&Engine::Jit) {
            Some(Runs::One(Engine::Jit))
        } else {
            None
        }
    });
    let isolated: Vec<Engine> = runs.map_or(vec![], Runs::engines);
    let mut ticket: Option<Ticket> = match (&cfg.isolation, runs) {
        (Some(iso), Some(runs)) => {
            // The request's config is that of the first non-reference
            // engine it runs (doppler's; the jit drops the fuel itself).
            let first_other = isolated.iter().copied().find(|e| *e != reference_engine);
            let config = other_config(first_other.unwrap_or(Engine::Jit), cfg);
            Some(worker::submit(
                iso,
                &Request {
                    runs,
                    path: cfg.path.clone(),
                    source: source.to_string(),
                    config,
                },
            ))
        }
        _ => None,
    };
    // Answers read from the worker and not yet used.
    let mut answers: Vec<(Engine, Outcome)> = vec![];
    let read_worker = |ticket: &mut Option<Ticket>, answers: &mut Vec<(Engine, Outcome)>| {
        if let Some(t) = ticket.take() {
            answers.extend(isolated.iter().copied().zip(worker::collect(t)));
        }
    };
    let reference = if isolated.contains(&reference_engine) {
        read_worker(&mut ticket, &mut answers);
        let k = answers
            .iter()
            .position(|(e, _)| *e == reference_engine)
            .expect("the worker answered for every engine it ran");
        answers.swap_remove(k).1
    } else {
        run_program(
            reference_engine,
            &cfg.path,
            source.as_bytes(),
            config(cfg.fuel, cfg.mutations, cfg.max_memory),
        )
    };
    let rejected = reference
        .error
        .as_ref()
        .is_some_and(|e| STATIC_KINDS.contains(&e.kind));
    let mut not_native = false;
    let done = |verdict, not_native| Checked {
        verdict,
        rejected,
        reference: reference.clone(),
        not_native,
    };
    if reference.bug.is_some() || is_timeout(&reference) {
        // Not compared: the worker's answer is read and dropped, so that
        // the next request gets its own.
        read_worker(&mut ticket, &mut answers);
    }
    if let Some(bug) = &reference.bug {
        return done(
            Verdict::Finding(Box::new(Finding {
                signature: Signature {
                    engines: reference_engine.name().to_string(),
                    kind: DivergenceKind::Bug,
                    line: normalize_bug_line(bug.message.lines().next().unwrap_or("")),
                },
                reference: reference.clone(),
                other: (reference_engine, reference.clone()),
            })),
            false,
        );
    }
    if is_timeout(&reference) {
        return done(Verdict::Timeout, false);
    }
    for &engine in &engines[1..] {
        if isolated.contains(&engine) {
            read_worker(&mut ticket, &mut answers);
        }
        let answer = answers.iter().position(|(e, _)| *e == engine);
        let out = match answer {
            Some(k) => answers.swap_remove(k).1,
            None => run_program(engine, &cfg.path, source.as_bytes(), other_config(engine, cfg)),
        };
        if out.not_native.is_some() && out.bug.is_none() {
            not_native = true;
            continue;
        }
        if static_error_cut_short(&reference, &out) {
            continue;
        }
        let stops = (out.bug.is_none() && is_timeout(&out)) || compare(&reference, &out).is_some();
        if stops {
            read_worker(&mut ticket, &mut answers);
        }
        if out.bug.is_none() && is_timeout(&out) {
            return done(Verdict::Timeout, not_native);
        }
        if let Some((kind, line)) = compare(&reference, &out) {
            return done(
                Verdict::Finding(Box::new(Finding {
                    signature: Signature {
                        engines: format!("{}/{}", reference_engine.name(), engine.name()),
                        kind,
                        line,
                    },
                    reference: reference.clone(),
                    other: (engine, out),
                })),
                not_native,
            );
        }
    }
    done(Verdict::Agree, not_native)
}

/// The allowed divergence of spec §16.6 item 13: both engines ended with
/// a static error (the program is not valid SPy), and `other`'s output is
/// `reference`'s cut short. Redshift types a whole statement before any
/// of it runs and defers a statement it cannot type to a `raise` there;
/// ASTFrame runs the statement's parts in order (a call's own output, a
/// static error inside the callee) up to the ill-typed operation.
fn static_error_cut_short(reference: &Outcome, other: &Outcome) -> bool {
    let is_static =
        |o: &Outcome| o.bug.is_none() && o.error.as_ref().is_some_and(|e| STATIC_KINDS.contains(&e.kind));
    is_static(reference)
        && is_static(other)
        && reference.exit == other.exit
        && reference.stdout.starts_with(&other.stdout)
}

/// The first difference between two outcomes, normalized.
pub fn compare(a: &Outcome, b: &Outcome) -> Option<(DivergenceKind, String)> {
    if let Some(bug) = &b.bug {
        return Some((
            DivergenceKind::Bug,
            normalize_bug_line(bug.message.lines().next().unwrap_or("")),
        ));
    }
    if a.stdout != b.stdout {
        let (ra, rb): (Vec<&str>, Vec<&str>) = (a.stdout.lines().collect(), b.stdout.lines().collect());
        // Lines only missing (or only added) make one class, whatever the
        // lines are (a loop unrolled once too few times, an operand
        // evaluated twice); otherwise the first differing token of the
        // first differing line (`dedup::line_core`, before the digits
        // become `N`, so `(1, 2) ≠ (2, 1)` is `N ≠ N`).
        let mut line = if is_subsequence(&rb, &ra) {
            "lines missing".to_string()
        } else if is_subsequence(&ra, &rb) {
            "lines added".to_string()
        } else {
            let i = (0..ra.len().max(rb.len()))
                .find(|&i| ra.get(i) != rb.get(i))
                .unwrap_or(0);
            let (x, y) = (
                ra.get(i).copied().unwrap_or("<end>"),
                rb.get(i).copied().unwrap_or("<end>"),
            );
            let core = crate::dedup::line_core(&format!("{x} ≠ {y}"));
            cut(digits_as_n(&core))
        };
        // Output that stops early usually comes with an error: keep it in
        // the signature, so that reducing the program cannot drift to
        // another cause of the same missing line.
        if a.error != b.error {
            line.push_str(&format!(
                " (error: {} ≠ {})",
                show_error(&a.error),
                show_error(&b.error)
            ));
        }
        return Some((DivergenceKind::Stdout, line));
    }
    if a.error != b.error {
        return Some((
            DivergenceKind::ErrorLine,
            format!("{} ≠ {}", show_error(&a.error), show_error(&b.error)),
        ));
    }
    if a.exit != b.exit {
        return Some((DivergenceKind::Exit, format!("{} ≠ {}", a.exit, b.exit)));
    }
    None
}

/// `small` is `big` with some lines left out.
fn is_subsequence(small: &[&str], big: &[&str]) -> bool {
    let mut it = big.iter();
    small.iter().all(|l| it.any(|b| b == l))
}

/// An outcome's error line for a signature (`<none>` without one).
fn show_error(e: &Option<ErrorLine>) -> String {
    e.as_ref()
        .map_or("<none>".to_string(), |e| normalize_line(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_runs_within_the_memory_budget() {
        let src = "from unsafe import gc_alloc\n\ndef main() -> None:\n    p = gc_alloc[u8](3000000)\n    print(1)\n";
        let roomy = check(src, &OracleConfig::default());
        assert_eq!(roomy.reference.error, None);
        assert!(
            !matches!(roomy.verdict, Verdict::Finding(_)),
            "{:?}",
            roomy.verdict
        );
        let tight = OracleConfig {
            max_memory: 2 << 20,
            ..OracleConfig::default()
        };
        let c = check(src, &tight);
        let e = c.reference.error.as_ref().expect("a MemoryError");
        assert_eq!(e.kind, ExcKind::MemoryError);
        // The other engines ran with the same budget: no divergence.
        assert!(!matches!(c.verdict, Verdict::Finding(_)), "{:?}", c.verdict);
    }

    #[test]
    fn digits_are_normalized() {
        assert_eq!(normalize_line("x = -12 and 3.5"), "x = -N and N.N");
    }

    #[test]
    fn stdout_signature_keeps_the_error() {
        let outcome = |stdout: &str, error: Option<(ExcKind, &str)>| Outcome {
            exit: i32::from(error.is_some()),
            error: error.map(|(kind, message)| ErrorLine {
                kind,
                message: message.to_string(),
            }),
            report: None,
            bug: None,
            host: None,
            not_native: None,
            stdout: stdout.to_string(),
        };
        let (kind, line) = compare(
            &outcome("a\nb 1\n", None),
            &outcome(
                "a\n",
                Some((ExcKind::TypeError, "method `S1::a0` does not exist")),
            ),
        )
        .expect("they differ");
        assert_eq!(kind, DivergenceKind::Stdout);
        assert_eq!(
            line,
            "lines missing (error: <none> ≠ TypeError: method `SN::aN` does not exist)"
        );
    }

    #[test]
    fn agreeing_program() {
        let c = check(
            "def main() -> None:\n    print(7 // 2)\n",
            &OracleConfig::default(),
        );
        assert!(matches!(c.verdict, Verdict::Agree), "{c:?}");
        assert!(!c.rejected);
    }

    #[test]
    fn stdout_signatures_class_missing_added_and_changed_lines() {
        let out = |stdout: &str| Outcome {
            exit: 0,
            error: None,
            report: None,
            bug: None,
            host: None,
            not_native: None,
            stdout: stdout.to_string(),
        };
        let sig = |a: &str, b: &str| compare(&out(a), &out(b)).map(|(_, l)| l);
        assert_eq!(sig("a\nb\nc\n", "a\nc\n").as_deref(), Some("lines missing"));
        assert_eq!(sig("0\n", "hello\n0\n").as_deref(), Some("lines added"));
        assert_eq!(
            sig("SIMD[i32, 2](1, 2)\n", "SIMD[i32, 2](2, 1)\n").as_deref(),
            Some("N ≠ N")
        );
        assert_eq!(
            sig("(False, 1, -0.0)\n", "(False, 1, 0.0)\n").as_deref(),
            Some("-N.N ≠ N.N")
        );
        assert_eq!(sig("x\n", "x\n"), None);
    }

    #[test]
    fn static_error_rejects_and_runtime_error_does_not() {
        let typed = "def main() -> None:\n    x: i32 = \"a\"\n";
        let c = check(typed, &OracleConfig::default());
        assert!(c.rejected, "{c:?}");
        let index = "def main() -> None:\n    l = [1]\n    print(l[2])\n";
        let c = check(index, &OracleConfig::default());
        assert_eq!(
            c.reference.error.as_ref().map(|e| e.kind),
            Some(ExcKind::IndexError)
        );
        assert!(!c.rejected && matches!(c.verdict, Verdict::Agree), "{c:?}");
    }

    /// Campaign seed 2812, case 70232, reduced: redshift defers the
    /// ill-typed `r1: i32 = fp(...)` (a `u64` result) to a `raise` before
    /// the call; ASTFrame calls `fp`, prints, and fails in it (spec §16.6
    /// item 13). Both static errors: rejected, not a finding.
    #[test]
    fn static_error_after_output_in_one_statement_is_not_a_finding() {
        let src = "def fp(p: bool) -> u64:\n    print(\"side\")\n    return 0\n\n\
                   def main() -> None:\n    r1: i32 = fp(True)\n";
        let c = check(src, &OracleConfig::default());
        assert_eq!(c.reference.stdout, "side\n");
        assert!(c.rejected && matches!(c.verdict, Verdict::Agree), "{c:?}");
        // Output the other engine has and ASTFrame has not is still a finding.
        let mut more = c.reference.clone();
        more.stdout.push_str("extra\n");
        assert!(!static_error_cut_short(&c.reference, &more));
        assert!(static_error_cut_short(&more, &c.reference));
    }

    /// Campaign seed 2812, case 34550, distilled: a module string doubled
    /// in an unrolled loop inside a loop, and copied. Under the engines' 4
    /// GiB budget ASTFrame copied about a gigabyte of text within the fuel
    /// (2–3 s of CPU: the worker called it a hang); here, 128 MiB and a
    /// copy of it run under 4 GiB but are a MemoryError (a timeout, not
    /// compared) under the campaign's budget, on every engine.
    #[test]
    fn string_doubling_in_loops_ends_within_the_campaign_budget() {
        let src = "from __spy__ import UNROLL_RANGE\nvar g: str = 'ab'\n\n\
                   def main() -> None:\n    var w = 0\n    while w < 13:\n        w += 1\n        \
                   for u in UNROLL_RANGE(2):\n            g += g\n    h = g + 'c'\n    print(len(g), len(h))\n";
        let c = check(src, &OracleConfig::default());
        assert_eq!(
            c.reference.error.as_ref().map(|e| e.kind),
            Some(ExcKind::MemoryError),
            "{c:?}"
        );
        assert!(matches!(c.verdict, Verdict::Timeout), "{c:?}");
    }

    #[test]
    fn runaway_program_is_a_timeout() {
        let src = "def main() -> None:\n    while True:\n        pass\n";
        let c = check(src, &OracleConfig::default());
        assert!(matches!(c.verdict, Verdict::Timeout), "{c:?}");
    }
}
