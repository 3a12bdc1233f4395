//! Value ranges (`x64::range`) on hand-built IR: the intervals of the
//! registers that matter (loop counters bounded by their exit tests, `if`
//! refinements, joins), that every interval holds in runs (the function
//! instrumented with a check after every definition, run by `ir::eval` on
//! edge inputs), and that the machine code, which leaves out extensions the
//! ranges prove unneeded, agrees with `ir::eval`.

mod common;
use common::*;
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{
    BinOp, Block, CmpOp, ErrCode, FuncId, Function, Module, ModuleBuilder, Op, Stmt, Ty, VReg, VRegInfo,
    VRegKind, Word,
};
use spy_jit::x64::range::{value_of, word_of, Interval, Ranges};

const OUT_OF_RANGE: u32 = 77;

fn w32(v: i32) -> Word {
    v as i64 as u64
}

fn iv(lo: i128, hi: i128) -> Option<Interval> {
    Some(Interval::new(lo, hi))
}

/// `f` with `if v < lo or v > hi: raise OUT_OF_RANGE` after every
/// definition of a register whose interval is narrower than its type.
fn instrumented(f: &Function, r: &Ranges) -> Function {
    let mut g = f.clone();
    let body = std::mem::take(&mut g.body);
    g.body = instrument_block(&mut g.vregs, body, r);
    g
}

fn instrument_block(vregs: &mut Vec<VRegInfo>, b: Block, r: &Ranges) -> Block {
    let mut out = vec![];
    for s in b.0 {
        let defined = match &s {
            Stmt::Assign { dst, .. } => vec![*dst],
            Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => results.clone(),
            _ => vec![],
        };
        let s = match s {
            Stmt::If { cond, then_, else_ } => Stmt::If {
                cond,
                then_: instrument_block(vregs, then_, r),
                else_: instrument_block(vregs, else_, r),
            },
            Stmt::Loop { body } => Stmt::Loop {
                body: instrument_block(vregs, body, r),
            },
            s => s,
        };
        out.push(s);
        for v in defined {
            let ty = vregs[v.index()].ty;
            let (Some(got), Some(full)) = (r.get(v), Interval::of_type(ty)) else {
                continue;
            };
            if got == full {
                continue;
            }
            let mut temp = |ty: Ty| {
                vregs.push(VRegInfo {
                    ty,
                    kind: VRegKind::Temp,
                });
                VReg(vregs.len() as u32 - 1)
            };
            let (lo, hi, below, above, either) =
                (temp(ty), temp(ty), temp(Ty::Bool), temp(Ty::Bool), temp(Ty::Bool));
            out.push(Stmt::Assign {
                dst: lo,
                op: Op::Const(word_of(ty, got.lo)),
            });
            out.push(Stmt::Assign {
                dst: hi,
                op: Op::Const(word_of(ty, got.hi)),
            });
            out.push(Stmt::Assign {
                dst: below,
                op: Op::Cmp(CmpOp::Lt, v, lo),
            });
            out.push(Stmt::Assign {
                dst: above,
                op: Op::Cmp(CmpOp::Gt, v, hi),
            });
            out.push(Stmt::Assign {
                dst: either,
                op: Op::Binary(BinOp::Or, below, above),
            });
            out.push(Stmt::If {
                cond: either,
                then_: Block(vec![Stmt::Raise {
                    code: ErrCode::new(OUT_OF_RANGE).unwrap(),
                    operands: [Some(v), None],
                }]),
                else_: Block(vec![]),
            });
        }
    }
    Block(out)
}

/// Every interval holds on every input (instrumented `ir::eval`), and the
/// machine code agrees with `ir::eval` of the original.
fn check_runs(m: &Module, f: FuncId, inputs: &[Vec<Word>]) {
    let func = m.function(f);
    let r = Ranges::analyse(func);
    let mut im = m.clone();
    im.functions[f.0 as usize] = instrumented(func, &r);
    spy_jit::ir::verify(&im).expect("the instrumented module verifies");
    let mut both = Both::new(m.clone(), 100);
    for args in inputs {
        let want = eval::call(m, f, args, &eval_opts(100), &mut NoHelpers);
        let checked = eval::call(&im, f, args, &eval_opts(100), &mut NoHelpers);
        assert_eq!(checked, want, "an interval does not hold, args {args:?}");
        assert_eq!(both.jit(f, args), want, "machine code, args {args:?}");
    }
}

/// `k = start; while k + d < stop: out = out * 3 + k + 1; k = k + step` (i32),
/// returning `out` and the final `k`, or leaving after `fuel` iterations
/// (the third parameter) when the sums wrap and the loop would go on; the
/// registers of interest:
/// (k read at the top, k + d, k read after the test, k + 1, k's update).
struct Counted {
    m: Module,
    f: FuncId,
    top: VReg,
    plus_d: VReg,
    after: VReg,
    plus_one: VReg,
    next: VReg,
}

fn counted(start: Option<i32>, stop: Option<i32>, d: i32, step: i32) -> Counted {
    let mut m = ModuleBuilder::new();
    let id = m.declare("counted", &[Ty::I32, Ty::I32, Ty::I64], &[Ty::I32, Ty::I32]);
    let mut f = m.function(id);
    let (p_start, p_stop, fuel) = (f.param(0), f.param(1), f.param(2));
    let left = f.local(Ty::I64);
    f.assign(left, Op::Copy(fuel));
    let one64 = f.const_(Ty::I64, 1);
    let zero64 = f.const_(Ty::I64, 0);
    let k = f.local(Ty::I32);
    let out = f.local(Ty::I32);
    let start = match start {
        Some(s) => f.const_(Ty::I32, w32(s)),
        None => p_start,
    };
    let stop = match stop {
        Some(s) => f.const_(Ty::I32, w32(s)),
        None => p_stop,
    };
    f.assign(k, Op::Copy(start));
    let zero = f.const_(Ty::I32, 0);
    f.assign(out, Op::Copy(zero));
    let dc = f.const_(Ty::I32, w32(d));
    let one = f.const_(Ty::I32, 1);
    let three = f.const_(Ty::I32, 3);
    let stepc = f.const_(Ty::I32, w32(step));
    let mut regs = None;
    f.loop_(|f| {
        let top = f.op(Ty::I32, Op::Copy(k));
        let plus_d = f.binary(BinOp::Add, top, dc);
        let more = f.cmp(CmpOp::Lt, plus_d, stop);
        f.if_(more, |_| {}, |f| f.break_());
        let out_of_fuel = f.cmp(CmpOp::Le, left, zero64);
        f.if_(out_of_fuel, |f| f.break_(), |_| {});
        let l1 = f.binary(BinOp::Sub, left, one64);
        f.assign(left, Op::Copy(l1));
        let after = f.op(Ty::I32, Op::Copy(k));
        let plus_one = f.binary(BinOp::Add, after, one);
        let o = f.binary(BinOp::Mul, out, three);
        let o = f.binary(BinOp::Add, o, plus_one);
        f.assign(out, Op::Copy(o));
        let again = f.op(Ty::I32, Op::Copy(k));
        let next = f.binary(BinOp::Add, again, stepc);
        f.assign(k, Op::Copy(next));
        regs = Some((top, plus_d, after, plus_one, next));
    });
    f.ret(&[out, k]);
    m.define(f);
    let (top, plus_d, after, plus_one, next) = regs.unwrap();
    Counted {
        m: m.finish().unwrap(),
        f: id,
        top,
        plus_d,
        after,
        plus_one,
        next,
    }
}

#[test]
fn a_counted_loop_is_bounded_by_its_exit_test() {
    // The stencil's loop: k = 0; while k + 2 < 10_000_000: ...; k = k + 1.
    let c = counted(Some(0), Some(10_000_000), 2, 1);
    let r = Ranges::analyse(c.m.function(c.f));
    assert_eq!(r.get(c.top), iv(0, 9_999_998));
    assert_eq!(r.get(c.plus_d), iv(2, 10_000_000));
    assert_eq!(r.get(c.after), iv(0, 9_999_997));
    assert_eq!(r.get(c.plus_one), iv(1, 9_999_998));
    assert_eq!(r.get(c.next), iv(1, 9_999_998));
    for v in [c.plus_d, c.plus_one, c.next] {
        assert!(r.exact(v), "{v} wraps");
    }
    // A small one runs to its end in the tests.
    let c = counted(Some(-5), Some(1000), 2, 3);
    let r = Ranges::analyse(c.m.function(c.f));
    assert_eq!(r.get(c.after), iv(-5, 997));
    assert!(r.exact(c.next));
    check_runs(&c.m, c.f, &[vec![0, 0, 1000], vec![0, 0, 10]]);
}

#[test]
fn an_exit_test_at_the_top_of_the_type_still_proves_the_sums() {
    // From 0, k + 2 < MAX: k <= MAX - 3, so k + 1 and k + 2 cannot wrap.
    let c = counted(Some(0), Some(i32::MAX), 2, 1);
    let r = Ranges::analyse(c.m.function(c.f));
    assert!(r.exact(c.plus_d) && r.exact(c.plus_one) && r.exact(c.next));
    assert_eq!(r.get(c.after), iv(0, i32::MAX as i128 - 3));
    // From anywhere: k + 2 may wrap (and then the test passes), and so
    // may k + 1 after it.
    let c = counted(None, Some(i32::MAX), 2, 1);
    let r = Ranges::analyse(c.m.function(c.f));
    assert!(!r.exact(c.plus_d) && !r.exact(c.plus_one) && !r.exact(c.next));
    check_runs(
        &c.m,
        c.f,
        &[
            vec![w32(i32::MAX - 6), 0, 100],
            vec![w32(i32::MAX - 1), 0, 100],
            vec![w32(i32::MAX), 0, 100],
            vec![w32(i32::MIN), 0, 100],
        ],
    );
}

#[test]
fn stops_that_are_not_known() {
    // while k + 2 < n from 0 by 1, n a parameter: k + 2 stops at n <= MAX.
    let c = counted(Some(0), None, 2, 1);
    let r = Ranges::analyse(c.m.function(c.f));
    assert!(r.exact(c.plus_d) && r.exact(c.plus_one) && r.exact(c.next));
    check_runs(
        &c.m,
        c.f,
        &[
            vec![0, 0, 100],
            vec![0, 7, 100],
            vec![0, w32(-3), 100],
            vec![0, 100, 1000],
        ],
    );
    // Counting from near the top with a stop the sum wraps below.
    let c = counted(None, None, 2, 1);
    check_runs(
        &c.m,
        c.f,
        &[
            vec![w32(i32::MAX - 5), w32(i32::MAX), 100],
            vec![w32(i32::MAX - 5), w32(i32::MIN), 100],
            vec![w32(i32::MAX - 1), w32(5), 100],
            vec![w32(-10), w32(-2), 100],
        ],
    );
    // Steps that jump over the stop and wrap.
    let c = counted(Some(0), None, 0, 1 << 30);
    let r = Ranges::analyse(c.m.function(c.f));
    assert!(!r.exact(c.next));
    check_runs(&c.m, c.f, &[vec![0, w32(i32::MAX), 100], vec![0, 5, 100]]);
    let c = counted(None, None, 0, 1 << 30);
    check_runs(
        &c.m,
        c.f,
        &[
            vec![w32(0), w32(i32::MAX), 100],
            vec![w32(i32::MIN), w32(i32::MAX), 100],
            vec![w32(5), w32(6), 100],
        ],
    );
}

/// `if n < 2: return n; return (n - 1) * (n - 2) + (n + 7)` (i32): the
/// `if` bounds `n` from below where the subtractions are.
#[test]
fn an_if_that_leaves_bounds_the_code_after_it() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::I32], &[Ty::I32]);
    let mut f = m.function(id);
    let n = f.param(0);
    let two = f.const_(Ty::I32, 2);
    let small = f.cmp(CmpOp::Lt, n, two);
    f.if_(small, |f| f.ret(&[n]), |_| {});
    let one = f.const_(Ty::I32, 1);
    let seven = f.const_(Ty::I32, 7);
    let a = f.binary(BinOp::Sub, n, one);
    let b = f.binary(BinOp::Sub, n, two);
    let p = f.binary(BinOp::Mul, a, b);
    let c = f.binary(BinOp::Add, n, seven);
    let s = f.binary(BinOp::Add, p, c);
    f.ret(&[s]);
    m.define(f);
    let m = m.finish().unwrap();
    let r = Ranges::analyse(m.function(id));
    assert_eq!(r.get(a), iv(1, i32::MAX as i128 - 1));
    assert_eq!(r.get(b), iv(0, i32::MAX as i128 - 2));
    assert!(r.exact(a) && r.exact(b));
    assert!(!r.exact(p) && !r.exact(c) && !r.exact(s));
    let edges = [
        i32::MIN,
        -1,
        0,
        1,
        2,
        3,
        1000,
        46_341,
        i32::MAX - 7,
        i32::MAX - 1,
        i32::MAX,
    ];
    check_runs(&m, id, &edges.iter().map(|&v| vec![w32(v)]).collect::<Vec<_>>());
}

/// Arms joined, `%` and `&` by constants, conditions through `and` / `or`
/// / `not`, a comparison whose local operand is written before its `if`,
/// and a copy taken before a local is rewritten.
#[test]
fn joins_remainders_masks_and_stale_comparisons() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::I32, Ty::I32], &[Ty::I32]);
    let mut f = m.function(id);
    let (x, y) = (f.param(0), f.param(1));
    let v = f.local(Ty::I32);
    let k1000 = f.const_(Ty::I32, 1000);
    let rem = f.floor_mod(x, k1000, code(5));
    let mask = f.const_(Ty::I32, 255);
    let masked = f.binary(BinOp::And, y, mask);
    let zero = f.const_(Ty::I32, 0);
    let pos = f.cmp(CmpOp::Gt, x, zero);
    let lim = f.const_(Ty::I32, 50);
    let below = f.cmp(CmpOp::Lt, x, lim);
    let both = f.binary(BinOp::And, pos, below);
    let mut in_arm = None;
    f.if_(
        both,
        |f| {
            let one = f.const_(Ty::I32, 1);
            let s = f.binary(BinOp::Add, x, one);
            in_arm = Some(s);
            f.assign(v, Op::Copy(s));
        },
        |f| {
            let c = f.const_(Ty::I32, 100);
            f.assign(v, Op::Copy(c));
        },
    );
    let joined = f.op(Ty::I32, Op::Copy(v));
    // `stale` compares v, then v is written: the `if` says nothing about it.
    let ten = f.const_(Ty::I32, 10);
    let stale = f.cmp(CmpOp::Lt, v, ten);
    let old = f.op(Ty::I32, Op::Copy(v));
    let c500 = f.const_(Ty::I32, 500);
    f.assign(v, Op::Copy(c500));
    let mut after_stale = None;
    let mut after_old = None;
    f.if_(
        stale,
        |f| {
            after_stale = Some(f.op(Ty::I32, Op::Copy(v)));
        },
        |_| {},
    );
    let twenty = f.const_(Ty::I32, 20);
    let small_old = f.cmp(CmpOp::Lt, old, twenty);
    let not_small = f.unary(spy_jit::ir::UnOp::Not, small_old);
    f.if_(
        not_small,
        |f| {
            after_old = Some(f.op(Ty::I32, Op::Copy(v)));
        },
        |_| {},
    );
    let s1 = f.binary(BinOp::Add, joined, rem);
    let s2 = f.binary(BinOp::Add, s1, masked);
    f.ret(&[s2]);
    m.define(f);
    let m = m.finish().unwrap();
    let r = Ranges::analyse(m.function(id));
    assert_eq!(r.get(rem), iv(0, 999));
    assert_eq!(r.get(masked), iv(0, 255));
    assert_eq!(r.get(in_arm.unwrap()), iv(2, 50));
    assert_eq!(r.get(joined), iv(2, 100));
    assert_eq!(r.get(after_stale.unwrap()), iv(500, 500));
    assert_eq!(r.get(after_old.unwrap()), iv(500, 500));
    assert!(r.exact(s1) && r.exact(s2));
    let edges = [i32::MIN, -1000, -1, 0, 1, 9, 10, 49, 50, 999, 1000, i32::MAX];
    let mut inputs = vec![];
    for &a in &edges {
        for &b in &[i32::MIN, -1, 0, 255, 256, i32::MAX] {
            inputs.push(vec![w32(a), w32(b)]);
        }
    }
    check_runs(&m, id, &inputs);
}

/// A copy of a counter taken before its loop: a test of the copy inside
/// the loop bounds the copy, not the counter (which has moved on).
#[test]
fn a_copy_from_before_the_loop_does_not_bound_the_counter() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::I32], &[Ty::I32]);
    let mut f = m.function(id);
    let n = f.param(0);
    let k = f.local(Ty::I32);
    let zero = f.const_(Ty::I32, 0);
    f.assign(k, Op::Copy(zero));
    let first = f.op(Ty::I32, Op::Copy(k));
    let one = f.const_(Ty::I32, 1);
    let ten = f.const_(Ty::I32, 10);
    let mut read = None;
    f.loop_(|f| {
        let more = f.cmp(CmpOp::Lt, first, ten);
        f.if_(more, |_| {}, |f| f.break_());
        let kk = f.op(Ty::I32, Op::Copy(k));
        read = Some(kk);
        let done = f.cmp(CmpOp::Ge, kk, n);
        f.if_(done, |f| f.break_(), |_| {});
        let next = f.binary(BinOp::Add, kk, one);
        f.assign(k, Op::Copy(next));
    });
    f.ret(&[k]);
    m.define(f);
    let m = m.finish().unwrap();
    let r = Ranges::analyse(m.function(id));
    let got = r.get(read.unwrap()).unwrap();
    assert!(got.hi >= 1000, "{got:?}: k is bounded by a test of its old copy");
    check_runs(&m, id, &[vec![0], vec![5], vec![1000], vec![w32(-4)]]);
}

/// Loops whose locals grow without a test bounding them (a doubling, a
/// nested loop counting on), and a decreasing counter: the analysis ends
/// and its intervals hold.
#[test]
fn loops_without_useful_bounds_end_with_whole_types() {
    let mut m = ModuleBuilder::new();
    let id = m.declare("f", &[Ty::I32, Ty::I32], &[Ty::I32, Ty::I32, Ty::I32]);
    let mut f = m.function(id);
    let (n, limit) = (f.param(0), f.param(1));
    let x = f.local(Ty::I32);
    let k = f.local(Ty::I32);
    let total = f.local(Ty::I32);
    let one = f.const_(Ty::I32, 1);
    let two = f.const_(Ty::I32, 2);
    let zero = f.const_(Ty::I32, 0);
    f.assign(x, Op::Copy(one));
    f.assign(k, Op::Copy(n));
    f.assign(total, Op::Copy(zero));
    let mut down = None;
    f.loop_(|f| {
        let kk = f.op(Ty::I32, Op::Copy(k));
        let more = f.cmp(CmpOp::Gt, kk, zero);
        f.if_(more, |_| {}, |f| f.break_());
        let d = f.binary(BinOp::Sub, kk, one);
        down = Some(d);
        f.assign(k, Op::Copy(d));
        let xx = f.binary(BinOp::Mul, x, two);
        let xx = f.binary(BinOp::Add, xx, one);
        f.assign(x, Op::Copy(xx));
        let j = f.local(Ty::I32);
        f.assign(j, Op::Copy(zero));
        f.loop_(|f| {
            let jj = f.op(Ty::I32, Op::Copy(j));
            let more = f.cmp(CmpOp::Lt, jj, limit);
            f.if_(more, |_| {}, |f| f.break_());
            let t = f.binary(BinOp::Add, total, jj);
            f.assign(total, Op::Copy(t));
            let j1 = f.binary(BinOp::Add, jj, one);
            f.assign(j, Op::Copy(j1));
        });
    });
    f.ret(&[x, k, total]);
    m.define(f);
    let m = m.finish().unwrap();
    let r = Ranges::analyse(m.function(id));
    assert_eq!(r.get(down.unwrap()), iv(0, i32::MAX as i128 - 1));
    assert!(r.exact(down.unwrap()));
    check_runs(
        &m,
        id,
        &[
            vec![0, 0],
            vec![5, 3],
            vec![40, 7],
            vec![w32(-3), 2],
            vec![3, w32(i32::MIN)],
        ],
    );
}

/// Unsigned and 64-bit counters, a `!=` exit test, and `u8` arithmetic
/// that wraps.
#[test]
fn other_widths_and_tests() {
    for (ty, stop) in [
        (Ty::U32, u32::MAX as u64),
        (Ty::I64, i64::MAX as u64),
        (Ty::U8, 255),
        (Ty::I8, 127),
    ] {
        let mut m = ModuleBuilder::new();
        let id = m.declare("f", &[ty, ty], &[ty, ty]);
        let mut f = m.function(id);
        let (start, step) = (f.param(0), f.param(1));
        let k = f.local(ty);
        let acc = f.local(ty);
        f.assign(k, Op::Copy(start));
        f.assign(acc, Op::Copy(start));
        let stopc = f.const_(ty, stop);
        let one = f.const_(ty, 1);
        let mut next = None;
        f.loop_(|f| {
            let kk = f.op(ty, Op::Copy(k));
            let more = f.cmp(CmpOp::Ne, kk, stopc);
            f.if_(more, |_| {}, |f| f.break_());
            let n = f.binary(BinOp::Add, kk, one);
            next = Some(n);
            f.assign(k, Op::Copy(n));
            let a = f.binary(BinOp::Add, acc, step);
            let a = f.binary(BinOp::Mul, a, kk);
            f.assign(acc, Op::Copy(a));
        });
        f.ret(&[k, acc]);
        m.define(f);
        let m = m.finish().unwrap();
        let r = Ranges::analyse(m.function(id));
        // `k != stop` with `stop` the top of the type: k + 1 cannot wrap.
        // (A function with 64-bit arithmetic only is not analysed: its
        // results need no extension whatever their ranges.)
        assert_eq!(r.exact(next.unwrap()), ty.bits() < 64, "{ty:?}");
        let near = |d: u64| spy_jit::ir::sem::canon(ty, stop.wrapping_sub(d));
        check_runs(
            &m,
            id,
            &[
                vec![near(3), 1],
                vec![near(0), 5],
                vec![near(20), spy_jit::ir::sem::canon(ty, u64::MAX)],
            ],
        );
        // value_of / word_of round trip on the type's ends.
        let full = Interval::of_type(ty).unwrap();
        for v in [full.lo, full.hi] {
            assert_eq!(value_of(ty, word_of(ty, v)), v);
        }
    }
}

/// Narrow arithmetic on operands the ranges bound (masked parameters) or
/// do not, every result read where the canonical word matters (converted
/// to i64): the extensions the machine code leaves out are exactly the
/// ones that change nothing.
#[test]
fn narrow_results_are_canonical_where_they_are_read() {
    use spy_jit::ir::UnOp;
    for ty in [Ty::I8, Ty::U8, Ty::I32, Ty::U32] {
        let bits = ty.bits();
        for mask in [0x7u64, (1 << (bits - 2)) - 1, (1 << (bits - 1)) - 1, u64::MAX] {
            let mut m = ModuleBuilder::new();
            let id = m.declare("f", &[ty, ty], &[Ty::I64; 7]);
            let mut f = m.function(id);
            let (x, y) = (f.param(0), f.param(1));
            let mk = f.const_(ty, spy_jit::ir::sem::canon(ty, mask));
            let a = f.binary(BinOp::And, x, mk);
            let b = f.binary(BinOp::And, y, mk);
            let mut outs = vec![];
            for op in [BinOp::Add, BinOp::Sub, BinOp::Mul] {
                let r = f.binary(op, a, b);
                outs.push(f.convert(Ty::I64, r));
            }
            for u in [UnOp::Neg, UnOp::Not] {
                let r = f.unary(u, a);
                outs.push(f.convert(Ty::I64, r));
            }
            let one = f.const_(ty, 1);
            let r = f.binary(BinOp::Add, a, one);
            let five = f.const_(ty, 5);
            let c = f.cmp(CmpOp::Lt, r, five);
            outs.push(f.convert(Ty::I64, c));
            let n = f.unary(UnOp::Not, b);
            let c = f.cmp(CmpOp::Lt, n, five);
            outs.push(f.convert(Ty::I64, c));
            f.ret(&outs);
            m.define(f);
            let m = m.finish().unwrap();
            let edges = [
                0u64,
                1,
                2,
                5,
                0x7f,
                0x80,
                0xff,
                0x7fff_ffff,
                0x8000_0000,
                u64::MAX,
                u64::MAX - 1,
            ];
            let mut inputs = vec![];
            for &p in &edges {
                for &q in &edges {
                    let c = |w: u64| spy_jit::ir::sem::canon(ty, w);
                    inputs.push(vec![c(p), c(q)]);
                }
            }
            check_runs(&m, id, &inputs);
        }
    }
}
