//! A random well-typed spy-jit IR module, compiled and run, against
//! `ir::eval` of the same IR (`spy_fuzz::irgen::check`): any difference is
//! a crash. Runs the machine code in process: under libFuzzer a signal is
//! itself a crash report.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = spy_fuzz::irgen::check(data, spy_jit::Mutations::NONE) {
        panic!("{e}");
    }
});
