//! The conformance suite: discovering `.spy` cases, running a case through
//! an engine, the outcome format stored in each case's insta snapshot, and
//! the parallel runner behind `spy-interp conformance`.
//!
//! A case is `cases/<area>/<name>.spy`; its expectation is the insta
//! snapshot `cases/<area>/<name>.snap`, whose body is:
//!
//! ```text
//! exit: 1
//! error: ZeroDivisionError: integer division or modulo by zero
//! stdout:
//! what was printed before the error
//! ```

use std::path::{Path, PathBuf};

use crate::frames::{limits, run_file, Limits, RunResult};

/// An engine that can run a SPy program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Engine {
    /// ASTFrame on the source: the reference.
    Interp,
    /// Redshift (lazy errors), print the residual module, run it in ASTFrame.
    Doppler,
    /// Not an engine of its own: ASTFrame with its shortcuts switched off
    /// (`Limits::general_paths_only`). The conformance tests run every case
    /// in this mode as well, against the reference's expectations.
    InterpGeneral,
}

impl Engine {
    /// Every engine that exists, reference first.
    pub const ALL: &'static [Engine] = &[Engine::Interp, Engine::Doppler];

    /// Modes of an engine that are checked like engines (not compared by
    /// the fuzzer, which would only find shortcut bugs twice).
    pub const MODES: &'static [Engine] = &[Engine::InterpGeneral];

    pub fn name(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Doppler => "doppler",
            Engine::InterpGeneral => "interp-general",
        }
    }

    pub fn from_name(name: &str) -> Option<Engine> {
        Engine::ALL
            .iter()
            .chain(Engine::MODES)
            .copied()
            .find(|e| e.name() == name)
    }
}

/// What running a program produced, in the form every engine is compared on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub exit: i32,
    /// The `Kind: message` line of an uncaught SPy exception.
    pub error: Option<String>,
    /// The full rendered error report (stderr), not compared across engines.
    pub report: Option<String>,
    /// An internal error of spy-interp: always a failure.
    pub bug: Option<String>,
    pub stdout: String,
}

impl Outcome {
    /// The snapshot body (see the module doc).
    pub fn snapshot(&self) -> String {
        let mut s = format!("exit: {}\n", self.exit);
        if let Some(e) = &self.error {
            s.push_str(&format!("error: {e}\n"));
        }
        if let Some(b) = &self.bug {
            s.push_str(&format!("bug: {b}\n"));
        }
        s.push_str("stdout:\n");
        s.push_str(&self.stdout);
        s
    }
}

/// Run `source` (named `path`) with `engine` on a thread with a deep stack.
pub fn run_program(engine: Engine, path: &str, source: &[u8], limits: Limits) -> Outcome {
    let path = path.to_string();
    let source = source.to_vec();
    let handle = std::thread::Builder::new()
        .stack_size(limits::INTERP_STACK_BYTES)
        .spawn(move || {
            let mut out = Vec::new();
            let result = match engine {
                // Planted bugs (`Limits::mutations`) only ever affect non-reference engines.
                Engine::Interp => run_file(
                    &path,
                    &source,
                    &mut out,
                    Limits {
                        mutations: crate::frames::Mutations::NONE,
                        ..limits
                    },
                ),
                Engine::Doppler => crate::frames::run_redshifted(&path, &source, &mut out, limits),
                Engine::InterpGeneral => run_file(
                    &path,
                    &source,
                    &mut out,
                    Limits {
                        mutations: crate::frames::Mutations::NONE,
                        general_paths_only: true,
                        ..limits
                    },
                ),
            };
            outcome_of(result, out)
        });
    let joined = handle.map_err(|e| e.to_string()).and_then(|h| {
        h.join().map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".to_string())
        })
    });
    joined.unwrap_or_else(|panic| Outcome {
        exit: 101,
        error: None,
        report: None,
        bug: Some(format!("panic: {panic}")),
        stdout: String::new(),
    })
}

fn outcome_of(result: RunResult, out: Vec<u8>) -> Outcome {
    let stdout = String::from_utf8_lossy(&out).into_owned();
    let exit = result.exit_code();
    match result {
        RunResult::Exit(_) => Outcome {
            exit,
            error: None,
            report: None,
            bug: None,
            stdout,
        },
        RunResult::Error(e) => Outcome {
            exit,
            error: Some(e.headline()),
            report: Some(crate::diag::render(&e)),
            bug: None,
            stdout,
        },
        RunResult::Bug(b) => Outcome {
            exit,
            error: None,
            report: None,
            bug: Some(b.message),
            stdout,
        },
    }
}

/// One conformance case.
#[derive(Clone, Debug)]
pub struct Case {
    /// `<area>/<name>`.
    pub name: String,
    pub path: PathBuf,
    pub snapshot_path: PathBuf,
}

impl Case {
    /// The expected outcome, from the case's snapshot (None if missing).
    pub fn expected(&self) -> Option<String> {
        let text = std::fs::read_to_string(&self.snapshot_path).ok()?;
        Some(snapshot_body(&text))
    }

    /// The expectation for `engine`: the case's snapshot, unless the case
    /// declares an allowed divergence for that engine
    /// (`#! allow-divergence(doppler): reason`, one of the categories listed
    /// in spec/differences-between-engines.md) and has its own snapshot
    /// `<name>.<engine>.snap`.
    pub fn expected_for(&self, engine: Engine) -> Result<Option<String>, String> {
        let engine_snap = self
            .snapshot_path
            .with_extension(format!("{}.snap", engine.name()));
        let directive = format!("#! allow-divergence({}):", engine.name());
        let source = std::fs::read_to_string(&self.path).map_err(|e| e.to_string())?;
        let declared = source.lines().any(|l| l.starts_with(&directive));
        match (engine_snap.exists(), declared) {
            (true, true) => Ok(std::fs::read_to_string(&engine_snap)
                .ok()
                .map(|t| snapshot_body(&t))),
            (false, false) => Ok(self.expected()),
            (true, false) => Err(format!(
                "{} exists but the case has no `{directive} reason` line",
                engine_snap.display()
            )),
            (false, true) => Err(format!(
                "the case declares `{directive}` but {} is missing",
                engine_snap.display()
            )),
        }
    }

    pub fn run(&self, engine: Engine) -> Result<Outcome, String> {
        let source = std::fs::read(&self.path).map_err(|e| format!("{}: {e}", self.path.display()))?;
        Ok(run_program(
            engine,
            &self.path.to_string_lossy(),
            &source,
            Limits::default(),
        ))
    }
}

/// The body of an insta snapshot file (after its `---` header).
pub fn snapshot_body(text: &str) -> String {
    let mut lines = text.lines();
    let body: Vec<&str> = if text.starts_with("---") {
        lines.next();
        for l in lines.by_ref() {
            if l == "---" {
                break;
            }
        }
        lines.collect()
    } else {
        text.lines().collect()
    };
    normalize(&body.join("\n"))
}

/// Comparison ignores trailing whitespace at the end (as insta does).
pub fn normalize(s: &str) -> String {
    s.trim_end().to_string()
}

/// All cases under `dir`, sorted by name.
pub fn discover(dir: &Path) -> std::io::Result<Vec<Case>> {
    let mut cases = Vec::new();
    collect(dir, dir, &mut cases)?;
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<Case>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "spy") {
            let rel = path.strip_prefix(root).unwrap_or(&path).with_extension("");
            out.push(Case {
                name: rel.to_string_lossy().replace('\\', "/"),
                snapshot_path: path.with_extension("snap"),
                path,
            });
        }
    }
    Ok(())
}

/// The suite bundled with this source tree.
pub fn bundled_suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/cases")
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

/// The verdict of one case on one engine.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub case: String,
    pub engine: Engine,
    pub passed: bool,
    /// What went wrong, for failures.
    pub detail: String,
}

/// Check one case on one engine against its snapshot.
pub fn check(case: &Case, engine: Engine) -> Verdict {
    let verdict = |passed, detail: String| Verdict {
        case: case.name.clone(),
        engine,
        passed,
        detail,
    };
    let expected = match case.expected_for(engine) {
        Ok(Some(e)) => e,
        Ok(None) => {
            return verdict(
                false,
                format!("missing snapshot {}", case.snapshot_path.display()),
            )
        }
        Err(e) => return verdict(false, e),
    };
    match case.run(engine) {
        Err(e) => verdict(false, e),
        Ok(outcome) => {
            let actual = normalize(&outcome.snapshot());
            if outcome.bug.is_none() && actual == expected {
                verdict(true, String::new())
            } else {
                verdict(false, format!("--- expected\n{expected}\n--- actual\n{actual}\n"))
            }
        }
    }
}
