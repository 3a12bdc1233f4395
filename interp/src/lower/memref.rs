//! References of residual code (`gc_ref[T]`, `raw_ref[T]`, spec §15.1
//! "References") and the struct fields reached through pointers and
//! references, as ASTFrame's `frames::memref`: `p[i]` of a struct item
//! checks NULL then bounds and is the reference (`layout::REF_REGS`: the
//! allocation's table, the position of the struct's first part there, the
//! item's length and index); `o.f` and `o.f = v` read the buffers of the
//! field's parts from the table and load or store them (a struct field is
//! a reference to its run of parts); a reference converts to its struct by
//! loading every part. Typing is `TypeTable::mem_field` /
//! `ptr_item_result`, as ASTFrame's.

use spy_jit::ir::{CmpOp as IC, Ty, VReg};

use super::func::{FnLower, LVal};
use super::ptr::Access;
use super::{LowerError, Lowered};
use crate::source::TextRange;
use crate::syntax::ast;
use crate::vm::types::{TypeId, TypeKind};

/// Where a struct in pointer memory is: the table of its allocation and
/// the position there of its first part (`None`: 0), the number of its
/// parts, and the item's length and index.
struct Place {
    table: VReg,
    /// The part buffers, when the pointer's registers hold them.
    cached: Option<Vec<VReg>>,
    first: Option<VReg>,
    parts: usize,
    len: VReg,
    index: VReg,
    /// Reached through a pointer: its NULL and bounds checks are still to
    /// be made (by the loads and stores, or explicitly).
    through_ptr: bool,
}

impl FnLower<'_, '_, '_> {
    /// The number of parts of a value of type `ty`.
    fn parts_of(&mut self, ty: TypeId, range: TextRange) -> Lowered<usize> {
        Ok(self.cx.flatten(ty, &self.file, range)?.len())
    }

    /// The NULL check, then the bounds check of item `index` (`I64`) of
    /// the pointer whose buffer or table is `id` and length `len`, each
    /// raising ASTFrame's error for `access` at `range` (what a load or
    /// store of the item checks, for an access that loads nothing).
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
        self.check_item(p.regs[0], p.regs[1], i, Access::Load, range);
        let first = self.fb.const_(Ty::I64, 0);
        Ok(LVal {
            ty: ref_ty,
            regs: vec![p.regs[0], first, p.regs[1], i],
        })
    }

    /// `p[index].attr` read by value, for a pointer `p` to structs: the
    /// field's parts of item `index` loaded, the table load's NULL check and
    /// the item load's bounds check being the errors of making the
    /// reference `p[index]` (ASTFrame's order and texts, at `sub_range`).
    /// `None` when it is not that case (the caller makes the reference).
    pub(super) fn item_field(
        &mut self,
        p: &LVal,
        index: &ast::ExprRef<'_>,
        attr: &ast::Identifier,
        sub_range: TextRange,
    ) -> Lowered<Option<LVal>> {
        let Some(ref_ty) = self.cx.interp.vm.types.ptr_item_result(p.ty) else {
            return Ok(None);
        };
        let Some(mf) = self.cx.interp.vm.types.mem_field(ref_ty, &attr.name) else {
            return Ok(None);
        };
        if mf.by_ref || self.ptr_item(p.ty) == Some(ref_ty) {
            return Ok(None);
        }
        let item = self.mem_struct(ref_ty)?;
        let parts = self.field_parts(item, mf.index, sub_range)?;
        if parts.is_empty() {
            return Ok(None);
        }
        let i = self.expr(index)?;
        let i = self.coerce(i, TypeId::I32, index.range)?;
        let i = self.fb.convert(Ty::I64, i.regs[0]);
        let layout = self.ptr_layout(item, sub_range)?;
        let (on_null, on_oob) = self.access_codes(Access::Load, sub_range);
        let bufs = self.part_buffers(p, &layout, parts.clone(), on_null, on_oob);
        let regs = parts
            .zip(bufs)
            .map(|(j, b)| self.fb.load(layout.parts[j], b, p.regs[1], i, on_null, on_oob))
            .collect();
        Ok(Some(LVal { ty: mf.ty, regs }))
    }

    /// The struct a field access through `obj` (a pointer: its item 0; a
    /// reference) reaches.
    fn place_of(&mut self, obj: &LVal, range: TextRange) -> Lowered<Place> {
        let item = self.mem_struct(obj.ty)?;
        let parts = self.parts_of(item, range)?;
        match self.cx.interp.vm.types.kind(obj.ty) {
            TypeKind::Ref { .. } => Ok(Place {
                table: obj.regs[0],
                cached: None,
                first: Some(obj.regs[1]),
                parts,
                len: obj.regs[2],
                index: obj.regs[3],
                through_ptr: false,
            }),
            _ => Ok(Place {
                table: obj.regs[0],
                cached: (obj.regs.len() > 2).then(|| obj.regs[2..].to_vec()),
                first: None,
                parts,
                len: obj.regs[1],
                index: self.fb.const_(Ty::I64, 0),
                through_ptr: true,
            }),
        }
    }

    /// The buffers of parts `parts` of the struct at `place`.
    fn place_buffers(
        &mut self,
        place: &Place,
        parts: std::ops::Range<usize>,
        on_null: spy_jit::ir::ErrCode,
        on_oob: spy_jit::ir::ErrCode,
    ) -> Vec<VReg> {
        let n = place.parts.max(1);
        parts
            .map(|j| match &place.cached {
                Some(bufs) => bufs[j],
                None => self.part_buffer(place.table, place.first, n, j, on_null, on_oob),
            })
            .collect()
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
        if (mf.by_ref || parts.is_empty()) && place.through_ptr {
            // no load checks the pointer: check it here
            self.check_item(place.table, place.len, place.index, Access::Load, range);
        }
        if mf.by_ref {
            // the field's run of parts: its first part's table position
            let offset = self.fb.const_(Ty::I64, parts.start as u64);
            let first = match place.first {
                Some(f) => self.fb.binary(spy_jit::ir::BinOp::Add, f, offset),
                None => offset,
            };
            let regs = vec![place.table, first, place.len, place.index];
            return Ok(LVal { ty: mf.ty, regs });
        }
        let (on_null, on_oob) = self.access_codes(Access::Load, range);
        let bufs = self.place_buffers(&place, parts.clone(), on_null, on_oob);
        let regs = parts
            .zip(bufs)
            .map(|(k, b)| self.fb.load(all[k], b, place.len, place.index, on_null, on_oob))
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
        if parts.is_empty() && place.through_ptr {
            self.check_item(place.table, place.len, place.index, Access::Store, range);
        }
        let (on_null, on_oob) = self.access_codes(Access::Store, range);
        let bufs = self.place_buffers(&place, parts, on_null, on_oob);
        for (b, &r) in bufs.into_iter().zip(&v.regs) {
            self.fb.store(b, place.len, place.index, r, on_null, on_oob);
        }
        Ok(())
    }

    /// The struct value reference `r` refers to (every part loaded).
    pub(super) fn deref(&mut self, r: LVal, range: TextRange) -> Lowered<LVal> {
        let item = self.mem_struct(r.ty)?;
        let tys = self.cx.flatten(item, &self.file, range)?;
        let place = self.place_of(&r, range)?;
        let (on_null, on_oob) = self.access_codes(Access::Load, range);
        let bufs = self.place_buffers(&place, 0..tys.len(), on_null, on_oob);
        let regs = tys
            .iter()
            .zip(bufs)
            .map(|(&t, b)| self.fb.load(t, b, place.len, place.index, on_null, on_oob))
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
