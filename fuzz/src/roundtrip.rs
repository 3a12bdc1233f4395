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
use spy_interp::redshift::{print_checked, residual_display_path, ErrorMode};
use spy_interp::syntax::parse_str;

/// Redshift `source` (lazily) and print the residual module with its
/// module name; `None` when redshift itself fails (not this property's
/// concern). A panic is an `Err`.
pub fn residual_text(path: &str, source: &str, limits: Limits) -> Result<Option<(String, String)>, String> {
    let (path, source) = (path.to_string(), source.to_string());
    native_stack::run(limits.max_depth, move || {
        let mut blue_output = Vec::new();
        let mut interp = Interp::new(&mut blue_output, RunConfig::from(limits));
        // Printed and checked to parse back, as every engine does: a module
        // nested past the parser's limits is a redshift error, not text.
        interp
            .redshift_file(&path, source.as_bytes(), ErrorMode::Lazy)
            .and_then(|r| print_checked(r, &residual_display_path(&path)))
            .ok()
            .map(|p| (p.file.text.clone(), p.modname))
    })
    .map_err(|e| format!("redshift: {e}"))
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
}
