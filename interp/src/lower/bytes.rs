//! `bytes` values of residual code: a handle to a table the run owns (as
//! `str`), made from the program's constants or by runtime helpers
//! (`bytes_rt`) that call the interpreter's own functions — literals,
//! `+`, `*`, `==`, `b[i]`, `b[i:j:k]`, `len`, `ord`, `repr`/`str`/`print`,
//! `b.decode(enc)` and `s.encode(enc)`. Every error is raised by the
//! helper from the interpreter's `OpError`, located as ASTFrame locates
//! it (the subscript, the `ord` argument, the method call).

use spy_jit::ir::{Ty, VReg};

use super::func::{FnLower, LVal};
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::{ExprRef, Exprs};
use crate::vm::builtins::Builtin;
use crate::vm::ops::signatures::{self, BuiltinImpl, MethodImpl, Param, StrMethod};
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// A bytes constant (a literal, or a blue `bytes` value).
    pub fn bytes_literal(&mut self, b: &[u8]) -> LVal {
        let h = self.cx.bytes_const(b);
        let r = self.fb.const_(Ty::Handle, h);
        LVal::one(TypeId::BYTES, r)
    }

    /// `a + b` of two bytes (ASTFrame's `BytesConcat`).
    pub fn bytes_concat(&mut self, a: &LVal, b: &LVal, whole: TextRange) -> Lowered<LVal> {
        let h = self.cx.helpers.bytes.concat;
        let r = self.helper_value(h, Ty::Handle, &[a.regs[0], b.regs[0]], whole)?;
        Ok(LVal::one(TypeId::BYTES, r))
    }

    /// `a * n` (`n` converted to `i32`).
    pub fn bytes_repeat(&mut self, a: &LVal, n: LVal, nr: TextRange, whole: TextRange) -> Lowered<LVal> {
        let n = self.coerce(n, TypeId::I32, nr)?;
        let h = self.cx.helpers.bytes.repeat;
        let r = self.helper_value(h, Ty::Handle, &[a.regs[0], n.regs[0]], whole)?;
        Ok(LVal::one(TypeId::BYTES, r))
    }

    /// `a == b`: a `bool` register.
    pub fn bytes_eq(&mut self, a: &LVal, b: &LVal, range: TextRange) -> Lowered<VReg> {
        let h = self.cx.helpers.bytes.eq;
        self.helper_value(h, Ty::Bool, &[a.regs[0], b.regs[0]], range)
    }

    /// `len(b)`.
    pub fn bytes_len(&mut self, b: &LVal, range: TextRange) -> Lowered<LVal> {
        let h = self.cx.helpers.bytes.len;
        let r = self.helper_value(h, Ty::I32, &[b.regs[0]], range)?;
        Ok(LVal::one(TypeId::I32, r))
    }

    /// `b[i]` (`i` converted to `i32`): a `u8`, or `IndexError` at the
    /// whole subscript (ASTFrame's `BytesByte`). (A slice is `list_slice`.)
    pub fn bytes_getitem(&mut self, b: LVal, index: &ExprRef<'_>, whole: TextRange) -> Lowered<LVal> {
        let i = self.expr(index)?;
        let i = self.coerce(i, TypeId::I32, index.range)?;
        let i = self.fb.convert(Ty::I64, i.regs[0]);
        let h = self.cx.helpers.bytes.index;
        let w = self.helper_value(h, Ty::U64, &[b.regs[0], i], whole)?;
        let r = self.fb.convert(Ty::U8, w);
        Ok(LVal::one(TypeId::U8, r))
    }

    /// `repr(b)` / `str(b)`: a str handle.
    pub fn bytes_repr(&mut self, b: &LVal, range: TextRange) -> Lowered<VReg> {
        let h = self.cx.helpers.bytes.repr;
        self.helper_value(h, Ty::Handle, &[b.regs[0]], range)
    }

    /// `ord(x)` of a `bytes` (a `u8`) or a `str` (an `i32`), as the
    /// builtin's signature selects; an error is annotated at the argument,
    /// its frame at the call (ASTFrame's `exec_builtin`).
    pub fn ord_call(&mut self, args: &Exprs<'_>, call: TextRange) -> Lowered<LVal> {
        let Some([a]) = args.as_array() else {
            return self.unsupported("`ord` with other than one argument", call);
        };
        let v = self.expr(&a)?;
        let types = &mut self.cx.interp.vm.types;
        let sig = signatures::builtin_signature(types, Builtin::Ord, &[v.ty], |_| false);
        let Some(Ok(sig)) = sig else {
            return self.unsupported("this `ord` call", call);
        };
        let hs = self.cx.helpers.bytes;
        let (h, ty, t) = match sig.imp {
            BuiltinImpl::OrdBytes => (hs.ord, TypeId::U8, Ty::U8),
            BuiltinImpl::Ord => (hs.str_ord, TypeId::I32, Ty::I32),
            _ => return self.unsupported("this `ord` call", call),
        };
        let w = self.helper_value_in_call(h, Ty::U64, &[v.regs[0]], a.range, call)?;
        let r = self.fb.convert(t, w);
        Ok(LVal::one(ty, r))
    }

    /// `recv.m(args)` of a `bytes` or `str` receiver, by the method's
    /// signature (`signatures::method_signature`): `b.decode(enc)`,
    /// `s.encode(enc)` and the str methods of `str_rt`;
    /// an error is annotated at the whole call, its frame
    /// at the call (ASTFrame's `call_bytes_method`/`call_str_method`).
    pub fn text_method(
        &mut self,
        recv: LVal,
        name: &str,
        args: Vec<(LVal, TextRange)>,
        callee: TextRange,
        whole: TextRange,
    ) -> Lowered<LVal> {
        let tys: Vec<TypeId> = args.iter().map(|(v, _)| v.ty).collect();
        let sig = signatures::method_signature(&mut self.cx.interp.vm.types, recv.ty, name, &tys);
        let what = format!("a method of a `{}`", self.type_name(recv.ty));
        let Some(Ok(sig)) = sig else {
            return self.unsupported(what, callee);
        };
        let mut regs = vec![recv.regs[0]];
        for ((v, r), p) in args.into_iter().zip(&sig.params) {
            let v = match p {
                Param::Convert(t) => self.coerce(v, *t, r)?,
                Param::Exact(t) if v.ty == *t => v,
                Param::Exact(_) => return self.unsupported(format!("this `{name}` argument"), r),
            };
            regs.extend(v.regs);
        }
        let hs = self.cx.helpers.bytes;
        let ss = self.cx.helpers.str_methods;
        use StrMethod::*;
        let (h, ty, t) = match sig.imp {
            MethodImpl::Bytes(signatures::BytesMethod::Decode) => (hs.decode, TypeId::STR, Ty::Handle),
            MethodImpl::Str(Encode) => (hs.encode, TypeId::BYTES, Ty::Handle),
            MethodImpl::Str(Upper) => (ss.upper, TypeId::STR, Ty::Handle),
            MethodImpl::Str(Replace) => (ss.replace, TypeId::STR, Ty::Handle),
            MethodImpl::Str(IsAscii) => (ss.isascii, TypeId::BOOL, Ty::Bool),
            MethodImpl::Str(IsSpace) => (ss.isspace, TypeId::BOOL, Ty::Bool),
            MethodImpl::Str(StartsWith) => (ss.startswith, TypeId::BOOL, Ty::Bool),
            MethodImpl::Str(EndsWith) => (ss.endswith, TypeId::BOOL, Ty::Bool),
            MethodImpl::Str(m @ (Find | Count)) => {
                // ASTFrame's defaults: start 0, end `len(s)`.
                if regs.len() < 3 {
                    regs.push(self.fb.const_(Ty::I32, 0));
                }
                if regs.len() < 4 {
                    let len = self.cx.helpers.str_len;
                    let end = self.helper_value(len, Ty::I32, &[regs[0]], whole)?;
                    regs.push(end);
                }
                let h = if m == Find { ss.find } else { ss.count };
                (h, TypeId::I32, Ty::I32)
            }
            MethodImpl::Str(Split) => {
                let given = self.fb.const_(Ty::U64, (regs.len() == 2) as u64);
                if regs.len() < 2 {
                    regs.push(self.fb.const_(Ty::Handle, 0));
                }
                regs.push(given);
                (ss.split, sig.result, Ty::Handle)
            }
            _ => return self.unsupported(what, callee),
        };
        let r = self.helper_value_in_call(h, t, &regs, whole, whole)?;
        Ok(LVal::one(ty, r))
    }
}
