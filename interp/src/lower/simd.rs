//! `SIMD[T, N]` in the lowering: a vector value is one IR vector register
//! (`Ty::Vec`); construction, lane-wise operators, lane reads and printing
//! become `spy_jit::ir::VOp`s. The typing is the interpreter's: the result
//! lane of an operator is `ops::binop_signature` of the lane types (as
//! `frames::lowlevel::simd_binop` uses it: `op_select::simd_binop_sel`), a
//! scalar operand is converted and broadcast, lane indexes come from
//! `subscript_signature`. An operation with no vector op
//! (`/` of `i64` lanes, comparisons of `bool` lanes) is the scalar lowering
//! applied lane by lane, in lane order, so its errors are the
//! interpreter's. Vectors cross calls as their lanes (the IR has no vector
//! parameters): [`abi_tys`], [`to_abi`], [`from_abi`].

use spy_jit::ir::{BinOp as IB, CmpOp as IC, FunctionBuilder, Lane, Op, Ty, VOp, VReg, VecTy};

use super::func::{FnLower, LVal};
use super::layout::prim_ty;
use super::Lowered;
use crate::error::ExcKind;
use crate::source::TextRange;
use crate::syntax::ast::{BinOp, CmpOp};
use crate::vm::op_select::{self, SimdOperand, SimdSel};
use crate::vm::ops::PrimTy;
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::{TypeId, TypeKind, TypeTable};

/// The IR lane type of a SIMD lane.
pub fn lane_of(p: PrimTy) -> Option<Lane> {
    Lane::of(prim_ty(p))
}

/// The IR vector type of a `SIMD[T, N]` type.
pub fn vec_ty(types: &TypeTable, ty: TypeId) -> Option<VecTy> {
    match *types.kind(ty) {
        TypeKind::Simd { lane, lanes } => VecTy::new(lane_of(lane)?, lanes),
        _ => None,
    }
}

/// The types of values crossing a call: every vector as its lanes.
pub fn abi_tys(tys: &[Ty]) -> Vec<Ty> {
    let mut out = Vec::new();
    for &t in tys {
        match t {
            Ty::Vec(v) => out.extend(std::iter::repeat_n(v.lane.ty(), usize::from(v.n))),
            t => out.push(t),
        }
    }
    out
}

/// The call-crossing registers of `regs` (vectors as their lanes).
pub fn to_abi(fb: &mut FunctionBuilder, regs: &[VReg]) -> Vec<VReg> {
    let mut out = Vec::new();
    for &r in regs {
        match fb.ty(r) {
            Ty::Vec(v) => {
                for k in 0..v.n {
                    out.push(fb.op(v.lane.ty(), Op::Vector(VOp::Lane(r, k))));
                }
            }
            _ => out.push(r),
        }
    }
    out
}

/// Parameter locals of types `tys` from the function's IR parameters
/// `abi` (a vector parameter is a local built from its lane parameters).
pub fn params_from_abi(fb: &mut FunctionBuilder, tys: &[Ty], abi: &[VReg]) -> Vec<VReg> {
    rebuild_vectors(fb, tys, abi, |fb, t, lanes| {
        let l = fb.local(t);
        fb.assign(l, Op::Vector(VOp::Build(lanes)));
        l
    })
}

/// Registers of types `tys` rebuilt from call-crossing registers `abi`.
pub fn from_abi(fb: &mut FunctionBuilder, tys: &[Ty], abi: &[VReg]) -> Vec<VReg> {
    rebuild_vectors(fb, tys, abi, |fb, t, lanes| {
        fb.op(t, Op::Vector(VOp::Build(lanes)))
    })
}

/// Walk `abi` by `tys`: a scalar is its register, a vector of `n` lanes
/// takes the next `n` registers and becomes what `build` makes of them.
fn rebuild_vectors(
    fb: &mut FunctionBuilder,
    tys: &[Ty],
    abi: &[VReg],
    mut build: impl FnMut(&mut FunctionBuilder, Ty, Vec<VReg>) -> VReg,
) -> Vec<VReg> {
    let mut out = Vec::new();
    let mut at = 0;
    for &t in tys {
        match t {
            Ty::Vec(v) => {
                let lanes = abi[at..at + usize::from(v.n)].to_vec();
                at += usize::from(v.n);
                out.push(build(fb, t, lanes));
            }
            _ => {
                out.push(abi[at]);
                at += 1;
            }
        }
    }
    out
}

pub use crate::vm::op_select::SimdOp;

impl FnLower<'_, '_, '_> {
    /// A helper call with one result.
    fn call_helper_one(
        &mut self,
        h: spy_jit::ir::HelperId,
        result: Option<Ty>,
        args: &[VReg],
        range: TextRange,
    ) -> VReg {
        self.call_helper(h, result, args, range).expect("a result")
    }

    fn simd_of(&self, ty: TypeId) -> Option<(PrimTy, u32)> {
        match *self.cx.interp.vm.types.kind(ty) {
            TypeKind::Simd { lane, lanes } => Some((lane, lanes)),
            _ => None,
        }
    }

    /// `SIMD[T, N](x)` (every lane `x`) or `SIMD[T, N](x0, ..., xN-1)`.
    pub fn simd_make(&mut self, t: TypeId, args: Vec<(LVal, TextRange)>, range: TextRange) -> Lowered<LVal> {
        let (lane, lanes) = self.simd_of(t).expect("a SIMD type");
        let Some(vt) = vec_ty(&self.cx.interp.vm.types, t) else {
            return self.unsupported(format!("a value of type `{}`", self.type_name(t)), range);
        };
        if args.len() != 1 && args.len() != lanes as usize {
            return self.unsupported("a SIMD constructor with the wrong number of lanes", range);
        }
        let mut regs = Vec::new();
        for (v, r) in args {
            regs.push(self.coerce(v, TypeId::prim(lane), r)?.regs[0]);
        }
        let op = if regs.len() == 1 && lanes != 1 {
            VOp::Splat(regs[0])
        } else {
            VOp::Build(regs)
        };
        Ok(LVal::one(t, self.fb.op(Ty::Vec(vt), Op::Vector(op))))
    }

    /// Lane `k` of a vector.
    pub fn simd_lane(&mut self, v: LVal, k: usize) -> LVal {
        let (lane, _) = self.simd_of(v.ty).expect("a SIMD value");
        let r = self
            .fb
            .op(prim_ty(lane), Op::Vector(VOp::Lane(v.regs[0], k as u8)));
        LVal::one(TypeId::prim(lane), r)
    }

    /// `l op r` where one operand is a vector (`op_select::simd_binop_sel`
    /// decides); `None` if neither is.
    pub fn simd_binop(
        &mut self,
        op: SimdOp,
        (l, lr): (LVal, TextRange),
        (r, rr): (LVal, TextRange),
        whole: TextRange,
    ) -> Option<Lowered<LVal>> {
        let sel = op_select::simd_binop_sel(&self.cx.interp.vm.types, op, l.ty, r.ty)?;
        Some(self.simd_binop_sel(op, &sel, (l, lr), (r, rr), whole))
    }

    fn simd_binop_sel(
        &mut self,
        op: SimdOp,
        sel: &SimdSel,
        (l, lr): (LVal, TextRange),
        (r, rr): (LVal, TextRange),
        whole: TextRange,
    ) -> Lowered<LVal> {
        let (lane, lanes, vty) = (sel.lane, sel.lanes, sel.vector);
        let Some((lo, ro)) = sel.operands() else {
            // ASTFrame raises this when the operator runs (the residual
            // module keeps such an operation, as the doppler engine does).
            let (ln, rn) = (self.type_name(l.ty), self.type_name(r.ty));
            let message = format!("cannot do `{ln}` {} `{rn}`", op.symbol());
            let code = self.fixed_code_labeled(
                ExcKind::TypeError,
                message,
                (lr, &format!("this is `{ln}`")),
                &[(rr, format!("this is `{rn}`"))],
            );
            self.fb.raise(code, [None, None]);
            return self.unreachable_value(sel, whole);
        };
        let Some(vt) = vec_ty(&self.cx.interp.vm.types, vty) else {
            return self.unsupported(format!("a value of type `{}`", self.type_name(vty)), whole);
        };
        // The operand as a vector of `vty`: itself, or a scalar converted
        // to the lane type and broadcast.
        let operand = |me: &mut Self, v: LVal, how: SimdOperand, range: TextRange| -> Lowered<VReg> {
            match how {
                SimdOperand::Vector => Ok(v.regs[0]),
                SimdOperand::Broadcast(_) => {
                    let s = me.coerce(v, TypeId::prim(lane), range)?;
                    Ok(me.fb.op(Ty::Vec(vt), Op::Vector(VOp::Splat(s.regs[0]))))
                }
            }
        };
        let a = operand(self, l, lo, lr)?;
        let b = operand(self, r, ro, rr)?;
        let Some(result_lane) = sel.result_lane else {
            return self.unsupported(format!("`{lane}` {} `{lane}` lanes", op.symbol()), whole);
        };
        let rty = self.cx.interp.vm.types.simd(result_lane, lanes);
        let Some(rvt) = vec_ty(&self.cx.interp.vm.types, rty) else {
            return self.unsupported(format!("a value of type `{}`", self.type_name(rty)), whole);
        };
        let native = |c: &mut Self, vop: VOp| Ok(LVal::one(rty, c.fb.op(Ty::Vec(rvt), Op::Vector(vop))));
        match op {
            SimdOp::Bin(bop @ (BinOp::Add | BinOp::Sub | BinOp::Mul)) if lane != PrimTy::Bool => {
                let ib = match bop {
                    BinOp::Add => IB::Add,
                    BinOp::Sub => IB::Sub,
                    _ => IB::Mul,
                };
                native(self, VOp::Binary(ib, a, b))
            }
            SimdOp::Bin(BinOp::Div) if lane.is_float() => {
                let code = self.rt_code(RuntimeError::FloatDivByZero, whole, "");
                native(self, VOp::FDiv { a, b, on_zero: code })
            }
            SimdOp::Bin(BinOp::Div) if lane == PrimTy::I32 => {
                // Both i32 operands are exact doubles: one IEEE division is
                // the interpreter's correctly rounded `true_div`.
                let f = Ty::Vec(vt.with_lane(Lane::F64));
                let fa = self.fb.op(f, Op::Vector(VOp::Convert(a)));
                let fb_ = self.fb.op(f, Op::Vector(VOp::Convert(b)));
                let code = self.rt_code(RuntimeError::IntDivByZero, whole, "");
                native(
                    self,
                    VOp::FDiv {
                        a: fa,
                        b: fb_,
                        on_zero: code,
                    },
                )
            }
            SimdOp::Cmp(c) if lane != PrimTy::Bool => {
                let ic = match c {
                    CmpOp::Eq => IC::Eq,
                    CmpOp::NotEq => IC::Ne,
                    CmpOp::Lt => IC::Lt,
                    CmpOp::LtE => IC::Le,
                    CmpOp::Gt => IC::Gt,
                    CmpOp::GtE => IC::Ge,
                    _ => return self.unsupported(format!("`{}` of SIMD vectors", c.symbol()), whole),
                };
                native(self, VOp::Cmp(ic, a, b))
            }
            _ => {
                // Lane by lane with the scalar lowering, in lane order (so a
                // failing lane fails first, as in the interpreter).
                let mut out = Vec::new();
                for k in 0..lanes as usize {
                    let x = self.simd_lane(LVal::one(vty, a), k);
                    let y = self.simd_lane(LVal::one(vty, b), k);
                    let v = match op {
                        SimdOp::Bin(bop) => self.binop(bop, x, whole, y, whole, whole)?,
                        SimdOp::Cmp(c) => self.compare(c, x, y, whole)?,
                    };
                    out.push(self.coerce(v, TypeId::prim(result_lane), whole)?.regs[0]);
                }
                native(self, VOp::Build(out))
            }
        }
    }

    /// `ptr_simd_load[T, N](p, i)` / `ptr_simd_store(p, i, v)` on evaluated
    /// arguments: the signature's conversions (`i` to `i32`), then one
    /// vector `Load`/`Store` whose checks are `frames::lowlevel`'s, in its
    /// order (null, then the whole lane run in bounds), at the call's range
    /// (also the frame's position in the traceback, as ASTFrame's).
    pub fn simd_memory(
        &mut self,
        b: crate::vm::builtins::Builtin,
        vals: Vec<(LVal, TextRange)>,
        range: TextRange,
    ) -> Lowered<LVal> {
        use crate::vm::builtins::Builtin;
        use crate::vm::ops::signatures::{self, BuiltinImpl};
        let tys: Vec<TypeId> = vals.iter().map(|(v, _)| v.ty).collect();
        let types = &mut self.cx.interp.vm.types;
        let sig = signatures::builtin_signature(types, b, &tys, |_| false);
        let Some(Ok(sig)) = sig else {
            return self.unsupported(format!("this `{}` call", b.name()), range);
        };
        let mut regs = Vec::new();
        for ((v, r), p) in vals.into_iter().zip(&sig.params) {
            regs.push(match p {
                Some(t) => self.coerce(v, *t, r)?,
                None => v,
            });
        }
        let (ptr, len) = (regs[0].regs[0], regs[0].regs[1]);
        let index = self.fb.convert(Ty::I64, regs[1].regs[0]);
        let null = self.rt_code_in_call(RuntimeError::NullPointer, range);
        match (b, sig.imp) {
            (Builtin::PtrSimdLoadOf(t), BuiltinImpl::SimdLoad { .. }) => {
                let Some(vt) = vec_ty(&self.cx.interp.vm.types, t) else {
                    return self.unsupported(format!("a value of type `{}`", self.type_name(t)), range);
                };
                let oob = self.rt_code_in_call(RuntimeError::PtrSimdLoadOutOfBounds, range);
                let v = self.fb.load(Ty::Vec(vt), ptr, len, index, null, oob);
                Ok(LVal::one(t, v))
            }
            (Builtin::PtrSimdStore, BuiltinImpl::SimdStore) => {
                let oob = self.rt_code_in_call(RuntimeError::PtrSimdStoreOutOfBounds, range);
                self.fb.store(ptr, len, index, regs[2].regs[0], null, oob);
                Ok(LVal::none())
            }
            _ => Err(crate::lower::LowerError::bug(
                "a SIMD memory call of another signature",
            )),
        }
    }

    /// A value of an operation that raised (the code after it is dead, but
    /// the IR still needs a definition of the result's type).
    fn unreachable_value(&mut self, sel: &SimdSel, whole: TextRange) -> Lowered<LVal> {
        let rty = self
            .cx
            .interp
            .vm
            .types
            .simd(sel.result_lane.unwrap_or(sel.lane), sel.lanes);
        let Some(vt) = vec_ty(&self.cx.interp.vm.types, rty) else {
            return self.unsupported(format!("a value of type `{}`", self.type_name(rty)), whole);
        };
        let zero = self.fb.const_(vt.lane.ty(), 0);
        Ok(LVal::one(
            rty,
            self.fb.op(Ty::Vec(vt), Op::Vector(VOp::Splat(zero))),
        ))
    }

    /// `str()` of a vector: the display rule `SIMD[T, N](lane0, lane1, ...)`
    /// with each lane formatted by the interpreter's scalar formatter.
    pub fn simd_text(&mut self, v: LVal, range: TextRange) -> Lowered<VReg> {
        let (_, lanes) = self.simd_of(v.ty).expect("a SIMD value");
        let name = format!("{}(", self.type_name(v.ty));
        let h = self.cx.string(&name);
        let mut s = self.fb.const_(Ty::Handle, h);
        let concat = self.cx.helpers.str_concat;
        for k in 0..lanes as usize {
            if k > 0 {
                let sep = self.cx.string(", ");
                let sep = self.fb.const_(Ty::Handle, sep);
                s = self.call_helper_one(concat, Some(Ty::Handle), &[s, sep], range);
            }
            let x = self.simd_lane(v.clone(), k);
            let t = self.repr(x, range)?;
            s = self.call_helper_one(concat, Some(Ty::Handle), &[s, t], range);
        }
        let close = self.cx.string(")");
        let close = self.fb.const_(Ty::Handle, close);
        Ok(self.call_helper_one(concat, Some(Ty::Handle), &[s, close], range))
    }
}
