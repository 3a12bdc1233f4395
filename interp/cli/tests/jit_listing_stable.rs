//! `spy-interp jit FILE` is a debugging view: the same program gives the
//! same listing on every run (IR numbering, registers, machine code), up to
//! the absolute addresses of runtime helpers, which move with ASLR. A pass
//! that numbered registers in hash order once broke this for loops the
//! bounds-check versioning copies (the stencil example).

use std::path::PathBuf;
use std::process::Command;

fn listing(case: &str) -> String {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/cases")
        .join(case);
    let out = Command::new(env!("CARGO_BIN_EXE_spy-interp"))
        .arg("jit")
        .arg(&file)
        .output()
        .expect("run spy-interp jit");
    assert!(
        out.status.success(),
        "{case}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // helper addresses: `mov rax,55D2D3012680h`
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|w| {
            let hex = w.trim_start_matches("rax,").trim_end_matches('h');
            if w.ends_with('h') && hex.len() >= 9 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                "ADDR"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_listing_is_the_same_on_every_run() {
    for case in [
        "examples/stencil.spy",
        "examples/vectorize.spy",
        "unsafe/ptr_alias.spy",
    ] {
        let first = listing(case);
        assert!(
            first.contains("ADDR") || !first.is_empty(),
            "{case}: empty listing"
        );
        for _ in 0..3 {
            assert_eq!(listing(case), first, "{case}: the listing changed between runs");
        }
    }
}
