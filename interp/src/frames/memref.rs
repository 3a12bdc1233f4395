//! References into pointer memory (`gc_ref[T]` / `raw_ref[T]`, spec §15.1
//! "References") and the struct fields reached through pointers and
//! references: `p[i]` of a struct item is a reference to it, `p.f` and
//! `r.f` read or write field `f` of the struct in memory (a struct field
//! is itself reached by reference), and a reference converts to the
//! struct value it refers to (a copy). Typing is `TypeTable::mem_field` /
//! `ptr_item_result`, as upstream's `spy/vm/modules/unsafe/ptr.py`.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::vm::memory::PtrMem;
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{PtrValue, RefValue, StructValue, Typed, Value};

/// Whether an access through a pointer reads or writes (its out-of-bounds
/// error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Load,
    Store,
}

/// A struct in pointer memory: item `index` of `mem`, then the fields
/// `path`.
struct Place {
    mem: Rc<RefCell<PtrMem>>,
    index: usize,
    path: Vec<usize>,
}

impl Place {
    fn of_ref(r: &RefValue) -> Place {
        Place {
            mem: r.mem.clone(),
            index: r.index,
            path: r.path.to_vec(),
        }
    }

    /// The struct value there (a copy: struct values are immutable).
    fn read(&self) -> Eval<Value> {
        let item = self
            .mem
            .borrow()
            .get(self.index)
            .ok_or_else(|| crate::bug!("a reference past its allocation"))?;
        self.path.iter().try_fold(item, |v, &k| field_of(&v, k))
    }

    /// Replace field `k` of the struct there by `v`.
    fn write_field(&self, k: usize, v: Value) -> Eval<()> {
        let item = self
            .mem
            .borrow()
            .get(self.index)
            .ok_or_else(|| crate::bug!("a reference past its allocation"))?;
        let new = replace_field(&item, &self.path, k, v)?;
        match self.mem.borrow_mut().set(self.index, new) {
            Ok(true) => Ok(()),
            Ok(false) => Err(crate::bug!("a reference past its allocation")),
            Err(v) => Err(crate::bug!(
                "a struct store of {v:?} into primitive pointer memory"
            )),
        }
    }
}

fn field_of(v: &Value, k: usize) -> Eval<Value> {
    match v {
        Value::Struct(s) => s
            .fields
            .get(k)
            .cloned()
            .ok_or_else(|| crate::bug!("field {k} missing from a struct in pointer memory")),
        other => Err(crate::bug!("a reference reaches {other:?}, not a struct")),
    }
}

/// `v` (a struct) with the field at `path` then `k` replaced by `new`.
fn replace_field(v: &Value, path: &[usize], k: usize, new: Value) -> Eval<Value> {
    let Value::Struct(s) = v else {
        return Err(crate::bug!("a reference reaches {v:?}, not a struct"));
    };
    let mut fields = s.fields.to_vec();
    let (at, value) = match path.split_first() {
        None => (k, new),
        Some((&first, rest)) => {
            let inner = fields
                .get(first)
                .ok_or_else(|| crate::bug!("field {first} missing from a struct in pointer memory"))?;
            (first, replace_field(inner, rest, k, new)?)
        }
    };
    *fields
        .get_mut(at)
        .ok_or_else(|| crate::bug!("field {at} missing from a struct in pointer memory"))? = value;
    Ok(Value::Struct(Rc::new(StructValue {
        ty: s.ty,
        fields: fields.into(),
    })))
}

fn panic_error(f: &Frame, e: RuntimeError, range: TextRange) -> crate::error::Failure {
    SpyError::from(e).with_error(&f.file, range, "").into()
}

impl Interp<'_> {
    /// A reference (of type `ty`) to item `index` of `mem`, which exists.
    pub(crate) fn item_ref(ty: TypeId, mem: &Rc<RefCell<PtrMem>>, index: usize) -> Value {
        Value::Ref(Rc::new(RefValue {
            ty,
            mem: mem.clone(),
            index,
            path: Box::new([]),
        }))
    }

    /// The struct value reference `r` refers to: what converting it to
    /// its struct type gives.
    pub(crate) fn deref(&self, r: &RefValue) -> Eval<Value> {
        Place::of_ref(r).read()
    }

    /// `v` with a reference replaced by the struct value it refers to.
    pub(crate) fn decayed(&self, v: Typed) -> Eval<Typed> {
        match (&v.value, self.vm.types.ref_item(v.ty)) {
            (Value::Ref(r), Some(item)) => Ok(Typed {
                color: v.color,
                ty: item,
                value: self.deref(r)?,
            }),
            _ => Ok(v),
        }
    }

    /// The struct a field access through `obj` (a pointer: its item 0; a
    /// reference) reaches, or the pointer's error: NULL, then no item 0
    /// (`ptr_getitem` for a read, `ptr_store` for a write), at `range`.
    fn field_place(&self, f: &Frame, obj: &Value, access: Access, range: TextRange) -> Eval<Place> {
        match obj {
            Value::Ref(r) => Ok(Place::of_ref(r)),
            Value::Ptr(PtrValue { mem: None, .. }) => Err(panic_error(f, RuntimeError::NullPointer, range)),
            Value::Ptr(PtrValue { mem: Some(mem), .. }) => {
                if mem.borrow().is_empty() {
                    let e = match access {
                        Access::Load => RuntimeError::PtrGetitemOutOfBounds,
                        Access::Store => RuntimeError::PtrStoreOutOfBounds,
                    };
                    return Err(panic_error(f, e, range));
                }
                Ok(Place {
                    mem: mem.clone(),
                    index: 0,
                    path: Vec::new(),
                })
            }
            other => Err(crate::bug!("a field access through {other:?}")),
        }
    }

    /// `obj.attr` where `obj` is a pointer or a reference to a struct with
    /// field `attr`: the field's value, or a reference to a struct field.
    /// `None` when `obj` is no such pointer or reference.
    pub(crate) fn mem_get_field(
        &mut self,
        f: &Frame,
        obj: &Typed,
        attr: &str,
        range: TextRange,
    ) -> Option<Eval<Typed>> {
        let mf = self.vm.types.mem_field(obj.ty, attr)?;
        Some((|| {
            let place = self.field_place(f, &obj.value, Access::Load, range)?;
            let value = if mf.by_ref {
                let mut path = place.path;
                path.push(mf.index);
                Value::Ref(Rc::new(RefValue {
                    ty: mf.ty,
                    mem: place.mem,
                    index: place.index,
                    path: path.into(),
                }))
            } else {
                field_of(&place.read()?, mf.index)?
            };
            Ok(Typed::red(mf.ty, value))
        })())
    }

    /// `obj.attr = v` where `obj` is a pointer or a reference to a struct
    /// with field `attr`: `v` is converted to the field's type, then the
    /// struct in memory gets it. `None` when `obj` is no such pointer or
    /// reference.
    pub(crate) fn mem_set_field(
        &mut self,
        f: &Frame,
        obj: &Typed,
        attr: &str,
        v: Typed,
        range: TextRange,
    ) -> Option<Eval<()>> {
        let mf = self.vm.types.mem_field(obj.ty, attr)?;
        Some((|| {
            let v = self.convert_to(f, v, mf.field, range, None)?;
            let place = self.field_place(f, &obj.value, Access::Store, range)?;
            place.write_field(mf.index, v.value)
        })())
    }

    /// A type holding a reference (a reference type, or a tuple of one)
    /// cannot be the type of a list item, dict value, struct field or
    /// pointer item: a reference is a view of memory, with no layout of
    /// its own (upstream: `WIP: sizeof(<spy type 'unsafe::gc_ref[T]'>) not
    /// implemented`). Checked where such a type would be made. Decision: a
    /// tuple may hold one (a value, like a local; residual code binds an
    /// inlined call's arguments in a tuple display).
    pub(crate) fn check_storable(&self, f: &Frame, ty: TypeId, range: TextRange) -> Eval<()> {
        let Some(r) = self.held_ref(ty) else {
            return Ok(());
        };
        Err(SpyError::new(
            ExcKind::Wip,
            format!("sizeof({}) not implemented", self.vm.types.repr_type(r)),
        )
        .with_error(&f.file, range, "")
        .into())
    }

    /// The reference type `ty` is or holds (in a tuple), if any.
    fn held_ref(&self, ty: TypeId) -> Option<TypeId> {
        match self.vm.types.kind(ty) {
            TypeKind::Ref { .. } => Some(ty),
            TypeKind::Tuple(items) => items.iter().find_map(|&t| self.held_ref(t)),
            _ => None,
        }
    }
}
