//! Executing the `unsafe` memory operations (`vm::ops::memops` has their
//! names and signatures): bounds and overlap checks with upstream's panic
//! texts (`mem.py`), then the item copy, fill or byte comparison.
//! Decision: a negative count is `out of bounds` (upstream passes it on to
//! C's `memcpy`); NULL has no items (any count above 0 is out of bounds).

use std::rc::Rc;

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::vm::ops::memops::{self, filled_scalar, scalar_bytes, MemKind, MemOp};
use crate::vm::ops::signatures::BuiltinSig;
use crate::vm::ops::Scalar;
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{PtrValue, StructValue, Typed, Value};

/// A pointer argument and the item range `start..start + n` it is used at.
struct Region {
    ptr: PtrValue,
    start: i64,
}

impl Interp<'_> {
    pub(crate) fn exec_memop(
        &mut self,
        f: &Frame,
        op: MemOp,
        sig: &BuiltinSig,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        let name = op.forwarded().name();
        let panic = |what: &str| -> Failure {
            SpyError::new(ExcKind::PanicError, format!("{name} {what}"))
                .with_error(&f.file, call_range, "")
                .into()
        };
        let mut ints = vec![0i64; args.len()];
        let mut ptrs = Vec::with_capacity(2);
        for (k, ((a, r), p)) in args.iter().zip(&sig.params).enumerate() {
            match p {
                Some(to) => {
                    let v = self.convert_to(f, a.clone(), *to, *r, None)?;
                    ints[k] = match v.value.as_scalar() {
                        Some(Scalar::I32(x)) => x.into(),
                        Some(Scalar::U8(x)) => x.into(),
                        _ => return Err(crate::bug!("{name}: argument {k} not converted")),
                    };
                }
                None => match &a.value {
                    Value::Ptr(p) => ptrs.push(p.clone()),
                    _ => return Err(crate::bug!("{name}: argument {k} is not a pointer")),
                },
            }
        }
        let none = Typed::red(TypeId::NONE, Value::None);
        let mut ptrs = ptrs.into_iter();
        let dst = ptrs
            .next()
            .ok_or_else(|| crate::bug!("{name} without a pointer"))?;
        let src = match op.kind() {
            MemKind::Setbytes => None,
            _ => Some(
                ptrs.next()
                    .ok_or_else(|| crate::bug!("{name} without a second pointer"))?,
            ),
        };
        let len = |p: &PtrValue| p.mem.as_ref().map_or(0, |m| m.borrow().len() as i64);
        let same = match (&dst.mem, src.as_ref().and_then(|s| s.mem.as_ref())) {
            (Some(x), Some(y)) => Rc::ptr_eq(x, y),
            _ => false,
        };
        let src_len = src.as_ref().map_or(0, len);
        let plan = memops::plan(op, &ints, len(&dst), src_len, same).map_err(panic)?;
        let a = Region {
            ptr: dst,
            start: plan.dst_start,
        };
        let n = plan.n;
        let Some(src) = src else {
            self.setbytes(f, &a, n, plan.byte, call_range)?;
            return Ok(none);
        };
        let b = Region {
            ptr: src,
            start: plan.src_start,
        };
        match op.kind() {
            MemKind::Copy { .. } => {
                let items = read_items(&b, n)?;
                write_items(&a, items)?;
                Ok(none)
            }
            MemKind::Cmp => {
                let item_ty = self.item_type(&a.ptr)?;
                if item_ty.as_prim().is_none() {
                    let t = self.vm.types.name(item_ty).to_string();
                    return Err(SpyError::new(
                        ExcKind::Wip,
                        format!("{name} of `{t}` items is not supported yet"),
                    )
                    .with_error(&f.file, call_range, "")
                    .into());
                }
                let (xs, ys) = (read_items(&a, n)?, read_items(&b, n)?);
                let bytes = |vs: &[Value]| -> Eval<Vec<u8>> {
                    let mut out = Vec::new();
                    for v in vs {
                        let Some(x) = v.as_scalar() else {
                            return Err(crate::bug!("{name}: a primitive item is not a scalar"));
                        };
                        out.extend(scalar_bytes(x));
                    }
                    Ok(out)
                };
                let result = memops::compare_bytes(bytes(&xs)?, bytes(&ys)?);
                Ok(Typed::red(TypeId::I32, Value::i32(result)))
            }
            MemKind::Setbytes => Err(crate::bug!("setbytes handled above")),
        }
    }

    fn item_type(&self, p: &PtrValue) -> Eval<TypeId> {
        match self.vm.types.kind(p.ty) {
            TypeKind::Ptr { item, .. } => Ok(*item),
            _ => Err(crate::bug!("pointer value of non-pointer type")),
        }
    }

    fn setbytes(&mut self, f: &Frame, region: &Region, n: i64, byte: u8, range: TextRange) -> Eval<()> {
        let item_ty = self.item_type(&region.ptr)?;
        let Some(v) = self.filled_value(item_ty, byte) else {
            let t = self.vm.types.name(item_ty).to_string();
            return Err(SpyError::new(
                ExcKind::Wip,
                format!("ptr_setbytes of `{t}` items with a byte other than 0 is not supported yet"),
            )
            .with_error(&f.file, range, "")
            .into());
        };
        write_items(region, vec![v; n as usize])
    }

    /// An item of type `ty` whose every byte is `byte`: scalars by their
    /// bytes, structs field by field, pointers only for 0 (NULL).
    fn filled_value(&self, ty: TypeId, byte: u8) -> Option<Value> {
        match self.vm.types.kind(ty) {
            TypeKind::Prim(p) => Some(Value::Scalar(filled_scalar(*p, byte))),
            TypeKind::Struct { fields, .. } => {
                let fields: Option<Vec<Value>> =
                    fields.iter().map(|fd| self.filled_value(fd.ty, byte)).collect();
                Some(Value::Struct(Rc::new(StructValue {
                    ty,
                    fields: fields?.into(),
                })))
            }
            _ if byte == 0 => Some(self.zero_value(ty)),
            _ => None,
        }
    }
}

fn read_items(r: &Region, n: i64) -> Eval<Vec<Value>> {
    let Some(mem) = &r.ptr.mem else {
        return Ok(Vec::new());
    };
    let mem = mem.borrow();
    (r.start..r.start + n)
        .map(|i| {
            mem.get(i as usize)
                .ok_or_else(|| crate::bug!("a checked item is out of bounds"))
        })
        .collect()
}

fn write_items(r: &Region, items: Vec<Value>) -> Eval<()> {
    let Some(mem) = &r.ptr.mem else {
        return Ok(());
    };
    let mut mem = mem.borrow_mut();
    for (k, v) in items.into_iter().enumerate() {
        match mem.set(r.start as usize + k, v) {
            Ok(true) => {}
            Ok(false) => return Err(crate::bug!("a checked store is out of bounds")),
            Err(v) => return Err(crate::bug!("a store of {v:?} into memory of another type")),
        }
    }
    Ok(())
}
