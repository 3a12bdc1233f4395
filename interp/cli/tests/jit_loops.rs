//! The benchmark loops' machine code after value ranges and the exit-test
//! rewrites (jit/src/x64/range.rs, exits.rs): `spy-interp jit` of
//! `bench/jit/nested_loops.spy` has gcc's inner loop (two additions and a
//! count-down, `sub; jne`), and `bench/jit/stencil.spy`'s main function has
//! no sign extension of its i32 counters and tests `k < n - 2` directly;
//! every engine prints the same result.

mod common;
use common::{bench_program, run};

/// The instructions (mnemonic and operands) of one function's machine code.
fn code_of<'a>(listing: &'a str, function: &str) -> Vec<&'a str> {
    let start = listing
        .find(&format!("== {function}\n"))
        .unwrap_or_else(|| panic!("{function} not in:\n{listing}"));
    let rest = &listing[start..];
    let end = rest[3..].find("\n== ").map_or(rest.len(), |e| e + 3);
    let code = rest[..end]
        .split("-- machine code")
        .nth(1)
        .expect("machine code section");
    code.lines()
        .skip(1)
        .filter(|l| !l.trim_start().starts_with(';'))
        .filter_map(|l| l.trim_start().split_once("  ").map(|(_, i)| i.trim()))
        .collect()
}

/// The instructions from the first one after `line`'s mark.
fn after_mark<'a>(listing: &'a str, line: &str) -> Vec<&'a str> {
    let code = listing
        .split("-- machine code")
        .nth(1)
        .expect("machine code section");
    code.lines()
        .skip_while(|l| !(l.trim_start().starts_with(';') && l.contains(line)))
        .skip(1)
        .filter(|l| !l.trim_start().starts_with(';'))
        .filter_map(|l| l.trim_start().split_once("  ").map(|(_, i)| i.trim()))
        .collect()
}

fn mnemonic(i: &str) -> &str {
    i.split_whitespace().next().unwrap_or("")
}

#[test]
fn nested_loops_inner_loop_counts_down() {
    let file = bench_program("nested_loops", 20_000);
    let text = run(&["jit"], &file);
    let body = after_mark(&text, "total = total + i64(i) * i64(j)");
    let inner: Vec<&str> = body
        .iter()
        .take_while(|i| mnemonic(i) != "jne")
        .map(|i| mnemonic(i))
        .collect();
    assert_eq!(inner, ["add", "add", "sub"], "{body:#?}");
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}

#[test]
fn stencil_counters_need_no_extension() {
    let file = bench_program("stencil", 10_000_000);
    let text = run(&["jit"], &file);
    let main = code_of(&text, "stencil::main");
    assert!(!main.is_empty(), "{text}");
    assert!(main.iter().all(|i| !i.starts_with("movsxd")), "{main:#?}");
    // `while k + 2 < n` compares k with n - 2 = 9999998 (0x98967E).
    assert!(
        main.iter()
            .any(|i| i.starts_with("cmp ") && i.ends_with(",98967Eh")),
        "{main:#?}"
    );
    // The stencil's own loop: one addition of k, no `lea` of k + 2 for the test.
    let body = after_mark(&text, "k = k + 1");
    let test: Vec<&str> = body.iter().take(3).copied().collect();
    assert_eq!(
        test.iter().map(|i| mnemonic(i)).collect::<Vec<_>>(),
        ["add", "cmp", "jl"],
        "{body:#?}"
    );
    let _ = std::fs::remove_dir_all(file.parent().unwrap());
}

#[test]
fn same_results_on_every_engine() {
    for (name, size) in [("stencil", 1_000), ("nested_loops", 30), ("float_loop", 1_000)] {
        let file = bench_program(name, size);
        let want = run(&["execute", "--engine", "interp"], &file);
        for engine in ["doppler", "jit"] {
            assert_eq!(
                run(&["execute", "--engine", engine], &file),
                want,
                "{name} on {engine}"
            );
        }
        let _ = std::fs::remove_dir_all(file.parent().unwrap());
    }
}
