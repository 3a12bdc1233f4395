//! spy-fuzz: differential fuzzing of the engines (`spy_interp::engine::Engine::ALL`):
//!
//! | module     | what                                                          |
//! |------------|---------------------------------------------------------------|
//! | `config`   | swarm configuration: features and sizes, itself `Arbitrary`  |
//! | `gen`      | bytes → a well-typed, terminating SPy program (source text)  |
//! | `oracle`   | run a program on every engine with fuel and compare          |
//! | `reduce`   | AST-level minimization of a finding, to a conformance case   |
//! | `dedup`    | the class of a minimized finding (one root cause, one file)  |
//! | `campaign` | the `spy-interp fuzz` runner: seeds, workers, stats, output  |
//! | `merge`    | `spy-interp fuzz-merge`: shards' findings, one file a class  |
//! | `roundtrip`| the residual module re-parses, re-prints and re-runs alike   |
//! | `worker`   | the jit engine in a worker process: a crash is a finding     |
//! | `encoder`  | the jit emitter's forms encoded, decoded by iced-x86, compared |
//! | `irgen`    | random well-typed jit IR: machine code vs `ir::eval`         |
//!
//! The same generator is driven by libFuzzer (the cargo-fuzz targets in
//! `fuzz/targets/`), by the campaign runner (`spy-interp fuzz`) and by
//! `cargo test`.

pub mod campaign;
pub mod config;
pub mod dedup;
pub mod encoder;
pub mod gen;
pub mod irgen;
pub mod merge;
pub mod oracle;
pub mod reduce;
pub mod roundtrip;
pub mod worker;

pub use config::{Feature, FeatureSet, GenConfig};
pub use gen::{generate, generate_restricted, Program};
