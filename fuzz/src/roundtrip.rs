//! The redshift round-trip property (libFuzzer target
//! `redshift_roundtrip`): the residual module of a program, printed as
//! SPy, re-parses to a tree that prints the same text, and it re-runs
//! identically when redshifted once more (a residual module is already
//! red, so redshifting it again must not change what it does).

use crate::oracle::{compare, is_timeout, normalize_line};
use spy_interp::backend::print_module;
use spy_interp::engine::{run_program, Engine, RunConfig};
use spy_interp::frames::{Interp, Limits};
use spy_interp::native_stack;
use spy_interp::redshift::{print_checked, residual_display_path, ErrorMode, RedshiftOptions};
use spy_interp::syntax::parse_str;

/// Redshift `source` (lazily) and print the residual module with its
/// module name; `None` when redshift itself fails (not this property's
/// concern). A panic is an `Err`, and so is a streaming redshift (the
/// engines': each function printed once shifted, its tree freed) that
/// prints other text or origins than the whole tree, or fails otherwise.
pub fn residual_text(path: &str, source: &str, limits: Limits) -> Result<Option<(String, String)>, String> {
    let (path, source) = (path.to_string(), source.to_string());
    native_stack::run(limits.max_depth, move || {
        let print = |stream: bool| {
            let mut blue_output = Vec::new();
            let mut interp = Interp::new(&mut blue_output, RunConfig::from(limits));
            let options = RedshiftOptions {
                error_mode: ErrorMode::Lazy,
                stream,
                ..Default::default()
            };
            // Printed and checked to parse back, as every engine does: a
            // module nested past the parser's limits is a redshift error,
            // not text.
            let residual = interp.redshift_with(&path, source.as_bytes(), options);
            drop(interp);
            let printed = residual.and_then(|r| print_checked(r, &residual_display_path(&path)));
            let shown = printed.map(|p| (p.text(), p.map.origins.clone(), p.modname));
            (blue_output, shown.map_err(|e| format!("{e:?}")))
        };
        let (whole, streamed) = (print(false), print(true));
        if whole != streamed {
            return Err(format!(
                "the streaming redshift prints otherwise:\n{:?}\n---- streamed:\n{:?}",
                whole.1, streamed.1
            ));
        }
        Ok(whole.1.ok().map(|(text, _, modname)| (text, modname)))
    })
    .map_err(|e| format!("redshift: {e}"))?
}

/// Check the property on one program; `Err` describes the violation.
pub fn check_roundtrip(source: &str, limits: Limits) -> Result<(), String> {
    let Some((text, modname)) = residual_text("fuzz.spy", source, limits)? else {
        return Ok(());
    };
    let reparsed =
        parse_str(&text).map_err(|e| format!("the residual module does not parse: {e:?}\n{text}"))?;
    let again = print_module(reparsed.body());
    if again != text {
        return Err(format!("print(parse(residual)) differs:\n{text}\n---\n{again}"));
    }
    // Run the residual module as itself, and redshifted once more.
    let path = format!("{modname}.spy");
    let first = run_program(Engine::Interp, &path, text.as_bytes(), limits.into());
    let second = run_program(Engine::Doppler, &path, text.as_bytes(), limits.into());
    for o in [&first, &second] {
        if let Some(bug) = &o.bug {
            return Err(format!("internal error: {bug}\n{text}"));
        }
    }
    if is_timeout(&first) || is_timeout(&second) {
        return Ok(());
    }
    match compare(&first, &second) {
        None => Ok(()),
        Some(d) => Err(format!(
            "the residual module behaves differently once redshifted again ({}: {})\n{text}",
            d.0.name(),
            normalize_line(&d.1)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_programs_round_trip() {
        let limits = Limits {
            max_steps: Some(20_000),
            ..Limits::default()
        };
        let allowed = crate::campaign::features_avoiding_known_bugs();
        for seed in 0..3 {
            for i in 0..50 {
                let bytes = crate::campaign::case_bytes(seed, i);
                let p = crate::generate_restricted(&bytes, allowed);
                if let Err(e) = check_roundtrip(&p.source, limits) {
                    panic!("seed {seed} case {i}: {e}");
                }
            }
        }
    }

    /// The streaming redshift prints what the whole tree prints, on the
    /// programs of every feature (`residual_text` compares the two).
    #[test]
    fn generated_programs_print_the_same_streamed() {
        let limits = Limits {
            max_steps: Some(20_000),
            ..Limits::default()
        };
        for i in 0..400 {
            let p = crate::generate(&crate::campaign::case_bytes(1, i));
            if let Err(e) = residual_text("fuzz.spy", &p.source, limits) {
                panic!("seed 1 case {i}: {e}\n{}", p.source);
            }
        }
    }
}
