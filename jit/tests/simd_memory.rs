//! Vector loads and stores (`Op::Load` into a vector, `Stmt::Store` of a
//! vector: `ptr_simd_load` / `ptr_simd_store`): machine code vs `ir::eval`
//! on every lane type and count, on every SIMD level this host runs, for
//! indexes inside, at the edges of and outside the buffer (negative
//! included) and for a null pointer: the same lanes, the same buffer after
//! the store, the same error code and operands.

mod common;

use common::{code, eval_opts, opts};
use spy_jit::ir::eval::{self, NoHelpers};
use spy_jit::ir::{FuncId, Lane, ModuleBuilder, Op, RunError, Ty, VOp, VecTy, Word};
use spy_jit::runtime::{Context, ContextOptions};
use spy_jit::{compile, CompileOptions, SimdLevel};

const NULL: u32 = 11;
const LOAD_OOB: u32 = 12;
const STORE_OOB: u32 = 13;
const LEN: usize = 20;

fn levels() -> Vec<SimdLevel> {
    let mut v = vec![SimdLevel::Sse2];
    if std::arch::is_x86_feature_detected!("avx2") {
        v.push(SimdLevel::Avx2);
    }
    v
}

/// `f(p, len, i, j)`: `v = p[i .. i + n]`, `p[j .. j + n] = v + v` (or `v`
/// for `Bool` lanes), returns the lanes of `v`.
fn module(vt: VecTy) -> spy_jit::ir::Module {
    let mut m = ModuleBuilder::new();
    let f = m.declare(
        "f",
        &[Ty::Ptr, Ty::I64, Ty::I64, Ty::I64],
        &vec![vt.lane.ty(); usize::from(vt.n)],
    );
    let mut b = m.function(f);
    let [p, len, i, j] = [0, 1, 2, 3].map(|k| b.param(k));
    let v = b.load(Ty::Vec(vt), p, len, i, code(NULL), code(LOAD_OOB));
    let w = if vt.lane == Lane::Bool {
        v
    } else {
        b.op(
            Ty::Vec(vt),
            Op::Vector(VOp::Binary(spy_jit::ir::BinOp::Add, v, v)),
        )
    };
    b.store(p, len, j, w, code(NULL), code(STORE_OOB));
    let lanes: Vec<_> = (0..vt.n)
        .map(|k| b.op(vt.lane.ty(), Op::Vector(VOp::Lane(v, k))))
        .collect();
    b.ret(&lanes);
    m.define(b);
    m.finish().expect("valid IR")
}

/// A buffer of `LEN` lane elements with distinct values (`Bool`: 0, 1 and
/// a non-canonical 2, which a load reads as true).
fn buffer(lane: Lane) -> Vec<u8> {
    let size = lane.size() as usize;
    let mut out = vec![0u8; LEN * size + 1];
    for k in 0..LEN {
        let x: u64 = match lane {
            Lane::Bool => (k % 3) as u64,
            Lane::F32 => u64::from((k as f32 * 1.25 - 3.0).to_bits()),
            Lane::F64 => (k as f64 * 1.25 - 3.0).to_bits(),
            _ => (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 3,
        };
        out[k * size..(k + 1) * size].copy_from_slice(&x.to_le_bytes()[..size]);
    }
    out
}

type Outcome = (Result<Vec<Word>, RunError>, Vec<u8>);

fn run(vt: VecTy, args: [Word; 4], null: bool, machine: Option<SimdLevel>) -> Outcome {
    let m = module(vt);
    let mut buf = buffer(vt.lane);
    let p = if null { 0 } else { buf.as_mut_ptr() as Word };
    let args = [p, args[1], args[2], args[3]];
    let r = match machine {
        None => eval::call(&m, FuncId(0), &args, &eval_opts(10), &mut NoHelpers),
        Some(level) => {
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
            c.call(&mut ctx, FuncId(0), &args)
        }
    };
    (r, buf)
}

#[test]
fn vector_loads_and_stores_match_the_evaluator_on_every_level() {
    let mut runs = 0;
    let mut errors = [0usize; 3];
    for lane in Lane::ALL {
        for n in VecTy::COUNTS {
            let vt = VecTy::new(lane, n.into()).unwrap();
            let n = i64::from(n);
            let len = LEN as i64;
            let indexes = [0, 1, len - n, len - n + 1, len - 1, len, -1, -n, i64::MIN, 3];
            for (k, &i) in indexes.iter().enumerate() {
                let j = indexes[(k + 3) % indexes.len()];
                for null in [false, true] {
                    if null && k > 2 {
                        continue;
                    }
                    let args = [0, len as Word, i as Word, j as Word];
                    let want = run(vt, args, null, None);
                    match &want.0 {
                        Err(e) => match e.code.get() {
                            NULL => {
                                assert_eq!(e.operands, [0, i as Word]);
                                errors[0] += 1;
                            }
                            LOAD_OOB => {
                                assert_eq!(e.operands, [i as Word, len as Word]);
                                errors[1] += 1;
                            }
                            STORE_OOB => {
                                assert_eq!(e.operands, [j as Word, len as Word]);
                                errors[2] += 1;
                            }
                            c => panic!("unexpected error code {c}"),
                        },
                        Ok(lanes) => assert_eq!(lanes.len(), n as usize),
                    }
                    let in_bounds = |x: i64| x >= 0 && x + n <= len;
                    assert_eq!(
                        want.0.is_ok(),
                        !null && in_bounds(i) && in_bounds(j),
                        "{vt} i={i} j={j} null={null}"
                    );
                    for level in levels() {
                        let got = run(vt, args, null, Some(level));
                        assert_eq!(got, want, "{vt} i={i} j={j} null={null} at {level:?}");
                        runs += 1;
                    }
                }
            }
        }
    }
    assert!(errors.iter().all(|&e| e > 10), "{errors:?}");
    assert!(runs > 300, "{runs}");
}

#[test]
fn a_failed_vector_store_writes_nothing() {
    let vt = VecTy::new(Lane::F64, 4).unwrap();
    let untouched = buffer(Lane::F64);
    for level in levels() {
        // The store at 18 covers 18..22 of 20 elements: no lane is written.
        let (r, buf) = run(vt, [0, LEN as Word, 0, 18], false, Some(level));
        assert_eq!(r.unwrap_err().code.get(), STORE_OOB);
        assert_eq!(buf, untouched);
    }
}
