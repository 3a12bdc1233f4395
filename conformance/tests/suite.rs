//! The conformance suite under `cargo test`: one trial per case and engine.
//!
//! The reference engine (interp) is checked with insta against the case's
//! snapshot, so `INSTA_UPDATE=always cargo test -p spy-conformance --test
//! suite` re-blesses expectations. Every other engine is compared with the
//! same snapshot and never writes it, and so is every mode (the
//! `interp-general` target: ASTFrame with its shortcuts off).

use libtest_mimic::{Arguments, Failed, Trial};
use spy_conformance::{self as conformance, Target};

fn main() {
    let args = Arguments::from_args();
    let dir = conformance::bundled_suite_dir();
    let cases = conformance::discover(&dir).expect("conformance suite directory");
    assert!(
        !cases.is_empty(),
        "no conformance cases found in {}",
        dir.display()
    );
    let mut trials = Vec::new();
    // Every case the jit engine's not-yet-native list names must exist.
    let names: std::collections::HashSet<String> = cases.iter().map(|c| c.name.clone()).collect();
    trials.push(Trial::test(
        "jit::not_yet_native_names_existing_cases",
        move || {
            let list = conformance::NotYetNative::bundled().map_err(Failed::from)?;
            let stale: Vec<_> = list
                .entries
                .keys()
                .filter(|k| !k.contains(':') && !names.contains(*k))
                .collect();
            if stale.is_empty() {
                Ok(())
            } else {
                Err(format!("spec/17-jit.md lists cases that do not exist: {stale:?}").into())
            }
        },
    ));
    for case in cases {
        for &target in Target::ALL {
            let case = case.clone();
            let name = format!("{}::{}", target.name(), case.name);
            trials.push(Trial::test(name, move || run(&case, target)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn run(case: &conformance::Case, target: Target) -> Result<(), Failed> {
    if target != Target::INTERP {
        let v = conformance::check(case, target);
        return if v.passed { Ok(()) } else { Err(v.detail.into()) };
    }
    let outcome = case.run(target)?;
    if let Some(bug) = &outcome.bug {
        return Err(format!("internal error: {}", bug.message).into());
    }
    let dir = case
        .snapshot_path
        .parent()
        .expect("case has a directory")
        .to_path_buf();
    let name = case
        .snapshot_path
        .file_stem()
        .expect("case has a name")
        .to_string_lossy()
        .into_owned();
    let snapshot = conformance::snapshot(&outcome);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(false);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name.as_str(), snapshot.as_str(), "outcome"));
    }));
    result.map_err(|_| {
        let report = outcome.report.clone().unwrap_or_default();
        Failed::from(format!(
            "outcome differs from {}\n{report}",
            case.snapshot_path.display()
        ))
    })
}
