//! Visiting the registers and statements of IR, the one definition every
//! pass and the allocator use: the registers a statement reads
//! ([`each_use`]) and writes ([`each_def`]), not counting nested blocks,
//! and every statement of a block, nested ones included ([`walk`],
//! [`walk_stmts`]).

use super::{Block, Op, Stmt, VOp, VReg};

/// Call `f` on every register a statement reads (not those of nested
/// blocks), without allocating.
pub fn each_use(s: &Stmt, mut f: impl FnMut(VReg)) {
    match s {
        Stmt::Assign { op, .. } => match *op {
            Op::Const(_) => {}
            Op::Copy(a) | Op::Unary(_, a) | Op::Convert(a) => f(a),
            Op::Binary(_, a, b)
            | Op::Cmp(_, a, b)
            | Op::FloorDiv { a, b, .. }
            | Op::FloorMod { a, b, .. }
            | Op::FDiv { a, b, .. }
            | Op::Shift { a, b, .. } => {
                f(a);
                f(b);
            }
            Op::Load { ptr, len, index, .. } => {
                f(ptr);
                f(len);
                f(index);
            }
            Op::Vector(ref v) => match *v {
                VOp::Splat(a) | VOp::Lane(a, _) | VOp::Convert(a) => f(a),
                VOp::Build(ref lanes) => lanes.iter().for_each(|&a| f(a)),
                VOp::Binary(_, a, b) | VOp::FDiv { a, b, .. } | VOp::Cmp(_, a, b) => {
                    f(a);
                    f(b);
                }
            },
        },
        Stmt::Store {
            ptr,
            len,
            index,
            value,
            ..
        } => {
            for v in [ptr, len, index, value] {
                f(*v);
            }
        }
        Stmt::Call { args, .. } | Stmt::CallHelper { args, .. } => args.iter().copied().for_each(f),
        Stmt::Raise { operands, .. } => operands.iter().flatten().copied().for_each(f),
        Stmt::If { cond, .. } => f(*cond),
        Stmt::Return(v) => v.iter().copied().for_each(f),
        Stmt::Loop { .. }
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Mark(_)
        | Stmt::InlineEnter(_)
        | Stmt::InlineExit => {}
    }
}

/// Call `f` on every register a statement writes.
pub fn each_def(s: &Stmt, f: impl FnMut(VReg)) {
    match s {
        Stmt::Assign { dst, .. } => [*dst].into_iter().for_each(f),
        Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => results.iter().copied().for_each(f),
        _ => {}
    }
}

/// Every statement of a block, nested ones included.
pub fn walk(b: &Block, f: &mut impl FnMut(&Stmt)) {
    walk_stmts(&b.0, f);
}

/// Every statement of a statement list (a part of a block), nested ones
/// included.
pub fn walk_stmts(stmts: &[Stmt], f: &mut impl FnMut(&Stmt)) {
    for s in stmts {
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
