//! `str()` and `repr()` of every value, as `print` shows them. Structs use
//! their `__str__`/`__repr__` when they define one.

use crate::error::{ExcKind, SpyError};
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::vm::op_select;
use crate::vm::ops::format;
use crate::vm::value::{Typed, Value};

impl Interp<'_> {
    /// `str(v)`.
    pub(crate) fn str_of(&mut self, f: &Frame, v: &Typed, range: TextRange) -> Eval<String> {
        match &v.value {
            Value::Str(s) => Ok(s.to_string()),
            _ => self.repr_of(f, v, range),
        }
    }

    /// `repr(v)`. The result is within the string limits however it is
    /// built (a tuple or list of long strings is checked as it grows).
    pub(crate) fn repr_of(&mut self, f: &Frame, v: &Typed, range: TextRange) -> Eval<String> {
        let text = self.repr_unchecked(f, v, range)?;
        self.check_str_len(f, text.len(), range)?;
        Ok(text)
    }

    fn repr_unchecked(&mut self, f: &Frame, v: &Typed, range: TextRange) -> Eval<String> {
        Ok(match &v.value {
            Value::Scalar(s) => format::format_scalar(*s),
            Value::Str(s) => format::repr_str(s),
            Value::Bytes(b) => crate::vm::ops::bytes::repr(b),
            Value::None => "None".to_string(),
            Value::Type(t) => self.vm.types.repr_type(*t),
            Value::Func(func) => format!("<spy function '{}'>", func.fqn),
            Value::Builtin(b) => match b {
                crate::vm::builtins::Builtin::ExcClass(k) => format!("<spy type '{k}'>"),
                // upstream's `__str__` of `NotImplementedType`
                crate::vm::builtins::Builtin::NotImplemented => "NotImplemented".to_string(),
                other => format!("<spy function 'builtins::{}'>", other.name()),
            },
            Value::File(id) => self.file_repr(*id)?,
            Value::Range(r) => crate::vm::op_select::range_text(r.start, r.stop, r.step),
            Value::Exception(e) => crate::vm::op_select::exception_text(e.kind, &e.message),
            Value::Module(m) => format!("<spy module '{}'>", self.vm.module(*m).name),
            Value::Tuple(tuple) => {
                let items = &tuple.items;
                let item_types = self.tuple_item_types(tuple);
                let mut parts = Vec::with_capacity(items.len());
                let mut total: usize = 2;
                for (item, ty) in items.iter().zip(item_types) {
                    let t = Typed {
                        color: v.color,
                        ty,
                        value: item.clone(),
                    };
                    let part = self.repr_of(f, &t, range)?;
                    total = total.saturating_add(part.len() + 2);
                    self.check_str_len(f, total, range)?;
                    parts.push(part);
                }
                op_select::tuple_text(&parts)
            }
            Value::Meta(m) => format!("<MetaArg {} `{}`>", m.color.name(), self.vm.types.name(m.ty)),
            Value::OpSpec(o) => match &**o {
                crate::vm::value::OpSpecValue::Null => "<OpSpec NULL>".to_string(),
                _ => "<OpSpec>".to_string(),
            },
            // upstream's is a struct: its default text
            Value::ListIter(it) => format!("<spy `{}` object>", self.vm.types.name(it.ty)),
            // a reference's own text (upstream: `object.__repr__`, found
            // before the struct's `__str__`); never NULL
            Value::Ref(r) => op_select::object_text(&self.vm, r.ty),
            Value::Ptr(p) => match p.mem {
                Some(_) if p.ty == crate::vm::types::TypeId::RAW_BUFFER => {
                    op_select::object_text(&self.vm, p.ty)
                }
                Some(_) => format!("<spy `{}` object>", self.vm.types.name(p.ty)),
                None => format!("<spy `{}` NULL>", self.vm.types.name(p.ty)),
            },
            Value::Simd(v) => {
                let lanes: Vec<String> = v.lanes.iter().map(|l| format::format_scalar(*l)).collect();
                format!("{}({})", self.vm.types.name(v.ty), lanes.join(", "))
            }
            Value::Residual(_) => return Err(crate::bug!("str() of a residual value")),
            Value::GenericStruct(g) => format!("<spy generic struct '{}'>", g.fqn),
            Value::List(l) => {
                // Deliberate difference: upstream prints
                // `<spy `_list::list[T]::_ListImpl` object at 0x...>`.
                let item_ty = self.vm.types.checked_list_item(l.ty)?;
                let items = l.items.borrow().clone();
                let mut parts = Vec::with_capacity(items.len());
                let mut total: usize = 2;
                for item in items {
                    let t = Typed {
                        color: v.color,
                        ty: item_ty,
                        value: item,
                    };
                    let part = self.repr_of(f, &t, range)?;
                    total = total.saturating_add(part.len() + 2);
                    self.check_str_len(f, total, range)?;
                    parts.push(part);
                }
                op_select::list_text(&parts)
            }
            Value::Dict(d) => {
                // Deliberate difference, as for lists: upstream's `_dict`
                // prints `<spy `_dict::dict[K, V]::_dict` object at 0x...>`;
                // this is its `interp_dict`'s text.
                let d = d.clone();
                self.dict_text(f, v.color, &d, range)?
            }
            Value::Struct(s) => {
                if let Some((dunder, m)) = op_select::display_dunder(&self.vm, s.ty) {
                    let r = self.call_function(f, &m, vec![(v.clone(), range)], range)?;
                    return match r.value {
                        Value::Str(text) => Ok(text.to_string()),
                        _ => Err(
                            SpyError::new(ExcKind::TypeError, format!("{dunder} returned non-string"))
                                .with_error(&f.file, range, "")
                                .into(),
                        ),
                    };
                }
                op_select::opaque_struct_text(&self.vm, s.ty)
            }
        })
    }
}
