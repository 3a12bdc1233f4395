//! Loop versioning of bounds checks: a counted loop whose pointer accesses
//! are all at `iv + c` gets an entry test that proves, once, every access of
//! every iteration non-null and in bounds; if it holds a copy of the loop
//! runs with those accesses unchecked (`checked: false`), else the original
//! loop runs and fails on exactly the iteration [`crate::ir::eval`] would.
//!
//! The loop shapes versioned (innermost loops only, no nested `Loop`):
//!
//! ```text
//! loop {
//!   <pure temporaries>            # the head: computes `cond`
//!   if cond {} else { break }     # cond: `iv + W <= n` or `iv + W' < n` (W = W' + 1)
//!   ...                           # accesses p[iv + c] / ptr_simd_load(p, iv + c)
//!   iv = iv + s                   # the only write of iv, at the top level
//!   ...
//! }
//! ```
//!
//! with `iv` a signed `I32`/`I64` local, `s > 0`, `W >= 0`, `c >= 0` small
//! constants, and `n`, every accessed `ptr` and `len` not written in the
//! loop. Only accesses between the test and the write of `iv` are
//! considered (there `iv` has this iteration's value). With `i0` the value
//! of `iv` before the loop, every iteration that reaches an access has
//! `0 <= i0 <= iv <= n - W`; the entry test (in `I64`) is
//!
//! `0 <= i0 <= MAX - K - C && 0 <= n <= MAX - K - C && for each (ptr, len, c, w): ptr != 0 &&
//! n - W + c + w <= len` (`w` the lanes of the access, 1 for a scalar),
//!
//! where `K` bounds `s`, `W` and every `c + w`, and `C` is [`MAX_CONST`]:
//! every value `iv` takes in the copy is in `0 ..= MAX - C` (`i0`, or a
//! tested `iv <= n - W` plus `s <= K`), so no `iv + s`, `iv + W` or `iv +
//! c` of the loop wraps, nor any `iv + c` with `c <= C`, which lets the
//! copy compute the `iv + c` of an `i32` induction variable in `i64`
//! ([`super::widen`]). The test computes only pure operations, so
//! running it is unobservable; when it fails (or no iteration would run)
//! the original loop runs unchanged.

use super::inline::rename_stmt;
use super::{each_def, walk, walk_stmts};
use crate::ir::{BinOp, Block, CmpOp, Function, Module, Op, Stmt, Ty, VReg, VRegInfo, VRegKind, Word};
use foldhash::{HashMap, HashMapExt};

/// The largest constant (`s`, `W`, `c + w`) the proof accepts, and the
/// largest offset `iv + c` of the unchecked copy known not to wrap.
pub(super) const MAX_CONST: i64 = 1 << 20;

/// Version every eligible loop of `m` (verified; the result verifies too).
/// Returns the number of loops versioned.
pub fn version_loops(m: &mut Module) -> usize {
    let mut n = 0;
    for f in &mut m.functions {
        // Only loops change (a function without one is left as it is).
        if !has_loop(&f.body) {
            continue;
        }
        let consts = const_temps(f);
        let mut body = std::mem::take(&mut f.body);
        n += version_block(f, &consts, &mut body);
        f.body = body;
    }
    n
}

/// Whether `b` holds a loop (at any depth).
pub(super) fn has_loop(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Loop { .. } => true,
        Stmt::If { then_, else_, .. } => has_loop(then_) || has_loop(else_),
        _ => false,
    })
}

/// Temporaries defined by a constant anywhere in `f` (defined once, so
/// their value is the same wherever they are read).
pub(super) fn const_temps(f: &Function) -> HashMap<VReg, Word> {
    let mut m = HashMap::new();
    walk(&f.body, &mut |s| {
        if let Stmt::Assign {
            dst,
            op: Op::Const(w),
        } = s
        {
            if f.vregs[dst.index()].kind == VRegKind::Temp {
                m.insert(*dst, *w);
            }
        }
    });
    m
}

fn version_block(f: &mut Function, consts: &HashMap<VReg, Word>, b: &mut Block) -> usize {
    let mut n = 0;
    let old = std::mem::take(&mut b.0);
    b.0.reserve(old.len());
    for s in old {
        match s {
            Stmt::If {
                cond,
                mut then_,
                mut else_,
            } => {
                n += version_block(f, consts, &mut then_);
                n += version_block(f, consts, &mut else_);
                b.0.push(Stmt::If { cond, then_, else_ });
            }
            Stmt::Loop { mut body } => {
                n += version_block(f, consts, &mut body);
                match plan(f, consts, &body) {
                    Some(p) => {
                        n += 1;
                        emit_versioned(f, consts, p, body, &mut b.0);
                    }
                    None => b.0.push(Stmt::Loop { body }),
                }
            }
            other => b.0.push(other),
        }
    }
    n
}

/// A proved loop: its induction variable, bound, and the accesses to prove.
struct Plan {
    iv: VReg,
    n: VReg,
    /// The `W` of `iv + W <= n`.
    w: i64,
    /// `K` of the module comment.
    k: i64,
    /// Per (ptr, len): the largest `c + lanes` of its accesses.
    bufs: Vec<(VReg, VReg, i64)>,
    /// Top-level positions of the test and of the write of `iv`.
    head: usize,
    write: usize,
}

/// What the registers of one loop body hold.
struct Facts<'a> {
    f: &'a Function,
    consts: &'a HashMap<VReg, Word>,
    /// Registers written anywhere in the body.
    written: Vec<bool>,
    /// Temporaries defined before the write of `iv`, by their operation.
    defs: HashMap<VReg, Op>,
}

impl Facts<'_> {
    fn constant(&self, v: VReg) -> Option<i64> {
        let w = match self.defs.get(&v) {
            Some(Op::Const(w)) => *w,
            _ => *self.consts.get(&v)?,
        };
        let c = w as i64;
        (0..=MAX_CONST).contains(&c).then_some(c)
    }
    /// `v` holds the value of a register the loop does not write.
    fn invariant(&self, v: VReg) -> Option<VReg> {
        if !self.written[v.index()] {
            return Some(v);
        }
        match self.defs.get(&v) {
            Some(Op::Copy(a)) => self.invariant(*a),
            _ => None,
        }
    }
    /// `v` holds `iv + c` (exactly, given the entry test): returns `c`.
    fn offset(&self, v: VReg, iv: VReg) -> Option<i64> {
        if v == iv {
            return Some(0);
        }
        match self.defs.get(&v)? {
            Op::Convert(a) if self.widening(*a, v) => self.offset(*a, iv),
            op => self.offset_of(op, iv),
        }
    }
    /// A conversion between the integer types an index goes through that
    /// keeps every value of `0 ..= MAX - K` of the source (the entry test
    /// bounds the value there).
    fn widening(&self, from: VReg, to: VReg) -> bool {
        let int = |t: Ty| matches!(t, Ty::I32 | Ty::I64 | Ty::U64);
        let (a, b) = (self.f.ty(from), self.f.ty(to));
        int(a) && int(b) && b.bits() >= a.bits()
    }
    /// An operation computing `iv + c`: returns `c`.
    fn offset_of(&self, op: &Op, iv: VReg) -> Option<i64> {
        match op {
            Op::Copy(a) => self.offset(*a, iv),
            Op::Binary(BinOp::Add, a, b) => {
                if let (Some(x), Some(c)) = (self.offset(*a, iv), self.constant(*b)) {
                    return Some(x + c);
                }
                let (c, x) = (self.constant(*a)?, self.offset(*b, iv)?);
                Some(x + c)
            }
            _ => None,
        }
    }
}

/// The head of a loop body: pure temporaries, then `if cond {} else {break}`.
pub(super) fn head_of(f: &Function, body: &Block) -> Option<(usize, VReg)> {
    for (k, s) in body.0.iter().enumerate() {
        match s {
            Stmt::Mark(_) => {}
            Stmt::Assign { dst, op } if f.vregs[dst.index()].kind == VRegKind::Temp && pure(op) => {}
            Stmt::If { cond, then_, else_ } if then_.0.is_empty() && else_.0 == [Stmt::Break] => {
                return Some((k, *cond))
            }
            _ => return None,
        }
    }
    None
}

fn pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Const(_) | Op::Copy(_) | Op::Unary(..) | Op::Binary(..) | Op::Cmp(..) | Op::Convert(_)
    )
}

fn plan(f: &Function, consts: &HashMap<VReg, Word>, body: &Block) -> Option<Plan> {
    let mut nested_loop = false;
    let mut written = vec![false; f.vregs.len()];
    let mut writes = vec![0u32; f.vregs.len()];
    walk(body, &mut |s| {
        nested_loop |= matches!(s, Stmt::Loop { .. });
        each_def(s, |v| {
            written[v.index()] = true;
            writes[v.index()] += 1;
        });
    });
    if nested_loop {
        return None;
    }
    let (head, cond) = head_of(f, body)?;
    // The induction variable: a signed local written once, at the top level,
    // after the test, by `iv = iv + s`.
    for (write, s) in body.0.iter().enumerate().skip(head + 1) {
        let Stmt::Assign { dst: iv, .. } = s else { continue };
        let iv = *iv;
        let ty = f.ty(iv);
        if f.vregs[iv.index()].kind != VRegKind::Local
            || !matches!(ty, Ty::I32 | Ty::I64)
            || writes[iv.index()] != 1
        {
            continue;
        }
        let mut defs = HashMap::new();
        walk_stmts(&body.0[..=write], &mut |s| {
            if let Stmt::Assign { dst, op } = s {
                if f.vregs[dst.index()].kind == VRegKind::Temp {
                    defs.insert(*dst, op.clone());
                }
            }
        });
        let facts = Facts {
            f,
            consts,
            written: written.clone(),
            defs,
        };
        let Stmt::Assign { op: inc, .. } = s else {
            unreachable!("matched")
        };
        let step = facts.offset_of(inc, iv);
        if let Some(p) = finish(f, body, facts, iv, step, head, cond, write) {
            return Some(p);
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn finish(
    f: &Function,
    body: &Block,
    facts: Facts<'_>,
    iv: VReg,
    step: Option<i64>,
    head: usize,
    cond: VReg,
    write: usize,
) -> Option<Plan> {
    let step = step.filter(|&s| s > 0)?;
    let ty = f.ty(iv);
    // The test: `iv + W <= n` or `iv < n`, signed, in the type of iv.
    let (w, n) = match facts.defs.get(&cond)? {
        Op::Cmp(CmpOp::Le, a, b) if f.ty(*a) == ty => (facts.offset(*a, iv)?, facts.invariant(*b)?),
        // `iv + W < n` is `iv + (W + 1) <= n` (no wrap, by the entry test).
        Op::Cmp(CmpOp::Lt, a, b) if f.ty(*a) == ty => (facts.offset(*a, iv)? + 1, facts.invariant(*b)?),
        _ => return None,
    };
    let mut bufs: Vec<(VReg, VReg, i64)> = vec![];
    let mut ok = true;
    {
        walk_stmts(&body.0[head + 1..write], &mut |s| {
            let (ptr, len, index, lanes) = match s {
                Stmt::Assign {
                    dst,
                    op: Op::Load { ptr, len, index, .. },
                } => (*ptr, *len, *index, lanes(f.ty(*dst))),
                Stmt::Store {
                    ptr,
                    len,
                    index,
                    value,
                    ..
                } => (*ptr, *len, *index, lanes(f.ty(*value))),
                _ => return,
            };
            match (
                facts.invariant(ptr),
                facts.invariant(len),
                facts.offset(index, iv),
            ) {
                (Some(p), Some(l), Some(c)) => match bufs.iter_mut().find(|b| (b.0, b.1) == (p, l)) {
                    Some(b) => b.2 = b.2.max(c + lanes),
                    None => bufs.push((p, l, c + lanes)),
                },
                _ => ok = false,
            }
        });
    }
    // Every access before the write must be proved (one unproved access
    // would keep its check anyway, but then the copy buys little): keep it simple.
    if !ok || bufs.is_empty() {
        return None;
    }
    let k = bufs.iter().map(|b| b.2).chain([step, w]).max().unwrap_or(0);
    if k > MAX_CONST {
        return None;
    }
    Some(Plan {
        iv,
        n,
        w,
        k,
        bufs,
        head,
        write,
    })
}

fn lanes(t: Ty) -> i64 {
    match t {
        Ty::Vec(v) => i64::from(v.n),
        _ => 1,
    }
}

fn temp(f: &mut Function, ty: Ty) -> VReg {
    f.vregs.push(VRegInfo {
        ty,
        kind: VRegKind::Temp,
    });
    VReg(f.vregs.len() as u32 - 1)
}

/// A new local of type `ty`.
pub(super) fn local(f: &mut Function, ty: Ty) -> VReg {
    f.vregs.push(VRegInfo {
        ty,
        kind: VRegKind::Local,
    });
    VReg(f.vregs.len() as u32 - 1)
}

/// `out += [t = op]` for a new temporary `t` of type `ty`; returns `t`.
pub(super) fn assign(f: &mut Function, out: &mut Vec<Stmt>, ty: Ty, op: Op) -> VReg {
    let d = temp(f, ty);
    out.push(Stmt::Assign { dst: d, op });
    d
}

fn as_i64(f: &mut Function, out: &mut Vec<Stmt>, v: VReg) -> VReg {
    let op = if f.ty(v) == Ty::I64 {
        Op::Copy(v)
    } else {
        Op::Convert(v)
    };
    assign(f, out, Ty::I64, op)
}

/// Append the entry test and `if ok { fast copy } else { original }`.
fn emit_versioned(f: &mut Function, consts: &HashMap<VReg, Word>, p: Plan, body: Block, out: &mut Vec<Stmt>) {
    let max = if f.ty(p.iv) == Ty::I32 {
        i64::from(i32::MAX)
    } else {
        i64::MAX
    };
    let i0 = as_i64(f, out, p.iv);
    let n = as_i64(f, out, p.n);
    let zero = assign(f, out, Ty::I64, Op::Const(0));
    let lim = assign(f, out, Ty::I64, Op::Const((max - p.k - MAX_CONST) as Word));
    let c1 = assign(f, out, Ty::Bool, Op::Cmp(CmpOp::Ge, i0, zero));
    let c2 = assign(f, out, Ty::Bool, Op::Cmp(CmpOp::Ge, n, zero));
    let c3 = assign(f, out, Ty::Bool, Op::Cmp(CmpOp::Le, n, lim));
    let c4 = assign(f, out, Ty::Bool, Op::Cmp(CmpOp::Le, i0, lim));
    let mut ok = assign(f, out, Ty::Bool, Op::Binary(BinOp::And, c1, c2));
    for c in [c3, c4] {
        ok = assign(f, out, Ty::Bool, Op::Binary(BinOp::And, ok, c));
    }
    let null = assign(f, out, Ty::Ptr, Op::Const(0));
    for &(ptr, len, extent) in &p.bufs {
        let nonnull = assign(f, out, Ty::Bool, Op::Cmp(CmpOp::Ne, ptr, null));
        let l = as_i64(f, out, len);
        let lpos = assign(f, out, Ty::Bool, Op::Cmp(CmpOp::Ge, l, zero));
        let extra = assign(f, out, Ty::I64, Op::Const((extent - p.w) as Word));
        let need = assign(f, out, Ty::I64, Op::Binary(BinOp::Add, n, extra));
        let fits = assign(f, out, Ty::Bool, Op::Cmp(CmpOp::Le, need, l));
        for c in [nonnull, lpos, fits] {
            ok = assign(f, out, Ty::Bool, Op::Binary(BinOp::And, ok, c));
        }
    }
    let mut fast = body.clone();
    for s in &mut fast.0[p.head + 1..p.write] {
        uncheck(s);
    }
    // The copy's temporaries, renamed in the order they are defined (not a
    // hash order: the numbering shows in `spy-interp jit` and must not change
    // from run to run).
    let mut fresh: Vec<VReg> = Vec::new();
    let mut seen = foldhash::HashSet::default();
    walk(&fast, &mut |s| {
        each_def(s, |v| {
            if f.vregs[v.index()].kind == VRegKind::Temp && seen.insert(v) {
                fresh.push(v);
            }
        })
    });
    let map: HashMap<VReg, VReg> = fresh.into_iter().map(|v| (v, temp(f, f.ty(v)))).collect();
    for s in &mut fast.0 {
        rename_stmt(s, &|v| map.get(&v).copied().unwrap_or(v));
    }
    // With an `i32` induction variable, `iv + c` is also computed in
    // `i64` in the copy (`widen`).
    let then_ = if f.ty(p.iv) == Ty::I32 {
        let (mut before, fast) = super::widen::widen(f, consts, p.iv, p.write, MAX_CONST, &fast);
        before.push(Stmt::Loop { body: fast });
        before
    } else {
        vec![Stmt::Loop { body: fast }]
    };
    out.push(Stmt::If {
        cond: ok,
        then_: Block(then_),
        else_: Block(vec![Stmt::Loop { body }]),
    });
}

/// Drop the checks of every access in `s` (all proved by the plan).
fn uncheck(s: &mut Stmt) {
    match s {
        Stmt::Assign {
            op: Op::Load { checked, .. },
            ..
        }
        | Stmt::Store { checked, .. } => *checked = false,
        Stmt::If { then_, else_, .. } => {
            then_.0.iter_mut().for_each(uncheck);
            else_.0.iter_mut().for_each(uncheck);
        }
        Stmt::Loop { body } => body.0.iter_mut().for_each(uncheck),
        _ => {}
    }
}
