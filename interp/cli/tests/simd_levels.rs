//! The jit engine's two SIMD paths on this host: every `simd/` conformance
//! case runs under `SPY_JIT_SIMD=sse2` (the SSE2 baseline) and under the
//! host's own level (AVX2 when detected) with the same stdout, exit code
//! and `Kind: message` line as the reference the jit follows (`--engine doppler`, whose divergences it shares).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_spy-interp"))
}

/// `SIMD_ENV`: `sse2` forces the SSE2 path.
const SIMD_ENV: &str = "SPY_JIT_SIMD";

fn run(file: &Path, engine: &str, sse2: bool) -> Output {
    let mut c = Command::new(binary());
    c.args(["execute", "--engine", engine]).arg(file);
    if sse2 {
        c.env(SIMD_ENV, "sse2");
    } else {
        c.env_remove(SIMD_ENV);
    }
    c.output().expect("spawn spy-interp")
}

/// stdout, exit code and the `Kind: message` line.
fn outcome(o: &Output) -> (String, Option<i32>, Option<String>) {
    let err = String::from_utf8_lossy(&o.stderr);
    let kind_line = err
        .lines()
        .rev()
        .find(|l| l.split_once(": ").is_some_and(|(k, _)| k.ends_with("Error")))
        .map(str::to_string);
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        o.status.code(),
        kind_line,
    )
}

#[test]
fn simd_cases_agree_with_the_reference_on_both_simd_paths() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/cases/simd");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the simd cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "spy"))
        .collect();
    files.sort();
    let mut native = 0;
    for f in &files {
        let want = outcome(&run(f, "doppler", false));
        let sse2 = outcome(&run(f, "jit", true));
        let host = outcome(&run(f, "jit", false));
        // Not native (exit 3) must be so on both paths (the pointer cases,
        // listed in spec/17-jit.md); otherwise both agree with the reference.
        assert_eq!(sse2.1 == Some(3), host.1 == Some(3), "{}", f.display());
        if sse2.1 == Some(3) {
            continue;
        }
        native += 1;
        assert_eq!(sse2, want, "SSE2 path: {}", f.display());
        assert_eq!(host, want, "host path: {}", f.display());
    }
    assert!(native >= 25, "only {native} SIMD cases ran natively");
}

/// The lines of `listing` from the source line marker containing `from` to
/// the next marker.
fn region<'a>(listing: &'a str, from: &str) -> Vec<&'a str> {
    let mut lines = listing
        .lines()
        .skip_while(|l| !(l.trim_start().starts_with("; line") && l.contains(from)));
    lines.next().expect("the marker");
    lines.take_while(|l| !l.trim_start().starts_with("; ")).collect()
}

#[test]
fn the_jit_listing_shows_ir_registers_and_full_width_vector_code_per_source_line() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-cli-{}-listing", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("axpy.spy");
    std::fs::write(
        &file,
        "from simd import SIMD\n\ndef main() -> None:\n    acc = SIMD[f64, 4](0.0)\n    d = SIMD[f64, 4](1.0, 2.0, 3.0, 4.0)\n    i = 0\n    while i < 10:\n        acc = acc + d * 2.0\n        i = i + 1\n    print(acc)\n",
    )
    .unwrap();
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    for sse2 in [true, false] {
        let mut c = Command::new(binary());
        c.arg("jit").arg(&file);
        if sse2 {
            c.env(SIMD_ENV, "sse2");
        } else {
            c.env_remove(SIMD_ENV);
        }
        let out = c.output().expect("spawn spy-interp");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        for part in [
            "== axpy::main",
            "-- IR",
            "-- registers",
            "-- machine code",
            "vadd v",
        ] {
            assert!(text.contains(part), "{part:?} missing from:\n{text}");
        }
        // `acc` lives across the printing calls: a run of slots. The other
        // f64x4 values fit a ymm register with AVX2 (under SSE2 they are
        // two chunks, in slots).
        assert!(text.contains("v0: f64x4 -> slot "), "{text}");
        let in_reg = text.contains("f64x4 -> ymm");
        assert!(
            !text.contains("f64x4 -> xmm"),
            "a 32-byte vector is named by its ymm register: {text}"
        );
        assert_eq!(in_reg, !sse2 && avx2, "{text}");
        let body = region(&text, "acc = acc + d * 2.0");
        let has = |m: &str| body.iter().any(|l| l.contains(m));
        // `d * 2.0` does not change in the loop: it is computed before it
        // (opt/licm.rs), under the loop header's line; the addition stays.
        let head = region(&text, "while i < 10:");
        let head_has = |m: &str| head.iter().any(|l| l.contains(m));
        if sse2 || !avx2 {
            assert!(head_has("mulpd xmm") && has("addpd xmm"), "{head:#?}\n{body:#?}");
            assert!(!has("ymm") && !has("mulpd"), "{body:#?}");
        } else {
            assert!(
                head_has("vmulpd ymm") && has("vaddpd ymm"),
                "{head:#?}\n{body:#?}"
            );
            assert!(!has("mulpd"), "{body:#?}");
        }
        assert!(!has("call"), "the vector loop body calls: {body:#?}");
    }
}

/// The machine code of the design's vectorize example from its SIMD loop's
/// header (`while i + W <= n:`) to the scalar loop's: the load helper and
/// the kernel are inlined, so it has full-width vector instructions and no
/// call, on both paths.
#[test]
fn the_vectorize_example_main_loop_is_inlined_vector_code_without_a_call() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/cases/examples/vectorize.spy");
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    for sse2 in [true, false] {
        let mut c = Command::new(binary());
        c.arg("jit").arg(&file);
        if sse2 {
            c.env(SIMD_ENV, "sse2");
        } else {
            c.env_remove(SIMD_ENV);
        }
        let out = c.output().expect("spawn spy-interp");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        // The impl's machine code, from the SIMD loop's marker to the scalar loop's.
        let marker = |l: &str, what: &str| l.trim_start().starts_with("; line") && l.contains(what);
        let code: Vec<&str> = text
            .lines()
            .skip_while(|l| !marker(l, "while i + 4 <= n:"))
            .take_while(|l| !marker(l, "while i < n:"))
            .collect();
        assert!(code.len() > 1, "the SIMD loop's code:\n{text}");
        let has = |m: &str| code.iter().any(|l| l.contains(m));
        // The kernel's `x + param0 * y` at full width; the loads and the store too.
        if sse2 || !avx2 {
            assert!(has("mulpd xmm") && has("addpd xmm") && !has("ymm"), "{code:#?}");
        } else {
            assert!(has("vmulpd ymm") && has("vaddpd ymm"), "{code:#?}");
            assert!(
                code.iter()
                    .any(|l| l.contains("vmovdqu ymm") && l.contains(",[rax+rcx*8]")),
                "a full-width load: {code:#?}"
            );
        }
        assert!(!has("call"), "the SIMD loop calls: {code:#?}");
        // The loop proper: from its first statement's marker (after the
        // hoisted broadcast and the entry tests) to the first back edge,
        // the copy that runs (bounds checks versioned out by
        // opt/versioning.rs, depth checks by x64/codegen/depth.rs).
        let first = code
            .iter()
            .position(|l| marker(l, "line 22:"))
            .expect("the loop body");
        let body: Vec<&str> = code[first..]
            .iter()
            .take_while(|l| !l.contains(" jle ") && !l.contains(" jl "))
            .copied()
            .collect();
        assert!(
            code[..first].iter().any(|l| l.contains("cmp r14,")),
            "one depth test before the loop: {code:#?}"
        );
        // An innermost loop's head starts a 64-byte line
        // (x64/codegen/control.rs).
        let head = body
            .iter()
            .find(|l| !l.trim_start().starts_with(';'))
            .expect("an instruction");
        let at = u64::from_str_radix(head.split_whitespace().next().expect("an offset"), 16).expect("hex");
        assert_eq!(at % 64, 0, "the SIMD loop's head: {head}\n{code:#?}");
        assert!(
            !body.iter().any(|l| l.contains("r14")),
            "the depth counter in the SIMD loop: {body:#?}"
        );
        assert!(
            !body.iter().any(|l| l.contains(" j")),
            "a check in the SIMD loop: {body:#?}"
        );
        // With AVX2 its f64x4 vectors live in ymm registers: no vector
        // register is loaded from or stored to the frame (`[rsp+…]`).
        if !sse2 && avx2 {
            let frame_vector = |l: &&str| l.contains("[rsp") && (l.contains("xmm") || l.contains("ymm"));
            assert!(
                !body.iter().any(frame_vector),
                "a vector through the frame in the SIMD loop: {body:#?}"
            );
            assert!(body.iter().any(|l| l.contains("vaddpd ymm")), "{body:#?}");
        }
    }
}
