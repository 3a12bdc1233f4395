//! Proof that the differential fuzzer finds bugs: each planted bug of
//! `RunConfig::mutations` (test-only hooks in the doppler engine) must be
//! found by a fixed-seed campaign within its case budget, and everything
//! the campaign found in the cases after it must minimize and deduplicate
//! to at most 3 finding files of at most 15 lines (`common::trial`). The
//! table is printed (`--nocapture`).

mod common;

use spy_interp::engine::Mutation;

fn find(m: Mutation) {
    match common::trial(m, None) {
        Ok(row) => println!("{}\n{row}", common::HEADER),
        Err(common::Failed::NotFound(e) | common::Failed::Bounds(_, e)) => panic!("{e}"),
    }
}

#[test]
fn finds_floordiv_rounding_toward_zero() {
    find(Mutation::FloorDivRoundsTowardZero);
}

#[test]
fn finds_unroll_off_by_one() {
    find(Mutation::UnrollOffByOne);
}

#[test]
fn finds_splat_evaluated_twice() {
    find(Mutation::SplatTwice);
}

#[test]
fn finds_simd_lane_order() {
    find(Mutation::SimdLaneOrder);
}

/// A blue `-0.0` folded by redshift into `0.0` (`signed-zeros` makes the
/// sign observable).
#[test]
fn finds_negative_zero_folded() {
    find(Mutation::NegZeroFolded);
}
