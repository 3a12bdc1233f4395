//! Modulo induction variables: in a counted loop, `iv % k` by a positive
//! constant `k` is kept in a local updated where `iv` is, instead of
//! being divided out on every iteration (`ptr_x[i] = f64(i % 1000)`).
//!
//! The loop shape (innermost loops only, no nested `Loop`):
//!
//! ```text
//! loop {
//!   <pure temporaries>            # the head: computes `cond`
//!   if cond {} else { break }     # cond: `iv < n`, n not written in the loop
//!   ...                           # t = iv % k (iv, or a copy of it)
//!   iv = iv + s                   # the only write of iv, at the top level
//!   ...
//! }
//! ```
//!
//! with `iv` a signed `I32`/`I64` local and `s > 0` a constant. Every
//! write of `iv` follows a passed test `iv < n`, so `iv + s <= n - 1 + s`:
//! no write wraps when `s == 1` (or `n` is a constant with `n - 1 + s`
//! in range). Without a wrap, `(iv + s) % k == (iv % k + s % k) % k`, and
//! with both terms in `0 .. k` the last `% k` is one conditional
//! subtraction. So, with `m` a new `i64` local:
//!
//! ```text
//! m = i64(iv % k)                 # before the loop (pure: k is not 0)
//! loop {
//!   ...
//!   t = i32(m)                    # was t = iv % k (between the test and the write)
//!   iv = iv + s
//!   m = m + s % k; if m >= k { m = m - k }
//!   ...
//! }
//! ```
//!
//! (`m` is in `0 .. k`, so `i32(m)` is exact, and a conversion of `t` to
//! `i64` or a float converts `m` instead: the same value.)
//!
//! `m` changes exactly when `iv` does (a `continue` before the write skips
//! both), so `m == iv % k` wherever `iv` has the iteration's value. `k` is
//! at most 2^30 (`I32`) or 2^62 (`I64`), so `m + s % k` does not wrap.
//! Only the modulos between the test and the write are replaced: there
//! `iv` holds the tested value.

use super::versioning::{assign, const_temps, head_of, local};
use super::{each_def, walk, walk_stmts};
use crate::ir::{BinOp, Block, CmpOp, ErrCode, Function, Module, Op, Stmt, Ty, VReg, VRegKind, Word};
use foldhash::{HashMap, HashMapExt};

/// Reduce the modulo induction variables of every loop of `m` (verified;
/// the result verifies too). Returns the number of modulos replaced.
pub fn reduce_modulos(m: &mut Module) -> usize {
    let mut n = 0;
    for f in &mut m.functions {
        // Only loops change (a function without one is left as it is).
        if !super::versioning::has_loop(&f.body) {
            continue;
        }
        let consts = const_temps(f);
        let mut body = std::mem::take(&mut f.body);
        n += reduce_block(f, &consts, &mut body);
        f.body = body;
    }
    n
}

fn reduce_block(f: &mut Function, consts: &HashMap<VReg, Word>, b: &mut Block) -> usize {
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
                n += reduce_block(f, consts, &mut then_);
                n += reduce_block(f, consts, &mut else_);
                b.0.push(Stmt::If { cond, then_, else_ });
            }
            Stmt::Loop { mut body } => {
                n += reduce_block(f, consts, &mut body);
                if let Some(p) = plan(f, consts, &body) {
                    n += p.uses.len();
                    apply(f, p, &mut body, &mut b.0);
                }
                b.0.push(Stmt::Loop { body });
            }
            other => b.0.push(other),
        }
    }
    n
}

/// A loop whose modulos of its induction variable can be tracked.
struct Plan {
    iv: VReg,
    step: i64,
    /// Top-level position of the write of `iv`.
    write: usize,
    /// The replaced modulos: destination, divisor, and the error code the
    /// op names (never raised: the divisor is not 0).
    uses: Vec<(VReg, i64, ErrCode)>,
}

/// The largest divisor for an induction variable of type `ty`.
fn max_divisor(ty: Ty) -> i64 {
    if ty == Ty::I32 {
        1 << 30
    } else {
        1 << 62
    }
}

fn plan(f: &Function, consts: &HashMap<VReg, Word>, body: &Block) -> Option<Plan> {
    let mut nested_loop = false;
    let mut writes = vec![0u32; f.vregs.len()];
    let mut defs: HashMap<VReg, &Op> = HashMap::new();
    walk(body, &mut |s| {
        nested_loop |= matches!(s, Stmt::Loop { .. });
        each_def(s, |v| writes[v.index()] += 1);
    });
    if nested_loop {
        return None;
    }
    for s in &body.0 {
        collect_defs(f, s, &mut defs);
    }
    let constant = |v: VReg| -> Option<i64> {
        let w = match defs.get(&v) {
            Some(Op::Const(w)) => *w,
            _ => *consts.get(&v)?,
        };
        Some(w as i64)
    };
    // `v` holds the value of local `iv` (through copies of temporaries).
    let copy_of = |v: VReg, iv: VReg| -> bool {
        let mut v = v;
        for _ in 0..16 {
            if v == iv {
                return true;
            }
            match defs.get(&v) {
                Some(Op::Copy(a)) => v = *a,
                _ => return false,
            }
        }
        false
    };
    let (head, cond) = head_of(f, body)?;
    let Some(Op::Cmp(CmpOp::Lt, a, n)) = defs.get(&cond) else {
        return None;
    };
    // The bound is not written in the loop (a register defined outside it,
    // or a copy of one), or a constant.
    let mut bound = *n;
    while let Some(Op::Copy(x)) = defs.get(&bound) {
        bound = *x;
    }
    if writes[bound.index()] != 0 && constant(bound).is_none() {
        return None;
    }
    // The induction variable: a signed local the test reads, written once,
    // at the top level after the test, by `iv = iv + s`.
    let (write, iv, step) = body.0.iter().enumerate().skip(head + 1).find_map(|(k, s)| {
        let Stmt::Assign { dst: iv, op } = s else {
            return None;
        };
        let iv = *iv;
        let ty = f.ty(iv);
        let candidate = f.vregs[iv.index()].kind == VRegKind::Local
            && matches!(ty, Ty::I32 | Ty::I64)
            && writes[iv.index()] == 1
            && f.ty(*a) == ty
            && copy_of(*a, iv);
        if !candidate {
            return None;
        }
        let mut op = op;
        while let Op::Copy(x) = op {
            op = defs.get(x)?;
        }
        let Op::Binary(BinOp::Add, x, y) = op else {
            return None;
        };
        let step = if copy_of(*x, iv) {
            constant(*y)?
        } else if copy_of(*y, iv) {
            constant(*x)?
        } else {
            return None;
        };
        Some((k, iv, step))
    })?;
    let ty = f.ty(iv);
    let max = if ty == Ty::I32 {
        i64::from(i32::MAX)
    } else {
        i64::MAX
    };
    let no_wrap =
        step == 1 || constant(bound).is_some_and(|n| step > 0 && step <= max && n <= max - step + 1);
    if step <= 0 || !no_wrap {
        return None;
    }
    let mut uses = Vec::new();
    {
        walk_stmts(&body.0[head + 1..write], &mut |s| {
            let Stmt::Assign {
                dst,
                op: Op::FloorMod { a, b, on_zero },
            } = s
            else {
                return;
            };
            if f.ty(*dst) != ty || !copy_of(*a, iv) {
                return;
            }
            if let Some(k) = constant(*b).filter(|&k| (1..=max_divisor(ty)).contains(&k)) {
                uses.push((*dst, k, *on_zero));
            }
        });
    }
    (!uses.is_empty()).then_some(Plan {
        iv,
        step,
        write,
        uses,
    })
}

/// The defining op of every temporary of `s` (nested statements included).
fn collect_defs<'a>(f: &Function, s: &'a Stmt, defs: &mut HashMap<VReg, &'a Op>) {
    match s {
        Stmt::Assign { dst, op } if f.vregs[dst.index()].kind == VRegKind::Temp => {
            defs.insert(*dst, op);
        }
        Stmt::If { then_, else_, .. } => {
            for s in then_.0.iter().chain(&else_.0) {
                collect_defs(f, s, defs);
            }
        }
        _ => {}
    }
}

/// Rewrite the loop `body` by the plan; the initial values go to `before`.
fn apply(f: &mut Function, p: Plan, body: &mut Block, before: &mut Vec<Stmt>) {
    let ty = f.ty(p.iv);
    // The residue lives in an `i64` local (it is in `0 .. k`, so an `i32`
    // residue is its `i32` conversion, and its step needs no extension).
    // One local per divisor: (divisor, local, the divisor in `I64`).
    let mut by_divisor: Vec<(i64, VReg, VReg)> = Vec::new();
    let mut replaced: HashMap<VReg, VReg> = HashMap::new();
    for &(dst, k, on_zero) in &p.uses {
        let m = match by_divisor.iter().find(|d| d.0 == k) {
            Some(d) => d.1,
            None => {
                // The divisor's own register may be defined in the loop: a
                // constant of the same value before it.
                let b = assign(f, before, ty, Op::Const(k as Word));
                let r = assign(f, before, ty, Op::FloorMod { a: p.iv, b, on_zero });
                let m = local(f, Ty::I64);
                before.push(Stmt::Assign {
                    dst: m,
                    op: widened(ty, r),
                });
                let b64 = assign(f, before, Ty::I64, Op::Const(k as Word));
                by_divisor.push((k, m, b64));
                m
            }
        };
        replaced.insert(dst, m);
    }
    for s in &mut body.0[..p.write] {
        replace(f, s, &replaced);
    }
    let mut update = Vec::new();
    for &(k, m, b64) in &by_divisor {
        let s = p.step % k;
        if s == 0 {
            continue;
        }
        let cs = assign(f, before, Ty::I64, Op::Const(s as Word));
        update.push(Stmt::Assign {
            dst: m,
            op: Op::Binary(BinOp::Add, m, cs),
        });
        let over = assign(f, &mut update, Ty::Bool, Op::Cmp(CmpOp::Ge, m, b64));
        update.push(Stmt::If {
            cond: over,
            then_: Block(vec![Stmt::Assign {
                dst: m,
                op: Op::Binary(BinOp::Sub, m, b64),
            }]),
            else_: Block(vec![]),
        });
    }
    let at = p.write + 1;
    body.0.splice(at..at, update);
}

/// `i64(v)` of a register of type `ty` (`I32` or `I64`).
fn widened(ty: Ty, v: VReg) -> Op {
    if ty == Ty::I64 {
        Op::Copy(v)
    } else {
        Op::Convert(v)
    }
}

/// Replace the modulos of `replaced` in `s` by their local (converted to
/// the modulo's type), and a conversion of such a modulo to `i64` or a
/// float by the conversion of the local (the same value).
fn replace(f: &Function, s: &mut Stmt, replaced: &HashMap<VReg, VReg>) {
    match s {
        Stmt::Assign { dst, op } => {
            if let Some(&m) = replaced.get(dst) {
                *op = if f.ty(*dst) == Ty::I64 {
                    Op::Copy(m)
                } else {
                    Op::Convert(m)
                };
            } else if let Op::Convert(x) = *op {
                if let Some(&m) = replaced.get(&x) {
                    match f.ty(*dst) {
                        Ty::I64 => *op = Op::Copy(m),
                        Ty::F64 | Ty::F32 => *op = Op::Convert(m),
                        _ => {}
                    }
                }
            }
        }
        Stmt::If { then_, else_, .. } => {
            for s in then_.0.iter_mut().chain(else_.0.iter_mut()) {
                replace(f, s, replaced);
            }
        }
        _ => {}
    }
}
