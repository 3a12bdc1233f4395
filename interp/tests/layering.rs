//! The library's layering: every `crate::m` path in `interp/src` points at a
//! module of the same or an earlier layer. The pipeline order is
//! syntax → resolve → vm → backend → frames → redshift; the SPy printer
//! (`backend`) prints any AST, parsed or residual, and needs only `syntax`
//! and `vm`'s float formatting, so it sits below the evaluator, whose
//! provenance notes print resolved calls while redshifting.

use std::path::{Path, PathBuf};

/// The crate's top-level modules, lowest layer first. A module may use a
/// module of its own layer or of an earlier one, never of a later one.
const LAYERS: &[&[&str]] = &[
    &["source"],
    &["error"],
    &["diag"],
    // The evaluator thread's stack (used by frames, redshift and engine).
    &["native_stack"],
    &["syntax"],
    &["resolve"],
    &["vm"],
    // The program's files (`open`): the one module touching the file system.
    &["host"],
    &["backend"],
    &["frames"],
    &["redshift"],
    // Residual module -> spy-jit IR, and running it (the jit engine).
    &["lower"],
    // Running a program on an engine (the crates above this one start here).
    &["engine"],
    // Showing a program's meaning (colorize, explain, symtable): uses the
    // engines' pieces, nothing uses it.
    &["inspect"],
];

/// `crate::bug!` is exported at the crate root but defined in `error`.
fn owner_of(name: &str) -> &str {
    match name {
        "bug" => "error",
        other => other,
    }
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The top-level module a source file belongs to (`None` for the crate root).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_string())
}

/// Every top-level module named by a `crate::` path in `text`, with its line
/// number; comments are skipped, `use crate::{a, b::c}` names `a` and `b`.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let before = &rest[..at];
            rest = &rest[at + "crate::".len()..];
            if before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue; // e.g. `spy_interp_crate::`
            }
            if let Some(group) = rest.strip_prefix('{') {
                found.extend(group_heads(group).into_iter().map(|m| (i + 1, m)));
            } else {
                found.push((i + 1, ident_prefix(rest).to_string()));
            }
        }
    }
    found
}

fn ident_prefix(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first segment of each path of a (one-line) `use` group.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => at_item_start = true,
            c if c.is_whitespace() => {}
            _ if at_item_start && depth == 0 => {
                heads.push(ident_prefix(&group[i..]).to_string());
                at_item_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// The backward (or unplaced) imports of one file, as messages.
fn violations(module: &str, file: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(own) = layer_of(module) else {
        return vec![format!("{file}: module `{module}` has no layer in LAYERS")];
    };
    for (line, used) in crate_paths(text) {
        let used = owner_of(&used);
        match layer_of(used) {
            None => out.push(format!(
                "{file}:{line}: `crate::{used}` is not a module in LAYERS"
            )),
            Some(layer) if layer > own => out.push(format!(
                "{file}:{line}: `{module}` imports the later module `{used}`"
            )),
            Some(_) => {}
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_module_imports_from_a_later_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(
        files.len() > 50,
        "found only {} source files under {}",
        files.len(),
        src.display()
    );
    let mut problems = Vec::new();
    for path in &files {
        let relative = path.strip_prefix(&src).expect("under src");
        let Some(module) = module_of(relative) else {
            continue;
        };
        let text = std::fs::read_to_string(path).expect("readable source");
        problems.extend(violations(&module, &relative.display().to_string(), &text));
    }
    assert!(
        problems.is_empty(),
        "layering violations:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_checker_reports_backward_and_unplaced_imports() {
    let text = "use crate::syntax::ast;\n\
                use crate::frames::Frame; // backward\n\
                // use crate::redshift::x; (a comment)\n\
                use crate::{error::Bug, redshift::consts};\n\
                let v = crate::bug!(\"x\");\n\
                let w = crate::nowhere::f();\n";
    assert_eq!(
        violations("vm", "vm/x.rs", text),
        [
            "vm/x.rs:2: `vm` imports the later module `frames`",
            "vm/x.rs:4: `vm` imports the later module `redshift`",
            "vm/x.rs:6: `crate::nowhere` is not a module in LAYERS",
        ]
    );
    assert!(violations("redshift", "redshift/x.rs", "use crate::frames::Frame;\n").is_empty());
    assert_eq!(
        violations("jit", "jit.rs", ""),
        ["jit.rs: module `jit` has no layer in LAYERS"]
    );
}
