//! IR-to-IR passes a front end runs on a verified module before
//! [`crate::compile`] (so its listings show their result); each keeps every
//! observable behaviour of the module as [`crate::ir::eval`] defines it:
//! results, output, error codes and operands, the traceback and the depth at
//! which the recursion error is raised.
//!
//! - [`inline`]: small callees are spliced into their callers between
//!   `InlineEnter(site)` / `InlineExit`, which keep the call's depth count
//!   and its traceback entry;
//! - [`licm`]: locals assigned once become temporaries, then pure
//!   operations whose operands do not change in a loop move before it.

pub mod inline;

pub use inline::{inline_module, InlineOptions};

pub mod licm;

pub use licm::hoist_invariants;

use crate::ir::{Op, Stmt, VOp, VReg};

/// Call `f` on every register a statement reads (not in nested blocks).
pub(crate) fn each_use(s: &Stmt, mut f: impl FnMut(VReg)) {
    match s {
        Stmt::Assign { op, .. } => match op {
            Op::Const(_) => {}
            Op::Copy(a) | Op::Unary(_, a) | Op::Convert(a) => f(*a),
            Op::Binary(_, a, b)
            | Op::Cmp(_, a, b)
            | Op::FloorDiv { a, b, .. }
            | Op::FloorMod { a, b, .. }
            | Op::FDiv { a, b, .. }
            | Op::Shift { a, b, .. } => {
                f(*a);
                f(*b);
            }
            Op::Load { ptr, len, index, .. } => [ptr, len, index].into_iter().for_each(|v| f(*v)),
            Op::Vector(v) => match v {
                VOp::Splat(a) | VOp::Lane(a, _) | VOp::Convert(a) => f(*a),
                VOp::Build(lanes) => lanes.iter().for_each(|&a| f(a)),
                VOp::Binary(_, a, b) | VOp::FDiv { a, b, .. } | VOp::Cmp(_, a, b) => {
                    f(*a);
                    f(*b);
                }
            },
        },
        Stmt::Store {
            ptr,
            len,
            index,
            value,
            ..
        } => [ptr, len, index, value].into_iter().for_each(|v| f(*v)),
        Stmt::Call { args, .. } | Stmt::CallHelper { args, .. } => args.iter().for_each(|&v| f(v)),
        Stmt::Raise { operands, .. } => operands.iter().flatten().for_each(|&v| f(v)),
        Stmt::If { cond, .. } => f(*cond),
        Stmt::Return(vals) => vals.iter().for_each(|&v| f(v)),
        Stmt::Loop { .. }
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Mark(_)
        | Stmt::InlineEnter(_)
        | Stmt::InlineExit => {}
    }
}

/// Call `f` on every register a statement writes (not in nested blocks).
pub(crate) fn each_def(s: &Stmt, mut f: impl FnMut(VReg)) {
    match s {
        Stmt::Assign { dst, .. } => f(*dst),
        Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => results.iter().for_each(|&v| f(v)),
        _ => {}
    }
}

/// Every statement of a block, nested ones included.
pub(crate) fn walk(b: &crate::ir::Block, f: &mut impl FnMut(&Stmt)) {
    for s in &b.0 {
        f(s);
        match s {
            Stmt::If { then_, else_, .. } => {
                walk(then_, f);
                walk(else_, f);
            }
            Stmt::Loop { body } => walk(body, f),
            _ => {}
        }
    }
}
