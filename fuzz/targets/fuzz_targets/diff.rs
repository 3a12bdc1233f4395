//! libFuzzer target `diff`: the input bytes choose a swarm configuration
//! and a program (`spy_fuzz::gen`); the program runs on every
//! engine of `Engine::ALL` with fuel; any difference in stdout, exit code
//! or error line, and any internal error or panic, aborts with the
//! finding's signature and both outcomes. Features that provoke known,
//! unfixed engine bugs are off unless `SPY_FUZZ_ALL_FEATURES=1`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spy_fuzz::campaign::features_avoiding_known_bugs;
use spy_fuzz::oracle::{check, OracleConfig, Verdict};
use spy_fuzz::{generate_restricted, FeatureSet};

fuzz_target!(|data: &[u8]| {
    let allowed = if std::env::var_os("SPY_FUZZ_ALL_FEATURES").is_some() {
        FeatureSet::all()
    } else {
        features_avoiding_known_bugs()
    };
    let program = generate_restricted(data, allowed);
    let checked = check(&program.source, &OracleConfig::default());
    if let Verdict::Finding(f) = checked.verdict {
        panic!(
            "FINDING {}\n--- program\n{}--- {}\n{}\n--- {}\n{}",
            f.signature,
            program.source,
            "reference",
            spy_conformance::snapshot(&f.reference),
            f.other.0.name(),
            spy_conformance::snapshot(&f.other.1)
        );
    }
});
