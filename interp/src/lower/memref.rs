//! References of residual code (`gc_ref[T]`, `raw_ref[T]`, spec §15.1
//! "References") and the struct fields reached through pointers and
//! references, as ASTFrame's `frames::memref`: `p[i]` of a struct item
//! checks NULL then bounds and is the reference (`layout::ref_regs`: the
//! item's length and index, then the buffers of the struct's parts); `o.f`
//! and `o.f = v` load or store the field's parts (a struct field is a
//! reference to its run of parts); a reference converts to its struct by
//! loading every part. Typing is `TypeTable::mem_field` /
//! `ptr_item_result`, as ASTFrame's.

use spy_jit::ir::{CmpOp as IC, Ty, VReg};

use super::func::{FnLower, LVal};
use super::ptr::Access;
use super::{LowerError, Lowered};
use crate::source::TextRange;
use crate::syntax::ast;
use crate::vm::types::{TypeId, TypeKind};

/// Where a struct in pointer memory is: the item's length and index in
/// its allocation, and the buffers of the struct's parts.
struct Place {
    len: VReg,
    index: VReg,
    bufs: Vec<VReg>,
    /// Reached through a pointer: its NULL and bounds checks are still to
    /// be made (by the loads and stores, or explicitly).
    unchecked_ptr: Option<VReg>,
}

impl FnLower<'_, '_, '_> {
    /// The number of parts of a value of type `ty`.
    fn parts_of(&mut self, ty: TypeId, range: TextRange) -> Lowered<usize> {
        Ok(self.cx.flatten(ty, &self.file, range)?.len())
    }

    /// The NULL check, then the bounds check of item `index` (`I64`) of
    /// the pointer whose identity is `id` and length `len`, each raising
    /// ASTFrame's error for `access` at `range` (what a load or store of
    /// the item checks, for an access that loads nothing).
    pub(super) fn check_item(&mut self, id: VReg, len: VReg, index: VReg, access: Access, range: TextRange) {
        let (on_null, on_oob) = self.access_codes(access, range);
        let null = self.fb.const_(Ty::Ptr, 0);
        let is_null = self.fb.cmp(IC::Eq, id, null);
        let zero = self.fb.const_(Ty::I64, 0);
        self.fb
            .if_(is_null, |b| b.raise(on_null, [Some(zero), Some(index)]), |_| {});
        let (i, n) = (self.fb.convert(Ty::U64, index), self.fb.convert(Ty::U64, len));
        let past = self.fb.cmp(IC::Ge, i, n);
        self.fb
            .if_(past, |b| b.raise(on_oob, [Some(index), Some(len)]), |_| {});
    }

    /// `p[i]` of a pointer to structs (`i` an `I64`): the reference to
    /// item `i`, after its checks.
    pub(super) fn ptr_item_ref(
        &mut self,
        p: LVal,
        ref_ty: TypeId,
        i: VReg,
        range: TextRange,
    ) -> Lowered<LVal> {
        let item = self
            .ptr_item(p.ty)
            .ok_or_else(|| LowerError::bug("a pointer access on a non-pointer"))?;
        let layout = self.ptr_layout(item, range)?;
        self.check_item(p.regs[0], p.regs[1], i, Access::Load, range);
        let mut regs = vec![p.regs[1], i];
        regs.extend(layout.buffers(&p.regs));
        Ok(LVal { ty: ref_ty, regs })
    }

    /// The struct a field access through `obj` (a pointer: its item 0; a
    /// reference) reaches.
    fn place_of(&mut self, obj: &LVal, range: TextRange) -> Lowered<Place> {
        match self.cx.interp.vm.types.kind(obj.ty) {
            TypeKind::Ref { .. } => Ok(Place {
                len: obj.regs[0],
                index: obj.regs[1],
                bufs: obj.regs[2..].to_vec(),
                unchecked_ptr: None,
            }),
            TypeKind::Ptr { item, .. } => {
                let layout = self.ptr_layout(*item, range)?;
                Ok(Place {
                    len: obj.regs[1],
                    index: self.fb.const_(Ty::I64, 0),
                    bufs: layout.buffers(&obj.regs),
                    unchecked_ptr: Some(obj.regs[0]),
                })
            }
            _ => Err(LowerError::bug("a field access through a non-pointer")),
        }
    }

    /// The run of parts of field `k` among the fields of struct `item`.
    fn field_parts(&mut self, item: TypeId, k: usize, range: TextRange) -> Lowered<std::ops::Range<usize>> {
        let fields = self
            .cx
            .interp
            .vm
            .types
            .checked_struct_fields(item)
            .map_err(|_| LowerError::bug("a field of a non-struct"))?
            .to_vec();
        let mut at = 0;
        for fd in &fields[..k] {
            at += self.parts_of(fd.ty, range)?;
        }
        let n = self.parts_of(fields[k].ty, range)?;
        Ok(at..at + n)
    }

    /// The struct type a pointer or reference type reaches.
    fn mem_struct(&self, ty: TypeId) -> Lowered<TypeId> {
        match self.cx.interp.vm.types.kind(ty) {
            TypeKind::Ptr { item, .. } | TypeKind::Ref { item, .. } => Ok(*item),
            _ => Err(LowerError::bug("a field access through a non-pointer")),
        }
    }

    /// Whether `o.attr` is a field reached through a pointer or reference.
    pub(super) fn is_mem_field(&mut self, ty: TypeId, attr: &ast::Identifier) -> bool {
        self.cx.interp.vm.types.mem_field(ty, &attr.name).is_some()
    }

    /// The type field `attr` of the struct behind `ty` is converted to when
    /// assigned.
    pub(super) fn mem_field_type(
        &mut self,
        ty: TypeId,
        attr: &ast::Identifier,
        range: TextRange,
    ) -> Lowered<TypeId> {
        match self.cx.interp.vm.types.mem_field(ty, &attr.name) {
            Some(mf) => Ok(mf.field),
            None => self.unsupported(format!("the unknown field `{}`", attr.name), range),
        }
    }

    /// `obj.attr` through a pointer or reference: the field's parts
    /// loaded, or the reference to a struct field.
    pub(super) fn mem_get_field(
        &mut self,
        obj: LVal,
        attr: &ast::Identifier,
        range: TextRange,
    ) -> Lowered<LVal> {
        let Some(mf) = self.cx.interp.vm.types.mem_field(obj.ty, &attr.name) else {
            return self.unsupported(format!("the unknown field `{}`", attr.name), range);
        };
        let item = self.mem_struct(obj.ty)?;
        let parts = self.field_parts(item, mf.index, range)?;
        let place = self.place_of(&obj, range)?;
        let all = self.cx.flatten(item, &self.file, range)?;
        if mf.by_ref || parts.is_empty() {
            // no load checks the pointer: check it here
            if let Some(id) = place.unchecked_ptr {
                self.check_item(id, place.len, place.index, Access::Load, range);
            }
        }
        if mf.by_ref {
            let mut regs = vec![place.len, place.index];
            regs.extend(&place.bufs[parts]);
            return Ok(LVal { ty: mf.ty, regs });
        }
        let (on_null, on_oob) = self.access_codes(Access::Load, range);
        let regs = parts
            .map(|k| {
                self.fb
                    .load(all[k], place.bufs[k], place.len, place.index, on_null, on_oob)
            })
            .collect();
        Ok(LVal { ty: mf.ty, regs })
    }

    /// `obj.attr = v` through a pointer or reference, `v` converted to the
    /// field's type: its parts stored.
    pub(super) fn mem_set_field(
        &mut self,
        obj: LVal,
        attr: &ast::Identifier,
        v: LVal,
        range: TextRange,
    ) -> Lowered<()> {
        let Some(mf) = self.cx.interp.vm.types.mem_field(obj.ty, &attr.name) else {
            return self.unsupported(format!("the unknown field `{}`", attr.name), range);
        };
        let item = self.mem_struct(obj.ty)?;
        let parts = self.field_parts(item, mf.index, range)?;
        let place = self.place_of(&obj, range)?;
        if parts.is_empty() {
            if let Some(id) = place.unchecked_ptr {
                self.check_item(id, place.len, place.index, Access::Store, range);
            }
        }
        let (on_null, on_oob) = self.access_codes(Access::Store, range);
        for (k, &r) in parts.zip(&v.regs) {
            self.fb
                .store(place.bufs[k], place.len, place.index, r, on_null, on_oob);
        }
        Ok(())
    }

    /// The struct value reference `r` refers to (every part loaded).
    pub(super) fn deref(&mut self, r: LVal, range: TextRange) -> Lowered<LVal> {
        let item = self.mem_struct(r.ty)?;
        let tys = self.cx.flatten(item, &self.file, range)?;
        let (on_null, on_oob) = self.access_codes(Access::Load, range);
        let regs = tys
            .iter()
            .enumerate()
            .map(|(k, &t)| {
                self.fb
                    .load(t, r.regs[2 + k], r.regs[0], r.regs[1], on_null, on_oob)
            })
            .collect();
        Ok(LVal { ty: item, regs })
    }

    /// `v`, a reference replaced by the struct it refers to.
    pub(super) fn decayed(&mut self, v: LVal, range: TextRange) -> Lowered<LVal> {
        if self.cx.interp.vm.types.ref_item(v.ty).is_some() {
            return self.deref(v, range);
        }
        Ok(v)
    }
}
