//! Vector ops: every op × lane type × lane count on edge values, machine
//! code vs `ir::eval` bit for bit (errors included), under every SIMD level
//! this host runs (SSE2 always, AVX2 when detected).

mod common;

use common::{code, eval_opts, opts};
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{BinOp, CmpOp, FuncId, Lane, ModuleBuilder, Op, Ty, VOp, VecTy, Word};
use spy_jit::runtime::{Context, ContextOptions};
use spy_jit::{compile, CompileOptions, SimdLevel};

fn levels() -> Vec<SimdLevel> {
    let mut v = vec![SimdLevel::Sse2];
    if std::arch::is_x86_feature_detected!("avx2") {
        v.push(SimdLevel::Avx2);
    }
    v
}

fn edges(lane: Lane) -> Vec<Word> {
    let i32s = |v: &[i32]| v.iter().map(|&x| x as i64 as u64).collect::<Vec<_>>();
    match lane {
        Lane::I32 => i32s(&[0, 1, -1, i32::MIN, i32::MAX, 7, -13, 0x10000, 46341]),
        Lane::I64 => [0i64, 1, -1, i64::MIN, i64::MAX, 7, -13, 1 << 32, 3037000500]
            .iter()
            .map(|&x| x as u64)
            .collect(),
        Lane::F64 => [
            0.0f64.to_bits(),
            (-0.0f64).to_bits(),
            1.5f64.to_bits(),
            (-2.25f64).to_bits(),
            f64::INFINITY.to_bits(),
            f64::NEG_INFINITY.to_bits(),
            0x7FF8_0000_0000_1234,
            0x7FF0_0000_0000_0001,
            1,
            f64::MAX.to_bits(),
            0.1f64.to_bits(),
        ]
        .to_vec(),
        Lane::F32 => [
            0.0f32.to_bits(),
            (-0.0f32).to_bits(),
            1.5f32.to_bits(),
            (-2.25f32).to_bits(),
            f32::INFINITY.to_bits(),
            0x7FC0_1234,
            0x7F80_0001,
            1,
            f32::MAX.to_bits(),
            0.1f32.to_bits(),
        ]
        .iter()
        .map(|&x| u64::from(x))
        .collect(),
        Lane::Bool => vec![0, 1],
    }
}

#[derive(Clone, Copy, Debug)]
enum Case {
    Bin(BinOp),
    Div,
    Cmp(CmpOp),
    Convert,
    Splat,
    CopyLocal,
}

/// `f()`: builds `a` and `b` from constants (lane `i` of `a` is edge
/// `i + s`, of `b` edge `3i + t`), applies the op and returns every lane.
fn module(lane: Lane, n: u8, case: Case, s: usize, t: usize) -> spy_jit::ir::Module {
    let vt = VecTy::new(lane, n.into()).unwrap();
    let e = edges(lane);
    let out_lane = match case {
        Case::Cmp(_) => Lane::Bool,
        Case::Convert => Lane::F64,
        _ => lane,
    };
    let mut m = ModuleBuilder::new();
    let f = m.declare("f", &[], &vec![out_lane.ty(); n as usize]);
    let mut b = m.function(f);
    let lanes = |b: &mut spy_jit::ir::FunctionBuilder, k: usize, off: usize| -> Vec<_> {
        (0..n as usize)
            .map(|i| b.const_(lane.ty(), e[(k * i + off) % e.len()]))
            .collect()
    };
    let la = lanes(&mut b, 1, s);
    let lb = lanes(&mut b, 3, t);
    let va = b.op(Ty::Vec(vt), Op::Vector(VOp::Build(la.clone())));
    let vb = b.op(Ty::Vec(vt), Op::Vector(VOp::Build(lb)));
    let out = Ty::Vec(vt.with_lane(out_lane));
    let r = match case {
        Case::Bin(op) => b.op(out, Op::Vector(VOp::Binary(op, va, vb))),
        Case::Div => b.op(
            out,
            Op::Vector(VOp::FDiv {
                a: va,
                b: vb,
                on_zero: code(7),
            }),
        ),
        Case::Cmp(c) => b.op(out, Op::Vector(VOp::Cmp(c, va, vb))),
        Case::Convert => b.op(out, Op::Vector(VOp::Convert(va))),
        Case::Splat => b.op(out, Op::Vector(VOp::Splat(la[0]))),
        Case::CopyLocal => {
            let l = b.local(out);
            b.assign(l, Op::Copy(va));
            b.assign(l, Op::Copy(vb));
            l
        }
    };
    let res: Vec<_> = (0..n)
        .map(|k| b.op(out_lane.ty(), Op::Vector(VOp::Lane(r, k))))
        .collect();
    b.ret(&res);
    m.define(b);
    m.finish().expect("valid IR")
}

fn check(lane: Lane, n: u8, case: Case, runs: &mut usize) {
    let e = edges(lane).len();
    for s in 0..e {
        for t in [0, 1, 5] {
            let m = module(lane, n, case, s, t);
            let want = eval::call(&m, FuncId(0), &[], &eval_opts(10), &mut NoHelpers);
            for level in levels() {
                let c = compile(
                    &m,
                    &CompileOptions {
                        simd: level,
                        ..opts()
                    },
                )
                .expect("compiles");
                let mut ctx = Context::new(ContextOptions {
                    depth_limit: 10,
                    ..Default::default()
                });
                let got = c.call(&mut ctx, FuncId(0), &[]);
                assert_eq!(got, want, "{case:?} on {lane:?}x{n} (s={s}, t={t}) at {level:?}");
                *runs += 1;
            }
        }
    }
}

#[test]
fn every_vector_op_matches_the_evaluator_on_every_level() {
    let mut runs = 0;
    for n in VecTy::COUNTS {
        for lane in [Lane::I32, Lane::I64, Lane::F32, Lane::F64] {
            for op in [BinOp::Add, BinOp::Sub, BinOp::Mul] {
                check(lane, n, Case::Bin(op), &mut runs);
            }
            for c in CmpOp::ALL {
                check(lane, n, Case::Cmp(c), &mut runs);
            }
            if matches!(lane, Lane::F32 | Lane::F64) {
                check(lane, n, Case::Div, &mut runs);
            }
            check(lane, n, Case::Splat, &mut runs);
            check(lane, n, Case::CopyLocal, &mut runs);
        }
        check(Lane::I32, n, Case::Convert, &mut runs);
        check(Lane::Bool, n, Case::CopyLocal, &mut runs);
        check(Lane::Bool, n, Case::Splat, &mut runs);
    }
    assert!(runs > 1000, "{runs}");
}

#[test]
fn a_zero_divisor_lane_raises_with_no_operands() {
    // (1.5, -2.25, inf, -inf) / (-0.0, inf, ...): lane 0 divides by -0.0.
    let m = module(Lane::F64, 4, Case::Div, 2, 1);
    let want = eval::call(&m, FuncId(0), &[], &eval_opts(10), &mut NoHelpers);
    let e = want.expect_err("a zero lane");
    assert_eq!((e.code.get(), e.operands), (7, [0, 0]));
}

#[test]
fn vectors_are_rejected_at_boundaries() {
    let vt = Ty::Vec(VecTy::new(Lane::F64, 2).unwrap());
    let mut m = ModuleBuilder::new();
    let f = m.declare("f", &[vt], &[]);
    let mut b = m.function(f);
    b.ret(&[]);
    m.define(b);
    let e = m.finish().unwrap_err();
    assert!(e.message.contains("vector type"), "{e}");
    let mut m = ModuleBuilder::new();
    let f = m.declare("f", &[], &[]);
    let mut b = m.function(f);
    let x = b.const_(Ty::F64, 0);
    let v = b.op(vt, Op::Vector(VOp::Splat(x)));
    let _ = b.op(Ty::F64, Op::Vector(VOp::Lane(v, 2)));
    b.ret(&[]);
    m.define(b);
    assert!(m.finish().is_err(), "lane 2 of a 2-lane vector");
}

/// Vectors in registers: a result in its second operand's register (the
/// two-operand SSE form must not clobber it), more live vectors than
/// registers (spills), vectors live across a call (always spilled: SysV has
/// no callee-saved xmm), and staged operands (`i64`/`i32` lane multiply,
/// comparisons, lane reads), against `ir::eval` on every level.
#[test]
fn register_vectors_alias_spill_and_cross_calls() {
    for lane in [Lane::I32, Lane::I64, Lane::F32, Lane::F64] {
        for n in VecTy::COUNTS
            .into_iter()
            .filter(|&n| lane.size() * u32::from(n) <= 32)
        {
            let vt = VecTy::new(lane, n.into()).unwrap();
            let v = Ty::Vec(vt);
            let e = edges(lane);
            let mut m = ModuleBuilder::new();
            let g = m.declare("g", &[], &[]);
            let f = m.declare("f", &[], &vec![lane.ty(); n as usize]);
            let mut gb = m.function(g);
            gb.ret(&[]);
            m.define(gb);
            let mut b = m.function(f);
            let lanes = |b: &mut spy_jit::ir::FunctionBuilder, k: usize| -> Vec<_> {
                (0..n as usize)
                    .map(|i| b.const_(lane.ty(), e[(k + 2 * i) % e.len()]))
                    .collect()
            };
            // b first, a second: `a - b` may land in b's register.
            let lb = lanes(&mut b, 1);
            let vb = b.op(v, Op::Vector(VOp::Build(lb)));
            let la = lanes(&mut b, 4);
            let va = b.op(v, Op::Vector(VOp::Build(la)));
            let r = b.op(v, Op::Vector(VOp::Binary(BinOp::Sub, va, vb)));
            let live: Vec<_> = (0..18)
                .map(|k| {
                    let c = b.const_(lane.ty(), e[k % e.len()]);
                    let s = b.op(v, Op::Vector(VOp::Splat(c)));
                    b.op(v, Op::Vector(VOp::Binary(BinOp::Add, r, s)))
                })
                .collect();
            b.call_with(g, &[], &[], spy_jit::ir::SiteId(1));
            let mut t = r;
            for &x in &live {
                t = b.op(v, Op::Vector(VOp::Binary(BinOp::Sub, x, t)));
            }
            t = b.op(v, Op::Vector(VOp::Binary(BinOp::Mul, t, va)));
            let lt = b.op(
                Ty::Vec(vt.with_lane(Lane::Bool)),
                Op::Vector(VOp::Cmp(CmpOp::Lt, t, vb)),
            );
            let res: Vec<_> = (0..n)
                .map(|k| {
                    let x = b.op(lane.ty(), Op::Vector(VOp::Lane(t, k)));
                    let c = b.op(Ty::Bool, Op::Vector(VOp::Lane(lt, k)));
                    let z = b.const_(lane.ty(), 0);
                    let out = b.local(lane.ty());
                    b.if_(c, |b| b.assign(out, Op::Copy(x)), |b| b.assign(out, Op::Copy(z)));
                    out
                })
                .collect();
            b.ret(&res);
            m.define(b);
            let m = m.finish().expect("valid IR");
            let want = eval::call(&m, f, &[], &eval_opts(10), &mut NoHelpers);
            assert!(want.is_ok(), "{want:?}");
            for level in levels() {
                let c = compile(
                    &m,
                    &CompileOptions {
                        simd: level,
                        ..opts()
                    },
                )
                .expect("compiles");
                let mut ctx = Context::new(ContextOptions {
                    depth_limit: 10,
                    ..Default::default()
                });
                assert_eq!(c.call(&mut ctx, f, &[]), want, "{lane:?}x{n} at {level:?}");
            }
        }
    }
}
