//! End-to-end tests of the commands that show what a program means
//! (`colorize`, `explain`, `symtable`, `parse -f json`) and of the
//! redshift/execute flags shared with upstream's `spy` (`rs`, `-x`,
//! `--timeit`, `-E warn`, `--width`), run through the binary cargo built.
//! Snapshots of `colorize` and `symtable` output are in `snapshots/`; the
//! JSON of `colorize -f json` is checked against
//! `spec/schemas/colorize.schema.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run the binary from the repository root (so paths in its output are
/// relative and stable), with NO_COLOR unset.
fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_spy-interp"))
        .current_dir(root())
        .env_remove("NO_COLOR")
        .args(args)
        .output()
        .expect("spawn spy-interp")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Write `source` to `<tmp>/<name>.spy`.
fn program(name: &str, source: &str) -> String {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("spy-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.spy"));
    std::fs::write(&path, source).unwrap();
    path.to_string_lossy().into_owned()
}

const PARTIAL: &str = "conformance/cases/examples/partial.spy";
const VECTORIZE: &str = "conformance/cases/examples/vectorize.spy";
/// A program spec/17-jit.md §17.3 lists as not native (a `dynamic` local).
const NOT_NATIVE: &str = "conformance/cases/builtins/hasattr_dynamic.spy";

const NATIVE: &str = "@blue\ndef N() -> i32:\n    return 4\n\ndef square(x: i32) -> i32:\n    return x * x + N()\n\ndef main() -> None:\n    print(square(3))\n";

// ---------------------------------------------------------------- colorize

#[test]
fn colorize_marks_each_character_when_not_a_terminal() {
    let out = run(&["colorize", PARTIAL]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(!shown.contains('\x1b'), "no ANSI escapes when stdout is a pipe");
    insta::assert_snapshot!("colorize_partial", shown);
}

#[test]
fn colorize_plain_under_no_color() {
    let p = program("nocolor", NATIVE);
    let out = Command::new(env!("CARGO_BIN_EXE_spy-interp"))
        .env("NO_COLOR", "1")
        .args(["colorize", &p])
        .output()
        .unwrap();
    let shown = text(&out.stdout);
    assert!(
        shown.contains("    return x * x + N()\n           r r r r bbb\n"),
        "{shown}"
    );
}

#[test]
fn colorize_vectorize_snapshot() {
    let out = run(&["colorize", "-f", "spy", VECTORIZE]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!("colorize_vectorize", text(&out.stdout));
}

/// The subset of JSON Schema that spec/schemas/*.json use: `type`,
/// `required`, `properties`, `additionalProperties: false`, `items`,
/// `enum`, `minimum`, `$ref` to `#/$defs/...`.
fn validate(schema: &Value, root: &Value, v: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r
            .strip_prefix("#/$defs/")
            .ok_or(format!("unsupported $ref {r}"))?;
        return validate(&root["$defs"][name], root, v, at);
    }
    if let Some(t) = schema.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            other => return Err(format!("unsupported type {other}")),
        };
        if !ok {
            return Err(format!("{at}: expected {t}, got {v}"));
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        if !options.contains(v) {
            return Err(format!("{at}: {v} is not one of {options:?}"));
        }
    }
    if let (Some(min), Some(n)) = (schema.get("minimum").and_then(Value::as_i64), v.as_i64()) {
        if n < min {
            return Err(format!("{at}: {n} < {min}"));
        }
    }
    if let Some(obj) = v.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        for req in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = req.as_str().unwrap();
            if !obj.contains_key(key) {
                return Err(format!("{at}: missing `{key}`"));
            }
        }
        for (k, x) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(s) => validate(s, root, x, &format!("{at}.{k}"))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{at}: unexpected `{k}`"))
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), v.as_array()) {
        for (i, x) in arr.iter().enumerate() {
            validate(items, root, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn colorize_schema() -> Value {
    let text = std::fs::read_to_string(root().join("spec/schemas/colorize.schema.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn colorize_json_follows_its_schema_and_the_source() {
    let schema = colorize_schema();
    for file in [PARTIAL, VECTORIZE] {
        let out = run(&["colorize", "-f", "json", file]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let doc: Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
        validate(&schema, &schema, &doc, "$").unwrap();
        let source = std::fs::read_to_string(root().join(file)).unwrap();
        let exprs = doc["expressions"].as_array().unwrap();
        assert!(exprs.len() > 20, "{file}: {} expressions", exprs.len());
        for e in exprs {
            let (s, t) = (
                e["start"]["offset"].as_u64().unwrap() as usize,
                e["end"]["offset"].as_u64().unwrap() as usize,
            );
            assert_eq!(&source[s..t], e["text"].as_str().unwrap(), "{e}");
        }
    }
    // the schema rejects what it should (so the check above can fail)
    let bad: Value = serde_json::json!({"file": "x", "expressions": [{"start": {"line": 0, "col": 1, "offset": 0},
        "end": {"line": 1, "col": 1, "offset": 0}, "text": "", "color": "green", "type": ""}]});
    assert!(validate(&schema, &schema, &bad, "$").is_err());
}

#[test]
fn colorize_json_records_colors_and_types() {
    let p = program("types", NATIVE);
    let out = run(&["colorize", "-f", "json", &p]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let find = |t: &str| {
        doc["expressions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["text"] == t)
            .cloned()
            .unwrap_or_else(|| panic!("no expression `{t}`"))
    };
    assert_eq!(find("x * x + N()")["color"], "red");
    assert_eq!(find("x * x + N()")["type"], "i32");
    assert_eq!(find("N()")["color"], "blue");
    assert_eq!(find("3")["color"], "blue");
    assert_eq!(find("square(3)")["color"], "red");
}

#[test]
fn colorize_reports_errors_with_exit_code_1() {
    let p = program("broken", "def main() -> None:\n    print(1 +)\n");
    let out = run(&["colorize", &p]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("ParseError"), "{}", text(&out.stderr));
    let missing = run(&["colorize", "/nonexistent/x.spy"]);
    assert_eq!(missing.status.code(), Some(2));
}

// ---------------------------------------------------------------- explain

#[test]
fn explain_writes_one_self_contained_page() {
    let page = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-inspect-{}-partial.html", std::process::id()));
    let out = run(&["explain", PARTIAL, "-o", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    for needle in [
        "id=\"legend\"",
        "id=\"search\"",
        "<details",
        "id=\"provenance\"",
        "class=\"expr blue",
        "class=\"expr red",
        "href=\"#src-E488-510\"",
    ] {
        assert!(html.contains(needle), "missing {needle}");
    }
    // self-contained: no external resource
    for external in ["src=\"http", "href=\"http", "<link ", "@import", "url("] {
        assert!(!html.contains(external), "the page loads {external}");
    }
}

#[test]
fn explain_shows_ir_and_machine_code_of_a_native_program() {
    let p = program("native", NATIVE);
    let page = format!("{p}.html");
    let out = run(&["explain", &p, "--output", &page]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("class=\"jit-function\"").count(),
        2,
        "square and main"
    );
    assert!(html.contains("<summary><code>square</code>") || html.contains("square"));
    // Every JIT function checks its activation against r14 (no frame pointer).
    assert!(html.contains("cmp r14") && html.contains("ret"), "machine code");
    assert!(
        html.contains("fn nat_square::square(v0: i32) -&gt; (i32)")
            || html.contains("::square(v0: i32) -&gt; (i32)"),
        "the IR's signature"
    );
    assert!(html.contains(": i32 = mul v"), "the IR of x * x");
}

#[test]
fn explain_says_why_a_program_is_not_native() {
    let page = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-inspect-{}-vec.html", std::process::id()));
    let out = run(&["explain", NOT_NATIVE, "-o", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("class=\"not-native\">Not native:"),
        "the reason is on the page"
    );
    // The vectorize example (ptr_simd_load/store) is native: no reason shown.
    let out = run(&["explain", VECTORIZE, "-o", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("class=\"not-native\""), "vectorize runs natively");
}

#[test]
fn explain_cannot_write_the_page() {
    let out = run(&["explain", PARTIAL, "-o", "/nonexistent/dir/page.html"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot write"));
}

// ---------------------------------------------------------------- symtable

#[test]
fn symtable_snapshot() {
    let out = run(&["symtable", PARTIAL]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!("symtable_partial", text(&out.stdout));
}

#[test]
fn symtable_of_a_generic_struct() {
    let out = run(&["symtable", "conformance/cases/examples/generic_pair.spy"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!("symtable_generic_pair", text(&out.stdout));
}

// ---------------------------------------------------------------- parse

#[test]
fn parse_json_is_the_ast_dump_as_a_tree() {
    let ast = run(&["parse", PARTIAL]);
    let json = run(&["parse", "-f", "json", PARTIAL]);
    assert_eq!(json.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&json.stdout).expect("valid JSON");
    assert_eq!(doc["kind"], "Module");
    fn count(v: &Value) -> usize {
        1 + v["children"].as_array().unwrap().iter().map(count).sum::<usize>()
    }
    assert_eq!(
        count(&doc),
        text(&ast.stdout).lines().count(),
        "one node per dump line"
    );
    let first = &doc["children"][0];
    assert_eq!(first["kind"], "ImportFrom");
    assert_eq!(first["range"], serde_json::json!([89, 116]));
    assert_eq!(
        text(&run(&["parse", "-f", "ast", PARTIAL]).stdout),
        text(&ast.stdout)
    );
}

// ---------------------------------------------------------------- redshift

#[test]
fn rs_is_redshift() {
    let a = run(&["rs", "--provenance", PARTIAL]);
    let b = run(&["redshift", "--provenance", PARTIAL]);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn redshift_execute_runs_the_residual_module() {
    let out = run(&["redshift", "-x", PARTIAL]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "123\n456\n789\n123\n7\n");
    let long = run(&["rs", "--execute", "--timeit", PARTIAL]);
    assert_eq!(text(&long.stdout), "123\n456\n789\n123\n7\n");
    let err = text(&long.stderr);
    assert!(
        err.starts_with("timeit: ") && err.trim_end().ends_with(" s"),
        "{err}"
    );
    // exit code of main
    let p = program("exit", "def main() -> i32:\n    return 3\n");
    assert_eq!(run(&["rs", "-x", &p]).status.code(), Some(3));
}

#[test]
fn redshift_execute_passes_program_arguments() {
    let src =
        "def main(argv: list[str]) -> i32:\n    for a in argv:\n        print(a)\n    return len(argv)\n";
    let p = program("argv_rs", src);
    let out = run(&["redshift", "-x", &p, "a", "--b"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{p}\na\n--b\n"));
    // arguments and --timeit need -x
    assert_eq!(run(&["redshift", PARTIAL, "a"]).status.code(), Some(2));
    assert_eq!(run(&["redshift", "--timeit", PARTIAL]).status.code(), Some(2));
}

const STATIC_ERROR: &str = "def f(flag: bool) -> i32:\n    if flag:\n        return 1 + \"a\"\n    return 2\n\ndef main() -> None:\n    print(f(False))\n";

#[test]
fn error_modes() {
    let p = program("static", STATIC_ERROR);
    let eager = run(&["redshift", &p]);
    assert_eq!(eager.status.code(), Some(1));
    assert!(text(&eager.stderr).contains("TypeError: cannot do `i32` + `str`"));
    let lazy = run(&["redshift", "-E", "lazy", &p]);
    assert_eq!(lazy.status.code(), Some(0));
    assert!(text(&lazy.stdout).contains("raise TypeError('cannot do `i32` + `str`')"));
    assert_eq!(text(&lazy.stderr), "");
    let warn = run(&["redshift", "--error-mode", "warn", &p]);
    assert_eq!(warn.status.code(), Some(0));
    assert_eq!(warn.stdout, lazy.stdout, "warn is lazy");
    let stderr = text(&warn.stderr);
    assert!(
        stderr.starts_with("warning: TypeError: cannot do `i32` + `str`"),
        "{stderr}"
    );
    assert!(stderr.contains(":3:16"), "located: {stderr}");
    // executed: eager fails before running, lazy/warn run (the branch is not taken)
    assert_eq!(run(&["rs", "-x", &p]).status.code(), Some(1));
    let x = run(&["rs", "-x", "-E", "warn", &p]);
    assert_eq!((x.status.code(), text(&x.stdout)), (Some(0), "2\n".to_string()));
    assert!(text(&x.stderr).starts_with("warning: TypeError"));
}

#[test]
fn width_wraps_long_residual_lines_and_they_still_run() {
    let wide = run(&["redshift", "--width", "40", PARTIAL]);
    assert_eq!(wide.status.code(), Some(0));
    let shown = text(&wide.stdout);
    assert!(
        shown.contains("def `partial[partial::add3, 1]::meta::impl`(\n    *rest: (i32, i32)\n) -> i32:\n"),
        "{shown}"
    );
    let default = text(&run(&["redshift", PARTIAL]).stdout);
    assert!(
        default.lines().all(|l| l.chars().count() <= 100),
        "default width 100"
    );
    // the wrapped module runs to the same output (the doppler engine on it)
    let p = program("wrapped", &shown.replace("from operator import OpSpec\n", ""));
    let ran = run(&["execute", &p]);
    assert_eq!(
        text(&ran.stdout),
        "123\n456\n789\n123\n7\n",
        "{}",
        text(&ran.stderr)
    );
    assert_eq!(
        run(&["redshift", "--width", "5", PARTIAL]).status.code(),
        Some(2),
        "at least 20"
    );
}

// ---------------------------------------------------------------- execute

#[test]
fn execute_timeit() {
    let p = program("timeit", "def main() -> None:\n    print(1)\n");
    for engine in ["interp", "doppler", "jit"] {
        let out = run(&["execute", "--engine", engine, "--timeit", &p]);
        assert_eq!(text(&out.stdout), "1\n");
        let err = text(&out.stderr);
        let secs: f64 = err
            .strip_prefix("timeit: ")
            .and_then(|s| s.trim_end().strip_suffix(" s"))
            .unwrap()
            .parse()
            .unwrap();
        assert!((0.0..60.0).contains(&secs), "{err}");
    }
    assert_eq!(
        text(&run(&["execute", &p]).stderr),
        "",
        "no time without --timeit"
    );
}

// ---------------------------------------------------------------- help

#[test]
fn every_command_has_an_example_in_its_help() {
    for cmd in [
        "execute",
        "parse",
        "symtable",
        "redshift",
        "rs",
        "colorize",
        "explain",
        "conformance",
        "fuzz",
    ] {
        let out = run(&[cmd, "--help"]);
        assert_eq!(out.status.code(), Some(0), "{cmd}");
        assert!(
            text(&out.stdout).contains("Example: spy-interp "),
            "{cmd} --help has no example"
        );
    }
    let top = text(&run(&["--help"]).stdout);
    assert!(top.contains("Example: spy-interp "));
    for cmd in ["colorize", "explain", "symtable", "redshift"] {
        assert!(top.contains(cmd), "--help lists {cmd}");
    }
}

// ---------------------------------------------------------------- hostile input

#[test]
fn deep_and_long_programs_are_shown_without_crashing() {
    let deep = format!(
        "def main() -> None:\n    x = {}1{}\n    print(x)\n",
        "(".repeat(150),
        ")".repeat(150)
    );
    let args: Vec<String> = (0..2000).map(|i| format!("{i}")).collect();
    let long = format!(
        "def f(*a: i32) -> i32:\n    return 1\n\ndef main() -> None:\n    print(f({}))\n",
        args.join(", ")
    );
    for (name, src) in [("deep", deep), ("long", long)] {
        let p = program(name, &src);
        for args in [
            vec!["colorize", &p],
            vec!["colorize", "-f", "json", &p],
            vec!["symtable", &p],
        ] {
            let out = run(&args);
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "{args:?}: {}",
                text(&out.stderr)
            );
            assert!(!text(&out.stderr).contains("panicked"), "{args:?}");
        }
        let page = format!("{p}.html");
        let out = run(&["explain", &p, "-o", &page]);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", text(&out.stderr));
        let wrapped = run(&["rs", "-E", "lazy", "--width", "20", &p]);
        assert!(
            matches!(wrapped.status.code(), Some(0 | 1)),
            "{}",
            text(&wrapped.stderr)
        );
        assert!(!text(&wrapped.stderr).contains("panicked"));
    }
}
