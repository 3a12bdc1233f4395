//! Every IR operation × type on edge values, machine code vs `ir::eval`,
//! compared bit for bit (results and errors). All 65,536 operand pairs for
//! the i8 and u8 binary operations. One module holds every test function.

mod common;
use common::*;
use spy_jit::ir::{sem, BinOp, CmpOp, FuncId, ModuleBuilder, Op, ShiftOp, Ty, UnOp, VReg, Word};

const ON_ZERO: u32 = 10;
const ON_NEG: u32 = 11;
const ON_FZERO: u32 = 12;

fn int_edges(ty: Ty) -> Vec<Word> {
    let bits = ty.bits();
    let (min, max): (i128, i128) = if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    let mut v: Vec<i128> = vec![
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        7,
        -7,
        100,
        -100,
        min,
        max,
        min + 1,
        max - 1,
        min / 2,
        max / 2,
    ];
    for k in [bits as i128 - 1, bits as i128, bits as i128 + 1, 63, 64, 65] {
        v.push(k);
    }
    let mut out: Vec<Word> = v.into_iter().map(|x| sem::canon(ty, x as u64)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn f64_edges() -> Vec<f64> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7FF0_0000_0000_0001), // signalling NaN
        f64::from_bits(0x7FF8_0000_DEAD_BEEF), // NaN with payload
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        f64::from_bits(1), // smallest subnormal
        -f64::from_bits(1),
        f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        f64::MAX,
        f64::MIN,
        127.9,
        128.0,
        -128.5,
        -129.0,
        255.5,
        256.0,
        2147483647.5,
        2147483648.0,
        -2147483648.9,
        -2147483649.0,
        4294967295.5,
        4294967296.0,
        9.223_372_036_854_776e18,
        9223372036854775807.0,
        -9223372036854775808.0,
        -9.3e18,
        1.8446744073709552e19,
        1.844_674_407_370_955e19,
        3.4028235e38,
        3.5e38,
        1e-40,
        1e300,
        0.1,
        1.0 / 3.0,
    ]
}

fn float_edges(ty: Ty) -> Vec<Word> {
    let mut v: Vec<Word> = if ty == Ty::F64 {
        f64_edges().into_iter().map(f64::to_bits).collect()
    } else {
        let mut v: Vec<Word> = f64_edges()
            .into_iter()
            .map(|x| (x as f32).to_bits() as u64)
            .collect();
        v.extend([0x7F80_0001u64, 0xFFC0_1234, 1, 0x807F_FFFF, 0x0080_0000]);
        v
    };
    v.sort_unstable();
    v.dedup();
    v
}

fn edges(ty: Ty) -> Vec<Word> {
    match ty {
        Ty::Bool => vec![0, 1],
        Ty::F32 | Ty::F64 => float_edges(ty),
        Ty::Ptr | Ty::Handle => vec![0, 1, 0x1000, u64::MAX, 1 << 63],
        _ => int_edges(ty),
    }
}

/// A test function: operand types, and its id.
struct Case {
    name: String,
    f: FuncId,
    arg_tys: Vec<Ty>,
}

struct Suite {
    m: ModuleBuilder,
    cases: Vec<Case>,
}

impl Suite {
    fn binary(
        &mut self,
        name: String,
        ty: Ty,
        res: Ty,
        op: impl FnOnce(spy_jit::ir::VReg, spy_jit::ir::VReg) -> Op,
    ) {
        let f = self.m.declare(&name, &[ty, ty], &[res]);
        let mut b = self.m.function(f);
        let (x, y) = (b.param(0), b.param(1));
        let r = b.op(res, op(x, y));
        b.ret(&[r]);
        self.m.define(b);
        self.cases.push(Case {
            name,
            f,
            arg_tys: vec![ty, ty],
        });
    }
    fn unary(&mut self, name: String, ty: Ty, res: Ty, op: impl FnOnce(spy_jit::ir::VReg) -> Op) {
        let f = self.m.declare(&name, &[ty], &[res]);
        let mut b = self.m.function(f);
        let x = b.param(0);
        let r = b.op(res, op(x));
        b.ret(&[r]);
        self.m.define(b);
        self.cases.push(Case {
            name,
            f,
            arg_tys: vec![ty],
        });
    }
}

fn build() -> Suite {
    let mut s = Suite {
        m: ModuleBuilder::new(),
        cases: vec![],
    };
    for ty in Ty::ALL {
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
        ] {
            let ok = match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => ty.is_int() || ty.is_float(),
                _ => ty.is_int() || ty == Ty::Bool,
            };
            if ok {
                s.binary(format!("{op:?}_{ty}"), ty, ty, |a, b| Op::Binary(op, a, b));
            }
        }
        if ty.is_int() {
            s.binary(format!("floordiv_{ty}"), ty, ty, |a, b| Op::FloorDiv {
                a,
                b,
                on_zero: code(ON_ZERO),
            });
            s.binary(format!("floormod_{ty}"), ty, ty, |a, b| Op::FloorMod {
                a,
                b,
                on_zero: code(ON_ZERO),
            });
            for op in [ShiftOp::Shl, ShiftOp::Shr] {
                s.binary(format!("{op:?}_{ty}"), ty, ty, |a, b| Op::Shift {
                    op,
                    a,
                    b,
                    on_negative: code(ON_NEG),
                });
            }
        }
        if ty.is_float() {
            s.binary(format!("fdiv_{ty}"), ty, ty, |a, b| Op::FDiv {
                a,
                b,
                on_zero: code(ON_FZERO),
            });
        }
        if ty != Ty::Handle {
            for c in CmpOp::ALL {
                s.binary(format!("{c:?}_{ty}"), ty, Ty::Bool, |a, b| Op::Cmp(c, a, b));
            }
        }
        if ty.is_int() || ty.is_float() {
            s.unary(format!("neg_{ty}"), ty, ty, |a| Op::Unary(UnOp::Neg, a));
        }
        if ty.is_int() || ty == Ty::Bool {
            s.unary(format!("not_{ty}"), ty, ty, |a| Op::Unary(UnOp::Not, a));
        }
        s.unary(format!("copy_{ty}"), ty, ty, Op::Copy);
        for to in Ty::ALL {
            if sem::convertible(ty, to) {
                s.unary(format!("convert_{ty}_to_{to}"), ty, to, Op::Convert);
            }
        }
    }
    s
}

#[test]
fn every_op_on_edge_values() {
    let suite = build();
    let cases = suite.cases;
    let mut b = Both::new(suite.m.finish().unwrap(), 10);
    let mut calls = 0;
    for c in &cases {
        let sets: Vec<Vec<Word>> = c.arg_tys.iter().map(|&t| edges(t)).collect();
        let mut run = |args: &[Word]| {
            let j = b.jit(c.f, args);
            let e = b.eval(c.f, args, &mut spy_jit::ir::eval::NoHelpers);
            assert_eq!(j, e, "{}({args:x?}): machine code vs eval", c.name);
            calls += 1;
        };
        if sets.len() == 1 {
            for &a in &sets[0] {
                run(&[a]);
            }
        } else {
            for &a in &sets[0] {
                for &y in &sets[1] {
                    run(&[a, y]);
                }
            }
        }
    }
    assert!(cases.len() > 240, "{} cases", cases.len());
    assert!(calls > 50_000, "{calls} calls");
}

/// Builds an operation from two operands; `true` when the result is Bool.
type MakeOp = Box<dyn Fn(VReg, VReg) -> (Op, bool)>;

/// The binary operations of the all-pairs test, as IR builders.
fn small_ops() -> Vec<(String, MakeOp)> {
    let mut v: Vec<(String, MakeOp)> = vec![];
    for op in [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
    ] {
        v.push((
            format!("{op:?}"),
            Box::new(move |a, b| (Op::Binary(op, a, b), false)),
        ));
    }
    v.push((
        "floordiv".into(),
        Box::new(|a, b| {
            (
                Op::FloorDiv {
                    a,
                    b,
                    on_zero: code(ON_ZERO),
                },
                false,
            )
        }),
    ));
    v.push((
        "floormod".into(),
        Box::new(|a, b| {
            (
                Op::FloorMod {
                    a,
                    b,
                    on_zero: code(ON_ZERO),
                },
                false,
            )
        }),
    ));
    for op in [ShiftOp::Shl, ShiftOp::Shr] {
        v.push((
            format!("{op:?}"),
            Box::new(move |a, b| {
                (
                    Op::Shift {
                        op,
                        a,
                        b,
                        on_negative: code(ON_NEG),
                    },
                    false,
                )
            }),
        ));
    }
    for c in CmpOp::ALL {
        v.push((format!("{c:?}"), Box::new(move |a, b| (Op::Cmp(c, a, b), true))));
    }
    v
}

/// `f(buf, len)`: for every pair (x, y) of 8-bit values, store `op(x, y)`
/// (as u64) at `buf[x * 256 + y]`, or the word 0xDEAD when the pair would
/// raise (zero divisor, negative shift count); those pairs are then checked
/// by direct calls. Exercises nested loops, stores and loop-carried locals.
fn pairs_fn(m: &mut ModuleBuilder, ty: Ty, name: &str, op: &dyn Fn(VReg, VReg) -> (Op, bool)) -> FuncId {
    let f = m.declare(&format!("pairs_{name}_{ty}"), &[Ty::Ptr, Ty::U64], &[Ty::U64]);
    let mut b = m.function(f);
    let (buf, len) = (b.param(0), b.param(1));
    let x = b.local(Ty::U64);
    let y = b.local(Ty::U64);
    let count = b.local(Ty::U64);
    b.assign(x, Op::Const(0));
    b.assign(count, Op::Const(0));
    let is_div = name.starts_with("floor");
    let is_shift = name.starts_with("Sh");
    b.loop_(|b| {
        let n256 = b.const_(Ty::U64, 256);
        let done = b.cmp(CmpOp::Ge, x, n256);
        b.if_(done, |b| b.break_(), |_| {});
        b.assign(y, Op::Const(0));
        b.loop_(|b| {
            let n256 = b.const_(Ty::U64, 256);
            let done = b.cmp(CmpOp::Ge, y, n256);
            b.if_(done, |b| b.break_(), |_| {});
            let xa = b.convert(ty, x);
            let yb = b.convert(ty, y);
            let hi = b.binary(BinOp::Mul, x, n256);
            let idx = b.binary(BinOp::Add, hi, y);
            let zero = b.const_(ty, 0);
            let raises = if is_div {
                b.cmp(CmpOp::Eq, yb, zero)
            } else if is_shift && ty.is_signed() {
                b.cmp(CmpOp::Lt, yb, zero)
            } else {
                b.const_(Ty::Bool, 0)
            };
            b.if_(
                raises,
                |b| {
                    let dead = b.const_(Ty::U64, 0xDEAD);
                    b.store(buf, len, idx, dead, code(20), code(21));
                },
                |b| {
                    let (o, bool_res) = op(xa, yb);
                    let r = b.op(if bool_res { Ty::Bool } else { ty }, o);
                    let w = b.convert(Ty::U64, r);
                    b.store(buf, len, idx, w, code(20), code(21));
                },
            );
            let one = b.const_(Ty::U64, 1);
            b.assign(y, Op::Binary(BinOp::Add, y, one));
            b.assign(count, Op::Binary(BinOp::Add, count, one));
        });
        let one = b.const_(Ty::U64, 1);
        b.assign(x, Op::Binary(BinOp::Add, x, one));
    });
    b.ret(&[count]);
    m.define(b);
    f
}

#[test]
fn all_pairs_for_i8_and_u8_binary_ops() {
    let mut m = ModuleBuilder::new();
    let mut fns = vec![];
    for ty in [Ty::I8, Ty::U8] {
        for (name, op) in small_ops() {
            let pf = pairs_fn(&mut m, ty, &name, &*op);
            let df = m.declare(
                &format!("direct_{name}_{ty}"),
                &[ty, ty],
                &[if op(VReg(0), VReg(1)).1 { Ty::Bool } else { ty }],
            );
            let mut b = m.function(df);
            let (x, y) = (b.param(0), b.param(1));
            let (o, res_bool) = op(x, y);
            let r = b.op(if res_bool { Ty::Bool } else { ty }, o);
            b.ret(&[r]);
            m.define(b);
            fns.push((ty, name, pf, df));
        }
    }
    let mut b = Both::new(m.finish().unwrap(), 10);
    assert_eq!(fns.len(), 2 * 16);
    for (ty, name, pf, df) in fns {
        let mut jbuf = vec![0u64; 65_536];
        let mut ebuf = vec![1u64; 65_536];
        let jr = b.jit(pf, &[jbuf.as_mut_ptr() as u64, 65_536]).unwrap();
        let er = b
            .eval(
                pf,
                &[ebuf.as_mut_ptr() as u64, 65_536],
                &mut spy_jit::ir::eval::NoHelpers,
            )
            .unwrap();
        assert_eq!((jr.clone(), er), (vec![65_536], vec![65_536]));
        for (i, (j, e)) in jbuf.iter().zip(&ebuf).enumerate() {
            assert_eq!(j, e, "{name}_{ty}({:#x}, {:#x})", i / 256, i % 256);
            if *j == 0xDEAD {
                let args = [sem::canon(ty, (i / 256) as u64), sem::canon(ty, (i % 256) as u64)];
                let err = b.both(df, &args).unwrap_err();
                assert!(
                    matches!(err.code.get(), ON_ZERO | ON_NEG),
                    "{name}_{ty}({args:x?})"
                );
            } else if i % 97 == 0 {
                // A sample of the pairs through direct calls as well.
                let args = [sem::canon(ty, (i / 256) as u64), sem::canon(ty, (i % 256) as u64)];
                let r = b.both(df, &args).unwrap();
                assert_eq!(r[0] as u8, *j as u8, "{name}_{ty}({args:x?})");
            }
        }
    }
}

/// Spot checks of the semantics themselves (so a bug shared by both sides shows).
#[test]
fn semantics_spot_checks() {
    let suite = build();
    let find = |name: &str| suite.cases.iter().find(|c| c.name == name).unwrap().f;
    let (fd, fm, shl, shr_i, shr_u) = (
        find("floordiv_i64"),
        find("floormod_i64"),
        find("Shl_i32"),
        find("Shr_i8"),
        find("Shr_u8"),
    );
    let (f2i, u2f, fdiv, lt) = (
        find("convert_f64_to_i32"),
        find("convert_u64_to_f64"),
        find("fdiv_f64"),
        find("Lt_f64"),
    );
    let mut b = Both::new(suite.m.finish().unwrap(), 10);
    let neg = |x: i64| x as u64;
    assert_eq!(b.both(fd, &[neg(-7), 2]).unwrap(), vec![neg(-4)]);
    assert_eq!(b.both(fm, &[neg(-7), 2]).unwrap(), vec![1]);
    assert_eq!(b.both(fm, &[7, neg(-2)]).unwrap(), vec![neg(-1)]);
    assert_eq!(
        b.both(fd, &[i64::MIN as u64, neg(-1)]).unwrap(),
        vec![i64::MIN as u64]
    );
    let e = b.both(fd, &[5, 0]).unwrap_err();
    assert_eq!((e.code.get(), e.operands), (ON_ZERO, [5, 0]));
    assert_eq!(b.both(shl, &[1, 32]).unwrap(), vec![0]);
    assert_eq!(b.both(shl, &[1, 31]).unwrap(), vec![sem::canon(Ty::I32, 1 << 31)]);
    assert_eq!(b.both(shr_i, &[neg(-128), 100]).unwrap(), vec![neg(-1)]);
    assert_eq!(b.both(shr_u, &[0x80, 8]).unwrap(), vec![0]);
    assert_eq!(b.both(shr_i, &[1, neg(-1)]).unwrap_err().code.get(), ON_NEG);
    assert_eq!(b.both(f2i, &[f64::NAN.to_bits()]).unwrap(), vec![0]);
    assert_eq!(b.both(f2i, &[1e10f64.to_bits()]).unwrap(), vec![i32::MAX as u64]);
    assert_eq!(b.both(f2i, &[(-2.9f64).to_bits()]).unwrap(), vec![neg(-2)]);
    assert_eq!(
        b.both(u2f, &[u64::MAX]).unwrap(),
        vec![18446744073709551615f64.to_bits()]
    );
    assert_eq!(
        b.both(u2f, &[(1 << 63) + 1025]).unwrap(),
        vec![(((1u64 << 63) + 1025) as f64).to_bits()]
    );
    assert_eq!(
        b.both(fdiv, &[1f64.to_bits(), (-0.0f64).to_bits()])
            .unwrap_err()
            .code
            .get(),
        ON_FZERO
    );
    assert_eq!(
        b.both(fdiv, &[1f64.to_bits(), f64::NAN.to_bits()]).unwrap()[0] & 0x7FF8_0000_0000_0000,
        0x7FF8_0000_0000_0000
    );
    assert_eq!(
        b.both(lt, &[f64::NAN.to_bits(), 1f64.to_bits()]).unwrap(),
        vec![0]
    );
}

/// A few constants of each type (zero, ±1, extremes, NaN, ±0.0, …): a
/// sample of the edge values.
fn const_sample(ty: Ty) -> Vec<Word> {
    let e = edges(ty);
    let step = e.len() / 7 + 1;
    let mut v: Vec<Word> = e.iter().copied().step_by(step).collect();
    for w in e.iter().take(3) {
        if !v.contains(w) {
            v.push(*w);
        }
    }
    v
}

/// The backend folds constants, uses them as immediate and pool operands
/// (either side), and fuses a comparison with the `if` reading it: every
/// binary op × type with one operand a constant (both orders), and every
/// comparison as a branch (operands both variable, or one constant), on the
/// edge values, against `ir::eval` of the same IR.
#[test]
fn constant_operands_and_compare_branches() {
    let mut m = ModuleBuilder::new();
    // (name, function, operand type)
    let mut cases: Vec<(String, FuncId, Ty)> = vec![];
    let mut both: Vec<(String, FuncId, Ty)> = vec![];
    type Make = Box<dyn Fn(VReg, VReg) -> Op>;
    for ty in Ty::ALL {
        let mut ops: Vec<(String, Make, Ty)> = vec![];
        for op in [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::And,
            BinOp::Or,
            BinOp::Xor,
        ] {
            let ok = match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => ty.is_int() || ty.is_float(),
                _ => ty.is_int() || ty == Ty::Bool,
            };
            if ok {
                ops.push((format!("{op:?}"), Box::new(move |a, b| Op::Binary(op, a, b)), ty));
            }
        }
        if ty.is_int() {
            ops.push((
                "floordiv".into(),
                Box::new(|a, b| Op::FloorDiv {
                    a,
                    b,
                    on_zero: code(ON_ZERO),
                }),
                ty,
            ));
            ops.push((
                "floormod".into(),
                Box::new(|a, b| Op::FloorMod {
                    a,
                    b,
                    on_zero: code(ON_ZERO),
                }),
                ty,
            ));
            for op in [ShiftOp::Shl, ShiftOp::Shr] {
                ops.push((
                    format!("{op:?}"),
                    Box::new(move |a, b| Op::Shift {
                        op,
                        a,
                        b,
                        on_negative: code(ON_NEG),
                    }),
                    ty,
                ));
            }
        }
        if ty.is_float() {
            ops.push((
                "fdiv".into(),
                Box::new(|a, b| Op::FDiv {
                    a,
                    b,
                    on_zero: code(ON_FZERO),
                }),
                ty,
            ));
        }
        if ty != Ty::Handle && ty != Ty::Ptr {
            for c in CmpOp::ALL {
                ops.push((format!("{c:?}"), Box::new(move |a, b| Op::Cmp(c, a, b)), Ty::Bool));
            }
        }
        for (name, make, res) in &ops {
            for k in const_sample(ty) {
                for left in [false, true] {
                    let fname = format!("{name}_{ty}_{k:x}_{}", if left { "l" } else { "r" });
                    let f = m.declare(&fname, &[ty], &[*res]);
                    let mut b = m.function(f);
                    let x = b.param(0);
                    let c = b.const_(ty, k);
                    let (l, r) = if left { (c, x) } else { (x, c) };
                    let v = b.op(*res, make(l, r));
                    b.ret(&[v]);
                    m.define(b);
                    cases.push((fname, f, ty));
                }
            }
            if *res == Ty::Bool {
                // As a branch: `if a <op> b: return 1 else: return 0`.
                let fname = format!("branch_{name}_{ty}");
                let f = m.declare(&fname, &[ty, ty], &[Ty::I32]);
                let mut b = m.function(f);
                let (x, y) = (b.param(0), b.param(1));
                let c = b.op(Ty::Bool, make(x, y));
                b.if_(
                    c,
                    |b| {
                        let one = b.const_(Ty::I32, 1);
                        b.ret(&[one]);
                    },
                    |b| {
                        let zero = b.const_(Ty::I32, 0);
                        b.ret(&[zero]);
                    },
                );
                m.define(b);
                both.push((fname, f, ty));
            }
        }
    }
    let mut b = Both::new(m.finish().unwrap(), 10);
    let mut calls = 0;
    for (name, f, ty) in &cases {
        for a in edges(*ty) {
            let j = b.jit(*f, &[a]);
            let e = b.eval(*f, &[a], &mut spy_jit::ir::eval::NoHelpers);
            assert_eq!(j, e, "{name}({a:x}): machine code vs eval");
            calls += 1;
        }
    }
    for (name, f, ty) in &both {
        for a in edges(*ty) {
            for y in edges(*ty) {
                let j = b.jit(*f, &[a, y]);
                let e = b.eval(*f, &[a, y], &mut spy_jit::ir::eval::NoHelpers);
                assert_eq!(j, e, "{name}({a:x}, {y:x}): machine code vs eval");
                calls += 1;
            }
        }
    }
    assert!(
        cases.len() > 1500 && both.len() > 40,
        "{} + {} cases",
        cases.len(),
        both.len()
    );
    assert!(calls > 50_000, "{calls} calls");
}
