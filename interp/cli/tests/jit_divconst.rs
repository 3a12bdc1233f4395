//! Division by a constant on the real benchmark: `spy-interp jit
//! bench/jit/vectorize_big.spy` compiles the set-up loop's `i % 1000` and
//! `i % 7` to multiplications (no `idiv` anywhere in the module's code),
//! and the jit prints the interpreter's total.

use std::path::PathBuf;
use std::process::Command;

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_spy-interp"))
}

/// bench/jit/vectorize_big.spy with `SIZE` replaced.
fn vectorize_big(size: u32) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench/jit/vectorize_big.spy");
    let src = std::fs::read_to_string(&root).expect("read vectorize_big.spy");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-jit-divconst-{}-{size}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("vectorize_big.spy");
    std::fs::write(&path, src.replace("SIZE", &size.to_string())).expect("write");
    path
}

fn run(args: &[&str], file: &PathBuf) -> String {
    let out = Command::new(binary())
        .args(args)
        .arg(file)
        .output()
        .expect("spawn spy-interp");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn vectorize_set_up_loop_divides_without_idiv() {
    let file = vectorize_big(2_003);
    let text = run(&["jit"], &file);
    let (ir, code) = text.split_once("-- machine code").expect("machine code section");
    assert!(ir.contains("floormod"), "the lowered IR has no floormod:\n{ir}");
    let lines: Vec<&str> = code
        .lines()
        .skip_while(|l| !(l.trim_start().starts_with(';') && l.contains("f64(i % 1000)")))
        .skip(1)
        .take_while(|l| !(l.trim_start().starts_with(';') && l.contains("i = i + 1")))
        .collect();
    assert!(
        !lines.is_empty(),
        "no code under the set-up loop's lines:\n{code}"
    );
    assert!(lines.iter().any(|l| l.contains(" mul ")), "{lines:#?}");
    assert!(!code.contains("idiv"), "{code}");
    let want = run(&["execute", "--engine", "interp"], &file);
    assert_eq!(run(&["execute", "--engine", "jit"], &file), want);
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}
