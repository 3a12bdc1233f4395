//! IR-to-IR passes a front end runs on a verified module before
//! [`crate::compile`] (so its listings show their result); each keeps every
//! observable behaviour of the module as [`crate::ir::eval`] defines it:
//! results, output, error codes and operands, the traceback and the depth at
//! which the recursion error is raised. In the order the lowering runs them:
//!
//! - [`fold`]: a self-recursive pure function of one integer returns its
//!   value at a few small arguments as a constant, behind the depth checks
//!   of the activations it stands for;
//! - [`inline`]: small callees are spliced into their callers between
//!   `InlineEnter(site)` / `InlineExit`, which keep the call's depth count
//!   and its traceback entry;
//! - [`licm`]: locals assigned once become temporaries, then pure
//!   operations whose operands do not change in a loop move before it;
//! - [`modulo`]: `iv % k` of a counted loop's induction variable is kept
//!   in a local updated with `iv`;
//! - [`versioning`]: counted loops whose accesses an entry test proves in
//!   bounds run a copy without bounds checks (computing `i32` index
//!   offsets in `i64`, `widen`);
//! - [`memo`]: an access an earlier check of the same pointer, length and
//!   index already covers is not checked again.

pub mod fold;

pub use fold::{fold_leaves, FoldOptions};

pub mod inline;

pub use inline::{inline_module, InlineOptions};

pub mod licm;

pub use licm::hoist_invariants;

pub mod versioning;

pub use versioning::version_loops;

mod widen;

pub mod modulo;

pub use modulo::reduce_modulos;

pub mod memo;

pub use memo::memoize_checks;

pub(crate) use crate::ir::visit::{each_def, each_use, walk, walk_stmts};
