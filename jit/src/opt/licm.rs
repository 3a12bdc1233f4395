//! Loop-invariant code motion of pure operations (conversions, broadcasts,
//! arithmetic on values a loop does not change), in two steps per function:
//!
//! 1. **Single assignments become temporaries.** A non-parameter local with
//!    exactly one assignment, all of whose reads come after it in the same
//!    block (nested statements included), is a temporary in all but name
//!    (a tuple element of a load helper's result, an inlined callee's
//!    result): it is re-declared `Temp`, so copy propagation and this pass
//!    see through it.
//! 2. **Hoisting.** In a loop body, innermost loops first, a top-level
//!    assignment of a temporary by a pure operation (`Const`, `Copy`,
//!    `Unary`, `Binary`, `Cmp`, `Convert`, and the vector `Splat`, `Build`,
//!    `Lane`, `Binary`, `Cmp`, `Convert`) whose operands are not written in
//!    the loop (or were hoisted) moves to just before the loop.
//!
//! Pure operations cannot raise, print or touch memory, so computing one
//! once before the loop — even if the loop would not have reached it — is
//! unobservable; the value is the same because no operand changes in the
//! loop. Fallible operations (`//`, `/`, loads) never move.

use super::{each_def, each_use, walk};
use crate::ir::{Block, Function, Module, Stmt, VReg, VRegKind};

/// Run both steps on every function of `m` (verified; the result verifies
/// too). Returns the number of statements hoisted.
pub fn hoist_invariants(m: &mut Module) -> usize {
    let mut n = 0;
    for f in &mut m.functions {
        promote_single_assignments(f);
        let mut body = std::mem::take(&mut f.body);
        n += hoist_block(f, &mut body);
        f.body = body;
    }
    n
}

/// Step 1 (see the module comment).
pub fn promote_single_assignments(f: &mut Function) {
    let n = f.vregs.len();
    let (mut defs, mut uses) = (vec![0u32; n], vec![0usize; n]);
    walk(&f.body, &mut |s| {
        each_def(s, |v| defs[v.index()] += 1);
        each_use(s, |v| uses[v.index()] += 1);
    });
    let candidate: Vec<bool> = (0..n)
        .map(|i| f.vregs[i].kind == VRegKind::Local && defs[i] == 1 && !f.params.contains(&VReg(i as u32)))
        .collect();
    let mut promote = vec![];
    let mut later = vec![NOT_COUNTED; n];
    find_promotable(&f.body.0, &candidate, &uses, &mut later, &mut promote);
    for v in promote {
        f.vregs[v.index()].kind = VRegKind::Temp;
    }
}

/// A register whose reads `find_promotable` is not counting.
const NOT_COUNTED: usize = usize::MAX;

/// The candidates assigned by a statement of `b` that every read of which
/// (`uses`) comes after that statement in `b`, then the same in every
/// nested block. One backward pass per block: `later[v]` counts the reads
/// of `v`, for the candidates this block assigns, in the statements after
/// the one being visited (nested statements included); the others are
/// `NOT_COUNTED`, as they are again on return.
fn find_promotable(b: &[Stmt], candidate: &[bool], uses: &[usize], later: &mut [usize], out: &mut Vec<VReg>) {
    let mut assigned_here = vec![];
    for s in b {
        each_def(s, |v| {
            if candidate[v.index()] {
                later[v.index()] = 0;
                assigned_here.push(v);
            }
        });
    }
    if !assigned_here.is_empty() {
        for s in b.iter().rev() {
            each_def(s, |v| {
                if candidate[v.index()] && later[v.index()] == uses[v.index()] {
                    out.push(v);
                }
            });
            let mut count = |u: VReg| {
                if later[u.index()] != NOT_COUNTED {
                    later[u.index()] += 1;
                }
            };
            each_use(s, &mut count);
            match s {
                Stmt::If { then_, else_, .. } => {
                    walk(then_, &mut |t| each_use(t, &mut count));
                    walk(else_, &mut |t| each_use(t, &mut count));
                }
                Stmt::Loop { body } => walk(body, &mut |t| each_use(t, &mut count)),
                _ => {}
            }
        }
        for v in assigned_here {
            later[v.index()] = NOT_COUNTED;
        }
    }
    for s in b {
        match s {
            Stmt::If { then_, else_, .. } => {
                find_promotable(&then_.0, candidate, uses, later, out);
                find_promotable(&else_.0, candidate, uses, later, out);
            }
            Stmt::Loop { body } => find_promotable(&body.0, candidate, uses, later, out),
            _ => {}
        }
    }
}

/// Step 2 on every loop of `b`, innermost first.
fn hoist_block(f: &Function, b: &mut Block) -> usize {
    let mut n = 0;
    if !b.0.iter().any(|s| matches!(s, Stmt::Loop { .. })) {
        // No loop here: nothing moves into this list, which stays as it is
        // (the arms of its `if`s are done in place).
        for s in &mut b.0 {
            if let Stmt::If { then_, else_, .. } = s {
                n += hoist_block(f, then_);
                n += hoist_block(f, else_);
            }
        }
        return n;
    }
    let old = std::mem::take(&mut b.0);
    // Room for what the loops here may hoist (at most their statements).
    let loops: usize = old
        .iter()
        .map(|s| match s {
            Stmt::Loop { body } => body.0.len(),
            _ => 0,
        })
        .sum();
    let mut out = Vec::with_capacity(old.len() + loops);
    for s in old {
        match s {
            Stmt::If {
                cond,
                mut then_,
                mut else_,
            } => {
                n += hoist_block(f, &mut then_);
                n += hoist_block(f, &mut else_);
                out.push(Stmt::If { cond, then_, else_ });
            }
            Stmt::Loop { mut body } => {
                n += hoist_block(f, &mut body);
                let mut written = vec![false; f.vregs.len()];
                walk(&body, &mut |s| each_def(s, |v| written[v.index()] = true));
                let mut kept = Vec::with_capacity(body.0.len());
                // (more than counted above if the inner loops' hoisting
                // lengthened this body)
                out.reserve(body.0.len());
                // After a statement that never completes, the rest of the
                // body is unreachable: it may read locals no path assigns
                // (a value after an inlined `raise`), so nothing of it moves.
                let mut reachable = true;
                for s in std::mem::take(&mut body.0) {
                    let movable = reachable
                        && match &s {
                            Stmt::Assign { dst, op } => {
                                let mut invariant = true;
                                each_use(&s, |u| invariant &= !written[u.index()]);
                                f.vregs[dst.index()].kind == VRegKind::Temp && op.is_pure() && invariant
                            }
                            _ => false,
                        };
                    if movable {
                        if let Stmt::Assign { dst, .. } = &s {
                            // Defined once, before the loop: not written in it any more.
                            written[dst.index()] = false;
                        }
                        out.push(s);
                        n += 1;
                    } else {
                        reachable &= !never_completes(&s);
                        kept.push(s);
                    }
                }
                body.0 = kept;
                out.push(Stmt::Loop { body });
            }
            other => out.push(other),
        }
    }
    b.0 = out;
    n
}

/// Whether control never goes on to the statement after `s`.
fn never_completes(s: &Stmt) -> bool {
    match s {
        Stmt::Raise { .. } | Stmt::Break | Stmt::Continue | Stmt::Return(_) => true,
        Stmt::If { then_, else_, .. } => block_never_completes(then_) && block_never_completes(else_),
        Stmt::Loop { body } => !breaks_out(body),
        _ => false,
    }
}

fn block_never_completes(b: &Block) -> bool {
    b.0.iter().any(never_completes)
}

/// Whether a `break` of this loop (not of a nested one) is in `b`.
fn breaks_out(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Break => true,
        Stmt::If { then_, else_, .. } => breaks_out(then_) || breaks_out(else_),
        _ => false,
    })
}
