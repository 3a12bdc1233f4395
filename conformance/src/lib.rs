//! spy-conformance: the SPy conformance suite and its runner.
//!
//! | module     | owns                                                          |
//! |------------|---------------------------------------------------------------|
//! | `case`     | discovering `.spy` cases (on disk or bundled), their directives (allowed divergences) |
//! | `snapshot` | the outcome format stored in each case's insta snapshot       |
//! | `runner`   | targets (engine × mode), case bounds (fuel, wall clock), checking a case, sharding, the rayon runner |
//! | `native`   | the jit engine's "not yet native" list (spec/17-jit.md), checked both ways |
//!
//! A case is `cases/<area>/<name>.spy`; its expectation is the insta
//! snapshot `cases/<area>/<name>.snap`, whose body is:
//!
//! ```text
//! exit: 1
//! error: ZeroDivisionError: integer division or modulo by zero
//! stdout:
//! what was printed before the error
//! ```
//!
//! Only the reference engine writes snapshots; every other target is
//! compared with them (see `conformance/README.md`).

pub mod case;
pub mod native;
pub mod runner;
pub mod snapshot;

pub use case::{bundled_suite, bundled_suite_dir, discover, Case};
pub use native::NotYetNative;
pub use runner::{
    check, check_with, run_all, run_all_with, run_bounded, run_bounded_with, shard, split_case, CaseBounds,
    Target, Verdict,
};
pub use snapshot::{normalize, snapshot, snapshot_body, snapshot_file};
