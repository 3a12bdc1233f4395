//! Errors that involve blue calls say which ones (spec §7.3): for each
//! `errors/chain_*` case of the bundled suite, every engine's report ends
//! with exactly the expected `note:` lines — the blue calls the error came
//! out of, innermost first, and the specialization it was found in.

use libtest_mimic::{Arguments, Failed, Trial};
use spy_conformance as conformance;
use spy_interp::engine::{run_program, Engine, RunConfig};

/// `(case, the report's note lines)`.
const CHAINS: &[(&str, &[&str])] = &[
    (
        "chain_type_error_in_specialization",
        &[
            "note: in the specialization `chain_type_error_in_specialization::adder_of[i32]::add` made by the blue call `adder_of(T)` at chain_type_error_in_specialization.spy:10:12 (`chain_type_error_in_specialization::adder_of[i32]`)",
            "note: in the blue call `make_adder(i32)` at chain_type_error_in_specialization.spy:14:11 (`chain_type_error_in_specialization::make_adder[i32]`)",
        ],
    ),
    (
        "chain_type_error_in_metafunc_impl",
        &["note: in the specialization `chain_type_error_in_metafunc_impl::double::impl` made by the blue call `double(21)` at chain_type_error_in_metafunc_impl.spy:13:11 (metafunc `chain_type_error_in_metafunc_impl::double`)"],
    ),
    (
        "chain_static_error_in_metafunc",
        &["note: in the blue call `pick(1)` at chain_static_error_in_metafunc.spy:10:11 (metafunc `chain_static_error_in_metafunc::pick`)"],
    ),
    (
        "chain_nested_blue_calls",
        &[
            "note: in the blue call `inner(n - 1)` at chain_nested_blue_calls.spy:8:12 (`chain_nested_blue_calls::inner[0]`)",
            "note: in the blue call `outer(1)` at chain_nested_blue_calls.spy:12:11 (`chain_nested_blue_calls::outer[1]`)",
        ],
    ),
];

fn main() {
    let args = Arguments::from_args();
    let dir = conformance::bundled_suite_dir().join("errors");
    let mut trials = Vec::new();
    for (case, notes) in CHAINS {
        for engine in [Engine::Interp, Engine::Doppler, Engine::Jit] {
            let dir = dir.clone();
            trials.push(Trial::test(format!("{case}/{}", engine.name()), move || {
                check(&dir, case, notes, engine)
            }));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

fn check(dir: &std::path::Path, case: &str, notes: &[&str], engine: Engine) -> Result<(), Failed> {
    let source = std::fs::read(dir.join(format!("{case}.spy"))).map_err(|e| e.to_string())?;
    let path = format!("{case}.spy");
    let outcome = run_program(engine, &path, &source, RunConfig::default());
    if let Some(why) = outcome.not_native {
        return Err(format!("not native in the jit: {why:?}").into());
    }
    let report = outcome.report.ok_or("the program did not fail")?;
    let got: Vec<&str> = report.lines().filter(|l| l.starts_with("note: ")).collect();
    if got != notes {
        return Err(format!("expected notes:\n{}\ngot report:\n{report}", notes.join("\n")).into());
    }
    if !report.ends_with(&format!("{}\n", notes.last().copied().unwrap_or_default())) {
        return Err(format!("the notes are not at the end of the report:\n{report}").into());
    }
    Ok(())
}
