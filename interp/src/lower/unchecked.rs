//! Red calls of the `unsafe` division operations (`unchecked_div`,
//! `unchecked_floordiv`, `unchecked_mod`, `ieee754_div`; semantics in
//! `vm::ops::unchecked`), typed by the builtin signature table the other
//! engines use. The `unchecked_*` forms are native: a zero test of the
//! divisor raising the `PanicError`, then the operator's own lowering (whose
//! zero check can no longer fire). `ieee754_div` is a runtime helper calling
//! `DivOp::apply` (the IR has no unchecked float division).

use spy_jit::ir::{CmpOp as IC, Ty};

use super::func::{FnLower, LVal};
use super::layout::prim_ty;
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::Exprs;
use crate::vm::builtins::Builtin;
use crate::vm::ops::signatures::{self, BuiltinImpl};
use crate::vm::ops::unchecked::DivOp;
use crate::vm::ops::PrimTy;
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// `unchecked_div(a, b)`... with red operands.
    pub(super) fn unsafe_div(&mut self, d: DivOp, args: &Exprs<'_>, whole: TextRange) -> Lowered<LVal> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push((self.expr(&a)?, a.range));
        }
        let tys: Vec<TypeId> = vals.iter().map(|(v, _)| v.ty).collect();
        let types = &mut self.cx.interp.vm.types;
        let sig = signatures::builtin_signature(types, Builtin::Div(d), &tys, |_| false);
        let (Some(Ok(sig)), [(a, ar), (b, br)]) = (sig, &vals[..]) else {
            return self.unsupported(format!("this `{}` call", d.name()), whole);
        };
        let BuiltinImpl::Div { op, operand } = sig.imp else {
            return self.unsupported(format!("this `{}` call", d.name()), whole);
        };
        let to = TypeId::prim(operand);
        let a = self.coerce(a.clone(), to, *ar)?;
        let b = self.coerce(b.clone(), to, *br)?;
        let Some(panic) = op.zero_panic(operand) else {
            let hs = self.cx.helpers;
            let (h, t) = match operand {
                PrimTy::F32 => (hs.f32_ieee754_div, Ty::F32),
                _ => (hs.f64_ieee754_div, Ty::F64),
            };
            let r = self.helper_value(h, t, &[a.regs[0], b.regs[0]], whole)?;
            return Ok(LVal::one(to, r));
        };
        // 0 and 0.0 are the all-zero word in every primitive type; a
        // float -0.0 compares equal to it.
        let zero = self.fb.const_(prim_ty(operand), 0);
        let is_zero = self.fb.cmp(IC::Eq, b.regs[0], zero);
        let code = self.rt_code_in_call(panic, whole);
        self.fb.if_(is_zero, |fb| fb.raise(code, [None, None]), |_| {});
        self.binop(op.binop(), a, *ar, b, *br, whole)
    }
}
