//! spy-interp: the reference interpreter and differential harness for SPy.
//!
//! The pipeline is visible in the module tree:
//!
//! | module      | owns                                                        | spec chapter |
//! |-------------|-------------------------------------------------------------|--------------|
//! | `source`    | source files, byte ranges, line:col                         | lexical      |
//! | `syntax`    | lexer, lalrpop grammar, AST, AST dump                        | lexical, syntax |
//! | `resolve`   | scopes, var/const kinds, name → slot resolution             | names and scopes |
//! | `vm`        | values, types, pure operator semantics, builtin modules     | types, conversions |
//! | `frames`    | ASTFrame (the executable spec) and its evaluation rules     | statements, errors |
//! | `redshift`  | DopplerFrame's driver: residual module, constants           | redshift |
//! | `backend`   | printing a (residual) module back as SPy source            | — |
//! | `engine`    | the engines (interp, doppler), `RunConfig`, `Outcome`, `run_program` | redshift |
//! | `diag`      | rendering errors as tracebacks + annotated excerpts         | errors |
//!
//! Errors travel on two channels (`error`): a [`error::SpyError`] is a program
//! outcome, a [`error::Bug`] is a broken invariant of this implementation.
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
pub mod redshift;
pub mod resolve;
pub mod source;
pub mod syntax;
pub mod vm;
