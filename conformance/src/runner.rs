//! Running the suite: the targets a case is checked on (each engine, plus
//! the reference engine in its `interp-general` mode), the verdict of one
//! case on one target, deterministic sharding, and the parallel (rayon)
//! runner behind `spy-interp conformance`.

use std::fmt;

use rayon::prelude::*;
use spy_interp::engine::{run_program, Engine, Limits, Outcome, RunConfig};

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
    /// ASTFrame with its shortcuts off, against the reference's snapshots.
    pub const INTERP_GENERAL: Target = Target {
        engine: Engine::Interp,
        general_paths_only: true,
    };

    /// Every target the suite checks: each engine, then each mode.
    pub const ALL: &'static [Target] = &[Target::INTERP, Target::DOPPLER, Target::INTERP_GENERAL];

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
            ..RunConfig::default()
        }
    }

    /// Run `source` (named `path`) on this target.
    pub fn run(self, path: &str, source: &[u8], limits: Limits) -> Outcome {
        run_program(self.engine, path, source, self.config(limits))
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
}

/// Check one case on one target against its snapshot.
pub fn check(case: &Case, target: Target) -> Verdict {
    let verdict = |passed, detail: String| Verdict {
        case: case.name.clone(),
        target,
        passed,
        detail,
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
    match case.run(target) {
        Err(e) => verdict(false, e),
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
    let jobs: Vec<_> = cases
        .iter()
        .flat_map(|c| targets.iter().map(move |t| (c, *t)))
        .collect();
    jobs.par_iter()
        .map(|(case, target)| {
            let v = check(case, *target);
            progress();
            v
        })
        .collect()
}
