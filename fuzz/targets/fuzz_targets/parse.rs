//! Fuzz target: the parser on arbitrary bytes. It must never panic, hang or
//! overflow the stack; every outcome is either a module or a `SpyError`
//! whose rendering works.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match spy_interp::syntax::parse_bytes("fuzz.spy", data) {
        Ok((_, module)) => {
            let _ = spy_interp::syntax::dump::dump_module(&module);
        }
        Err(err) => {
            let _ = spy_interp::diag::render(&err);
        }
    }
});
