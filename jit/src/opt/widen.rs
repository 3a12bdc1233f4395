//! In the unchecked copy of a versioned loop ([`super::versioning`]) with
//! an `i32` induction variable `iv`, values `iv + c` are also computed in
//! `i64`: the entry test bounds every value `iv` takes in the copy to
//! `0 ..= MAX - C` (`MAX` of `i32`, `C` the versioning's largest
//! constant), so `iv + c` (`-2^30 <= c <= C`) cannot wrap there, and the
//! `i32` arithmetic equals the `i64` arithmetic on the same values. Then
//! the index of an access is the `i64` value itself (the register of `iv`),
//! not a sign extension of an `i32` sum, and the loop's test needs no
//! extension either.
//!
//! In the copy:
//!
//! - `i64(iv)` is computed first in the body, and again right after the
//!   write of `iv` (its new value);
//! - a temporary `t` known to equal `iv + c` (a copy of `iv`, and copies
//!   and constant additions of such) gets a twin `t64 = i64(iv) + c` in
//!   `I64`, defined right after it (so it has the value `t` has);
//! - `i64(t)` of such a `t` becomes a copy of its twin; a comparison of
//!   such temporaries with each other or with `i32` values the loop does
//!   not write compares the twins and the values' `i64` conversions (made
//!   before the loop): a signed comparison of the same values.
//!
//! Everything else is unchanged (`iv` itself stays an `i32` local, so no
//! value is added to the loop's registers); the simplifier drops the `i32`
//! temporaries no longer read.

use super::versioning::assign;
use super::{each_def, walk};
use crate::ir::{BinOp, Block, Function, Op, Stmt, Ty, VReg, VRegKind, Word};
use foldhash::{HashMap, HashMapExt};

/// The smallest offset `c` of `iv + c` tracked (no wrap below: `iv >= 0`).
const MIN_OFFSET: i64 = -(1 << 30);

/// The copy `fast` (its write of `iv` at top-level `write`) with `iv + c`
/// also computed in `i64`, and the statements to run before it. Every
/// value of `iv` in the copy is in `0 ..= i32::MAX - k` (the entry test),
/// so offsets up to `k` are tracked.
pub(super) fn widen(
    f: &mut Function,
    consts: &HashMap<VReg, Word>,
    iv: VReg,
    write: usize,
    k: i64,
    fast: &Block,
) -> (Vec<Stmt>, Block) {
    let mut written = vec![false; f.vregs.len()];
    // The function's constant temporaries and the copy's own (renamed).
    let mut consts = consts.clone();
    walk(fast, &mut |s| {
        each_def(s, |v| written[v.index()] = true);
        if let Stmt::Assign {
            dst,
            op: Op::Const(w),
        } = s
        {
            consts.insert(*dst, *w);
        }
    });
    let mut cx = Cx {
        f,
        consts: &consts,
        written,
        k,
        twins: HashMap::new(),
        wide: HashMap::new(),
        before: Vec::new(),
    };
    let mut body = Vec::new();
    let now = assign(cx.f, &mut body, Ty::I64, Op::Convert(iv));
    cx.twins.insert(iv, (now, 0));
    for (i, s) in fast.0.iter().enumerate() {
        if i == write {
            // `iv`'s new value from here on.
            body.push(s.clone());
            let now = assign(cx.f, &mut body, Ty::I64, Op::Convert(iv));
            cx.twins.insert(iv, (now, 0));
        } else {
            cx.stmt(s.clone(), &mut body);
        }
    }
    (cx.before, Block(body))
}

struct Cx<'a> {
    f: &'a mut Function,
    consts: &'a HashMap<VReg, Word>,
    /// Registers written in the copy.
    written: Vec<bool>,
    k: i64,
    /// Temporaries equal to `iv + c` (and `iv` itself): their `I64` twin
    /// and `c`.
    twins: HashMap<VReg, (VReg, i64)>,
    /// `i64(v)` of `i32` registers the copy does not write, made before it.
    wide: HashMap<VReg, VReg>,
    before: Vec<Stmt>,
}

impl Cx<'_> {
    fn constant(&self, v: VReg) -> Option<i64> {
        self.consts.get(&v).map(|&w| w as i64)
    }

    /// `c` is an offset no `iv + c` of the copy wraps at.
    fn in_range(&self, c: i64) -> Option<()> {
        (MIN_OFFSET..=self.k).contains(&c).then_some(())
    }

    /// The `I64` value of an `i32` operand of a comparison: a twin, or the
    /// conversion (before the loop) of a register the copy does not write.
    fn wide(&mut self, v: VReg) -> Option<VReg> {
        if let Some(&(t, _)) = self.twins.get(&v) {
            return Some(t);
        }
        if self.f.ty(v) != Ty::I32 {
            return None;
        }
        if let Some(&w) = self.wide.get(&v) {
            return Some(w);
        }
        let op = match self.constant(v) {
            // A constant may be defined in the loop: its value before it.
            Some(c) => Op::Const(c as Word),
            None if !self.written[v.index()] => Op::Convert(v),
            None => return None,
        };
        let w = assign(self.f, &mut self.before, Ty::I64, op);
        self.wide.insert(v, w);
        Some(w)
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) {
        match s {
            Stmt::Assign { dst, op } if self.f.vregs[dst.index()].kind == VRegKind::Temp => {
                self.assign(dst, op, out)
            }
            Stmt::If { cond, then_, else_ } => {
                let mut t = Vec::new();
                for s in then_.0 {
                    self.stmt(s, &mut t);
                }
                let mut e = Vec::new();
                for s in else_.0 {
                    self.stmt(s, &mut e);
                }
                out.push(Stmt::If {
                    cond,
                    then_: Block(t),
                    else_: Block(e),
                });
            }
            other => out.push(other),
        }
    }

    fn assign(&mut self, dst: VReg, op: Op, out: &mut Vec<Stmt>) {
        let ty = self.f.ty(dst);
        match op {
            Op::Copy(x) if self.twins.contains_key(&x) => {
                let twin = self.twins[&x];
                out.push(Stmt::Assign { dst, op });
                self.twins.insert(dst, twin);
            }
            Op::Binary(b @ (BinOp::Add | BinOp::Sub), x, y) if ty == Ty::I32 => {
                out.push(Stmt::Assign { dst, op });
                // `x + c`, `c + x` or `x - c` with `x` tracked.
                let tracked = match (b, self.twins.get(&x), self.twins.get(&y)) {
                    (_, Some(&(x64, off)), None) => self.constant(y).map(|c| {
                        let c = if b == BinOp::Sub { c.checked_neg() } else { Some(c) };
                        (x64, off, c)
                    }),
                    (BinOp::Add, None, Some(&(y64, off))) => self.constant(x).map(|c| (y64, off, Some(c))),
                    _ => None,
                };
                if let Some((x64, off, Some(c))) = tracked {
                    if let Some(sum) = off.checked_add(c).filter(|&s| self.in_range(s).is_some()) {
                        let c64 = assign(self.f, out, Ty::I64, Op::Const(c as Word));
                        let t64 = assign(self.f, out, Ty::I64, Op::Binary(BinOp::Add, x64, c64));
                        self.twins.insert(dst, (t64, sum));
                    }
                }
            }
            Op::Convert(x) if ty == Ty::I64 && self.twins.contains_key(&x) => {
                let x64 = self.twins[&x].0;
                out.push(Stmt::Assign {
                    dst,
                    op: Op::Copy(x64),
                });
            }
            Op::Cmp(c, a, b)
                if self.f.ty(a) == Ty::I32
                    && (self.twins.contains_key(&a) || self.twins.contains_key(&b)) =>
            {
                match (self.wide(a), self.wide(b)) {
                    (Some(a64), Some(b64)) => out.push(Stmt::Assign {
                        dst,
                        op: Op::Cmp(c, a64, b64),
                    }),
                    _ => out.push(Stmt::Assign {
                        dst,
                        op: Op::Cmp(c, a, b),
                    }),
                }
            }
            op => out.push(Stmt::Assign { dst, op }),
        }
    }
}
