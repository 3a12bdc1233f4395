//! Strength reduction (`x64::strength`) on hand-built IR: the reduced
//! function against `ir::eval` of the original (bit for bit, wrapping
//! overflow and early exits included), the machine code against both, and
//! what the pass rewrites (or must leave alone).

mod common;
use common::*;
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{
    BinOp, Block, CmpOp, FuncId, FunctionBuilder, Module, ModuleBuilder, Op, Stmt, Ty, VReg, Word,
};
use spy_jit::x64::{simplify::simplify, strength::reduce};

/// A lowered `for v in range(start, stop)` (as `interp/src/lower` builds
/// it): `start`/`stop` are i32 values, `v` an i32 local; `body` gets the
/// iteration's i64 temporary and `v`.
fn range_loop(
    f: &mut FunctionBuilder,
    start: VReg,
    stop: VReg,
    step: Word,
    body: impl FnOnce(&mut FunctionBuilder, VReg, VReg),
) {
    let start64 = f.convert(Ty::I64, start);
    let stop64 = f.convert(Ty::I64, stop);
    let stepc = f.const_(Ty::I64, step);
    let next = f.local(Ty::I64);
    let v = f.local(Ty::I32);
    f.assign(next, Op::Copy(start64));
    f.loop_(|f| {
        let i = f.op(Ty::I64, Op::Copy(next));
        let below = f.cmp(CmpOp::Lt, i, stop64);
        f.if_(below, |_| {}, |f| f.break_());
        let adv = f.binary(BinOp::Add, i, stepc);
        f.assign(next, Op::Copy(adv));
        let value = f.convert(Ty::I32, i);
        f.assign(v, Op::Copy(value));
        body(f, i, v);
    });
}

/// Every function of `m` reduced (after simplification, as the backend does).
fn reduced(m: &Module) -> Module {
    let mut r = m.clone();
    for f in &mut r.functions {
        *f = reduce(&simplify(f));
    }
    spy_jit::ir::verify(&r).expect("the reduced module verifies");
    r
}

/// Multiplications left inside loops nested at least `min` deep (1: any loop).
fn muls_in_loops(b: &Block, min: u32) -> usize {
    muls_at(b, 0, min)
}

fn muls_at(b: &Block, depth: u32, min: u32) -> usize {
    let mut k = 0;
    for s in &b.0 {
        match s {
            Stmt::Assign {
                op: Op::Binary(BinOp::Mul, ..),
                ..
            } if depth >= min => k += 1,
            Stmt::If { then_, else_, .. } => k += muls_at(then_, depth, min) + muls_at(else_, depth, min),
            Stmt::Loop { body } => k += muls_at(body, depth + 1, min),
            _ => {}
        }
    }
    k
}

/// Original IR (eval), reduced IR (eval) and machine code agree on every input.
fn agree(m: &Module, f: FuncId, inputs: &[Vec<Word>]) {
    let r = reduced(m);
    let mut both = Both::new(m.clone(), 100);
    for args in inputs {
        let want = eval::call(m, f, args, &eval_opts(100), &mut NoHelpers);
        let got = eval::call(&r, f, args, &eval_opts(100), &mut NoHelpers);
        assert_eq!(got, want, "reduced IR, args {args:?}");
        assert_eq!(both.jit(f, args), want, "machine code, args {args:?}");
    }
}

/// `total += i64(i) * i64(j)` over `range(a, b) x range(c, d)`.
fn nested_module() -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("nested", &[Ty::I32, Ty::I32, Ty::I32, Ty::I32], &[Ty::I64]);
    let mut f = m.function(id);
    let (a, b, c, d) = (f.param(0), f.param(1), f.param(2), f.param(3));
    let total = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    f.assign(total, Op::Copy(zero));
    range_loop(&mut f, a, b, 1, |f, _, i| {
        range_loop(f, c, d, 1, |f, _, j| {
            let x = f.convert(Ty::I64, i);
            let y = f.convert(Ty::I64, j);
            let p = f.binary(BinOp::Mul, x, y);
            let t = f.binary(BinOp::Add, total, p);
            f.assign(total, Op::Copy(t));
        });
    });
    f.ret(&[total]);
    m.define(f);
    (m.finish().unwrap(), id)
}

fn w32(v: i32) -> Word {
    v as i64 as u64
}

#[test]
fn nested_range_loops_lose_their_multiplication() {
    let (m, f) = nested_module();
    assert_eq!(muls_in_loops(&m.functions[0].body, 2), 1);
    // The inner loop has none left (the outer one computes `i * c` once per row).
    assert_eq!(muls_in_loops(&reduced(&m).functions[0].body, 2), 0);
    let r = eval::call(
        &m,
        f,
        &[w32(0), w32(200), w32(0), w32(100)],
        &eval_opts(10),
        &mut NoHelpers,
    );
    assert_eq!(
        r.unwrap(),
        vec![(0..200i64).sum::<i64>() as u64 * (0..100i64).sum::<i64>() as u64]
    );
    agree(
        &m,
        f,
        &[
            vec![w32(0), w32(200), w32(0), w32(100)],
            vec![w32(-50), w32(7), w32(-3), w32(40)],
            // Empty loops, and loops at the ends of the i32 range.
            vec![w32(5), w32(5), w32(0), w32(10)],
            vec![w32(0), w32(3), w32(10), w32(-10)],
            vec![w32(i32::MAX - 3), w32(i32::MAX), w32(i32::MIN), w32(i32::MIN + 4)],
            vec![w32(i32::MIN), w32(i32::MIN + 3), w32(i32::MAX - 5), w32(i32::MAX)],
        ],
    );
}

/// `n: i64` stepped by a large constant from a parameter, `p = x * n` with
/// `x` a parameter: the products wrap; the loop counts `k` iterations.
fn wrapping_module(ty: Ty, step: Word) -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("wrap", &[ty, ty, Ty::I64], &[ty]);
    let mut f = m.function(id);
    let (start, x, k) = (f.param(0), f.param(1), f.param(2));
    let n = f.local(ty);
    let count = f.local(Ty::I64);
    let acc = f.local(ty);
    let zero = f.const_(Ty::I64, 0);
    let zero_t = f.const_(ty, 0);
    let one = f.const_(Ty::I64, 1);
    let c = f.const_(ty, step);
    f.assign(n, Op::Copy(start));
    f.assign(count, Op::Copy(zero));
    f.assign(acc, Op::Copy(zero_t));
    f.loop_(|f| {
        let r = f.op(ty, Op::Copy(n));
        let more = f.cmp(CmpOp::Lt, count, k);
        f.if_(more, |_| {}, |f| f.break_());
        let c1 = f.binary(BinOp::Add, count, one);
        f.assign(count, Op::Copy(c1));
        let adv = f.binary(BinOp::Add, r, c);
        f.assign(n, Op::Copy(adv));
        let p = f.binary(BinOp::Mul, r, x);
        let s = f.binary(BinOp::Xor, acc, p);
        let s2 = f.binary(BinOp::Add, s, r);
        f.assign(acc, Op::Copy(s2));
    });
    f.ret(&[acc]);
    m.define(f);
    (m.finish().unwrap(), id)
}

#[test]
fn wrapping_products_of_i64_and_u64_induction_variables_are_exact() {
    for ty in [Ty::I64, Ty::U64] {
        let (m, f) = wrapping_module(ty, 0x7fff_ffff_ffff_fff1);
        assert_eq!(muls_in_loops(&reduced(&m).functions[0].body, 1), 0, "{ty:?}");
        agree(
            &m,
            f,
            &[
                vec![0, 3, 10],
                vec![i64::MAX as u64 - 2, 0x1234_5678_9abc_def1, 50],
                vec![i64::MIN as u64, u64::MAX, 33],
                vec![u64::MAX, i64::MIN as u64, 7],
                vec![5, 7, 0],
            ],
        );
    }
}

/// Early exits: a `break` after the product, a `continue` before and after
/// `n`'s update, a `return` from inside the loop.
fn early_exit_module() -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("early", &[Ty::I32, Ty::I32, Ty::I64], &[Ty::I64]);
    let mut f = m.function(id);
    let (stop, x32, limit) = (f.param(0), f.param(1), f.param(2));
    let total = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    let zero32 = f.const_(Ty::I32, 0);
    f.assign(total, Op::Copy(zero));
    range_loop(&mut f, zero32, stop, 3, |f, i, _| {
        let x = f.convert(Ty::I64, x32);
        let p = f.binary(BinOp::Mul, i, x);
        let seven = f.const_(Ty::I64, 7);
        let m7 = f.binary(BinOp::And, i, seven);
        let one = f_const(f, 1);
        let is1 = f.cmp(CmpOp::Eq, m7, one);
        f.if_(is1, |f| f.continue_(), |_| {});
        let t = f.binary(BinOp::Add, total, p);
        f.assign(total, Op::Copy(t));
        let big = f.cmp(CmpOp::Gt, total, limit);
        f.if_(big, |f| f.break_(), |_| {});
        let four = f_const(f, 4);
        let is4 = f.cmp(CmpOp::Eq, m7, four);
        f.if_(is4, |f| f.ret(&[p]), |_| {});
    });
    f.ret(&[total]);
    m.define(f);
    (m.finish().unwrap(), id)
}

fn f_const(f: &mut FunctionBuilder, w: Word) -> VReg {
    f.const_(Ty::I64, w)
}

#[test]
fn loops_that_exit_early_keep_their_results() {
    let (m, f) = early_exit_module();
    assert_eq!(muls_in_loops(&reduced(&m).functions[0].body, 1), 0);
    let mut inputs = vec![];
    for stop in [0, 1, 2, 10, 100, 1000] {
        for x in [0, 1, -1, 5, i32::MAX, i32::MIN] {
            for limit in [i64::MIN, -1, 0, 100, 10_000, i64::MAX] {
                inputs.push(vec![w32(stop), w32(x), limit as u64]);
            }
        }
    }
    agree(&m, f, &inputs);
}

/// `i64(v)` of the i32 loop local without the `v < stop` test proving it in
/// range (the loop counts on another local): not reduced, since `i32(n)`
/// wraps when `n` leaves the i32 range.
#[test]
fn an_i32_induction_variable_without_a_range_test_is_left_alone() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("unproven", &[Ty::I64, Ty::I64], &[Ty::I64]);
    let mut f = m.function(id);
    let (start, k) = (f.param(0), f.param(1));
    let n = f.local(Ty::I64);
    let v = f.local(Ty::I32);
    let count = f.local(Ty::I64);
    let total = f.local(Ty::I64);
    let zero = f.const_(Ty::I64, 0);
    let one = f.const_(Ty::I64, 1);
    let three = f.const_(Ty::I64, 3);
    f.assign(n, Op::Copy(start));
    f.assign(count, Op::Copy(zero));
    f.assign(total, Op::Copy(zero));
    f.loop_(|f| {
        let r = f.op(Ty::I64, Op::Copy(n));
        let more = f.cmp(CmpOp::Lt, count, k);
        f.if_(more, |_| {}, |f| f.break_());
        let c1 = f.binary(BinOp::Add, count, one);
        f.assign(count, Op::Copy(c1));
        let adv = f.binary(BinOp::Add, r, one);
        f.assign(n, Op::Copy(adv));
        let value = f.convert(Ty::I32, r);
        f.assign(v, Op::Copy(value));
        let y = f.convert(Ty::I64, v);
        let p = f.binary(BinOp::Mul, y, three);
        let t = f.binary(BinOp::Add, total, p);
        f.assign(total, Op::Copy(t));
    });
    f.ret(&[total]);
    m.define(f);
    let m = m.finish().unwrap();
    assert_eq!(muls_in_loops(&reduced(&m).functions[0].body, 1), 1);
    agree(
        &m,
        id,
        &[
            vec![i32::MAX as u64 - 2, 6],
            vec![0, 10],
            vec![(i32::MIN as i64 - 2) as u64, 5],
        ],
    );
}
