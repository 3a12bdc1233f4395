//! Running the suite: the targets a case is checked on (each engine, plus
//! the reference engine in its `interp-general` mode), the bounds every
//! case runs within (step fuel and a wall-clock limit: a case that does
//! not terminate fails with that reason, the run never hangs), the verdict
//! of one case on one target, deterministic sharding, and the parallel
//! (rayon) runner behind `spy-interp conformance`.

use std::fmt;
use std::time::Duration;

use rayon::prelude::*;
use spy_interp::engine::{run_program, Engine, Limits, Outcome, RunConfig};
use spy_interp::error::ExcKind;
use spy_interp::host::{ModuleSources, ModuleText};

use crate::case::Case;
use crate::snapshot::{normalize, snapshot};

/// What a case runs on: an engine, and for the reference engine whether
/// its shortcuts are switched off (`RunConfig::general_paths_only`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub engine: Engine,
    pub general_paths_only: bool,
}

impl Target {
    pub const INTERP: Target = Target::engine(Engine::Interp);
    pub const DOPPLER: Target = Target::engine(Engine::Doppler);
    pub const JIT: Target = Target::engine(Engine::Jit);
    /// ASTFrame with its shortcuts off, against the reference's snapshots.
    pub const INTERP_GENERAL: Target = Target {
        engine: Engine::Interp,
        general_paths_only: true,
    };

    /// Every target the suite checks: each engine, then each mode.
    pub const ALL: &'static [Target] = &[
        Target::INTERP,
        Target::DOPPLER,
        Target::JIT,
        Target::INTERP_GENERAL,
    ];

    pub const fn engine(engine: Engine) -> Target {
        Target {
            engine,
            general_paths_only: false,
        }
    }

    /// A mode of an engine rather than an engine of its own.
    pub fn is_mode(self) -> bool {
        self.general_paths_only
    }

    pub fn name(self) -> &'static str {
        match (self.engine, self.general_paths_only) {
            (Engine::Interp, true) => "interp-general",
            (engine, _) => engine.name(),
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// The run configuration of this target with `limits`.
    pub fn config(self, limits: Limits) -> RunConfig {
        RunConfig {
            limits,
            general_paths_only: self.general_paths_only,
            // each run opens files in a temporary directory of its own
            files: spy_interp::host::FileAccess::TempDir,
            // a one-file case finds no module file
            modules: ModuleSources::Memory(&[]),
            ..RunConfig::default()
        }
    }

    /// Run `source` (named `path`) on this target. A multi-file case (a
    /// main module followed by `# file: NAME.spy` sections, README) runs
    /// its main module with the sections as the files beside it.
    pub fn run(self, path: &str, source: &[u8], limits: Limits) -> Outcome {
        let (main, modules) = split_case(path, source);
        let config = RunConfig {
            modules,
            ..self.config(limits)
        };
        run_program(self.engine, path, main, config)
    }
}

/// The main module of a case and the module files it carries
/// (`# file: NAME.spy` sections); a one-file case has none.
pub fn split_case<'s>(path: &str, source: &'s [u8]) -> (&'s [u8], ModuleSources) {
    let Ok(text) = std::str::from_utf8(source) else {
        return (source, ModuleSources::Memory(&[]));
    };
    let (main, files) = spy_interp::redshift::split_files(text);
    if files.is_empty() {
        return (source, ModuleSources::Memory(&[]));
    }
    (main.as_bytes(), ModuleSources::Memory(case_modules(path, &files)))
}

/// The module files of case `path`, made `'static` once per case and
/// process (a `RunConfig` is `Copy`: it borrows them).
fn case_modules(path: &str, files: &[(&str, &str)]) -> &'static [ModuleText] {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    /// A case's path and files.
    type Key = (String, Vec<(String, String)>);
    static MODULES: OnceLock<Mutex<HashMap<Key, &'static [ModuleText]>>> = OnceLock::new();
    let key = (
        path.to_string(),
        files
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect::<Vec<_>>(),
    );
    let mut cache = MODULES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    cache.entry(key).or_insert_with_key(|(_, files)| {
        let texts: Vec<ModuleText> = files
            .iter()
            .map(|(name, text)| ModuleText {
                file_name: Box::leak(name.clone().into_boxed_str()),
                source: Box::leak(text.clone().into_bytes().into_boxed_slice()),
            })
            .collect();
        Box::leak(texts.into_boxed_slice())
    })
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a case may spend on one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaseBounds {
    /// Steps (statements and calls, `--max-steps`): running out is a
    /// failure of the case (it does not terminate), not its outcome.
    pub fuel: u64,
    /// Wall-clock limit of one run.
    pub wall: Duration,
    /// Memory budget of one run, in bytes (`--max-memory`).
    pub max_memory: u64,
}

impl Default for CaseBounds {
    /// The suite's bounds: far above what any case needs (the largest
    /// takes well under a million steps), low enough that a runaway case
    /// ends in seconds in a debug build.
    fn default() -> Self {
        CaseBounds {
            fuel: 50_000_000,
            wall: Duration::from_secs(120),
            max_memory: Limits::default().max_memory,
        }
    }
}

/// Run `source` on `target` within `bounds`: `Err` says why the case did
/// not finish (fuel or time ran out).
pub fn run_bounded_with(
    target: Target,
    path: &str,
    source: &[u8],
    bounds: CaseBounds,
) -> Result<Outcome, String> {
    // The jit engine counts no steps (spec/17-jit.md §17.2): its bound is
    // the wall clock (a case whose reference runs within the fuel does the
    // same work natively).
    let limits = Limits {
        max_steps: (target.engine != Engine::Jit).then_some(bounds.fuel),
        max_memory: bounds.max_memory,
        ..Limits::default()
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let (path, source) = (path.to_string(), source.to_vec());
    // The run goes on in the background if the time runs out; its fuel
    // ends it.
    std::thread::Builder::new()
        .name("spy-case".into())
        .spawn(move || {
            let _ = tx.send(target.run(&path, &source, limits));
        })
        .map_err(|e| format!("cannot start the case: {e}"))?;
    let outcome = rx.recv_timeout(bounds.wall).map_err(|_| {
        format!(
            "the case did not finish within {} s (wall-clock limit)",
            bounds.wall.as_secs_f64()
        )
    })?;
    match &outcome.error {
        Some(e) if e.kind == ExcKind::StepLimitError => Err(format!(
            "the case did not finish within the suite's fuel of {} steps (does it terminate?)",
            bounds.fuel
        )),
        _ => Ok(outcome),
    }
}

/// [`run_bounded_with`] the suite's [`CaseBounds`].
pub fn run_bounded(target: Target, path: &str, source: &[u8]) -> Result<Outcome, String> {
    run_bounded_with(target, path, source, CaseBounds::default())
}

/// Keep the cases of shard `index` (0-based) of `count`: deterministic,
/// by position in the sorted list.
pub fn shard(cases: Vec<Case>, index: usize, count: usize) -> Vec<Case> {
    cases
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % count == index)
        .map(|(_, c)| c)
        .collect()
}

/// The verdict of one case on one target.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub case: String,
    pub target: Target,
    pub passed: bool,
    /// What went wrong, for failures.
    pub detail: String,
    /// For the jit engine: whether the case ran natively (a listed
    /// not-yet-native case passes without running natively).
    pub native: Option<bool>,
}

/// Check one case on one target against its snapshot, within the suite's
/// bounds.
pub fn check(case: &Case, target: Target) -> Verdict {
    check_with(case, target, CaseBounds::default())
}

/// [`check`] within `bounds`.
pub fn check_with(case: &Case, target: Target, bounds: CaseBounds) -> Verdict {
    let verdict = |passed, detail: String| Verdict {
        case: case.name.clone(),
        target,
        passed,
        detail,
        native: None,
    };
    let expected = match case.expected_for(target.engine) {
        Ok(Some(e)) => e,
        Ok(None) => {
            return verdict(
                false,
                format!("missing snapshot {}", case.snapshot_path.display()),
            )
        }
        Err(e) => return verdict(false, e),
    };
    let run = case
        .source()
        .and_then(|source| run_bounded_with(target, &case.path.to_string_lossy(), &source, bounds));
    match run {
        Err(e) => verdict(false, e),
        Ok(outcome) if target.engine == Engine::Jit => {
            let native = crate::native::NotYetNative::bundled().and_then(|l| l.check(&case.name, &outcome));
            match native {
                Err(e) => verdict(false, e),
                Ok(false) => Verdict {
                    native: Some(false),
                    ..verdict(true, String::new())
                },
                Ok(true) => {
                    let actual = normalize(&snapshot(&outcome));
                    let passed = outcome.bug.is_none() && actual == expected;
                    Verdict {
                        native: Some(true),
                        ..verdict(
                            passed,
                            format!("--- expected\n{expected}\n--- actual\n{actual}\n"),
                        )
                    }
                }
            }
        }
        Ok(outcome) => {
            let actual = normalize(&snapshot(&outcome));
            if outcome.bug.is_none() && actual == expected {
                verdict(true, String::new())
            } else {
                verdict(false, format!("--- expected\n{expected}\n--- actual\n{actual}\n"))
            }
        }
    }
}

/// Check every case on every target in parallel (rayon's global pool);
/// `progress` is called once per finished check. Verdicts come back in
/// case order, targets in the given order within a case.
pub fn run_all(cases: &[Case], targets: &[Target], progress: impl Fn() + Sync) -> Vec<Verdict> {
    run_all_with(cases, targets, CaseBounds::default(), progress)
}

/// [`run_all`] within `bounds` (per case and target).
pub fn run_all_with(
    cases: &[Case],
    targets: &[Target],
    bounds: CaseBounds,
    progress: impl Fn() + Sync,
) -> Vec<Verdict> {
    let jobs: Vec<_> = cases
        .iter()
        .flat_map(|c| targets.iter().map(move |t| (c, *t)))
        .collect();
    jobs.par_iter()
        .map(|(case, target)| {
            let v = check_with(case, *target, bounds);
            progress();
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::discover;

    /// A case that never terminates, in a directory of its own, with a
    /// snapshot that would match a clean exit.
    fn runaway_case(name: &str) -> Case {
        let dir = std::env::temp_dir().join(format!("spy-conformance-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("loop.spy"),
            "def main() -> None:\n    while True:\n        pass\n",
        )
        .unwrap();
        std::fs::write(dir.join("loop.snap"), "---\nsource: x\n---\nexit: 0\nstdout:\n").unwrap();
        let mut cases = discover(&dir).unwrap();
        assert_eq!(cases.len(), 1);
        cases.remove(0)
    }

    #[test]
    fn a_case_that_runs_out_of_fuel_fails_with_the_reason() {
        let case = runaway_case("fuel");
        let bounds = CaseBounds {
            fuel: 10_000,
            wall: Duration::from_secs(60),
            ..CaseBounds::default()
        };
        let v = check_with(&case, Target::INTERP, bounds);
        let _ = std::fs::remove_dir_all(case.path.parent().unwrap());
        assert!(!v.passed);
        assert!(v.detail.contains("fuel of 10000 steps"), "{}", v.detail);
    }

    #[test]
    fn each_run_gets_the_memory_budget_of_its_bounds() {
        let source = b"from unsafe import gc_alloc\n\ndef main() -> None:\n    p = gc_alloc[u8](3000000)\n    print(1)\n";
        for target in Target::ALL {
            let roomy = run_bounded_with(*target, "mem.spy", source, CaseBounds::default()).unwrap();
            assert_eq!(roomy.error, None, "{}", target.name());
            let tight = CaseBounds {
                max_memory: 2 << 20,
                ..CaseBounds::default()
            };
            let outcome = run_bounded_with(*target, "mem.spy", source, tight).unwrap();
            if outcome.not_native.is_some() {
                continue;
            }
            let e = outcome.error.expect("a MemoryError");
            assert_eq!(e.kind, ExcKind::MemoryError, "{}: {}", target.name(), e.message);
        }
    }

    #[test]
    fn a_case_that_runs_out_of_time_fails_with_the_reason() {
        let case = runaway_case("wall");
        let bounds = CaseBounds {
            fuel: 200_000_000,
            wall: Duration::from_millis(200),
            ..CaseBounds::default()
        };
        let v = check_with(&case, Target::INTERP, bounds);
        let _ = std::fs::remove_dir_all(case.path.parent().unwrap());
        assert!(!v.passed);
        assert!(v.detail.contains("wall-clock limit"), "{}", v.detail);
    }

    #[test]
    fn the_bundled_suite_is_the_checkout_suite() {
        let bundled: Vec<String> = crate::bundled_suite().into_iter().map(|c| c.name).collect();
        let on_disk: Vec<String> = discover(&crate::bundled_suite_dir())
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(bundled, on_disk);
        let case = crate::bundled_suite().into_iter().next().unwrap();
        assert!(case.expected().is_some(), "{} has its snapshot", case.name);
    }
}
