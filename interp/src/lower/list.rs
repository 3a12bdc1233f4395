//! `list[T]` values of residual code whose item type is one register
//! (primitives, `str`): a handle to a table the run owns, built, indexed,
//! measured and formatted by runtime helpers that call the interpreter's
//! own functions (`frames::list::list_slot`, `op_select::list_text`, the
//! item formatting), so index errors and texts cannot diverge.

use spy_jit::ir::{HelperId, Ty, VReg};

use super::func::{FnLower, LVal};
use super::helpers::STR_ITEM;
use super::layout::prim_code;
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::Expr;
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// The item type of list type `ty`, if it is one.
    pub fn list_item(&self, ty: TypeId) -> Option<TypeId> {
        self.cx.interp.vm.types.list_item(ty)
    }

    /// The one register type of a list's items.
    fn item_reg(&self, item: TypeId, range: TextRange) -> Lowered<Ty> {
        match self.cx.flatten(item, &self.file, range)?.as_slice() {
            [t] => Ok(*t),
            _ => self.unsupported(format!("a list of `{}`", self.type_name(item)), range),
        }
    }

    /// `[a, b, ...]`: the item type is the first item's; every item is
    /// evaluated, then converted to it (ASTFrame's `make_list`).
    pub fn list_display(&mut self, items: &[Expr], range: TextRange) -> Lowered<LVal> {
        if items.is_empty() {
            return self.unsupported("the empty list `[]`", range);
        }
        let mut vals = Vec::new();
        for e in items {
            vals.push((self.expr(e)?, e.range));
        }
        let item = vals[0].0.ty;
        let ty = self.cx.interp.vm.types.list(item);
        let t = self.item_reg(item, range)?;
        let mut regs = Vec::new();
        for (v, r) in vals {
            regs.push(self.coerce(v, item, r)?.regs[0]);
        }
        let hs = self.cx.helpers;
        let h = self.helper_value(hs.list_new, Ty::Handle, &[], range)?;
        for r in regs {
            let (push, arg) = match t {
                Ty::F64 => (hs.list_push_f64, r),
                Ty::F32 => (hs.list_push_f32, r),
                _ => (hs.list_push, self.fb.convert(Ty::U64, r)),
            };
            self.call_helper(push, None, &[h, arg], range);
        }
        Ok(LVal::one(ty, h))
    }

    /// `list[T]()`: a new empty list.
    pub fn list_empty(&mut self, ty: TypeId, range: TextRange) -> Lowered<LVal> {
        let item = self.list_item(ty).unwrap_or(TypeId::NONE);
        self.item_reg(item, range)?;
        let h = self.cx.helpers.list_new;
        let h = self.helper_value(h, Ty::Handle, &[], range)?;
        Ok(LVal::one(ty, h))
    }

    /// `l[i]` with `i` converted to `i32`.
    pub fn list_getitem(&mut self, l: LVal, i: VReg, range: TextRange) -> Lowered<LVal> {
        let Some(item) = self.list_item(l.ty) else {
            return self.unsupported("a subscript of this list", range);
        };
        let t = self.item_reg(item, range)?;
        let i = self.fb.convert(Ty::I64, i);
        let hs = self.cx.helpers;
        let (get, rt): (HelperId, Ty) = match t {
            Ty::F64 => (hs.list_get_f64, Ty::F64),
            Ty::F32 => (hs.list_get_f32, Ty::F32),
            _ => (hs.list_get, Ty::U64),
        };
        let w = self.helper_value(get, rt, &[l.regs[0], i], range)?;
        let r = if rt == t { w } else { self.fb.convert(t, w) };
        Ok(LVal::one(item, r))
    }

    /// `len(l)`.
    pub fn list_len(&mut self, l: &LVal, range: TextRange) -> Lowered<VReg> {
        let h = self.cx.helpers.list_len;
        self.helper_value(h, Ty::I32, &[l.regs[0]], range)
    }

    /// `repr(l)` / `str(l)`.
    pub fn list_text(&mut self, l: &LVal, range: TextRange) -> Lowered<VReg> {
        let Some(item) = self.list_item(l.ty) else {
            return self.unsupported("the text of this list", range);
        };
        let code = match item.as_prim() {
            Some(p) => prim_code(p),
            None if item == TypeId::STR => STR_ITEM,
            None => {
                return self.unsupported(format!("the text of a `list[{}]`", self.type_name(item)), range)
            }
        };
        let code = self.fb.const_(Ty::U64, code);
        let h = self.cx.helpers.list_text;
        self.helper_value(h, Ty::Handle, &[l.regs[0], code], range)
    }
}
