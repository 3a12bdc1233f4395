//! The encoder and IR-level fuzz targets under plain `cargo test` (CI has
//! stable Rust only): each runs over a fixed range of seeds (the bytes of
//! `campaign::case_bytes`), and the IR target must find planted
//! code-generation bugs of spy-jit directly from IR, without the SPy front
//! end (the mutations that crash are left to the campaign's worker
//! processes: this test runs the machine code in process).

use spy_fuzz::campaign::case_bytes;
use spy_fuzz::{encoder, irgen};
use spy_jit::{Mutation, Mutations};

const ENCODER_SEEDS: u64 = 3_000;
const IR_SEEDS: u64 = 1_500;

#[test]
fn encoder_round_trips_through_iced() {
    let mut checked = 0;
    for i in 0..ENCODER_SEEDS {
        match encoder::check(&case_bytes(11, i)) {
            Ok(n) => checked += n,
            Err(e) => panic!("seed 11, case {i}: {e}"),
        }
    }
    // Every case is a sequence of up to 64 instructions.
    assert!(
        checked > ENCODER_SEEDS as usize * 32,
        "{checked} instructions checked"
    );
}

#[test]
fn ir_machine_code_agrees_with_eval() {
    let mut modules = 0;
    for i in 0..IR_SEEDS {
        match irgen::check(&case_bytes(12, i), Mutations::NONE) {
            Ok(made) => modules += usize::from(made),
            Err(e) => panic!("seed 12, case {i}: {e}"),
        }
    }
    assert!(modules as u64 > IR_SEEDS * 9 / 10, "only {modules} modules made");
}

/// The first case of seed 12 on which the IR target sees the planted bug.
fn first_finding(m: Mutation) -> Option<u64> {
    (0..IR_SEEDS).find(|i| irgen::check(&case_bytes(12, *i), Mutations::NONE.with(m)).is_err())
}

#[test]
fn ir_target_finds_planted_codegen_bugs() {
    let mut rows = vec![];
    let mut missed = vec![];
    for m in [
        Mutation::I8NoSignExtend,
        Mutation::UnsignedCmpSigned,
        Mutation::FloorDivNoFixup,
        Mutation::ShiftCountMasked,
        Mutation::NanIgnoresParity,
        Mutation::CallerSavedKept,
        Mutation::SpillSlotShared,
    ] {
        match first_finding(m) {
            Some(i) => rows.push(format!("| {m:?} | case {i} |")),
            None => missed.push(format!("{m:?}")),
        }
    }
    println!(
        "| planted bug | first IR case that shows it |\n|---|---|\n{}",
        rows.join("\n")
    );
    assert!(
        missed.is_empty(),
        "not found from IR in {IR_SEEDS} cases: {missed:?}"
    );
}
