//! The static checks of builtins, `T(x)`, str/list methods and subscripts
//! exist once (`vm/ops/signatures.rs`), so ASTFrame and DopplerFrame report
//! the same error with the same annotations: for every conformance case of
//! `static_checks/` (each an error in red code), the error of ASTFrame and
//! that of an eager redshift (the default mode) (which reports it in the source) have the same
//! kind, message and annotated ranges and labels.

use libtest_mimic::{Arguments, Failed, Trial};
use spy_conformance as conformance;
use spy_interp::engine::RunConfig;
use spy_interp::error::{Failure, SpyError};
use spy_interp::frames::Interp;
use spy_interp::redshift::RedshiftOptions;

const AREA: &str = "static_checks/";

fn main() {
    let args = Arguments::from_args();
    let cases = conformance::discover(&conformance::bundled_suite_dir()).expect("conformance suite");
    let trials: Vec<Trial> = cases
        .into_iter()
        .filter(|c| c.name.starts_with(AREA))
        .map(|case| Trial::test(case.name.clone(), move || check(&case)))
        .collect();
    assert!(trials.len() >= 10, "static_checks/ cases missing");
    libtest_mimic::run(&args, trials).exit();
}

/// Kind, message, and each annotation as (level, byte range, label).
fn shape(e: &SpyError) -> (String, Vec<String>) {
    let annotations = e
        .annotations
        .iter()
        .map(|a| format!("{:?} {:?} {}", a.level, a.range, a.message))
        .collect();
    (format!("{}: {}", e.kind.name(), e.message), annotations)
}

fn check(case: &conformance::Case) -> Result<(), Failed> {
    let source = std::fs::read(&case.path).map_err(|e| e.to_string())?;
    let path = case.path.to_string_lossy().to_string();
    let mut out = Vec::new();
    let interp = match Interp::new(&mut out, RunConfig::default()).run_main_file(&path, &source) {
        Err(Failure::Raise(e)) => shape(&e),
        Err(other) => return Err(format!("interp did not raise: {other:?}").into()),
        Ok(code) => return Err(format!("interp did not fail (exit {code})").into()),
    };
    let mut out = Vec::new();
    let mut machine = Interp::new(&mut out, RunConfig::default());
    let doppler = match machine.redshift_with(&path, &source, RedshiftOptions::default()) {
        Err(Failure::Raise(e)) => shape(&e),
        Err(other) => return Err(format!("redshift did not raise: {other:?}").into()),
        Ok(_) => return Err("the eager redshift did not fail".into()),
    };
    if interp != doppler {
        return Err(format!("interp:  {interp:?}\ndoppler: {doppler:?}").into());
    }
    Ok(())
}
