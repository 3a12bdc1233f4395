//! The IR-level fuzz target's property (cranelift-fuzzgen's idea): bytes →
//! a random well-typed spy-jit IR module built directly with
//! `spy_jit::ir::ModuleBuilder` (no SPy front end in the way): integers of
//! every width, `f32`/`f64` (edge constants: ±0.0, ±inf, NaN, subnormals),
//! `bool`, every operator (floor division and modulo, shifts at and past
//! the width, comparisons, conversions), structured `if` / bounded loops
//! with `break`/`continue` and loop-carried locals, direct calls of
//! earlier functions with many mixed parameters, explicit raises. The
//! module is compiled by the jit and its entry function run on arbitrary
//! arguments; results (or the error) must be those of `ir::eval`, bit for
//! bit. `fuzz_targets/ir.rs` drives it from libFuzzer,
//! `tests/encoder_and_ir.rs` over a fixed seed range under `cargo test`.

use arbitrary::{Result, Unstructured};
use spy_jit::ir::eval::{self, EvalOptions, NoHelpers};
use spy_jit::ir::{
    sem, BinOp, CmpOp, ErrCode, FuncId, FunctionBuilder, Module, ModuleBuilder, Op, ShiftOp, SiteId, Ty,
    UnOp, VReg, Word,
};
use spy_jit::runtime::{Context, ContextOptions};
use spy_jit::{compile, CompileOptions, Mutations, SimdLevel};

/// The scalar types a generated function computes with.
const TYS: [Ty; 9] = [
    Ty::I8,
    Ty::U8,
    Ty::I32,
    Ty::U32,
    Ty::I64,
    Ty::U64,
    Ty::F32,
    Ty::F64,
    Ty::Bool,
];

const RECURSION: u32 = 900;
const INTERNAL: u32 = 901;
/// Error codes of the operations that can fail (what the machine code and
/// the evaluator must agree on).
const ON_ZERO: u32 = 1;
const ON_NEGATIVE: u32 = 2;
const RAISED: u32 = 3;

fn code(c: u32) -> ErrCode {
    ErrCode::new(c).expect("nonzero")
}

/// Functions per module, statements per block, nesting depth.
const MAX_FUNCS: usize = 4;
const MAX_STMTS: usize = 8;
const MAX_DEPTH: u32 = 3;
/// Parameters of a function, at most (8–12 mixed parameters spill to the
/// stack: the System V registers hold 6 integers and 8 floats).
const MAX_PARAMS: usize = 12;

fn ty(u: &mut Unstructured) -> Result<Ty> {
    Ok(*u.choose(&TYS)?)
}

/// A canonical constant of `t`, biased toward the edges.
pub fn constant(u: &mut Unstructured, t: Ty) -> Result<Word> {
    let w: Word = match t {
        Ty::F64 => match u.int_in_range(0..=3)? {
            0 => {
                let edges = [
                    0.0f64,
                    -0.0,
                    1.0,
                    -1.0,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::NAN,
                    f64::MIN_POSITIVE / 2.0,
                    f64::MAX,
                    0.5,
                    2.5,
                ];
                u.choose(&edges)?.to_bits()
            }
            1 => f64::from(u.int_in_range(-8i8..=8)?).to_bits(),
            _ => u.arbitrary()?,
        },
        Ty::F32 => match u.int_in_range(0..=3)? {
            0 => {
                let edges = [
                    0.0f32,
                    -0.0,
                    1.0,
                    -1.0,
                    f32::INFINITY,
                    f32::NEG_INFINITY,
                    f32::NAN,
                    f32::MIN_POSITIVE / 2.0,
                    f32::MAX,
                    0.5,
                ];
                u64::from(u.choose(&edges)?.to_bits())
            }
            1 => u64::from(f32::from(u.int_in_range(-8i8..=8)?).to_bits()),
            _ => u64::from(u.arbitrary::<u32>()?),
        },
        Ty::Bool => u64::from(u.arbitrary::<bool>()?),
        _ => {
            let bits = t.bits();
            let edges = [
                0u64,
                1,
                u64::MAX,
                (1u64 << (bits - 1)) - 1,
                1u64 << (bits - 1),
                (1u64 << (bits - 1)).wrapping_neg(),
                u64::from(bits),
                u64::from(bits) + 1,
                u64::from(bits) - 1,
                2,
            ];
            match u.int_in_range(0..=2)? {
                0 => *u.choose(&edges)?,
                1 => u.int_in_range(-4i64..=4)? as u64,
                _ => u.arbitrary()?,
            }
        }
    };
    Ok(sem::canon(t, w))
}

/// Generates one function body: `avail` are the registers definitely
/// assigned in the current block (with their types), `locals` the mutable
/// ones among them.
struct Gen<'a, 'u> {
    u: &'a mut Unstructured<'u>,
    /// Signatures of the functions defined before this one (callable).
    callees: &'a [(FuncId, Vec<Ty>, Vec<Ty>)],
    b: FunctionBuilder,
    avail: Vec<VReg>,
    locals: Vec<VReg>,
    site: u32,
    loop_depth: u32,
}

impl Gen<'_, '_> {
    fn of(&self, t: Ty) -> Vec<VReg> {
        self.avail
            .iter()
            .copied()
            .filter(|v| self.b.ty(*v) == t)
            .collect()
    }

    /// A value of type `t`: an available register or a fresh constant.
    fn value(&mut self, t: Ty) -> Result<VReg> {
        let have = self.of(t);
        if !have.is_empty() && self.u.ratio(4, 5)? {
            return Ok(*self.u.choose(&have)?);
        }
        let w = constant(self.u, t)?;
        let v = self.b.const_(t, w);
        self.avail.push(v);
        Ok(v)
    }

    /// An operation producing a value of type `t` (a new temporary).
    fn expr(&mut self, t: Ty) -> Result<VReg> {
        let int = t.is_int();
        let float = t.is_float();
        let v = match self.u.int_in_range(0..=9)? {
            0 => {
                let w = constant(self.u, t)?;
                self.b.const_(t, w)
            }
            1 if int || float || t == Ty::Bool => {
                let a = self.value(t)?;
                let op = if t == Ty::Bool || (int && self.u.arbitrary()?) {
                    UnOp::Not
                } else {
                    UnOp::Neg
                };
                self.b.unary(op, a)
            }
            2 | 3 => {
                let ops: &[BinOp] = if t == Ty::Bool {
                    &[BinOp::And, BinOp::Or, BinOp::Xor]
                } else if float {
                    &[BinOp::Add, BinOp::Sub, BinOp::Mul]
                } else {
                    &[
                        BinOp::Add,
                        BinOp::Sub,
                        BinOp::Mul,
                        BinOp::And,
                        BinOp::Or,
                        BinOp::Xor,
                    ]
                };
                let op = *self.u.choose(ops)?;
                let (a, b) = (self.value(t)?, self.value(t)?);
                self.b.binary(op, a, b)
            }
            4 if int => {
                let (a, b) = (self.value(t)?, self.value(t)?);
                if self.u.arbitrary()? {
                    self.b.floor_div(a, b, code(ON_ZERO))
                } else {
                    self.b.floor_mod(a, b, code(ON_ZERO))
                }
            }
            4 if float => {
                let (a, b) = (self.value(t)?, self.value(t)?);
                self.b.fdiv(a, b, code(ON_ZERO))
            }
            5 if int => {
                let op = if self.u.arbitrary()? {
                    ShiftOp::Shl
                } else {
                    ShiftOp::Shr
                };
                let (a, b) = (self.value(t)?, self.value(t)?);
                self.b.shift(op, a, b, code(ON_NEGATIVE))
            }
            6 if t == Ty::Bool => {
                let ot = ty(self.u)?;
                let (a, b) = (self.value(ot)?, self.value(ot)?);
                let c = *self.u.choose(&CmpOp::ALL)?;
                self.b.cmp(c, a, b)
            }
            7 => {
                let from = ty(self.u)?;
                if !sem::convertible(from, t) {
                    return self.value(t);
                }
                let a = self.value(from)?;
                self.b.convert(t, a)
            }
            _ => return self.value(t),
        };
        self.avail.push(v);
        Ok(v)
    }

    /// `acc = acc * 31 + u64(v)` over every available value (floats as
    /// their comparisons with themselves and with 0.0, and their saturating
    /// conversion to `i64`): a `U64` that depends on all of them.
    fn checksum(&mut self) -> VReg {
        let b = &mut self.b;
        let mut acc = b.const_(Ty::U64, 0x9E37_79B9);
        let k = b.const_(Ty::U64, 31);
        for v in self.avail.clone() {
            let t = b.ty(v);
            let parts: Vec<VReg> = if t.is_float() {
                let zero = b.const_(t, 0);
                let eq = b.cmp(CmpOp::Eq, v, v);
                let lt = b.cmp(CmpOp::Lt, v, zero);
                let ne = b.cmp(CmpOp::Ne, v, zero);
                let i = b.convert(Ty::I64, v);
                vec![eq, lt, ne, i]
            } else {
                vec![v]
            };
            for p in parts {
                let w = if b.ty(p) == Ty::U64 {
                    p
                } else {
                    b.convert(Ty::U64, p)
                };
                let m = b.binary(BinOp::Mul, acc, k);
                acc = b.binary(BinOp::Add, m, w);
            }
        }
        acc
    }

    fn call(&mut self) -> Result<()> {
        if self.callees.is_empty() {
            return Ok(());
        }
        let (f, params, results) = self.u.choose(self.callees)?.clone();
        let mut args = vec![];
        for t in params {
            args.push(self.value(t)?);
        }
        self.site += 1;
        let rs = self.b.call_with(f, &results, &args, SiteId(self.site));
        self.avail.extend(rs);
        Ok(())
    }

    /// A block of statements; registers first assigned in it are not
    /// available after it.
    fn block(&mut self, depth: u32) -> Result<()> {
        let (avail, locals) = (self.avail.len(), self.locals.len());
        let n = self.u.int_in_range(1..=MAX_STMTS)?;
        for _ in 0..n {
            if self.u.is_empty() {
                break;
            }
            self.stmt(depth)?;
        }
        self.avail.truncate(avail);
        self.locals.truncate(locals);
        Ok(())
    }

    fn stmt(&mut self, depth: u32) -> Result<()> {
        match self.u.int_in_range(0..=15)? {
            0..=4 => {
                let t = ty(self.u)?;
                self.expr(t)?;
            }
            5 | 6 => {
                // A new local, or a reassigned one (loop-carried in a loop).
                let t = ty(self.u)?;
                let v = self.expr(t)?;
                let same: Vec<VReg> = self
                    .locals
                    .iter()
                    .copied()
                    .filter(|l| self.b.ty(*l) == t)
                    .collect();
                let dst = if !same.is_empty() && self.u.arbitrary()? {
                    *self.u.choose(&same)?
                } else {
                    let l = self.b.local(t);
                    self.avail.push(l);
                    self.locals.push(l);
                    l
                };
                self.b.assign(dst, Op::Copy(v));
            }
            // Calls outside loops only: the work stays bounded.
            7 | 8 if self.loop_depth == 0 => self.call()?,
            9 | 10 if depth < MAX_DEPTH => {
                let c = self.expr(Ty::Bool)?;
                self.b.open_block();
                self.block(depth + 1)?;
                let then_ = self.b.close_block();
                self.b.open_block();
                if self.u.arbitrary()? {
                    self.block(depth + 1)?;
                }
                let else_ = self.b.close_block();
                self.b.push(spy_jit::ir::Stmt::If {
                    cond: c,
                    then_,
                    else_,
                });
            }
            11 if depth < MAX_DEPTH => self.bounded_loop(depth)?,
            12 if self.loop_depth > 0 => {
                // `if c: break` / `if c: continue`
                let c = self.expr(Ty::Bool)?;
                let brk = self.u.arbitrary()?;
                self.b.if_(
                    c,
                    |b| {
                        if brk {
                            b.break_()
                        } else {
                            b.continue_()
                        }
                    },
                    |_| {},
                );
            }
            13 if self.u.ratio(1, 4)? => {
                let c = self.expr(Ty::Bool)?;
                let a = self.value(Ty::I64)?;
                self.b.if_(c, |b| b.raise(code(RAISED), [Some(a), None]), |_| {});
            }
            _ => {
                let t = ty(self.u)?;
                self.expr(t)?;
            }
        }
        Ok(())
    }

    /// `n = K; loop { if n <= 0: break; n = n - 1; body }`: at most K
    /// iterations whatever the body does (`continue` comes after the
    /// decrement).
    fn bounded_loop(&mut self, depth: u32) -> Result<()> {
        let n = self.b.local(Ty::I64);
        let k = self.u.int_in_range(0..=16)?;
        let kv = self.b.const_(Ty::I64, k);
        self.b.assign(n, Op::Copy(kv));
        let zero = self.b.const_(Ty::I64, 0);
        let one = self.b.const_(Ty::I64, 1);
        self.b.open_block();
        let done = self.b.cmp(CmpOp::Le, n, zero);
        self.b.if_(done, |b| b.break_(), |_| {});
        let next = self.b.binary(BinOp::Sub, n, one);
        self.b.assign(n, Op::Copy(next));
        self.loop_depth += 1;
        self.block(depth + 1)?;
        self.loop_depth -= 1;
        let body = self.b.close_block();
        self.b.push(spy_jit::ir::Stmt::Loop { body });
        Ok(())
    }
}

/// A generated module, its entry function and the arguments to call it with.
pub struct Case {
    pub module: Module,
    pub entry: FuncId,
    pub args: Vec<Word>,
}

/// The module `bytes` describe (`None`: not enough bytes for one).
pub fn generate(bytes: &[u8]) -> Option<Case> {
    let mut u = Unstructured::new(bytes);
    build(&mut u).ok()
}

fn build(u: &mut Unstructured) -> Result<Case> {
    let mut m = ModuleBuilder::new();
    let nfuncs = u.int_in_range(1..=MAX_FUNCS)?;
    let mut sigs: Vec<(FuncId, Vec<Ty>, Vec<Ty>)> = vec![];
    for i in 0..nfuncs {
        let np = u.int_in_range(0..=MAX_PARAMS)?;
        let params: Vec<Ty> = (0..np).map(|_| ty(u)).collect::<Result<_>>()?;
        // The first result is a checksum of every value the body computed
        // (most would be dead otherwise, and a bug in dead code is not
        // observable).
        let nr = u.int_in_range(0..=2)?;
        let results: Vec<Ty> = std::iter::once(Ok(Ty::U64))
            .chain((0..nr).map(|_| ty(u)))
            .collect::<Result<_>>()?;
        let id = m.declare(&format!("f{i}"), &params, &results);
        let b = m.function(id);
        let avail: Vec<VReg> = (0..np).map(|k| b.param(k)).collect();
        let mut g = Gen {
            u,
            callees: &sigs,
            b,
            locals: avail.clone(),
            avail,
            site: 0,
            loop_depth: 0,
        };
        g.block(0)?;
        let mut rets = vec![g.checksum()];
        for &t in &results[1..] {
            rets.push(g.value(t)?);
        }
        g.b.ret(&rets);
        let b = g.b;
        m.define(b);
        sigs.push((id, params, results));
    }
    let module = m.finish().map_err(|_| arbitrary::Error::IncorrectFormat)?;
    let (entry, params, _) = sigs.last().cloned().expect("one function");
    let args = params.iter().map(|&t| constant(u, t)).collect::<Result<_>>()?;
    Ok(Case { module, entry, args })
}

/// Compile and run `case` with the planted bugs `mutations`, and evaluate it
/// with `ir::eval`: `Err` describes a difference (or a compile error).
pub fn check_case(case: &Case, mutations: Mutations) -> std::result::Result<(), String> {
    let opts = CompileOptions {
        recursion_error: code(RECURSION),
        internal_error: code(INTERNAL),
        simd: SimdLevel::host(),
        mutations,
    };
    let compiled = compile(&case.module, &opts).map_err(|e| format!("does not compile: {e}"))?;
    let mut ctx = Context::new(ContextOptions::default());
    let jit = compiled.call(&mut ctx, case.entry, &case.args);
    let eval_opts = EvalOptions {
        depth_limit: ContextOptions::default().depth_limit,
        recursion_error: code(RECURSION),
        internal_error: code(INTERNAL),
    };
    let reference = eval::call(&case.module, case.entry, &case.args, &eval_opts, &mut NoHelpers);
    if jit == reference {
        Ok(())
    } else {
        Err(format!(
            "machine code gives {jit:x?}, ir::eval gives {reference:x?} for args {:x?}\n{}",
            case.args,
            case.module
                .functions
                .iter()
                .map(|f| spy_jit::ir::print::print_function(&case.module, f))
                .collect::<Vec<_>>()
                .join("\n")
        ))
    }
}

/// [`generate`] + [`check_case`]; `Ok(false)`: the bytes made no module.
pub fn check(bytes: &[u8], mutations: Mutations) -> std::result::Result<bool, String> {
    match generate(bytes) {
        Some(case) => check_case(&case, mutations).map(|()| true),
        None => Ok(false),
    }
}
