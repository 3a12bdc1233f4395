//! The jit's strength reduction (jit/src/x64/strength.rs) on the real
//! benchmark: `spy-interp jit bench/jit/nested_loops.spy` lists the module
//! (lowered IR, compiled IR, registers, machine code) without failing, the
//! inner loop's `i64(i) * i64(j)` is an addition, no `imul`, and every
//! engine prints the same total.

mod common;
use common::{bench_program, run};

/// The machine code lines from the inner loop's source line to the next mark.
fn region<'a>(listing: &'a str, line: &str) -> Vec<&'a str> {
    let code = listing
        .split("-- machine code")
        .nth(1)
        .expect("machine code section");
    code.lines()
        .skip_while(|l| !(l.trim_start().starts_with(';') && l.contains(line)))
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with(';'))
        .collect()
}

#[test]
fn nested_loops_inner_loop_has_no_imul() {
    let file = bench_program("nested_loops", 20_000);
    let text = run(&["jit"], &file);
    for part in ["-- IR\n", "-- IR as compiled", "-- registers", "-- machine code"] {
        assert!(text.contains(part), "{part:?} missing from:\n{text}");
    }
    // The lowered IR multiplies; the compiled IR and the code do not.
    let (lowered, compiled) = text.split_once("-- IR as compiled").unwrap();
    assert!(lowered.contains(" mul v"), "{lowered}");
    let compiled_ir = compiled.split("-- registers").next().unwrap();
    assert!(!compiled_ir.contains(" mul v"), "{compiled_ir}");
    let body = region(&text, "total = total + i64(i) * i64(j)");
    assert!(!body.is_empty(), "no code under the inner loop's line:\n{text}");
    assert!(body.iter().all(|l| !l.contains("imul")), "{body:#?}");
    assert!(body.iter().any(|l| l.contains("add ")), "{body:#?}");
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}

#[test]
fn nested_loops_same_total_on_every_engine() {
    // 0..SIZE x 0..10000: (sum i) * (sum j).
    let size: i64 = 300;
    let want = (size * (size - 1) / 2) * (10_000 * 9_999 / 2);
    let file = bench_program("nested_loops", size as u32);
    for engine in ["interp", "doppler", "jit"] {
        let out = run(&["execute", "--engine", engine], &file);
        assert_eq!(out.trim(), want.to_string(), "{engine}");
    }
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}
