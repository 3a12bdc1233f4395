//! Exit tests rewritten with value ranges (`x64::exits`) on hand-built IR:
//! what the rewrite leaves (an offset comparison of the counter itself, a
//! count-down in place of a counter that only counts) or must leave alone,
//! and the rewritten function against `ir::eval` of the original (bit for
//! bit, errors, early exits and empty loops included), the machine code
//! against both.

mod common;
use common::*;
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{
    BinOp, Block, CmpOp, FuncId, FunctionBuilder, Module, ModuleBuilder, Op, Stmt, Ty, VReg, Word,
};
use spy_jit::x64::module::optimize;

/// Every function of `m` as the back end compiles it.
fn optimized(m: &Module) -> Module {
    let mut r = m.clone();
    for f in &mut r.functions {
        *f = optimize(f);
    }
    spy_jit::ir::verify(&r).expect("the optimized module verifies");
    r
}

/// Original IR (eval), optimized IR (eval) and machine code agree.
fn agree(m: &Module, f: FuncId, inputs: &[Vec<Word>]) {
    let r = optimized(m);
    let mut both = Both::new(m.clone(), 100);
    for args in inputs {
        let want = eval::call(m, f, args, &eval_opts(100), &mut NoHelpers);
        let got = eval::call(&r, f, args, &eval_opts(100), &mut NoHelpers);
        assert_eq!(got, want, "optimized IR, args {args:?}");
        assert_eq!(both.jit(f, args), want, "machine code, args {args:?}");
    }
}

fn count(b: &Block, pred: &impl Fn(&Stmt) -> bool) -> usize {
    let mut n = 0;
    spy_jit::ir::visit::walk(b, &mut |s| n += usize::from(pred(s)));
    n
}

fn adds(b: &Block) -> usize {
    count(b, &|s| {
        matches!(
            s,
            Stmt::Assign {
                op: Op::Binary(BinOp::Add, ..),
                ..
            }
        )
    })
}

fn w32(v: i32) -> Word {
    v as i64 as u64
}

/// `k = start; while k + 2 < stop: out[k] = p[k] + p[k + 1] + p[k + 2];
/// k = k + 1` over a buffer of 64 i32 (the stencil's shape, checked
/// accesses so that a wrong index raises), returning `k` and the sum.
fn stencil(start: Option<i32>) -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("stencil", &[Ty::I32, Ty::I32], &[Ty::I32, Ty::I32]);
    let mut f = m.function(id);
    let (p_start, stop) = (f.param(0), f.param(1));
    let k = f.local(Ty::I32);
    let sum = f.local(Ty::I32);
    let start = match start {
        Some(s) => f.const_(Ty::I32, w32(s)),
        None => p_start,
    };
    f.assign(k, Op::Copy(start));
    let zero = f.const_(Ty::I32, 0);
    f.assign(sum, Op::Copy(zero));
    let two = f.const_(Ty::I32, 2);
    let one = f.const_(Ty::I32, 1);
    f.loop_(|f| {
        let kk = f.op(Ty::I32, Op::Copy(k));
        let k2 = f.binary(BinOp::Add, kk, two);
        let more = f.cmp(CmpOp::Lt, k2, stop);
        f.if_(more, |_| {}, |f| f.break_());
        // sum = sum * 3 + (k + 1) * (k + 2): the offsets are read.
        let a = f.binary(BinOp::Add, kk, one);
        let b = f.binary(BinOp::Add, kk, two);
        let p = f.binary(BinOp::Mul, a, b);
        let three = f.const_(Ty::I32, 3);
        let s = f.binary(BinOp::Mul, sum, three);
        let s = f.binary(BinOp::Add, s, p);
        f.assign(sum, Op::Copy(s));
        let n = f.binary(BinOp::Add, kk, one);
        f.assign(k, Op::Copy(n));
    });
    f.ret(&[k, sum]);
    m.define(f);
    (m.finish().unwrap(), id)
}

#[test]
fn an_offset_test_compares_the_counter() {
    let (m, f) = stencil(Some(0));
    let r = optimized(&m);
    // k + 2 goes from the test (k < stop - 2 has a constant only when
    // stop is one: here the stop is a parameter, so the sum stays).
    assert_eq!(
        adds(&r.functions[0].body),
        adds(&simplified(&m).functions[0].body)
    );
    agree(
        &m,
        f,
        &[vec![0, 0], vec![0, 2], vec![0, 3], vec![0, 40], vec![0, w32(-5)]],
    );
    // With a constant stop the comparison reads k: one addition less.
    let (m, f) = constant_stop_stencil(40);
    let r = optimized(&m);
    assert_eq!(
        adds(&r.functions[0].body) + 1,
        adds(&simplified(&m).functions[0].body),
        "{}",
        spy_jit::ir::print::print_function(&r, &r.functions[0])
    );
    agree(&m, f, &[vec![0], vec![1]]);
}

/// The stencil loop with the stop a constant and `k` from the parameter
/// clamped to 0..=30 (so the ranges prove `k + 2` exact).
fn constant_stop_stencil(stop: i32) -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("stencil", &[Ty::I32], &[Ty::I32, Ty::I32]);
    let mut f = m.function(id);
    let p = f.param(0);
    let k = f.local(Ty::I32);
    let sum = f.local(Ty::I32);
    let mask = f.const_(Ty::I32, 31);
    let k0 = f.binary(BinOp::And, p, mask);
    f.assign(k, Op::Copy(k0));
    let zero = f.const_(Ty::I32, 0);
    f.assign(sum, Op::Copy(zero));
    let two = f.const_(Ty::I32, 2);
    let one = f.const_(Ty::I32, 1);
    let stopc = f.const_(Ty::I32, w32(stop));
    f.loop_(|f| {
        let kk = f.op(Ty::I32, Op::Copy(k));
        let k2 = f.binary(BinOp::Add, kk, two);
        let more = f.cmp(CmpOp::Lt, k2, stopc);
        f.if_(more, |_| {}, |f| f.break_());
        let s = f.binary(BinOp::Add, sum, kk);
        f.assign(sum, Op::Copy(s));
        let n = f.binary(BinOp::Add, kk, one);
        f.assign(k, Op::Copy(n));
    });
    f.ret(&[k, sum]);
    m.define(f);
    (m.finish().unwrap(), id)
}

fn simplified(m: &Module) -> Module {
    let mut r = m.clone();
    for f in &mut r.functions {
        *f = spy_jit::x64::simplify::simplify(f);
    }
    r
}

#[test]
fn an_offset_that_may_wrap_is_left_alone() {
    // k from a parameter: k + 2 wraps near MAX, and the loop then goes on.
    let (m, f) = stencil(None);
    let r = optimized(&m);
    assert_eq!(
        adds(&r.functions[0].body),
        adds(&simplified(&m).functions[0].body)
    );
    agree(
        &m,
        f,
        &[
            vec![w32(i32::MAX - 4), w32(i32::MAX)],
            vec![w32(i32::MAX - 1), w32(i32::MIN + 3)],
            vec![w32(i32::MIN), w32(i32::MIN + 5)],
            vec![w32(-3), w32(10)],
        ],
    );
}

/// `for j in range(a, b): acc = acc * 5 + x` with `j` of type `ty` only
/// counting; `extra` adds a `continue` before or after the update (which
/// first bumps `acc`, so the loop goes on), or a `break`.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Extra {
    None,
    ContinueBefore,
    ContinueAfter,
    Break,
}

fn counting(ty: Ty, extra: Extra) -> (Module, FuncId) {
    let mut m = ModuleBuilder::new();
    let id = m.declare("count", &[ty, ty, Ty::I64], &[Ty::I64]);
    let mut f = m.function(id);
    let (a, b, x) = (f.param(0), f.param(1), f.param(2));
    let j = f.local(ty);
    let acc = f.local(Ty::I64);
    f.assign(j, Op::Copy(a));
    let zero = f.const_(Ty::I64, 0);
    f.assign(acc, Op::Copy(zero));
    let one = f.const_(ty, 1);
    let five = f.const_(Ty::I64, 5);
    let seven = f.const_(Ty::I64, 7);
    let one64 = f.const_(Ty::I64, 1);
    let bump_and_continue = |f: &mut FunctionBuilder| {
        let t = f.binary(BinOp::Add, acc, one64);
        f.assign(acc, Op::Copy(t));
        f.continue_();
    };
    f.loop_(|f| {
        let jj = f.op(ty, Op::Copy(j));
        let more = f.cmp(CmpOp::Lt, jj, b);
        f.if_(more, |_| {}, |f| f.break_());
        let odd = f.binary(BinOp::And, acc, seven);
        let is3 = f.cmp(CmpOp::Eq, odd, five);
        if extra == Extra::ContinueBefore {
            f.if_(is3, bump_and_continue, |_| {});
        }
        let n = f.binary(BinOp::Add, jj, one);
        f.assign(j, Op::Copy(n));
        match extra {
            Extra::ContinueAfter => f.if_(is3, bump_and_continue, |_| {}),
            Extra::Break => f.if_(is3, |f| f.break_(), |_| {}),
            _ => {}
        }
        let t = f.binary(BinOp::Mul, acc, five);
        let t = f.binary(BinOp::Add, t, x);
        f.assign(acc, Op::Copy(t));
    });
    f.ret(&[acc]);
    m.define(f);
    (m.finish().unwrap(), id)
}

/// Comparisons `!=` of a u64 (the count-down's test) and `<` in a function.
fn tests_of(b: &Block) -> (usize, usize) {
    let ne = count(b, &|s| {
        matches!(
            s,
            Stmt::Assign {
                op: Op::Cmp(CmpOp::Ne, ..),
                ..
            }
        )
    });
    let lt = count(b, &|s| {
        matches!(
            s,
            Stmt::Assign {
                op: Op::Cmp(CmpOp::Lt, ..),
                ..
            }
        )
    });
    (ne, lt)
}

#[test]
fn a_counter_that_only_counts_counts_down() {
    for ty in [Ty::I32, Ty::U32, Ty::I64, Ty::U64, Ty::I8] {
        for extra in [
            Extra::None,
            Extra::ContinueBefore,
            Extra::ContinueAfter,
            Extra::Break,
        ] {
            let (m, f) = counting(ty, extra);
            let r = optimized(&m);
            let body = &r.functions[0].body;
            // The loop tests `d != 0`; the one `<` left is the entry's
            // `a < b` choosing d's start.
            assert_eq!(tests_of(body), (1, 1), "{ty:?} {extra:?}");
            let c = |v: i64| spy_jit::ir::sem::canon(ty, v as u64);
            let (lo, hi) = if ty.is_signed() {
                let top = (1i128 << (ty.bits() - 1)) - 1;
                (-(top as i64) - 1, top as i64)
            } else {
                (0, ((1u128 << ty.bits()) - 1) as i64)
            };
            let mut inputs = vec![];
            for (a, b) in [
                (0, 0),
                (0, 1),
                (0, 17),
                (5, 3),
                (3, 5),
                (lo, lo),
                (lo, lo + 9),
                (hi - 9, hi),
                (hi, lo),
                (hi, hi),
            ] {
                for x in [0u64, 1, 3, u64::MAX] {
                    inputs.push(vec![c(a), c(b), x]);
                }
            }
            if ty.is_signed() {
                inputs.push(vec![c(-4), c(6), 2]);
                inputs.push(vec![c(-10), c(-2), 2]);
            }
            agree(&m, f, &inputs);
        }
    }
}

/// A counter read after the loop, read in the body, or stepping by 2: not
/// replaced.
#[test]
fn a_counter_that_is_read_is_left_alone() {
    for case in 0..3 {
        let mut m = ModuleBuilder::new();
        let id = m.declare("count", &[Ty::I32, Ty::I32], &[Ty::I32, Ty::I32]);
        let mut f = m.function(id);
        let (a, b) = (f.param(0), f.param(1));
        let j = f.local(Ty::I32);
        let acc = f.local(Ty::I32);
        f.assign(j, Op::Copy(a));
        f.assign(acc, Op::Copy(a));
        let step = f.const_(Ty::I32, if case == 2 { 2 } else { 1 });
        f.loop_(|f: &mut FunctionBuilder| {
            let jj = f.op(Ty::I32, Op::Copy(j));
            let more = f.cmp(CmpOp::Lt, jj, b);
            f.if_(more, |_| {}, |f| f.break_());
            let n = f.binary(BinOp::Add, jj, step);
            f.assign(j, Op::Copy(n));
            let t = if case == 1 {
                f.binary(BinOp::Add, acc, jj)
            } else {
                let c = f.const_(Ty::I32, 3);
                f.binary(BinOp::Add, acc, c)
            };
            f.assign(acc, Op::Copy(t));
        });
        let out: VReg = if case == 0 { j } else { acc };
        f.ret(&[out, acc]);
        m.define(f);
        let m = m.finish().unwrap();
        let r = optimized(&m);
        assert_eq!(tests_of(&r.functions[0].body), (0, 1), "case {case}");
        agree(
            &m,
            id,
            &[
                vec![0, 10],
                vec![w32(-3), 4],
                vec![7, 2],
                vec![w32(i32::MAX - 4), w32(i32::MAX - 1)],
            ],
        );
    }
}
