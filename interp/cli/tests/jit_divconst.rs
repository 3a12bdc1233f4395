//! Division by a constant on the real benchmark: `spy-interp jit
//! bench/jit/vectorize_big.spy` computes the set-up loop's `i % 1000` and
//! `i % 7` once before the loop by multiplications (no `idiv` anywhere in
//! the module's code), then steps them with `i` (no multiplication or
//! division in the loop: `opt/modulo.rs`), and the jit prints the
//! interpreter's total.

mod common;
use common::{bench_program, run};

#[test]
fn vectorize_set_up_loop_divides_without_idiv() {
    let file = bench_program("vectorize_big", 2_003);
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
    assert!(
        !lines.iter().any(|l| l.contains("mul ") || l.contains("div ")),
        "{lines:#?}"
    );
    assert!(code.contains(" mul "), "{code}");
    assert!(!code.contains("idiv"), "{code}");
    let want = run(&["execute", "--engine", "interp"], &file);
    assert_eq!(run(&["execute", "--engine", "jit"], &file), want);
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}
