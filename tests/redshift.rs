//! Snapshots of the residual module that `spy-interp redshift` prints, plain
//! (`<case>.residual.snap`) and with `--provenance`
//! (`<case>.provenance.snap`), for every conformance case of the areas
//! `redshift/` and `examples/`. The printed residual is also checked to run
//! by the conformance suite (the doppler engine prints, parses and runs it),
//! and printed with lines wrapped at a narrow `--width` it parses to the
//! same module.
//!
//! Re-bless: `INSTA_UPDATE=always cargo test -p spy-tests --test redshift`.

use libtest_mimic::{Arguments, Failed, Trial};
use spy_conformance as conformance;
use spy_interp::engine::Limits;
use spy_interp::redshift::{redshift_source_in, Format, RedshiftOptions};

const AREAS: &[&str] = &["redshift/", "examples/", "modules/redshift_"];

fn main() {
    let args = Arguments::from_args();
    let cases = conformance::discover(&conformance::bundled_suite_dir()).expect("conformance suite");
    let mut trials = Vec::new();
    for case in cases
        .into_iter()
        .filter(|c| AREAS.iter().any(|a| c.name.starts_with(a)))
    {
        for provenance in [false, true] {
            let case = case.clone();
            let kind = if provenance { "provenance" } else { "residual" };
            trials.push(Trial::test(format!("{kind}::{}", case.name), move || {
                check(&case, provenance)
            }));
        }
    }
    assert!(!trials.is_empty(), "no redshift cases found");
    for case in conformance::discover(&conformance::bundled_suite_dir()).expect("conformance suite") {
        trials.push(Trial::test(format!("stream::{}", case.name), move || {
            streamed_prints_the_same(&case)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The residual printed at width 30 parses to the module printed unwrapped:
/// both trees print (unwrapped) to the same text.
fn wrapped_is_the_same_module(
    path: &str,
    source: &[u8],
    modules: spy_interp::host::ModuleSources,
    options: RedshiftOptions,
    unwrapped: &str,
) -> Result<(), Failed> {
    let options = RedshiftOptions { width: 30, ..options };
    let wrapped =
        match redshift_source_in(path, source, options, Format::Spy, Limits::default(), modules).result {
            Ok(text) => text,
            Err(report) => return Err(format!("redshift --width 30 failed:\n{report}").into()),
        };
    // each module of a multi-module residual (`# file: NAME.spy`
    // sections) parses on its own
    let reprint = |text: &str| {
        let (main, files) = spy_interp::redshift::split_files(text);
        let mut out = String::new();
        for (name, t) in [("", main)].into_iter().chain(files) {
            let m = spy_interp::syntax::parse_str(t).map_err(|e| format!("{name}: {e} at {:?}", e.range))?;
            out.push_str(name);
            out.push_str(&spy_interp::backend::print_module(m.body()));
        }
        Ok::<_, String>(out)
    };
    let a = reprint(unwrapped).map_err(|e| format!("the residual does not parse: {e}"))?;
    let b = reprint(&wrapped)
        .map_err(|e| format!("the residual wrapped at 30 does not parse: {e}\n{wrapped}"))?;
    if a != b {
        return Err(format!("wrapping at 30 changed the module:\n{wrapped}").into());
    }
    Ok(())
}

/// A streaming redshift (each residual function printed once shifted, its
/// tree freed: what the doppler and jit engines run) prints the same
/// residual text, with the same origins, as printing the whole tree; or
/// fails with the same error.
fn streamed_prints_the_same(case: &conformance::Case) -> Result<(), Failed> {
    use spy_interp::frames::{Interp, RunConfig};
    use spy_interp::redshift::{print_checked, ErrorMode};
    let source = std::fs::read(&case.path).map_err(|e| e.to_string())?;
    let path = format!("{}.spy", case.name);
    let print = |stream: bool| {
        let (main, modules) = conformance::split_case(&path, &source);
        let (path, main) = (path.clone(), main.to_vec());
        spy_interp::native_stack::run(Limits::default().max_depth, move || {
            let mut blue = Vec::new();
            let config = RunConfig {
                modules,
                ..Limits::default().into()
            };
            let mut interp = Interp::new(&mut blue, config);
            let options = RedshiftOptions {
                error_mode: ErrorMode::Lazy,
                stream,
                ..Default::default()
            };
            let residual = interp.redshift_with(&path, &main, options);
            drop(interp);
            let printed = residual.and_then(|r| print_checked(r, "residual.spy"));
            let shown = match printed {
                Ok(p) => {
                    let origins: Vec<_> = std::iter::once(&p.map.origins)
                        .chain(p.deps.iter().map(|d| &d.map.origins))
                        .cloned()
                        .collect();
                    Ok((p.text(), origins))
                }
                Err(spy_interp::error::Failure::Raise(e)) => Err(spy_interp::diag::render(&e)),
                Err(other) => Err(format!("{other:?}")),
            };
            (String::from_utf8_lossy(&blue).into_owned(), shown)
        })
        .map_err(|e| e.to_string())
    };
    let (whole, streamed) = (print(false)?, print(true)?);
    if whole.0 != streamed.0 {
        return Err(format!(
            "blue output differs:\n{}\n---- streamed:\n{}",
            whole.0, streamed.0
        )
        .into());
    }
    match (&whole.1, &streamed.1) {
        (Ok((a, oa)), Ok((b, ob))) if a == b && oa == ob => Ok(()),
        (Ok((a, _)), Ok((b, _))) if a == b => Err("same text, other origins".into()),
        (Err(a), Err(b)) if a == b => Ok(()),
        (a, b) => Err(format!("whole tree:\n{a:?}\n---- streamed:\n{b:?}").into()),
    }
}

fn check(case: &conformance::Case, provenance: bool) -> Result<(), Failed> {
    let source = std::fs::read(&case.path).map_err(|e| e.to_string())?;
    // Paths in provenance comments are relative to the suite, so the
    // snapshot does not depend on where the checkout lives.
    let display_path = format!("{}.spy", case.name);
    let options = RedshiftOptions {
        provenance,
        ..Default::default()
    };
    // a multi-file case: its main module, the others beside it
    let (main, modules) = conformance::split_case(&display_path, &source);
    let out = redshift_source_in(
        &display_path,
        main,
        options,
        Format::Spy,
        Limits::default(),
        modules,
    );
    let text = match out.result {
        Ok(text) => text,
        Err(report) => return Err(format!("redshift failed:\n{report}").into()),
    };
    wrapped_is_the_same_module(&display_path, main, modules, options, &text)?;
    let dir = case.snapshot_path.parent().expect("case directory").to_path_buf();
    let stem = case
        .snapshot_path
        .file_stem()
        .expect("case name")
        .to_string_lossy()
        .into_owned();
    let name = format!("{stem}.{}", if provenance { "provenance" } else { "residual" });
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(dir);
    settings.set_prepend_module_to_snapshot(false);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settings.bind(|| insta::assert_snapshot!(name.as_str(), text.as_str(), "residual"));
    }));
    result.map_err(|_| Failed::from(format!("residual of {} changed", case.name)))
}
