//! Conformance cases: discovery under a directory, and the directives a
//! case's source may carry (`#! allow-divergence(ENGINE): reason`, one of
//! the categories of spec/16-redshift.md §16.6, with its own
//! `<name>.<engine>.snap`).

use std::path::{Path, PathBuf};

use crate::snapshot::snapshot_body;
use spy_interp::engine::{Engine, Outcome};

use crate::runner::Target;

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
    /// (`#! allow-divergence(doppler): reason`) and has its own snapshot
    /// `<name>.<engine>.snap`.
    pub fn expected_for(&self, engine: Engine) -> Result<Option<String>, String> {
        if engine.is_reference() {
            return Ok(self.expected());
        }
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

    /// Run the case on `target` with the default limits.
    pub fn run(&self, target: Target) -> Result<Outcome, String> {
        let source = std::fs::read(&self.path).map_err(|e| format!("{}: {e}", self.path.display()))?;
        Ok(target.run(&self.path.to_string_lossy(), &source, Default::default()))
    }
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
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}
