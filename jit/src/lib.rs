//! spy-jit: a leaf x86-64 code generator for SPy.
pub mod ir;
#[cfg(target_arch = "x86_64")]
pub mod x64;
