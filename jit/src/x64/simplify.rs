//! Local simplification of a function before register allocation, so the
//! lowering's general shapes (a `range` loop's step tests, conversions of
//! literals, copies of copies) cost nothing at run time:
//! - a temporary whose operands are all constants becomes a constant,
//!   computed by [`crate::ir::sem`] (the single definition of the semantics,
//!   so the folded word is the one the machine would compute; a fallible op
//!   that would raise is left alone);
//! - integer/Bool identities with a constant (`x & 0`, `x & ~0`, `x | 0`,
//!   `x ^ 0`, `x + 0`, `x - 0`, `x * 1`, `x * 0`) become constants or copies;
//! - a sum or difference with a constant of a temporary that is itself one
//!   (`t = x + c1`, `t + c2`) adds the two constants to `x` (wrapping
//!   addition is associative): `n - 1 - 1` reads `n`, not the first
//!   difference, which need not live on;
//! - a temporary that copies another temporary is replaced by it at every
//!   use (both are defined once, so they are the same value);
//! - an `if` on a constant is replaced by the arm it takes;
//! - a vector built from the lanes `0..n`, in order, of one vector
//!   temporary of its type is a copy of it;
//! - unused pure temporaries are removed, and so are the pure assignments
//!   of a local that is never read.
//!
//! Nothing is recorded about locals (they are mutable), though their
//! assignments simplify like a temporary's definition; floats only fold
//! when every operand is constant.

use super::regalloc::each_use;
use crate::ir::{sem, BinOp, Block, Function, Op, Stmt, Ty, VOp, VReg, VRegKind, Word};

struct Facts {
    konst: Vec<Option<Word>>,
    alias: Vec<VReg>,
    /// `t = Lane(a, k)` of a vector temporary `a`: (a, k).
    lane: Vec<Option<(VReg, u8)>>,
    /// `t = x + c` or `x - c` of an integer temporary or never-written
    /// local `x`: (x, the constant added, wrapped to the type).
    offset: Vec<Option<(VReg, Word)>>,
    /// Registers no statement writes (a parameter the body never assigns):
    /// their value is the same everywhere.
    fixed: Vec<bool>,
}

impl Facts {
    /// A new constant temporary of `g` holding `w`, defined in `out`.
    fn new_const(&mut self, g: &mut Function, ty: Ty, w: Word, out: &mut Vec<Stmt>) -> VReg {
        g.vregs.push(crate::ir::VRegInfo {
            ty,
            kind: VRegKind::Temp,
        });
        let v = VReg(g.vregs.len() as u32 - 1);
        self.konst.push(Some(w));
        self.alias.push(v);
        self.lane.push(None);
        self.offset.push(None);
        self.fixed.push(false);
        out.push(Stmt::Assign {
            dst: v,
            op: Op::Const(w),
        });
        v
    }
}

/// The simplified copy of `f`.
pub fn simplify(f: &Function) -> Function {
    simplify_owned(f.clone())
}

/// [`simplify`] of a function the caller gives up (no copy made).
pub fn simplify_owned(mut g: Function) -> Function {
    let n = g.vregs.len();
    let mut facts = Facts {
        konst: vec![None; n],
        alias: (0..n as u32).map(VReg).collect(),
        lane: vec![None; n],
        offset: vec![None; n],
        fixed: {
            let mut fixed: Vec<bool> = g.vregs.iter().map(|r| r.kind == VRegKind::Local).collect();
            crate::ir::visit::walk(&g.body, &mut |s| {
                crate::ir::visit::each_def(s, |v| fixed[v.index()] = false)
            });
            fixed
        },
    };
    let body = std::mem::take(&mut g.body);
    g.body = fold_block(&mut g, body, &mut facts);
    // Remove unused pure temporaries until none is left (a removal can free
    // others), in rounds: each removes what is unused at its start. The uses
    // are counted once and kept by the removals, and a round that made no
    // register unused is the last (the next would remove nothing).
    let mut uses = vec![0u32; g.vregs.len()];
    count_uses(&g.body, &mut uses);
    for _ in 0..8 {
        let mut after = uses.clone();
        if !remove_dead(&mut g.body, &uses, &mut after) {
            break;
        }
        uses = after;
    }
    g
}

fn count_uses(b: &Block, uses: &mut [u32]) {
    for s in &b.0 {
        each_use(s, |v| uses[v.index()] += 1);
        match s {
            Stmt::If { then_, else_, .. } => {
                count_uses(then_, uses);
                count_uses(else_, uses);
            }
            Stmt::Loop { body } => count_uses(body, uses),
            _ => {}
        }
    }
}

/// Removes the pure assignments of registers `uses` counts unused; `after`
/// (a copy of `uses`) loses the removed statements' uses. Whether one of
/// them was a register's last.
fn remove_dead(b: &mut Block, uses: &[u32], after: &mut [u32]) -> bool {
    let mut freed = false;
    b.0.retain(|s| match s {
        Stmt::Assign { dst, op } if op.is_pure() && uses[dst.index()] == 0 => {
            each_use(s, |v| {
                after[v.index()] -= 1;
                freed |= after[v.index()] == 0;
            });
            false
        }
        _ => true,
    });
    for s in &mut b.0 {
        match s {
            Stmt::If { then_, else_, .. } => {
                freed |= remove_dead(then_, uses, after);
                freed |= remove_dead(else_, uses, after);
            }
            Stmt::Loop { body } => freed |= remove_dead(body, uses, after),
            _ => {}
        }
    }
    freed
}

fn map_op(op: &mut Op, m: &impl Fn(VReg) -> VReg) {
    match op {
        Op::Const(_) => {}
        Op::Copy(a) | Op::Unary(_, a) | Op::Convert(a) => *a = m(*a),
        Op::Binary(_, a, b) | Op::Cmp(_, a, b) => {
            *a = m(*a);
            *b = m(*b);
        }
        Op::FloorDiv { a, b, .. }
        | Op::FloorMod { a, b, .. }
        | Op::FDiv { a, b, .. }
        | Op::Shift { a, b, .. } => {
            *a = m(*a);
            *b = m(*b);
        }
        Op::Load { ptr, len, index, .. } => {
            *ptr = m(*ptr);
            *len = m(*len);
            *index = m(*index);
        }
        Op::Vector(v) => match v {
            VOp::Splat(a) | VOp::Lane(a, _) | VOp::Convert(a) => *a = m(*a),
            VOp::Build(lanes) => lanes.iter_mut().for_each(|a| *a = m(*a)),
            VOp::Binary(_, a, b) | VOp::FDiv { a, b, .. } | VOp::Cmp(_, a, b) => {
                *a = m(*a);
                *b = m(*b);
            }
        },
    }
}

/// Rewrite the registers a statement reads (not those of nested blocks).
fn map_uses(s: &mut Stmt, m: &impl Fn(VReg) -> VReg) {
    match s {
        Stmt::Assign { op, .. } => map_op(op, m),
        Stmt::Store {
            ptr,
            len,
            index,
            value,
            ..
        } => {
            for v in [ptr, len, index, value] {
                *v = m(*v);
            }
        }
        Stmt::Call { args, .. } | Stmt::CallHelper { args, .. } => {
            for a in args {
                *a = m(*a);
            }
        }
        Stmt::Raise { operands, .. } => {
            for v in operands.iter_mut().flatten() {
                *v = m(*v);
            }
        }
        Stmt::If { cond, .. } => *cond = m(*cond),
        Stmt::Return(vs) => {
            for v in vs {
                *v = m(*v);
            }
        }
        Stmt::Loop { .. }
        | Stmt::Break
        | Stmt::Continue
        | Stmt::Mark(_)
        | Stmt::InlineEnter(_)
        | Stmt::InlineExit => {}
    }
}

/// All-ones in canonical form for an integer or Bool type.
fn ones(ty: Ty) -> Word {
    if ty == Ty::Bool {
        1
    } else {
        sem::canon(ty, u64::MAX)
    }
}

/// The simplified op of a temporary `dst` of type `ty`, when there is one.
fn fold(f: &Function, ty: Ty, op: &Op, k: &[Option<Word>]) -> Option<Op> {
    let c = |v: VReg| k[v.index()];
    let is_int = !ty.is_float() && ty != Ty::Ptr && ty != Ty::Handle;
    match *op {
        Op::Copy(a) => c(a).map(Op::Const),
        Op::Unary(u, a) => c(a).map(|w| Op::Const(sem::unary(u, ty, w))),
        Op::Convert(a) => c(a).map(|w| Op::Const(sem::convert(f.ty(a), ty, w))),
        Op::Cmp(op, a, b) => Some(Op::Const(sem::cmp(op, f.ty(a), c(a)?, c(b)?) as Word)),
        Op::Binary(b, x, y) => {
            if let (Some(wx), Some(wy)) = (c(x), c(y)) {
                return Some(Op::Const(sem::binary(b, ty, wx, wy)));
            }
            if !is_int {
                return None;
            }
            let commutes = matches!(b, BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor);
            let (v, w) = match (c(x), c(y)) {
                (None, Some(w)) => (x, w),
                (Some(w), None) if commutes => (y, w),
                _ => return None,
            };
            match b {
                BinOp::And if w == 0 => Some(Op::Const(0)),
                BinOp::And if w == ones(ty) => Some(Op::Copy(v)),
                BinOp::Or if w == ones(ty) => Some(Op::Const(ones(ty))),
                BinOp::Or | BinOp::Xor | BinOp::Add | BinOp::Sub if w == 0 => Some(Op::Copy(v)),
                BinOp::Mul if w == 1 => Some(Op::Copy(v)),
                BinOp::Mul if w == 0 => Some(Op::Const(0)),
                _ => None,
            }
        }
        Op::FloorDiv { a, b, .. } => sem::floor_divmod(ty, c(a)?, c(b)?).map(|(q, _)| Op::Const(q)),
        Op::FloorMod { a, b, .. } => sem::floor_divmod(ty, c(a)?, c(b)?).map(|(_, r)| Op::Const(r)),
        Op::FDiv { a, b, .. } => sem::fdiv(ty, c(a)?, c(b)?).map(Op::Const),
        Op::Shift { op, a, b, .. } => sem::shift(op, ty, c(a)?, c(b)?).map(Op::Const),
        Op::Const(_) | Op::Load { .. } | Op::Vector(_) => None,
    }
}

/// `Build` of the lanes `0..n` of one vector temporary `a` of the
/// destination's type (what passing a vector as lanes to an inlined callee
/// leaves) is a copy of `a`.
fn rebuilt(f: &Function, dst: VReg, op: &Op, lane: &[Option<(VReg, u8)>]) -> Option<Op> {
    let Op::Vector(VOp::Build(ls)) = op else {
        return None;
    };
    let (a, _) = lane[ls.first()?.index()]?;
    let same = ls
        .iter()
        .enumerate()
        .all(|(i, l)| lane[l.index()] == Some((a, i as u8)));
    (same && f.ty(a) == f.ty(dst)).then_some(Op::Copy(a))
}

/// `x + c2` (or `- c2`) of a temporary `t = x + c1` (`x` an integer
/// temporary or never-written local): `x + (c1 + c2)`, wrapping, which is
/// exact for every `x` (wrapping addition is associative), so `n - 1 - 1`
/// reads `n`.
fn reassociated(ty: Ty, op: &Op, facts: &Facts) -> Option<(VReg, Word)> {
    if !ty.is_int() {
        return None;
    }
    let (t, c2) = match *op {
        Op::Binary(BinOp::Add, a, b) => match (facts.konst[a.index()], facts.konst[b.index()]) {
            (None, Some(c)) => (a, c),
            (Some(c), None) => (b, c),
            _ => return None,
        },
        Op::Binary(BinOp::Sub, a, b) => (a, sem::unary(crate::ir::UnOp::Neg, ty, facts.konst[b.index()]?)),
        _ => return None,
    };
    let (x, c1) = facts.offset[t.index()]?;
    Some((x, sem::binary(BinOp::Add, ty, c1, c2)))
}

/// The (base, constant) of `t = x + c` / `x - c` with `x` an integer
/// temporary or never-written local and `c` a constant.
fn offset_of(f: &Function, ty: Ty, op: &Op, facts: &Facts) -> Option<(VReg, Word)> {
    if !ty.is_int() {
        return None;
    }
    let temp = |v: VReg| {
        (f.vregs[v.index()].kind == VRegKind::Temp || facts.fixed[v.index()])
            && facts.konst[v.index()].is_none()
    };
    match *op {
        Op::Binary(BinOp::Add, a, b) => match (facts.konst[a.index()], facts.konst[b.index()]) {
            (None, Some(c)) if temp(a) => Some((a, c)),
            (Some(c), None) if temp(b) => Some((b, c)),
            _ => None,
        },
        Op::Binary(BinOp::Sub, a, b) if temp(a) => {
            Some((a, sem::unary(crate::ir::UnOp::Neg, ty, facts.konst[b.index()]?)))
        }
        _ => None,
    }
}

fn fold_block(g: &mut Function, b: Block, facts: &mut Facts) -> Block {
    let mut out = Vec::with_capacity(b.0.len());
    let mut work: Vec<Stmt> = b.0;
    work.reverse();
    while let Some(mut s) = work.pop() {
        {
            let alias = &facts.alias;
            map_uses(&mut s, &|v| alias[v.index()]);
        }
        match s {
            Stmt::Assign { dst, mut op } => {
                let d = dst.index();
                let ty = g.ty(dst);
                if let Some(o) = rebuilt(g, dst, &op, &facts.lane) {
                    op = o;
                }
                // A local's operation simplifies too (`x + 0` is a copy),
                // but nothing is recorded about the mutable local.
                if let Some(o) = fold(g, ty, &op, &facts.konst) {
                    op = o;
                }
                if let Some((x, k)) = reassociated(ty, &op, facts) {
                    op = if k == 0 {
                        Op::Copy(x)
                    } else {
                        let kv = facts.new_const(g, ty, k, &mut out);
                        Op::Binary(BinOp::Add, x, kv)
                    };
                }
                if g.vregs[d].kind == VRegKind::Temp {
                    facts.offset[d] = offset_of(g, ty, &op, facts);
                    match op {
                        Op::Const(w) => facts.konst[d] = Some(w),
                        Op::Copy(a) if g.vregs[a.index()].kind == VRegKind::Temp => facts.alias[d] = a,
                        Op::Vector(VOp::Lane(a, k)) if g.vregs[a.index()].kind == VRegKind::Temp => {
                            facts.lane[d] = Some((a, k))
                        }
                        _ => {}
                    }
                }
                out.push(Stmt::Assign { dst, op });
            }
            Stmt::If { cond, then_, else_ } => match facts.konst[cond.index()] {
                // The arm taken, in place (its temporaries stay local to it in effect).
                Some(w) => {
                    let arm = if w != 0 { then_ } else { else_ };
                    work.extend(arm.0.into_iter().rev());
                }
                None => {
                    let then_ = fold_block(g, then_, facts);
                    let else_ = fold_block(g, else_, facts);
                    out.push(Stmt::If { cond, then_, else_ });
                }
            },
            Stmt::Loop { body } => {
                let body = fold_block(g, body, facts);
                out.push(Stmt::Loop { body });
            }
            s => out.push(s),
        }
    }
    Block(out)
}
