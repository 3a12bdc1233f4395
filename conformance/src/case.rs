//! Conformance cases: discovery under a directory or in the suite bundled
//! into this crate (`build.rs`), and the directives a case's source may
//! carry (`#! allow-divergence(ENGINE): reason`, one of the categories of
//! spec/16-redshift.md §16.6, with its own `<name>.<engine>.snap`).

use std::path::{Path, PathBuf};

use crate::snapshot::snapshot_body;
use spy_interp::engine::{Engine, Outcome};

use crate::runner::Target;

/// Every file of `cases/` (`.spy` and `.snap`) by path relative to it,
/// sorted, as the build found them.
static BUNDLED: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/bundled_cases.rs"));

/// Where a case's files are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Store {
    /// On disk, at `Case::path` and `Case::snapshot_path`.
    Disk,
    /// In the bundled table, under those paths relative to `cases/`.
    Bundled,
}

/// One conformance case.
#[derive(Clone, Debug)]
pub struct Case {
    /// `<area>/<name>`.
    pub name: String,
    pub path: PathBuf,
    pub snapshot_path: PathBuf,
    store: Store,
}

impl Case {
    /// The contents of one of the case's files (`None` if it is missing).
    fn read(&self, path: &Path) -> Option<Vec<u8>> {
        match self.store {
            Store::Disk => std::fs::read(path).ok(),
            Store::Bundled => {
                let key = path.to_string_lossy().replace('\\', "/");
                BUNDLED
                    .binary_search_by(|(p, _)| p.cmp(&key.as_str()))
                    .ok()
                    .map(|i| BUNDLED[i].1.to_vec())
            }
        }
    }

    fn read_text(&self, path: &Path) -> Option<String> {
        self.read(path).map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// The expected outcome, from the case's snapshot (None if missing).
    pub fn expected(&self) -> Option<String> {
        let text = self.read_text(&self.snapshot_path)?;
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
        // The jit engine runs doppler's residual module: doppler's allowed
        // divergences are its own.
        let engine = engine.divergence_engine();
        let engine_snap = self
            .snapshot_path
            .with_extension(format!("{}.snap", engine.name()));
        let directive = format!("#! allow-divergence({}):", engine.name());
        let source = self
            .read_text(&self.path)
            .ok_or_else(|| format!("{}: cannot read the case", self.path.display()))?;
        let declared = source.lines().any(|l| l.starts_with(&directive));
        let engine_expected = self.read_text(&engine_snap);
        match (engine_expected.is_some(), declared) {
            (true, true) => Ok(engine_expected.map(|t| snapshot_body(&t))),
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

    /// The case's source.
    pub fn source(&self) -> Result<Vec<u8>, String> {
        self.read(&self.path)
            .ok_or_else(|| format!("{}: cannot read the case", self.path.display()))
    }

    /// Run the case on `target` with the suite's limits (`runner::case_limits`).
    pub fn run(&self, target: Target) -> Result<Outcome, String> {
        let source = self.source()?;
        crate::runner::run_bounded(target, &self.path.to_string_lossy(), &source)
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
                store: Store::Disk,
            });
        }
    }
    Ok(())
}

/// The suite's directory in this source tree (where `cargo test` reads
/// and blesses snapshots).
pub fn bundled_suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cases")
}

/// The suite as it was built into this crate, sorted by name: it needs no
/// checkout (an installed `spy-interp conformance` runs it anywhere).
pub fn bundled_suite() -> Vec<Case> {
    BUNDLED
        .iter()
        .filter_map(|(rel, _)| rel.strip_suffix(".spy"))
        .map(|name| Case {
            name: name.to_string(),
            path: PathBuf::from(format!("{name}.spy")),
            snapshot_path: PathBuf::from(format!("{name}.snap")),
            store: Store::Bundled,
        })
        .collect()
}
