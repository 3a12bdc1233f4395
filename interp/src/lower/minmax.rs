//! Red calls of `min`, `max` and `abs` on numbers: typed by the builtin
//! signature table (`signatures::builtin_signature`, the same the other
//! engines use) and lowered with the rules of `frames::builtin_calls`:
//! pairwise `x if x < y else y` / `x if x > y else y` (so with a NaN or
//! equal zeros the second operand wins, as upstream's `_min`/`_max`), and
//! `-x if x < 0 else x` (wrapping for ints; `abs(-0.0)` is `-0.0`).

use spy_jit::ir::{CmpOp as IC, Op, UnOp};

use super::func::{FnLower, LVal};
use super::layout::prim_ty;
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::Exprs;
use crate::vm::builtins::Builtin;
use crate::vm::ops::signatures::{self, BuiltinImpl};
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// `min(a, b, ...)`, `max(a, b, ...)` or `abs(a)` with red operands.
    pub(super) fn min_max_abs(&mut self, b: Builtin, args: &Exprs<'_>, whole: TextRange) -> Lowered<LVal> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push((self.expr(&a)?, a.range));
        }
        let tys: Vec<TypeId> = vals.iter().map(|(v, _)| v.ty).collect();
        let types = &mut self.cx.interp.vm.types;
        let Some(Ok(sig)) = signatures::builtin_signature(types, b, &tys, |_| false) else {
            return self.unsupported(format!("this `{}` call", b.name()), whole);
        };
        match sig.imp {
            BuiltinImpl::Abs => {
                let [(x, _)] = vals.as_slice() else {
                    return self.unsupported("`abs` with other than one argument", whole);
                };
                let Some(p) = x.ty.as_prim() else {
                    return self.unsupported("`abs` of a non-number", whole);
                };
                if !(p.is_float() || p.is_signed()) {
                    return Ok(x.clone());
                }
                let ty = prim_ty(p);
                let v = x.regs[0];
                let out = self.fb.local(ty);
                self.fb.assign(out, Op::Copy(v));
                let zero = self.fb.const_(ty, 0);
                let negative = self.fb.cmp(IC::Lt, v, zero);
                let neg = self.fb.unary(UnOp::Neg, v);
                self.fb.if_(negative, |fb| fb.assign(out, Op::Copy(neg)), |_| {});
                Ok(LVal::one(x.ty, out))
            }
            BuiltinImpl::MinMax { .. } => {
                let mut vals = vals.into_iter();
                let Some((mut best, _)) = vals.next() else {
                    return self.unsupported(format!("`{}` without arguments", b.name()), whole);
                };
                for (y, range) in vals {
                    let Some(operand) = signatures::min_max_operand(best.ty, y.ty) else {
                        return self.unsupported(format!("this `{}` call", b.name()), whole);
                    };
                    let t = TypeId::prim(operand);
                    let x = self.coerce(best, t, range)?;
                    let y = self.coerce(y, t, range)?;
                    let (x, y) = (x.regs[0], y.regs[0]);
                    let out = self.fb.local(prim_ty(operand));
                    self.fb.assign(out, Op::Copy(y));
                    let keep_x = match b {
                        Builtin::Min => self.fb.cmp(IC::Lt, x, y),
                        _ => self.fb.cmp(IC::Gt, x, y),
                    };
                    self.fb.if_(keep_x, |fb| fb.assign(out, Op::Copy(x)), |_| {});
                    best = LVal::one(t, out);
                }
                Ok(best)
            }
            _ => self.unsupported(format!("this `{}` call", b.name()), whole),
        }
    }
}
