//! libFuzzer target `redshift_roundtrip`: a generated program is
//! redshifted; its residual module, printed as SPy, must re-parse and
//! print to the same text, and must run the same when redshifted once
//! more (`spy_fuzz::roundtrip`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use spy_interp::engine::Limits;
use spy_fuzz::campaign::features_avoiding_known_bugs;
use spy_fuzz::generate_restricted;
use spy_fuzz::roundtrip::check_roundtrip;

fuzz_target!(|data: &[u8]| {
    let program = generate_restricted(data, features_avoiding_known_bugs());
    let limits = Limits {
        max_steps: Some(20_000),
        ..Limits::default()
    };
    if let Err(e) = check_roundtrip(&program.source, limits) {
        panic!("{e}\n--- program\n{}", program.source);
    }
});
