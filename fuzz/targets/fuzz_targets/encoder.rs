//! The jit emitter's instruction forms with arbitrary operands, encoded,
//! decoded by iced-x86 and compared with the emitter's Intel rendering
//! (`spy_fuzz::encoder::check`): any mismatch is a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = spy_fuzz::encoder::check(data) {
        panic!("{e}");
    }
});
