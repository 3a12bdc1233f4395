//! Every engine reports an error the same way (spec §7.3, §16.7): for every
//! case of the bundled suite that ends with an error in ASTFrame and
//! declares no allowed divergence, the doppler and jit engines (when the
//! program runs natively) print the same whole report — traceback,
//! `Kind: message`, excerpt and annotations — with residual locations
//! mapped back to the user's source. The few reports that still differ
//! are listed in `KNOWN` with the reason; an entry that no longer differs
//! is a failure too, so the list cannot go stale.

use libtest_mimic::{Arguments, Failed, Trial};
use spy_conformance as conformance;
use spy_interp::engine::{run_program, Engine, RunConfig};

/// `(case, engine, why the report differs)`.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "differential/fuzz_convert_hook_order_in_simd_args",
        "doppler",
        "the conversion hook runs in a temporary's initializer: its caller's frame is at the hook's argument, not at the call",
    ),
    (
        "simd/scalar_no_conversion_error",
        "doppler",
        "redshift's error annotates the converted operand `+ 2.5`, ASTFrame's the literal",
    ),
    (
        "differential/fuzz_convert_hook_order_in_simd_args",
        "jit",
        "the jit runs the doppler engine's residual module: the same temporary's initializer as for doppler",
    ),
    (
        "simd/scalar_no_conversion_error",
        "jit",
        "the jit runs the doppler engine's residual module: the same converted-operand annotation as for doppler",
    ),
    (
        "functions/recursion_limit",
        "jit",
        "the jit keeps the innermost 256 traceback sites (spy-jit TRACEBACK_CAP): the count of repeated frames differs",
    ),
    (
        "functions/recursion_limit_in_folded_leaves",
        "jit",
        "the jit keeps the innermost 256 traceback sites (spy-jit TRACEBACK_CAP): the count of repeated frames differs \
         (the innermost frames, those of the folded activations, are the same; interp/cli/tests/jit_recursion.rs \
         compares whole tracebacks at small limits)",
    ),
];

fn main() {
    let args = Arguments::from_args();
    let cases = conformance::bundled_suite();
    let mut trials = Vec::new();
    for case in cases {
        let source = case.source().expect("a bundled case");
        let text = String::from_utf8_lossy(&source);
        if text.lines().any(|l| l.starts_with("#! allow-divergence")) {
            continue;
        }
        for engine in [Engine::Doppler, Engine::Jit] {
            let name = format!("{}/{}", case.name, engine.name());
            let case_name = case.name.clone();
            let source = source.clone();
            trials.push(Trial::test(name, move || check(&case_name, &source, engine)));
        }
    }
    assert!(trials.len() > 400, "the bundled suite is missing");
    libtest_mimic::run(&args, trials).exit();
}

fn check(case: &str, source: &[u8], engine: Engine) -> Result<(), Failed> {
    let path = format!("{}.spy", case.rsplit('/').next().unwrap_or(case));
    let reference = run_program(Engine::Interp, &path, source, RunConfig::default());
    if reference.error.is_none() {
        return Ok(());
    }
    let other = run_program(engine, &path, source, RunConfig::default());
    if other.not_native.is_some() {
        return Ok(());
    }
    let known = KNOWN.iter().find(|(c, e, _)| *c == case && *e == engine.name());
    let same = other.report == reference.report;
    match (same, known) {
        (true, None) | (false, Some(_)) => Ok(()),
        (true, Some((_, _, why))) => {
            Err(format!("listed as differing ({why}) but the reports agree: remove it from KNOWN").into())
        }
        (false, None) => Err(format!(
            "interp:\n{}\n{engine}:\n{}",
            reference.report.unwrap_or_default(),
            other.report.unwrap_or_default()
        )
        .into()),
    }
}
