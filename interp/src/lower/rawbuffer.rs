//! Red calls of the `rawbuffer` module (spec §15.6): a `RawBuffer` is laid
//! out as a pointer to bytes (its buffer and length, `layout`), made by the
//! `ptr_alloc` helper (the memory budget and zero fill, as ASTFrame's
//! `rb_alloc`); `rb_get_*` / `rb_set_*` call the helpers of
//! `rawbuffer_rt`. Typed by the builtin signature table.

use spy_jit::ir::{Ty, VReg};

use super::func::{FnLower, LVal};
use super::layout::{prim_code, prim_ty};
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::Exprs;
use crate::vm::builtins::Builtin;
use crate::vm::ops::rawbuffer::RbFn;
use crate::vm::ops::signatures;
use crate::vm::ops::PrimTy;
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// `rb_alloc(n)`, `rb_set_*(b, offset, v)`, `rb_get_*(b, offset)`.
    pub(super) fn rawbuffer_call(&mut self, rbfn: RbFn, args: &Exprs<'_>, call: TextRange) -> Lowered<LVal> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push((self.expr(&a)?, a.range));
        }
        let tys: Vec<TypeId> = vals.iter().map(|(v, _)| v.ty).collect();
        let types = &mut self.cx.interp.vm.types;
        let Some(Ok(sig)) = signatures::builtin_signature(types, Builtin::Rb(rbfn), &tys, |_| false) else {
            return self.unsupported(format!("this `{}` call", rbfn.name()), call);
        };
        let mut regs = Vec::new();
        for ((v, r), p) in vals.into_iter().zip(&sig.params) {
            regs.extend(match p {
                Some(t) => self.coerce(v, *t, r)?.regs,
                None => v.regs,
            });
        }
        let hs = self.cx.helpers;
        match rbfn {
            RbFn::Alloc => {
                let n = self.fb.convert(Ty::I64, regs[0]);
                let code = self.fb.const_(Ty::U64, prim_code(PrimTy::U8));
                let one = self.fb.const_(Ty::U64, 1);
                let base = self.helper_value_in_call(hs.ptr_alloc, Ty::Ptr, &[n, code, one], call, call)?;
                Ok(LVal {
                    ty: TypeId::RAW_BUFFER,
                    regs: vec![base, n],
                })
            }
            RbFn::Get(t) => {
                let ty = self.fb.const_(Ty::U64, prim_code(t));
                let args = [regs[0], regs[1], regs[2], ty];
                let w = self.helper_value_in_call(hs.rawbuffer.get, Ty::U64, &args, call, call)?;
                Ok(LVal::one(TypeId::prim(t), self.scalar_of_word(t, w, call)?))
            }
            RbFn::Set(t) => {
                let ty = self.fb.const_(Ty::U64, prim_code(t));
                let w = self.word_of_scalar(t, regs[3], call)?;
                let args = [regs[0], regs[1], regs[2], ty, w];
                self.call_helper_in_call(hs.rawbuffer.set, None, &args, call, call);
                Ok(LVal::none())
            }
        }
    }

    /// The register of type `t` holding the scalar whose canonical word is
    /// `w` (floats by their bits).
    fn scalar_of_word(&mut self, t: PrimTy, w: VReg, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        Ok(match t {
            PrimTy::F64 => self.helper_value(hs.f64_of_word, Ty::F64, &[w], range)?,
            PrimTy::F32 => self.helper_value(hs.f32_of_word, Ty::F32, &[w], range)?,
            _ => self.fb.convert(prim_ty(t), w),
        })
    }

    /// The canonical word of the scalar register `v` of type `t`.
    fn word_of_scalar(&mut self, t: PrimTy, v: VReg, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        Ok(match t {
            PrimTy::F64 => self.helper_value(hs.word_of_f64, Ty::U64, &[v], range)?,
            PrimTy::F32 => self.helper_value(hs.word_of_f32, Ty::U64, &[v], range)?,
            _ => self.fb.convert(Ty::U64, v),
        })
    }
}
