//! The x86-64 backend: emitter, register allocation, code generation and the
//! executable module. Compiled only on x86-64 hosts.

pub mod emit;
