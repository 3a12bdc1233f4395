//! Division and modulo by a constant (`x // c`, `x % c` with `c` a constant
//! operand: the multiply-high sequences of `x64/codegen/arith.rs`), machine
//! code vs `ir::eval` bit for bit, and both vs `sem::floor_divmod`: every
//! non-zero divisor × every dividend for i8 and u8; for i32, u32, i64 and u64
//! every divisor in ±1..=300, every power of two and its neighbours, the
//! extremes and random divisors, on edge, boundary and random dividends.

mod common;
use common::*;
use spy_jit::ir::{sem, CmpOp, FuncId, ModuleBuilder, Op, Ty, Word};

const ON_ZERO: u32 = 10;

/// xorshift64*, deterministic.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Defines `{prefix}_{ty}_{c}(x) = (x // c, x % c)` in `m`.
fn divmod_by_constant(m: &mut ModuleBuilder, prefix: &str, ty: Ty, c: Word) -> FuncId {
    let f = m.declare(&format!("{prefix}_{ty}_{c:x}"), &[ty], &[ty, ty]);
    let mut b = m.function(f);
    let x = b.param(0);
    let k = b.const_(ty, c);
    let q = b.op(ty, div_op(x, k, true));
    let r = b.op(ty, div_op(x, k, false));
    b.ret(&[q, r]);
    m.define(b);
    f
}

fn div_op(a: spy_jit::ir::VReg, b: spy_jit::ir::VReg, div: bool) -> Op {
    if div {
        Op::FloorDiv {
            a,
            b,
            on_zero: code(ON_ZERO),
        }
    } else {
        Op::FloorMod {
            a,
            b,
            on_zero: code(ON_ZERO),
        }
    }
}

/// `f(buf, len)`: for x in 0..256, `buf[2x] = ty(x) // c`, `buf[2x+1] = ty(x) % c`.
fn all_dividends_fn(m: &mut ModuleBuilder, ty: Ty, c: Word) -> FuncId {
    let f = m.declare(&format!("all_{ty}_{c:x}"), &[Ty::Ptr, Ty::U64], &[Ty::U64]);
    let mut b = m.function(f);
    let (buf, len) = (b.param(0), b.param(1));
    let x = b.local(Ty::U64);
    b.assign(x, Op::Const(0));
    b.loop_(|b| {
        let n256 = b.const_(Ty::U64, 256);
        let done = b.cmp(CmpOp::Ge, x, n256);
        b.if_(done, |b| b.break_(), |_| {});
        let xa = b.convert(ty, x);
        let k = b.const_(ty, c);
        let q = b.op(ty, div_op(xa, k, true));
        let r = b.op(ty, div_op(xa, k, false));
        let (qw, rw) = (b.convert(Ty::U64, q), b.convert(Ty::U64, r));
        let two = b.const_(Ty::U64, 2);
        let one = b.const_(Ty::U64, 1);
        let i = b.binary(spy_jit::ir::BinOp::Mul, x, two);
        let i1 = b.binary(spy_jit::ir::BinOp::Add, i, one);
        b.store(buf, len, i, qw, code(20), code(21));
        b.store(buf, len, i1, rw, code(20), code(21));
        b.assign(x, Op::Binary(spy_jit::ir::BinOp::Add, x, one));
    });
    let n = b.const_(Ty::U64, 256);
    b.ret(&[n]);
    m.define(b);
    f
}

#[test]
fn every_constant_divisor_on_every_i8_and_u8_dividend() {
    let mut m = ModuleBuilder::new();
    let mut fns = vec![];
    for ty in [Ty::I8, Ty::U8] {
        for c in 1..256u64 {
            let c = sem::canon(ty, c);
            fns.push((ty, c, all_dividends_fn(&mut m, ty, c)));
        }
    }
    let mut both = Both::new(m.finish().unwrap(), 10);
    for (ty, c, f) in fns {
        let mut jbuf = vec![0u64; 512];
        let mut ebuf = vec![1u64; 512];
        let jr = both.jit(f, &[jbuf.as_mut_ptr() as u64, 512]).unwrap();
        let er = both
            .eval(
                f,
                &[ebuf.as_mut_ptr() as u64, 512],
                &mut spy_jit::ir::eval::NoHelpers,
            )
            .unwrap();
        assert_eq!((jr, er), (vec![256], vec![256]));
        for x in 0..256u64 {
            let a = sem::canon(ty, x);
            let (q, r) = sem::floor_divmod(ty, a, c).unwrap();
            let want = [sem::convert(ty, Ty::U64, q), sem::convert(ty, Ty::U64, r)];
            let i = 2 * x as usize;
            assert_eq!(
                (&jbuf[i..i + 2], &ebuf[i..i + 2]),
                (&want[..], &want[..]),
                "{ty}: {:?} //,% {:?}",
                a as i64,
                c as i64
            );
        }
    }
}

/// Divisors of `ty` (canonical words, non-zero).
fn divisors(ty: Ty, next: &mut impl FnMut() -> u64) -> Vec<Word> {
    let bits = ty.bits();
    let mut v: Vec<i128> = (1..=300).flat_map(|c| [c, -c]).collect();
    for k in 1..bits as i128 {
        for c in [(1i128 << k) - 1, 1 << k, (1 << k) + 1] {
            v.extend([c, -c]);
        }
    }
    v.extend([1000, 7, 641, 6_700_417, 1_000_000_007, 274_177, 3_737_844_653]);
    if ty.is_signed() {
        v.extend([-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1]);
    } else {
        v.extend([(1i128 << bits) - 1, (1i128 << bits) - 2]);
    }
    let mut out: Vec<Word> = v.into_iter().map(|c| sem::canon(ty, c as u64)).collect();
    for _ in 0..200 {
        out.push(sem::canon(ty, next() >> (next() % bits as u64)));
    }
    out.retain(|&c| c != 0);
    out.sort_unstable();
    out.dedup();
    out
}

/// Dividends for divisor `c`: the type's extremes, small values, the
/// neighbours of multiples of `c` near zero and near both ends, random words.
fn dividends(ty: Ty, c: Word, next: &mut impl FnMut() -> u64) -> Vec<Word> {
    let bits = ty.bits();
    let (min, max): (i128, i128) = if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let ci = if ty.is_signed() {
        i128::from(c as i64)
    } else {
        i128::from(c)
    };
    let mut v: Vec<i128> = vec![min, min + 1, max, max - 1, 0, 1, -1, 2, -2, 3, -3];
    for base in [0, max - max % ci.abs(), min - min % ci.abs()] {
        for k in -2..=2i128 {
            let mul = base + k * ci;
            v.extend([mul - 1, mul, mul + 1]);
        }
    }
    v.retain(|&x| (min..=max).contains(&x));
    let mut out: Vec<Word> = v.into_iter().map(|x| sem::canon(ty, x as u64)).collect();
    for _ in 0..40 {
        out.push(sem::canon(ty, next() >> (next() % 64)));
    }
    out
}

#[test]
fn constant_divisors_on_wide_types_random_and_boundary_dividends() {
    let mut next = rng(0xD1F1DE);
    for ty in [Ty::I32, Ty::U32, Ty::I64, Ty::U64] {
        let mut m = ModuleBuilder::new();
        let mut fns = vec![];
        for c in divisors(ty, &mut next) {
            fns.push((c, divmod_by_constant(&mut m, "div", ty, c)));
        }
        let mut both = Both::new(m.finish().unwrap(), 10);
        for (c, f) in fns {
            for a in dividends(ty, c, &mut next) {
                let got = both.both(f, &[a]).unwrap();
                let (q, r) = sem::floor_divmod(ty, a, c).unwrap();
                assert_eq!(got, vec![q, r], "{ty}: {a:#x} //,% {c:#x}");
            }
        }
    }
}

/// Spot values of the floor semantics themselves on the constant path.
#[test]
fn constant_divisor_semantics_spot_checks() {
    let mut m = ModuleBuilder::new();
    let mut fns = vec![];
    for (ty, c) in [
        (Ty::I64, 7u64),
        (Ty::I64, (-7i64) as u64),
        (Ty::I64, i64::MIN as u64),
        (Ty::I64, u64::MAX),
        (Ty::I32, sem::canon(Ty::I32, (-1000i64) as u64)),
        (Ty::U64, 7),
        (Ty::I8, sem::canon(Ty::I8, (-128i64) as u64)),
    ] {
        fns.push(divmod_by_constant(&mut m, "spot", ty, c));
    }
    let mut both = Both::new(m.finish().unwrap(), 10);
    let w = |x: i64| x as u64;
    let call = |b: &mut Both, f: FuncId, a: u64| b.both(f, &[a]).unwrap();
    assert_eq!(call(&mut both, fns[0], w(-1)), vec![w(-1), 6]);
    assert_eq!(call(&mut both, fns[0], w(-7)), vec![w(-1), 0]);
    assert_eq!(call(&mut both, fns[0], w(-8)), vec![w(-2), 6]);
    assert_eq!(call(&mut both, fns[0], w(i64::MIN)), vec![w(i64::MIN / 7 - 1), 6]);
    assert_eq!(call(&mut both, fns[1], 1), vec![w(-1), w(-6)]);
    assert_eq!(call(&mut both, fns[1], w(-1)), vec![0, w(-1)]);
    assert_eq!(
        call(&mut both, fns[1], w(i64::MIN)),
        vec![w(i64::MIN / -7), w(-1)]
    );
    assert_eq!(call(&mut both, fns[2], w(i64::MIN)), vec![1, 0]);
    assert_eq!(call(&mut both, fns[2], 1), vec![w(-1), w(i64::MIN + 1)]);
    assert_eq!(call(&mut both, fns[2], w(-1)), vec![0, w(-1)]);
    // MIN // -1 wraps to MIN, MIN % -1 is 0.
    assert_eq!(call(&mut both, fns[3], w(i64::MIN)), vec![w(i64::MIN), 0]);
    assert_eq!(
        call(&mut both, fns[4], sem::canon(Ty::I32, w(-2999))),
        vec![2, sem::canon(Ty::I32, w(-999))]
    );
    assert_eq!(
        call(&mut both, fns[5], u64::MAX),
        vec![u64::MAX / 7, u64::MAX % 7]
    );
    assert_eq!(call(&mut both, fns[6], sem::canon(Ty::I8, w(-128))), vec![1, 0]);
    assert_eq!(
        call(&mut both, fns[6], 127),
        vec![sem::canon(Ty::I8, w(-1)), sem::canon(Ty::I8, w(-1))]
    );
}
