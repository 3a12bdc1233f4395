//! `list[T]`: displays, the empty list `[]` (untyped until it meets an
//! expected `list[T]`), indexing, methods, iteration. Lists are red and have
//! reference semantics (copies alias the same items), as upstream's
//! `stdlib/_list.spy`.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast;
use crate::vm::types::TypeId;
use crate::vm::value::{ListValue, Typed, Value};

impl Interp<'_> {
    pub(crate) fn new_list(&self, ty: TypeId, items: Vec<Value>) -> Value {
        Value::List(Rc::new(ListValue {
            ty,
            items: RefCell::new(items),
        }))
    }

    /// `[a, b, ...]`: the item type is the first item's type; the others
    /// are converted to it. `[]` is the untyped empty list.
    pub(crate) fn make_list(&mut self, f: &Frame, items: Vec<(Typed, TextRange)>) -> Eval<Typed> {
        let Some(first) = items.first() else {
            return Ok(Typed::red(
                TypeId::EMPTY_LIST,
                self.new_list(TypeId::EMPTY_LIST, Vec::new()),
            ));
        };
        let item_ty = first.0.ty;
        let mut values = Vec::with_capacity(items.len());
        for (t, r) in items {
            values.push(self.convert_to(f, t, item_ty, r, None)?.value);
        }
        let ty = self.vm.types.list(item_ty);
        Ok(Typed::red(ty, self.new_list(ty, values)))
    }

    fn list_index(&mut self, f: &Frame, l: &ListValue, idx: &Args) -> Eval<usize> {
        let [(i, r)] = idx.as_slice() else {
            return Err(SpyError::new(ExcKind::TypeError, "lists take one index").into());
        };
        let i = self.convert_to(f, i.clone(), TypeId::I32, *r, None)?;
        let k = i64::from(i.value.checked_i32()?);
        let len = l.items.borrow().len() as i64;
        let k = if k < 0 { k + len } else { k };
        if k < 0 || k >= len {
            return Err(SpyError::from(crate::vm::rt_error::RuntimeError::ListIndex)
                .with_error(&f.file, *r, "list index out of range")
                .into());
        }
        Ok(k as usize)
    }

    pub(crate) fn list_getitem(&mut self, f: &Frame, list: &Typed, l: &ListValue, idx: &Args) -> Eval<Typed> {
        let k = self.list_index(f, l, idx)?;
        let item_ty = self.vm.types.checked_list_item(list.ty)?;
        let v = l.items.borrow()[k].clone();
        Ok(Typed::red(item_ty, v))
    }

    pub(crate) fn list_setitem(
        &mut self,
        f: &Frame,
        list: &Typed,
        l: &ListValue,
        idx: &Args,
        v: Typed,
        range: TextRange,
    ) -> Eval<()> {
        let k = self.list_index(f, l, idx)?;
        let item_ty = self.vm.types.checked_list_item(list.ty)?;
        let v = self.convert_to(f, v, item_ty, range, None)?;
        l.items.borrow_mut()[k] = v.value;
        Ok(())
    }

    fn untyped_list_error(&self, f: &Frame, range: TextRange) -> Failure {
        SpyError::new(ExcKind::TypeError, "cannot mutate an untyped empty list")
            .with_error(&f.file, range, "this is untyped")
            .with_note(&f.file, range, "help: use an explicit type: `l: list[T] = []`")
            .into()
    }

    pub(crate) fn call_list_method(
        &mut self,
        f: &mut Frame,
        list: Typed,
        obj_range: TextRange,
        attr: &ast::Identifier,
        args: Args,
    ) -> Eval<Typed> {
        let Value::List(l) = &list.value else {
            return Err(crate::bug!("list method on a non-list"));
        };
        let item_ty = self.vm.types.list_item(list.ty);
        let arity = match attr.name.as_str() {
            "pop" | "clear" | "copy" => 0,
            "append" | "count" | "index" => 1,
            "insert" => 2,
            _ => {
                let name = self.vm.types.name(list.ty).to_string();
                return Err(SpyError::new(
                    ExcKind::TypeError,
                    format!("method `{name}::{}` does not exist", attr.name),
                )
                .with_error(&f.file, obj_range, format!("this is `{name}`"))
                .into());
            }
        };
        self.check_arity(f, arity, arity, &args, attr.range, None)?;
        let mutating = matches!(attr.name.as_str(), "append" | "insert" | "pop" | "clear");
        let Some(item_ty) = item_ty else {
            if mutating {
                return Err(self.untyped_list_error(f, obj_range));
            }
            return Ok(Typed::red(
                TypeId::EMPTY_LIST,
                self.new_list(TypeId::EMPTY_LIST, Vec::new()),
            ));
        };
        let none = Typed::red(TypeId::NONE, Value::None);
        match attr.name.as_str() {
            "append" => {
                let v = self.convert_to(f, args[0].0.clone(), item_ty, args[0].1, None)?;
                l.items.borrow_mut().push(v.value);
                Ok(none)
            }
            "insert" => {
                let i = self.convert_to(f, args[0].0.clone(), TypeId::I32, args[0].1, None)?;
                let v = self.convert_to(f, args[1].0.clone(), item_ty, args[1].1, None)?;
                let len = l.items.borrow().len() as i64;
                let k = i64::from(i.value.checked_i32()?);
                let k = if k < 0 { (k + len).max(0) } else { k.min(len) };
                l.items.borrow_mut().insert(k as usize, v.value);
                Ok(none)
            }
            "pop" => match l.items.borrow_mut().pop() {
                Some(v) => Ok(Typed::red(item_ty, v)),
                None => Err(SpyError::from(crate::vm::rt_error::RuntimeError::PopEmptyList)
                    .with_error(&f.file, obj_range, "")
                    .into()),
            },
            "clear" => {
                l.items.borrow_mut().clear();
                Ok(none)
            }
            "copy" => {
                let items = l.items.borrow().clone();
                Ok(Typed::red(list.ty, self.new_list(list.ty, items)))
            }
            "count" | "index" => {
                let x = self.convert_to(f, args[0].0.clone(), item_ty, args[0].1, None)?;
                let items = l.items.borrow().clone();
                let mut count = 0;
                let mut first = None;
                for (k, item) in items.iter().enumerate() {
                    if self.values_equal(f, item_ty, &x.value, item, attr.range)? {
                        count += 1;
                        first.get_or_insert(k);
                    }
                }
                if attr.name == "count" {
                    return Ok(Typed::red(TypeId::I32, Value::i32(count)));
                }
                match first {
                    Some(k) => Ok(Typed::red(TypeId::I32, Value::i32(k as i32))),
                    None => Err(SpyError::from(crate::vm::rt_error::RuntimeError::NotInList)
                        .with_error(&f.file, args[0].1, "")
                        .into()),
                }
            }
            _ => Err(crate::bug!("list method table out of sync")),
        }
    }
}
