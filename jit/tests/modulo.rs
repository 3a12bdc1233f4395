//! Modulo induction variables (`spy_jit::opt::modulo`) on hand-built IR:
//! `i % k` of a counted loop's index becomes a local stepped with it; the
//! reduced module gives the original's results (under `ir::eval` and in
//! machine code) for starts below, at and above zero, bounds at the type's
//! maximum, steps other than 1, a `continue` that skips the step, and
//! divisors from 1 to the limit. Loops the reduction must not touch are
//! left alone.

mod common;
use common::*;
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{print, verify, BinOp, CmpOp, FuncId, Module, ModuleBuilder, Op, Stmt, Ty, Word};
use spy_jit::opt::reduce_modulos;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Shape {
    /// `while i < n: ... i % k1, i % k2 ...; i += 1`: reduced.
    Plain,
    /// The same, the modulos inside an `if`, and a `continue` before the
    /// step on every other pass: reduced.
    Continue,
    /// `while i < N` (a constant) stepping by 3: reduced.
    ConstBoundStep3,
    /// `while i < n` stepping by 3 (`n` unknown: the step may wrap): alone.
    Step3,
    /// `while i <= n`: alone.
    LessEqual,
    /// A modulo read after the step: that one is not reduced.
    AfterStep,
    /// `i` written twice in the loop: alone.
    TwoWrites,
}

const K1: i64 = 7;

/// `f(start, n) -> (acc, iters)` over `i` of type `ty`, divisors `k1`, `k2`.
fn module(shape: Shape, ty: Ty, k2: i64) -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[ty, ty], &[Ty::I64, Ty::I64]);
    let mut f = m.function(id);
    let (start, n0) = (f.param(0), f.param(1));
    let i = f.local(ty);
    f.assign(i, Op::Copy(start));
    let acc = f.local(Ty::I64);
    let iters = f.local(Ty::I64);
    let pass = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    for v in [acc, iters, pass] {
        f.assign(v, Op::Copy(zero));
    }
    // The largest bound with which `i + 3` cannot wrap.
    let bound_const: i64 = if ty == Ty::I32 {
        i32::MAX as i64 - 2
    } else {
        i64::MAX - 2
    };
    let step: i64 = match shape {
        Shape::ConstBoundStep3 | Shape::Step3 => 3,
        _ => 1,
    };
    // acc = acc * 1000003 + i64(x) + i64(f64(x) * 0.5) + i64(f32(x))
    let mix = |f: &mut spy_jit::ir::FunctionBuilder, x| {
        let wide = if ty == Ty::I64 { x } else { f.convert(Ty::I64, x) };
        let c = f.const_(Ty::I64, 1_000_003);
        let a = f.binary(BinOp::Mul, acc, c);
        let b = f.binary(BinOp::Add, a, wide);
        let d = f.convert(Ty::F64, x);
        let half = f.const_(Ty::F64, 0.5f64.to_bits());
        let dh = f.binary(BinOp::Mul, d, half);
        let di = f.convert(Ty::I64, dh);
        let b2 = f.binary(BinOp::Add, b, di);
        let g = f.convert(Ty::F32, x);
        let gi = f.convert(Ty::I64, g);
        let b3 = f.binary(BinOp::Add, b2, gi);
        f.assign(acc, Op::Copy(b3));
    };
    f.loop_(|f| {
        let ci = f.op(ty, Op::Copy(i));
        let cond = match shape {
            Shape::ConstBoundStep3 => {
                let n = f.const_(ty, bound_const as u64);
                f.cmp(CmpOp::Lt, ci, n)
            }
            Shape::LessEqual => f.cmp(CmpOp::Le, ci, n0),
            _ => f.cmp(CmpOp::Lt, ci, n0),
        };
        f.if_(cond, |_| {}, |f| f.break_());
        let one = f.const_(Ty::I64, 1);
        let it = f.binary(BinOp::Add, iters, one);
        f.assign(iters, Op::Copy(it));
        if shape == Shape::Continue {
            let p = f.binary(BinOp::Add, pass, one);
            f.assign(pass, Op::Copy(p));
            let two = f.const_(Ty::I64, 2);
            let odd = f.floor_mod(p, two, code(30));
            let skip = f.cmp(CmpOp::Eq, odd, one);
            f.if_(skip, |f| f.continue_(), |_| {});
        }
        let modulos = |f: &mut spy_jit::ir::FunctionBuilder| {
            let a = f.op(ty, Op::Copy(i));
            let k1 = f.const_(ty, K1 as u64);
            let r1 = f.floor_mod(a, k1, code(31));
            mix(f, r1);
            let k2c = f.const_(ty, k2 as u64);
            let r2 = f.floor_mod(a, k2c, code(32));
            mix(f, r2);
        };
        if shape == Shape::Continue {
            let t = f.const_(Ty::Bool, 1);
            f.if_(t, modulos, |_| {});
        } else {
            modulos(f);
        }
        let s = f.const_(ty, step as u64);
        let c2 = f.op(ty, Op::Copy(i));
        let next = f.binary(BinOp::Add, c2, s);
        f.assign(i, Op::Copy(next));
        if shape == Shape::AfterStep {
            let k = f.const_(ty, 10);
            let c3 = f.op(ty, Op::Copy(i));
            let r = f.floor_mod(c3, k, code(33));
            mix(f, r);
        }
        if shape == Shape::TwoWrites {
            let z = f.const_(ty, 0);
            let c4 = f.op(ty, Op::Copy(i));
            let same = f.binary(BinOp::Add, c4, z);
            f.assign(i, Op::Copy(same));
        }
    });
    f.ret(&[acc, iters]);
    m.define(f);
    (m.finish().unwrap(), id)
}

fn floor_mods(m: &Module) -> usize {
    let mut n = 0;
    spy_jit::ir::visit::walk(&m.functions[0].body, &mut |s| {
        n += matches!(
            s,
            Stmt::Assign {
                op: Op::FloorMod { .. },
                ..
            }
        ) as usize
    });
    n
}

/// The (start, n) pairs of a type: around zero, negative, and up to the
/// type's maximum (where `i + 1` is the largest value, not a wrap).
fn cases(ty: Ty) -> Vec<(i64, i64)> {
    let max = if ty == Ty::I32 { i32::MAX as i64 } else { i64::MAX };
    let min = if ty == Ty::I32 { i32::MIN as i64 } else { i64::MIN };
    vec![
        (0, 0),
        (0, 1),
        (0, 1200),
        (-1300, 1300),
        (-7, 3),
        (5, 2),
        (min, min + 900),
        (max - 900, max),
        (max - 1, max),
        (max - 1200, max - 1),
    ]
}

fn word(ty: Ty, x: i64) -> Word {
    if ty == Ty::I32 {
        x as i32 as i64 as Word
    } else {
        x as Word
    }
}

fn check(shape: Shape, ty: Ty, k2: i64, expect_reduced: usize) {
    let (m, f) = module(shape, ty, k2);
    let mut g = m.clone();
    let n = reduce_modulos(&mut g);
    let listing = print::print_function(&g, &g.functions[0]);
    assert_eq!(n, expect_reduced, "{shape:?} {ty:?} k2={k2}\n{listing}");
    verify(&g).unwrap_or_else(|e| panic!("{e:?}\n{listing}"));
    let mut jit = Both::new(g.clone(), 8);
    let max = if ty == Ty::I32 { i32::MAX as i64 } else { i64::MAX };
    for (start, end) in cases(ty) {
        // A loop that would not end (`i <= MAX`), or wrap and run 2^32
        // times (`i += 3` past MAX), is not run.
        let endless = match shape {
            Shape::LessEqual => end == max,
            Shape::Step3 => end > max - 3,
            _ => false,
        };
        if endless {
            continue;
        }
        // `ConstBoundStep3` runs to its own bound: starts just below it.
        let start = if shape == Shape::ConstBoundStep3 {
            max - 1500 + start.rem_euclid(1000)
        } else {
            start
        };
        let args = [word(ty, start), word(ty, end)];
        let want = eval::call(&m, f, &args, &eval_opts(8), &mut NoHelpers);
        let got = eval::call(&g, f, &args, &eval_opts(8), &mut NoHelpers);
        assert_eq!(
            got, want,
            "{shape:?} {ty:?} k2={k2} ({start}, {end}) eval\n{listing}"
        );
        let native = jit.jit(f, &args);
        assert_eq!(
            native, want,
            "{shape:?} {ty:?} k2={k2} ({start}, {end}) jit\n{listing}"
        );
    }
}

#[test]
fn modulos_of_a_counted_index_are_stepped_and_exact() {
    for ty in [Ty::I32, Ty::I64] {
        let limit: i64 = if ty == Ty::I32 { 1 << 30 } else { 1 << 62 };
        for k2 in [1, 2, 3, K1, 1000, 4096, limit - 1, limit] {
            check(Shape::Plain, ty, k2, 2);
            check(Shape::Continue, ty, k2, 2);
            check(Shape::ConstBoundStep3, ty, k2, 2);
            check(Shape::AfterStep, ty, k2, 2);
        }
    }
}

#[test]
fn the_reduced_loop_has_no_modulo_in_it() {
    let (m, _) = module(Shape::Plain, Ty::I32, 1000);
    let mut g = m.clone();
    assert_eq!(floor_mods(&m), 2);
    assert_eq!(reduce_modulos(&mut g), 2);
    // Two modulos before the loop (the initial values), none in it.
    let Stmt::Loop { body } = g.functions[0]
        .body
        .0
        .iter()
        .find(|s| matches!(s, Stmt::Loop { .. }))
        .expect("the loop")
    else {
        unreachable!()
    };
    let mut inside = 0;
    spy_jit::ir::visit::walk(body, &mut |s| {
        inside += matches!(
            s,
            Stmt::Assign {
                op: Op::FloorMod { .. },
                ..
            }
        ) as usize
    });
    assert_eq!(inside, 0, "{}", print::print_function(&g, &g.functions[0]));
    assert_eq!(floor_mods(&g), 2);
}

#[test]
fn loops_the_proof_does_not_cover_are_left_alone() {
    for ty in [Ty::I32, Ty::I64] {
        let limit: i64 = if ty == Ty::I32 { 1 << 30 } else { 1 << 62 };
        check(Shape::Step3, ty, 1000, 0);
        check(Shape::LessEqual, ty, 1000, 0);
        check(Shape::TwoWrites, ty, 1000, 0);
        // A divisor above the limit, zero or negative is not reduced (the
        // other one is).
        for k2 in [limit + 1, 0, -7] {
            check(Shape::Plain, ty, k2, 1);
        }
    }
}
