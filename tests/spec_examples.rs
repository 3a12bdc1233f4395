//! Executes every example of the language reference (`spec/*.md`).
//!
//! An example is a ```spy fenced block followed (only blank lines between)
//! by an ```output block (expected stdout) and/or an ```error block (the
//! expected `Kind: message` line). A ```spy block without an expectation is
//! itself a failure: examples that are not meant to run use another fence.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use spy_conformance::{NotYetNative, Target};
use spy_interp::engine::{Engine, Limits};

struct Example {
    chapter: String,
    line: usize,
    source: String,
    output: Option<String>,
    error: Option<String>,
}

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec")
}

/// Fenced blocks of a markdown file: (language, first line number, body).
fn fences(text: &str) -> Vec<(String, usize, String, usize)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if let Some(lang) = line.trim_start().strip_prefix("```") {
            let lang = lang.trim().to_string();
            let mut body = String::new();
            let mut end = i;
            for (j, l) in lines.by_ref() {
                end = j;
                if l.trim_start().starts_with("```") {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            out.push((lang, i + 1, body, end + 1));
        }
    }
    out
}

fn examples(path: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(path).expect("spec chapter");
    let lines: Vec<&str> = text.lines().collect();
    let blocks = fences(&text);
    let chapter = path.file_stem().unwrap().to_string_lossy().into_owned();
    let mut out = Vec::new();
    for (k, (lang, line, body, end)) in blocks.iter().enumerate() {
        if lang != "spy" {
            continue;
        }
        let mut ex = Example {
            chapter: chapter.clone(),
            line: *line,
            source: body.clone(),
            output: None,
            error: None,
        };
        let mut prev_end = *end;
        for (lang2, line2, body2, end2) in &blocks[k + 1..] {
            let gap_is_blank = lines[prev_end..line2 - 1].iter().all(|l| l.trim().is_empty());
            if !gap_is_blank {
                break;
            }
            match lang2.as_str() {
                "output" if ex.output.is_none() => ex.output = Some(body2.clone()),
                "error" if ex.error.is_none() => ex.error = Some(body2.trim().to_string()),
                _ => break,
            }
            prev_end = *end2;
        }
        out.push(ex);
    }
    out
}

fn check(ex: &Example) -> Result<(), Failed> {
    if ex.output.is_none() && ex.error.is_none() {
        return Err("a ```spy example needs an ```output or ```error block right after it".into());
    }
    for &target in Target::ALL {
        check_engine(ex, target)?;
    }
    Ok(())
}

/// Examples hold for every engine, except where the example declares an
/// allowed divergence (spec/16-redshift.md §16.6) in a comment:
/// `#! allow-divergence(doppler): reason` (then only the reference engine is
/// checked). The jit engine shares doppler's divergences, and an example
/// it cannot run natively must be listed in spec/17-jit.md §"Not yet
/// native" as `<chapter>:<line>` (see `spy_conformance::native`).
fn check_engine(ex: &Example, target: Target) -> Result<(), Failed> {
    let directive = format!(
        "#! allow-divergence({}):",
        target.engine.divergence_engine().name()
    );
    if !target.engine.is_reference() && ex.source.lines().any(|l| l.starts_with(&directive)) {
        return Ok(());
    }
    let outcome = target.run("example.spy", ex.source.as_bytes(), Limits::default());
    if target.engine == Engine::Jit {
        let name = format!("{}:{}", ex.chapter, ex.line);
        let list = NotYetNative::bundled().map_err(Failed::from)?;
        if !list.check(&name, &outcome).map_err(Failed::from)? {
            return Ok(());
        }
    }
    if let Some(bug) = outcome.bug {
        return Err(format!("[{target}] internal error: {}", bug.message).into());
    }
    let error = outcome.error.as_ref().map(|e| e.to_string());
    let expected_out = ex.output.clone().unwrap_or_default();
    if outcome.stdout.trim_end() != expected_out.trim_end() {
        return Err(format!(
            "[{target}] stdout differs\n--- expected\n{expected_out}--- actual\n{}",
            outcome.stdout
        )
        .into());
    }
    if error != ex.error {
        return Err(format!("[{target}] error differs: expected {:?}, got {error:?}", ex.error,).into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(spec_dir())
        .expect("spec/ directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    let mut trials = Vec::new();
    for chapter in chapters {
        for ex in examples(&chapter) {
            let name = format!("{}:{}", ex.chapter, ex.line);
            trials.push(Trial::test(name, move || check(&ex)));
        }
    }
    assert!(!trials.is_empty(), "no examples found in spec/");
    // Every example the not-yet-native list names must exist (a stale
    // `<chapter>:<line>` would otherwise never be checked).
    let names: std::collections::HashSet<String> = trials.iter().map(|t| t.name().to_string()).collect();
    trials.push(Trial::test("not_yet_native_names_existing_examples", move || {
        let list = NotYetNative::bundled().map_err(Failed::from)?;
        let stale: Vec<_> = list
            .entries
            .keys()
            .filter(|k| k.contains(':') && !names.contains(*k))
            .collect();
        if stale.is_empty() {
            Ok(())
        } else {
            Err(format!("spec/17-jit.md lists examples that do not exist: {stale:?}").into())
        }
    }));
    libtest_mimic::run(&args, trials).exit();
}
