//! Link options of the `spy-interp` binary.
//!
//! On x86-64 Linux with glibc the binary is linked as a position-dependent
//! executable (`-no-pie`). A position-independent one carries ~10,700
//! relative relocations (`.rela.dyn`, 254 KB) that the dynamic loader
//! applies at every start, writing to ~170 KB of `.data.rel.ro` (vtables,
//! `&'static str` tables of clap and the parser): ~30 page faults and
//! ~0.16 ms of CPU per process, 5-8 % of a whole `execute` of a two-line
//! program (jit/BENCH-LOG.md "Start-up"). The price is that the binary's own
//! code and data are not address-randomized (libraries, heap, stacks and
//! the JIT's buffers still are).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if os == "linux" && env == "gnu" && arch == "x86_64" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
