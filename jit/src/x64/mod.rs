//! The x86-64 backend (System V hosts only): the emitter (the only writer
//! of instructions), register conventions, local simplification, register
//! allocation and its debug checker, code generation and the executable
//! module.

pub mod abi;
#[cfg(debug_assertions)]
pub mod check;
pub mod codegen;
pub mod divconst;
pub mod emit;
pub mod exits;
pub mod loose;
pub mod module;
pub mod range;
pub mod regalloc;
pub mod simplify;
pub mod strength;
