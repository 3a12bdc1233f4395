//! `__spy__::interp_list[T](a, b, ...)` of residual code: an interp list
//! type is a `list[T]` (every list operation is `list.rs`'s); its
//! constructor makes a new list of the arguments, each converted to `T`
//! (ASTFrame's `call_type`, upstream `W_InterpList.__new__`), pushed one by
//! one within the memory budget as a list display's items are.

use spy_jit::ir::Ty;

use super::func::{FnLower, LVal};
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::Exprs;
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// Whether `t` is an `interp_list[T]` type.
    pub fn is_interp_list(&self, t: TypeId) -> bool {
        self.cx.interp.vm.types.is_interp_list(t)
    }

    /// `interp_list[T](args)`: `callee` is where a `MemoryError` is
    /// annotated (ASTFrame's `check_memory` at the callee).
    pub fn interp_list_make(
        &mut self,
        t: TypeId,
        args: &Exprs<'_>,
        callee: TextRange,
        whole: TextRange,
    ) -> Lowered<LVal> {
        let Some(item) = self.list_item(t) else {
            return self.unsupported("this `interp_list` constructor", whole);
        };
        let mut vals = Vec::new();
        for a in args {
            vals.push((self.expr(&a)?, a.range));
        }
        let empty = self.list_empty(t, whole)?;
        if let Some(parts) = self.wide_item(item, whole)? {
            let mut conv = Vec::new();
            for (v, r) in vals {
                conv.push(self.coerce(v, item, r)?);
            }
            for v in conv {
                self.wide_append(empty.regs[0], &parts, &v, callee, Some(whole))?;
            }
            return Ok(empty);
        }
        let Some(&[ty]) = self.cx.flatten(item, &self.file, whole).ok().as_deref() else {
            return self.unsupported(format!("a list of `{}`", self.type_name(item)), whole);
        };
        let mut regs = Vec::new();
        for (v, r) in vals {
            regs.push(self.coerce(v, item, r)?.regs[0]);
        }
        let hs = self.cx.helpers;
        for r in regs {
            let (push, arg) = match ty {
                Ty::F64 => (hs.list_push_f64, r),
                Ty::F32 => (hs.list_push_f32, r),
                _ => (hs.list_push, self.fb.convert(Ty::U64, r)),
            };
            self.call_helper_in_call(push, None, &[empty.regs[0], arg], callee, whole);
        }
        Ok(empty)
    }
}
