//! spy-interp: the reference interpreter and differential harness for SPy.
//!
//! The pipeline is visible in the module tree; each module uses only the
//! ones above it in this table (`tests/layering.rs` checks it):
//!
//! | module      | owns                                                        | spec chapter |
//! |-------------|-------------------------------------------------------------|--------------|
//! | `source`    | source files, byte ranges, line:col                         | lexical      |
//! | `error`     | `SpyError` / `Bug` / `HostError`, the three error channels   | errors |
//! | `diag`      | rendering errors as tracebacks + annotated excerpts         | errors |
//! | `native_stack` | the evaluator's stack (thread or switched-to) size and overflow guard | errors (limits) |
//! | `syntax`    | reading source input, lexer, lalrpop grammar, AST, AST dump and walker | lexical, syntax |
//! | `resolve`   | scopes, var/const kinds, name → slot resolution, builtin names | names and scopes |
//! | `vm`        | values, function code, types, pure operator semantics and value-free signatures (`vm::ops::signatures`), builtin modules | types, conversions |
//! | `host`      | the program's files (`open`, `file` methods): the one place that touches the file system, under the run's `FileAccess` | program execution |
//! | `backend`   | printing a (residual) module back as SPy source, and where each printed node comes from (`origins`) | — |
//! | `frames`    | ASTFrame (the executable spec) and its evaluation rules     | statements, errors |
//! | `redshift`  | DopplerFrame's driver: the worklist of red functions, assembling the residual module, printing it checked to parse back | redshift |
//! | `lower`     | the residual module → spy-jit IR, helpers, running it natively | jit |
//! | `engine`    | the engines (interp, doppler, jit), `RunConfig`, `Outcome`, `run_program` | redshift, jit |
//! | `inspect`   | showing what a program means: colors (`colorize`), the explain page, symbol tables | redshift |
//!
//! The printer (`backend`) sits below the evaluator: it prints any AST and
//! needs only `syntax` and `vm`'s float formatting, while DopplerFrame's
//! provenance notes print resolved calls as they are made.
//!
//! Errors travel on three channels (`error`): a [`error::SpyError`] is a
//! program outcome, a [`error::Bug`] is a broken invariant of this
//! implementation, a [`error::HostError`] is the host failing the program
//! (its output could not be written).
//!
//! The crates above this one: `spy-conformance` (the suite and its runner),
//! `spy-fuzz` (differential fuzzing) and `spy-interp-cli` (the `spy-interp`
//! binary).

#![forbid(unsafe_code)]

pub mod backend;
pub mod diag;
pub mod engine;
pub mod error;
pub mod frames;
pub mod host;
pub mod inspect;
pub mod lower;
pub mod native_stack;
pub mod redshift;
pub mod resolve;
pub mod source;
pub mod syntax;
pub mod vm;
