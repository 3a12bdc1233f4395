//! Strength reduction of induction-variable multiplications, per loop,
//! before register allocation (after [`super::simplify`], which then runs
//! again to fold what this leaves).
//!
//! A *basic induction variable* of a loop `L` is a 64-bit integer local `n`
//! read at the top of `L`'s body into a temporary `r = Copy(n)` and assigned
//! exactly once in `L`, later at the top level of the body, as `n = r + c`
//! (`c` a constant; directly or through a temporary). A multiplication
//! `p = x * y` (64-bit, wrapping) anywhere in `L` after `r`, where `x` is
//! invariant in `L` and `y` is `r`'s value, is replaced by a new local `k`
//! kept equal to `x * n` (mod 2^64):
//!
//! ```text
//! k = x * n; xc = x * c            -- before the loop (x recomputed there if
//! loop {                              it is a pure temporary of the body)
//!     r = n; kr = k                   -- kr = x * r
//!     ...  n = r + c ...  p = kr ...
//!     k = kr + xc                     -- at the end of the body and before
//! }                                      every `continue` after `n = r + c`
//! ```
//!
//! Exact for every value: wrapping multiplication distributes over wrapping
//! addition mod 2^64, and `k` is only advanced on paths where `n` was. `y`
//! is `r`'s value when it is `r` itself, or `i64(z)` of an `i32` value `z`
//! equal to `i32(r)` (a temporary, or a local assigned once in `L`, at the
//! top level before `y`) *and* `r` is known to be in the `i32` range there:
//! the body tests `r < stop` (leaving the loop otherwise) before `y`, `stop`
//! is `i64` of an `i32` value, `0 < c <= 2^31`, and `n`'s value on entry is
//! `i64` of an `i32` value (the shape of a lowered `for i in range(...)`).

use super::simplify::simplify;
use crate::ir::{BinOp, Block, CmpOp, Function, Op, Stmt, Ty, VReg, VRegInfo, VRegKind, Word};

/// `f` with its induction-variable multiplications strength-reduced (the
/// simplified copy, unchanged when nothing applies).
pub fn reduce(f: &Function) -> Function {
    let mut g = f.clone();
    let mut cx = Cx {
        vregs: std::mem::take(&mut g.vregs),
        defs: vec![],
        changed: false,
    };
    cx.index_defs(&g.body);
    let body = std::mem::take(&mut g.body);
    g.body = cx.block(body);
    g.vregs = cx.vregs;
    if cx.changed {
        simplify(&g)
    } else {
        g
    }
}

struct Cx {
    vregs: Vec<VRegInfo>,
    /// The defining op of every temporary (of the original function).
    defs: Vec<Option<Op>>,
    changed: bool,
}

/// What one loop's body says about a candidate induction variable.
struct Iv {
    n: VReg,
    /// `r = Copy(n)` at top-level index `at`.
    r: VReg,
    r_at: usize,
    /// `n = r + c` at top-level index `at`.
    c: Word,
    assign_at: usize,
    /// Top-level index of `if r < stop {} else {break}` with `stop` in the
    /// i32 range, and `n`'s entry value in the i32 range, `0 < c <= 2^31`.
    i32_from: Option<usize>,
}

fn walk(b: &Block, f: &mut impl FnMut(&Stmt)) {
    for s in &b.0 {
        walk_stmt(s, f);
    }
}

/// `s` and every statement nested in it.
fn walk_stmt(s: &Stmt, f: &mut impl FnMut(&Stmt)) {
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

/// Every value a statement writes.
fn each_def(s: &Stmt, mut f: impl FnMut(VReg)) {
    match s {
        Stmt::Assign { dst, .. } => f(*dst),
        Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => results.iter().copied().for_each(f),
        _ => {}
    }
}

fn writes(s: &Stmt, v: VReg) -> bool {
    let mut w = false;
    walk_stmt(s, &mut |s| each_def(s, |d| w |= d == v));
    w
}

fn assignments(b: &Block, v: VReg) -> usize {
    let mut k = 0;
    walk(b, &mut |s| each_def(s, |d| k += usize::from(d == v)));
    k
}

impl Cx {
    fn kind(&self, v: VReg) -> VRegKind {
        self.vregs[v.index()].kind
    }
    fn ty(&self, v: VReg) -> Ty {
        self.vregs[v.index()].ty
    }
    fn def(&self, v: VReg) -> Option<&Op> {
        self.defs.get(v.index()).and_then(|d| d.as_ref())
    }

    fn index_defs(&mut self, b: &Block) {
        self.defs = vec![None; self.vregs.len()];
        let vregs = &self.vregs;
        let defs = &mut self.defs;
        walk(b, &mut |s| {
            if let Stmt::Assign { dst, op } = s {
                if vregs[dst.index()].kind == VRegKind::Temp {
                    defs[dst.index()] = Some(op.clone());
                }
            }
        });
    }

    fn new_vreg(&mut self, ty: Ty, kind: VRegKind) -> VReg {
        self.vregs.push(VRegInfo { ty, kind });
        self.defs.push(None);
        VReg(self.vregs.len() as u32 - 1)
    }

    /// The block with every loop in it reduced (innermost first).
    fn block(&mut self, b: Block) -> Block {
        let mut out = Vec::with_capacity(b.0.len());
        for s in b.0 {
            match s {
                Stmt::If { cond, then_, else_ } => out.push(Stmt::If {
                    cond,
                    then_: self.block(then_),
                    else_: self.block(else_),
                }),
                Stmt::Loop { body } => {
                    let mut body = self.block(body);
                    // One product at a time (each changes the body's indices).
                    for _ in 0..16 {
                        let Some(pre) = self.reduce_one(&out, &mut body) else {
                            break;
                        };
                        out.extend(pre);
                    }
                    out.push(Stmt::Loop { body });
                }
                s => out.push(s),
            }
        }
        Block(out)
    }

    /// The constant of a temporary.
    fn konst(&self, v: VReg) -> Option<Word> {
        match self.def(v) {
            Some(Op::Const(w)) if self.kind(v) == VRegKind::Temp => Some(*w),
            _ => None,
        }
    }

    /// Whether `v` (an `i64`) is `i64` of an `i32` value (so in the i32 range).
    fn i32_ranged(&self, v: VReg) -> bool {
        if let Some(w) = self.konst(v) {
            return i32::try_from(w as i64).is_ok();
        }
        match self.def(v) {
            Some(Op::Convert(a)) if self.kind(v) == VRegKind::Temp => self.ty(*a) == Ty::I32,
            _ => false,
        }
    }

    /// The induction variables of a loop body (before the loop: `pre`).
    fn ivs(&self, pre: &[Stmt], body: &Block) -> Vec<Iv> {
        let st = &body.0;
        let mut found = vec![];
        for (r_at, s) in st.iter().enumerate() {
            let Stmt::Assign {
                dst: r,
                op: Op::Copy(n),
            } = s
            else {
                continue;
            };
            let (r, n) = (*r, *n);
            if self.kind(r) != VRegKind::Temp || self.kind(n) != VRegKind::Local {
                continue;
            }
            if !matches!(self.ty(n), Ty::I64 | Ty::U64) || assignments(body, n) != 1 {
                continue;
            }
            // The single assignment: top level, after r.
            let Some(assign_at) = st.iter().position(|s| writes(s, n)) else {
                continue;
            };
            if assign_at <= r_at {
                continue;
            }
            let Stmt::Assign { op, .. } = &st[assign_at] else {
                continue;
            };
            let add = match op {
                Op::Copy(t) if self.kind(*t) == VRegKind::Temp => self.def(*t).cloned(),
                op @ Op::Binary(..) => Some(op.clone()),
                _ => None,
            };
            let Some(Op::Binary(BinOp::Add, a, b)) = add else {
                continue;
            };
            let c_reg = if a == r {
                b
            } else if b == r {
                a
            } else {
                continue;
            };
            let Some(c) = self.konst(c_reg) else {
                continue;
            };
            let i32_from = self.i32_test(pre, st, n, r, r_at, assign_at, c);
            found.push(Iv {
                n,
                r,
                r_at,
                c,
                assign_at,
                i32_from,
            });
        }
        found
    }

    /// Where `r` is known to be in the i32 range (see the module comment).
    #[allow(clippy::too_many_arguments)]
    fn i32_test(
        &self,
        pre: &[Stmt],
        st: &[Stmt],
        n: VReg,
        r: VReg,
        r_at: usize,
        assign_at: usize,
        c: Word,
    ) -> Option<usize> {
        if self.ty(n) != Ty::I64 || c == 0 || c > 1 << 31 {
            return None;
        }
        // n's entry value: the last statement before the loop writing it is
        // a plain top-level assignment of an i32-ranged value.
        let last = pre.iter().rposition(|s| writes(s, n))?;
        let entry_ok = match &pre[last] {
            Stmt::Assign { op: Op::Copy(s0), .. } => self.i32_ranged(*s0),
            Stmt::Assign { op: Op::Const(w), .. } => i32::try_from(*w as i64).is_ok(),
            _ => false,
        };
        if !entry_ok {
            return None;
        }
        // The exit test, between r and n's assignment.
        for (t, s) in st.iter().enumerate().take(assign_at).skip(r_at + 1) {
            let Stmt::If { cond, then_, else_ } = s else {
                continue;
            };
            let exits_unless = match (then_.0.as_slice(), else_.0.as_slice()) {
                ([], [Stmt::Break]) => true,
                ([Stmt::Break], []) => false,
                _ => continue,
            };
            // Through copies of temporaries (the lowering's `pos & below | ...`
            // simplified down to `below`).
            let mut cv = *cond;
            while let Some(Op::Copy(a)) = self.def(cv) {
                if self.kind(*a) != VRegKind::Temp {
                    break;
                }
                cv = *a;
            }
            let holds = match self.def(cv) {
                Some(&Op::Cmp(CmpOp::Lt, a, stop)) if exits_unless && a == r => Some(stop),
                Some(&Op::Cmp(CmpOp::Gt, stop, a)) if exits_unless && a == r => Some(stop),
                Some(&Op::Cmp(CmpOp::Ge, a, stop)) if !exits_unless && a == r => Some(stop),
                _ => None,
            };
            if let Some(stop) = holds {
                if self.i32_ranged(stop) && (self.kind(*cond) == VRegKind::Temp) {
                    return Some(t);
                }
            }
        }
        None
    }

    /// Whether `y` is `r`'s value at top-level index `at` of the body.
    fn is_iv_value(&self, body: &Block, iv: &Iv, y: VReg, at: usize) -> bool {
        if y == iv.r {
            return true;
        }
        let Some(from) = iv.i32_from else {
            return false;
        };
        if at <= from || self.ty(y) != Ty::I64 {
            return false;
        }
        let Some(Op::Convert(z)) = self.def(y) else {
            return false;
        };
        // A local is read where `y` is defined (at or before `at`).
        let Some(y_at) = body.0.iter().position(|s| {
            let mut d = false;
            walk_stmt(s, &mut |s| {
                d |= matches!(s, Stmt::Assign { dst, .. } if *dst == y)
            });
            d
        }) else {
            return false;
        };
        self.is_i32_of_r(body, iv, *z, y_at)
    }

    /// Whether the i32 value `z` is `i32(r)` when read at top-level index `at`.
    fn is_i32_of_r(&self, body: &Block, iv: &Iv, z: VReg, at: usize) -> bool {
        if self.ty(z) != Ty::I32 {
            return false;
        }
        match self.kind(z) {
            VRegKind::Temp => matches!(self.def(z), Some(Op::Convert(a)) if *a == iv.r),
            VRegKind::Local => {
                if assignments(body, z) != 1 {
                    return false;
                }
                let Some(ja) = body.0.iter().position(|s| writes(s, z)) else {
                    return false;
                };
                let Stmt::Assign { op, .. } = &body.0[ja] else {
                    return false;
                };
                let ok = match op {
                    Op::Copy(w) => self.kind(*w) == VRegKind::Temp && self.is_i32_of_r(body, iv, *w, at),
                    Op::Convert(a) => *a == iv.r,
                    _ => false,
                };
                ok && ja < at && ja > iv.r_at
            }
        }
    }

    /// Whether `x` has one value for the whole loop (`assigned`: the
    /// locals the body writes; `defined`: the temporaries it defines).
    fn invariant(&self, x: VReg, body: &Block, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        match self.kind(x) {
            VRegKind::Local => assignments(body, x) == 0,
            VRegKind::Temp => {
                if !defines(body, x) {
                    return true;
                }
                match self.def(x) {
                    Some(Op::Const(_)) => true,
                    Some(Op::Copy(a) | Op::Convert(a) | Op::Unary(_, a)) => {
                        self.invariant(*a, body, depth + 1)
                    }
                    Some(Op::Binary(_, a, b) | Op::Cmp(_, a, b)) => {
                        self.invariant(*a, body, depth + 1) && self.invariant(*b, body, depth + 1)
                    }
                    _ => false,
                }
            }
        }
    }

    /// A value equal to the invariant `x`, readable before the loop
    /// (recomputing the body's pure temporaries into `pre`).
    fn hoist(&mut self, x: VReg, body: &Block, pre: &mut Vec<Stmt>) -> VReg {
        if self.kind(x) == VRegKind::Local || !defines(body, x) {
            return x;
        }
        let op = self
            .def(x)
            .cloned()
            .expect("an invariant temporary has a definition");
        let op = match op {
            Op::Const(w) => Op::Const(w),
            Op::Copy(a) => Op::Copy(self.hoist(a, body, pre)),
            Op::Convert(a) => Op::Convert(self.hoist(a, body, pre)),
            Op::Unary(u, a) => Op::Unary(u, self.hoist(a, body, pre)),
            Op::Binary(b, a, c) => {
                let a = self.hoist(a, body, pre);
                Op::Binary(b, a, self.hoist(c, body, pre))
            }
            Op::Cmp(k, a, c) => {
                let a = self.hoist(a, body, pre);
                Op::Cmp(k, a, self.hoist(c, body, pre))
            }
            _ => unreachable!("checked by `invariant`"),
        };
        let t = self.new_vreg(self.ty(x), VRegKind::Temp);
        self.defs[t.index()] = Some(op.clone());
        pre.push(Stmt::Assign { dst: t, op });
        t
    }

    /// Reduce one product of a loop (its nested loops already reduced):
    /// the statements to put before the loop, or `None` if none applies.
    fn reduce_one(&mut self, before: &[Stmt], body: &mut Block) -> Option<Vec<Stmt>> {
        for iv in self.ivs(before, body) {
            let ty = self.ty(iv.n);
            let mut found = None;
            for (at, s) in body.0.iter().enumerate().skip(iv.r_at + 1) {
                walk_stmt(s, &mut |s| {
                    if found.is_some() {
                        return;
                    }
                    let Stmt::Assign {
                        dst: p,
                        op: Op::Binary(BinOp::Mul, a, b),
                    } = *s
                    else {
                        return;
                    };
                    if self.ty(p) != ty || self.kind(p) != VRegKind::Temp {
                        return;
                    }
                    if self.is_iv_value(body, &iv, b, at) && self.invariant(a, body, 0) {
                        found = Some((p, a));
                    } else if self.is_iv_value(body, &iv, a, at) && self.invariant(b, body, 0) {
                        found = Some((p, b));
                    }
                });
                if found.is_some() {
                    break;
                }
            }
            let Some((p, x)) = found else {
                continue;
            };
            self.changed = true;
            let mut pre = vec![];
            let xh = self.hoist(x, body, &mut pre);
            let k = self.new_vreg(ty, VRegKind::Local);
            let c = self.new_temp(ty, Op::Const(iv.c), &mut pre);
            let xc = self.new_temp(ty, Op::Binary(BinOp::Mul, xh, c), &mut pre);
            // n's value on entry, when the statement before the loop says it
            // (so a constant start folds), else n itself.
            let entry = match before.iter().rposition(|s| writes(s, iv.n)).map(|i| &before[i]) {
                Some(Stmt::Assign { op: Op::Copy(s0), .. }) if self.kind(*s0) == VRegKind::Temp => *s0,
                Some(Stmt::Assign { op: Op::Const(w), .. }) => self.new_temp(ty, Op::Const(*w), &mut pre),
                _ => iv.n,
            };
            let k0 = self.new_temp(ty, Op::Binary(BinOp::Mul, xh, entry), &mut pre);
            pre.push(Stmt::Assign {
                dst: k,
                op: Op::Copy(k0),
            });
            let kr = self.new_vreg(ty, VRegKind::Temp);
            self.defs[kr.index()] = Some(Op::Copy(k));
            body.0.insert(
                iv.r_at + 1,
                Stmt::Assign {
                    dst: kr,
                    op: Op::Copy(k),
                },
            );
            replace_def(body, p, Op::Copy(kr));
            self.defs[p.index()] = Some(Op::Copy(kr));
            let advance = Stmt::Assign {
                dst: k,
                op: Op::Binary(BinOp::Add, kr, xc),
            };
            // Wherever the next iteration can start after `n = r + c`
            // (shifted by one by the insertion of `kr`).
            let mut top = std::mem::take(&mut body.0);
            let tail = top.split_off(iv.assign_at + 2);
            top.extend(before_continues(tail, &advance));
            body.0 = top;
            if !super::codegen::ends_in_jump(body) {
                body.0.push(advance);
            }
            return Some(pre);
        }
        None
    }

    fn new_temp(&mut self, ty: Ty, op: Op, pre: &mut Vec<Stmt>) -> VReg {
        let t = self.new_vreg(ty, VRegKind::Temp);
        self.defs[t.index()] = Some(op.clone());
        pre.push(Stmt::Assign { dst: t, op });
        t
    }
}

fn defines(b: &Block, t: VReg) -> bool {
    let mut d = false;
    walk(b, &mut |s| {
        if let Stmt::Assign { dst, .. } = s {
            d |= *dst == t;
        }
    });
    d
}

fn replace_def(b: &mut Block, t: VReg, op: Op) {
    for s in &mut b.0 {
        match s {
            Stmt::Assign { dst, op: o } if *dst == t => *o = op.clone(),
            Stmt::If { then_, else_, .. } => {
                replace_def(then_, t, op.clone());
                replace_def(else_, t, op.clone());
            }
            Stmt::Loop { body } => replace_def(body, t, op.clone()),
            _ => {}
        }
    }
}

/// The statements with `adv` before every `continue` of the loop they
/// belong to (not of loops nested in them).
pub(crate) fn before_continues(st: Vec<Stmt>, adv: &Stmt) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(st.len());
    for s in st {
        match s {
            Stmt::Continue => {
                out.push(adv.clone());
                out.push(Stmt::Continue);
            }
            Stmt::If { cond, then_, else_ } => out.push(Stmt::If {
                cond,
                then_: Block(before_continues(then_.0, adv)),
                else_: Block(before_continues(else_.0, adv)),
            }),
            s => out.push(s),
        }
    }
    out
}
