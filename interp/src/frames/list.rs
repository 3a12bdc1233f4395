//! `list[T]`: displays, the empty list `[]` (untyped until it meets an
//! expected `list[T]`), indexing, methods, iteration. Lists are red and have
//! reference semantics (copies alias the same items), as upstream's
//! `stdlib/_list.spy`.

use std::rc::Rc;

use crate::error::SpyError;
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::vm::ops::seq;
use crate::vm::ops::signatures::{ListIterMethod, ListMethod};
use crate::vm::types::TypeId;
use crate::vm::value::{ListIterValue, ListValue, Typed, Value};

/// The item index `l[raw]` reads in a list of `len` items (a negative
/// index counts from the end), or `None`: `IndexError`.
pub fn list_slot(raw: i64, len: usize) -> Option<usize> {
    seq::item_slot(raw, len)
}

impl Interp<'_> {
    pub(crate) fn new_list(&self, ty: TypeId, items: Vec<Value>) -> Value {
        Value::List(Rc::new(ListValue::new(ty, items)))
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
        self.check_storable(f, item_ty, first.1)?;
        let mut values = Vec::with_capacity(items.len());
        for (t, r) in items {
            values.push(self.convert_to(f, t, item_ty, r, None)?.value);
        }
        let ty = self.vm.types.list(item_ty);
        Ok(Typed::red(ty, self.new_list(ty, values)))
    }

    fn list_index(&mut self, f: &Frame, l: &ListValue, idx: &Args) -> Eval<usize> {
        let [(i, r)] = idx.as_slice() else {
            return Err(crate::bug!("list subscript not checked by its signature"));
        };
        let i = self.convert_to(f, i.clone(), TypeId::I32, *r, None)?;
        let raw = i64::from(i.value.checked_i32()?);
        let len = l.items.borrow().len();
        let Some(k) = list_slot(raw, len) else {
            return Err(SpyError::from(crate::vm::rt_error::RuntimeError::ListIndex)
                .with_error(&f.file, *r, seq::index_label(raw, len))
                .into());
        };
        Ok(k)
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

    /// `l.m(args)` on a typed list, the arguments converted by the
    /// method's signature.
    pub(crate) fn call_list_method(
        &mut self,
        f: &mut Frame,
        list: Typed,
        obj_range: TextRange,
        m: ListMethod,
        args: Args,
    ) -> Eval<Typed> {
        let Value::List(l) = &list.value else {
            return Err(crate::bug!("list method on a non-list"));
        };
        let item_ty = self
            .vm
            .types
            .list_item(list.ty)
            .ok_or_else(|| crate::bug!("list method on an untyped list"))?;
        let i32_arg = |k: usize| match args.get(k) {
            Some((a, _)) => a.value.checked_i32(),
            None => Err(crate::bug!("list method argument {k} missing")),
        };
        let none = Typed::red(TypeId::NONE, Value::None);
        if matches!(m, ListMethod::Append | ListMethod::Insert | ListMethod::Extend) {
            // The added items within the memory budget (the others are
            // counted already).
            let added = match (m, args.first()) {
                (
                    ListMethod::Extend,
                    Some((
                        Typed {
                            value: Value::List(o),
                            ..
                        },
                        _,
                    )),
                ) => o.items.borrow().len(),
                _ => 1,
            };
            self.check_memory(f, ListValue::bytes_of(added), obj_range)?;
        }
        match m {
            ListMethod::Append => {
                l.items.borrow_mut().push(args[0].0.value.clone());
                l.recount();
                Ok(none)
            }
            ListMethod::Insert => {
                let len = l.items.borrow().len();
                let k = seq::insert_slot(i64::from(i32_arg(0)?), len);
                l.items.borrow_mut().insert(k, args[1].0.value.clone());
                l.recount();
                Ok(none)
            }
            ListMethod::Pop => {
                let len = l.items.borrow().len() as i64;
                if len == 0 {
                    return Err(SpyError::from(crate::vm::rt_error::RuntimeError::PopEmptyList)
                        .with_error(&f.file, obj_range, "")
                        .into());
                }
                let raw = if args.is_empty() {
                    -1
                } else {
                    i64::from(i32_arg(0)?)
                };
                let Some(k) = seq::item_slot(raw, len as usize) else {
                    return Err(SpyError::from(crate::vm::rt_error::RuntimeError::ListIndex)
                        .with_error(&f.file, args[0].1, seq::index_label(raw, len as usize))
                        .into());
                };
                let v = l.items.borrow_mut().remove(k);
                l.recount();
                Ok(Typed::red(item_ty, v))
            }
            ListMethod::Extend => {
                let Value::List(other) = &args[0].0.value else {
                    return Err(crate::bug!("list.extend of a non-list"));
                };
                // `l.extend(l)` appends the items `l` had before the call
                let items = other.items.borrow().clone();
                l.items.borrow_mut().extend(items);
                l.recount();
                Ok(none)
            }
            ListMethod::Remove => {
                let x = &args[0].0;
                let items = l.items.borrow().clone();
                for (k, item) in items.iter().enumerate() {
                    if self.values_equal(f, item_ty, &x.value, item, obj_range)? {
                        // (a user `__eq__` may have shortened the list)
                        let mut now = l.items.borrow_mut();
                        if k < now.len() {
                            now.remove(k);
                        }
                        drop(now);
                        l.recount();
                        return Ok(none);
                    }
                }
                Err(SpyError::from(crate::vm::rt_error::RuntimeError::NotInList)
                    .with_error(&f.file, args[0].1, "")
                    .into())
            }
            ListMethod::Clear => {
                l.items.borrow_mut().clear();
                l.recount();
                Ok(none)
            }
            ListMethod::Copy => {
                let items = l.items.borrow().clone();
                Ok(Typed::red(list.ty, self.new_list(list.ty, items)))
            }
            ListMethod::FastIter => {
                let ty = self.vm.types.list_iter(list.ty);
                Ok(Typed::red(
                    ty,
                    Value::ListIter(Rc::new(ListIterValue {
                        ty,
                        list: l.clone(),
                        index: 0,
                    })),
                ))
            }
            ListMethod::Count | ListMethod::Index => {
                let x = &args[0].0;
                let items = l.items.borrow().clone();
                let mut count = 0;
                let mut first = None;
                for (k, item) in items.iter().enumerate() {
                    if self.values_equal(f, item_ty, &x.value, item, obj_range)? {
                        count += 1;
                        first.get_or_insert(k);
                    }
                }
                if m == ListMethod::Count {
                    return Ok(Typed::red(TypeId::I32, Value::i32(count)));
                }
                match first {
                    Some(k) => Ok(Typed::red(TypeId::I32, Value::i32(k as i32))),
                    None => Err(SpyError::from(crate::vm::rt_error::RuntimeError::NotInList)
                        .with_error(&f.file, args[0].1, "")
                        .into()),
                }
            }
        }
    }

    /// A method of `list[T]::list_iterator` (spec §6.10): the list is
    /// read when the method runs, so items appended during the loop are
    /// seen. Decision: `__item__` past the end is `IndexError: list index
    /// out of range` (upstream reads its buffer unchecked up to its
    /// capacity).
    pub(crate) fn call_list_iter_method(
        &mut self,
        f: &mut Frame,
        it: Typed,
        obj_range: TextRange,
        m: ListIterMethod,
    ) -> Eval<Typed> {
        let Value::ListIter(v) = &it.value else {
            return Err(crate::bug!("list_iterator method on another value"));
        };
        let len = v.list.items.borrow().len();
        match m {
            ListIterMethod::Continue => Ok(Typed::red(
                TypeId::BOOL,
                Value::Scalar(crate::vm::ops::Scalar::Bool(
                    usize::try_from(v.index).is_ok_and(|i| i < len),
                )),
            )),
            ListIterMethod::Item => {
                let item_ty = self.vm.types.checked_list_item(v.list.ty)?;
                match usize::try_from(v.index).ok().filter(|&i| i < len) {
                    Some(i) => Ok(Typed::red(item_ty, v.list.items.borrow()[i].clone())),
                    None => Err(SpyError::from(crate::vm::rt_error::RuntimeError::ListIndex)
                        .with_error(&f.file, obj_range, seq::index_label(i64::from(v.index), len))
                        .into()),
                }
            }
            ListIterMethod::Next => Ok(Typed::red(
                it.ty,
                Value::ListIter(Rc::new(ListIterValue {
                    ty: it.ty,
                    list: v.list.clone(),
                    index: v.index.wrapping_add(1),
                })),
            )),
        }
    }
}
