//! A red interp tuple local (`t: interp_tuple = (i32, n)`, what blue code
//! leaves in residual code): its shape is known where it is assigned — each
//! item a blue value or a red value of a static type — so the local is its
//! red items' registers, and `t[k]` (a literal `k`, not negative) is the blue item as a
//! constant or a copy of the red item's registers. Any other use of the
//! tuple is reported as not native.

use spy_jit::ir::Op;

use super::func::{FnLower, LVal};
use super::Lowered;
use crate::resolve::NameRef;
use crate::source::TextRange;
use crate::syntax::ast::ExprRef;
use crate::syntax::ast::{self, ExprKind};
use crate::vm::value::Value;

/// One item of an interp tuple local.
#[derive(Clone, Debug)]
pub(crate) enum Item {
    /// A blue value (a type, a function, a constant).
    Blue(Value),
    /// A red value: its static type and the local's registers holding it.
    Red(LVal),
}

impl FnLower<'_, '_, '_> {
    /// `id = (a, b, ...)` for a local declared `interp_tuple`: the first
    /// assignment fixes the shape; a later one must give the same.
    pub fn interp_tuple_store(&mut self, id: &ast::Identifier, value: &ExprRef<'_>) -> Lowered<()> {
        let NameRef::Local(slot) = self.res.name(id.id) else {
            return self.unsupported("an interp tuple that is not a local", id.range);
        };
        let ExprKind::Tuple(items) = &value.kind() else {
            return self.unsupported("an interp tuple that is not a tuple display", value.range);
        };
        let mut shape = Vec::new();
        for e in items {
            if self.is_static_expr(&e) {
                let interp = &mut *self.cx.interp;
                let mut frame = interp.module_frame(self.module);
                match interp.eval_expr(&mut frame, &e) {
                    Ok(v) if v.is_blue() => shape.push(Item::Blue(v.value)),
                    _ => return self.unsupported("this item of an interp tuple", e.range),
                }
            } else {
                let v = self.expr(&e)?;
                shape.push(Item::Red(v));
            }
        }
        let old = self.interp_tuples.get(&slot).cloned();
        let stored = match old {
            None => {
                // The local's registers, one per register of a red item.
                shape
                    .into_iter()
                    .map(|it| match it {
                        Item::Red(v) => {
                            let regs = v
                                .regs
                                .iter()
                                .map(|&r| {
                                    let t = self.fb.ty(r);
                                    let l = self.fb.local(t);
                                    self.fb.assign(l, Op::Copy(r));
                                    l
                                })
                                .collect();
                            Item::Red(LVal { ty: v.ty, regs })
                        }
                        blue => blue,
                    })
                    .collect()
            }
            Some(old) => {
                let same = old.len() == shape.len()
                    && old.iter().zip(&shape).all(|(a, b)| match (a, b) {
                        (Item::Red(a), Item::Red(b)) => a.ty == b.ty,
                        (Item::Blue(a), Item::Blue(b)) => format!("{a:?}") == format!("{b:?}"),
                        _ => false,
                    });
                if !same {
                    return self.unsupported("an interp tuple local assigned another shape", value.range);
                }
                for (a, b) in old.iter().zip(&shape) {
                    if let (Item::Red(a), Item::Red(b)) = (a, b) {
                        for (&d, &s) in a.regs.iter().zip(&b.regs) {
                            self.fb.assign(d, Op::Copy(s));
                        }
                    }
                }
                old
            }
        };
        self.interp_tuples.insert(slot, stored);
        Ok(())
    }

    /// Whether `id` is an interp tuple local.
    pub fn is_interp_tuple_local(&self, id: &ast::Identifier) -> bool {
        matches!(self.res.name(id.id), NameRef::Local(slot) if self.interp_tuples.contains_key(&slot))
    }

    /// `t[k]` of an interp tuple local `t`, for a literal `k` in range.
    pub fn interp_tuple_item(
        &mut self,
        id: &ast::Identifier,
        index: &ExprRef<'_>,
        range: TextRange,
    ) -> Lowered<LVal> {
        let NameRef::Local(slot) = self.res.name(id.id) else {
            return self.unsupported("an interp tuple that is not a local", range);
        };
        let items = self.interp_tuples.get(&slot).cloned().unwrap_or_default();
        // ASTFrame does not count from the end of an interp tuple.
        let k = match &index.kind() {
            ExprKind::Int(k) => Some(*k as i128),
            _ => None,
        };
        let n = items.len() as i128;
        let Some(k) = k.filter(|k| (0..n).contains(k)) else {
            return self.unsupported(
                "an interp tuple subscript that is not an in-range literal",
                index.range,
            );
        };
        match &items[k as usize] {
            Item::Blue(v) => self.static_lval(Some(v.clone()), "an interp tuple item", range),
            Item::Red(v) => {
                let regs = v
                    .regs
                    .iter()
                    .map(|&r| {
                        let t = self.fb.ty(r);
                        self.fb.op(t, Op::Copy(r))
                    })
                    .collect();
                Ok(LVal { ty: v.ty, regs })
            }
        }
    }
}
