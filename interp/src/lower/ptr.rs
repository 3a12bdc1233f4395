//! Pointers of residual code (`gc_ptr[T]`, `raw_ptr[T]`, spec §15.1):
//! allocation through the `ptr_alloc` helper (the interpreter's memory
//! budget and zero fill), item loads and stores as IR `Load` / `Store`
//! (null check, then bounds check, each raising the run-time error
//! ASTFrame raises, in its order), truth, identity and display; struct
//! items and fields are `memref`'s. The register layout is
//! `layout::PtrLayout`.

use spy_jit::ir::{CmpOp as IC, Op, Stmt as IrStmt, Ty, VReg};

use super::func::{FnLower, LVal};
use super::layout::{prim_code, PtrLayout};
use super::{LowerError, Lowered};
use crate::source::TextRange;
use crate::vm::memory::PtrMem;
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{PtrValue, Typed, Value};
use std::cell::RefCell;
use std::rc::Rc;

/// What a store or a load is (its out-of-bounds error).
#[derive(Clone, Copy)]
pub(super) enum Access {
    Load,
    Store,
}

/// Whether a part of an item is a scalar of the program (not a pointer's
/// identity, length or buffer).
fn is_scalar(t: Ty) -> bool {
    part_prim(t).is_some()
}

/// The primitive type a part register holds.
fn part_prim(t: Ty) -> Option<crate::vm::ops::PrimTy> {
    use crate::vm::ops::PrimTy as P;
    Some(match t {
        Ty::I8 => P::I8,
        Ty::U8 => P::U8,
        Ty::I32 => P::I32,
        Ty::U32 => P::U32,
        Ty::I64 => P::I64,
        Ty::U64 => P::U64,
        Ty::F32 => P::F32,
        Ty::F64 => P::F64,
        Ty::Bool => P::Bool,
        _ => return None,
    })
}

impl FnLower<'_, '_, '_> {
    /// The item type of pointer type `ty`, if it is one.
    pub fn ptr_item(&self, ty: TypeId) -> Option<TypeId> {
        match self.cx.interp.vm.types.kind(ty) {
            TypeKind::Ptr { item, .. } => Some(*item),
            _ => None,
        }
    }

    pub(super) fn ptr_layout(&self, item: TypeId, range: TextRange) -> Lowered<PtrLayout> {
        match PtrLayout::of(&self.cx.interp.vm.types, item) {
            Some(l) => Ok(l),
            None => self.unsupported(format!("a pointer to `{}`", self.type_name(item)), range),
        }
    }

    /// `gc_alloc[T](n)` with `n` already converted to `i32` (`range` is
    /// `n`'s, where the errors are annotated; `call` the call's).
    pub fn ptr_alloc(
        &mut self,
        ty: TypeId,
        item: TypeId,
        n: VReg,
        range: TextRange,
        call: TextRange,
    ) -> Lowered<LVal> {
        let layout = self.ptr_layout(item, range)?;
        let n = self.fb.convert(Ty::I64, n);
        // `item_bytes`' rule: a primitive costs its size, anything else a
        // boxed value (`u64::MAX` is no primitive's code).
        let code = item.as_prim().map_or(u64::MAX, prim_code);
        let code = self.fb.const_(Ty::U64, code);
        let size = if layout.prim {
            u64::from(layout.parts[0].size())
        } else {
            0
        };
        let size = self.fb.const_(Ty::U64, size);
        let hs = self.cx.helpers;
        let base = self.helper_value_in_call(hs.ptr_alloc, Ty::Ptr, &[n, code, size], range, call)?;
        if layout.prim {
            return Ok(LVal {
                ty,
                regs: vec![base, n],
            });
        }
        // items by parts: one buffer per part, their addresses in a table
        // (the pointer's first register and the allocation's identity)
        let k = self.fb.const_(Ty::I64, layout.table_len() as u64);
        let eight = self.fb.const_(Ty::U64, 8);
        let table = self.helper_value_in_call(hs.ptr_buffer, Ty::Ptr, &[k, eight], range, call)?;
        let (on_null, on_oob) = self.access_codes(Access::Store, call);
        let mut regs = vec![table, n];
        for (j, part) in layout.parts.iter().enumerate() {
            let size = self.fb.const_(Ty::U64, u64::from(part.size()));
            let b = self.helper_value_in_call(hs.ptr_buffer, Ty::Ptr, &[n, size], range, call)?;
            let at = self.fb.const_(Ty::I64, j as u64);
            self.fb.store(table, k, at, b, on_null, on_oob);
            if layout.cached {
                regs.push(b);
            }
        }
        Ok(LVal { ty, regs })
    }

    /// The buffer of part `j` of the items of the allocation whose table
    /// is `table` (of `table_len` words), read from the table: a NULL
    /// table raises `on_null` (the access's NULL error). `first`: the
    /// table position of part 0 (a reference's struct), else 0.
    pub(super) fn part_buffer(
        &mut self,
        table: VReg,
        first: Option<VReg>,
        table_len: usize,
        j: usize,
        on_null: spy_jit::ir::ErrCode,
        on_oob: spy_jit::ir::ErrCode,
    ) -> VReg {
        let (len, at) = match first {
            None => (
                self.fb.const_(Ty::I64, table_len as u64),
                self.fb.const_(Ty::I64, j as u64),
            ),
            Some(first) => {
                // in bounds by construction: `first + j < first + table_len`
                let n = self.fb.const_(Ty::I64, table_len as u64);
                let j = self.fb.const_(Ty::I64, j as u64);
                (
                    self.fb.binary(spy_jit::ir::BinOp::Add, first, n),
                    self.fb.binary(spy_jit::ir::BinOp::Add, first, j),
                )
            }
        };
        self.fb.load(Ty::Ptr, table, len, at, on_null, on_oob)
    }

    /// The buffers of the item parts `parts` of pointer `p`: its registers
    /// (a primitive item's one buffer, or cached part buffers), else read
    /// from its table. A load or store through a register buffer makes the
    /// NULL check (a NULL pointer's registers are all 0), as the table
    /// load would.
    pub(super) fn part_buffers(
        &mut self,
        p: &LVal,
        layout: &PtrLayout,
        parts: std::ops::Range<usize>,
        on_null: spy_jit::ir::ErrCode,
        on_oob: spy_jit::ir::ErrCode,
    ) -> Vec<VReg> {
        let n = layout.table_len();
        parts
            .map(|j| match layout.cached_buffer(j) {
                Some(r) => p.regs[r],
                None => self.part_buffer(p.regs[0], None, n, j, on_null, on_oob),
            })
            .collect()
    }

    /// The null pointer of type `ty` (`P.NULL`).
    pub fn ptr_null(&mut self, ty: TypeId, range: TextRange) -> Lowered<LVal> {
        let tys = self.cx.flatten(ty, &self.file, range)?;
        let regs = tys.iter().map(|&t| self.fb.const_(t, 0)).collect();
        Ok(LVal { ty, regs })
    }

    /// The codes of the null and bounds errors of an access at `range`.
    pub(super) fn access_codes(
        &mut self,
        access: Access,
        range: TextRange,
    ) -> (spy_jit::ir::ErrCode, spy_jit::ir::ErrCode) {
        let null = self.rt_code(RuntimeError::NullPointer, range, "");
        let oob = match access {
            Access::Load => RuntimeError::PtrGetitemOutOfBounds,
            Access::Store => RuntimeError::PtrStoreOutOfBounds,
        };
        (null, self.rt_code(oob, range, ""))
    }

    /// The registers of the item parts `parts` (a range of the item's
    /// flattened scalars) of item `index` (an `I64`).
    fn load_parts(
        &mut self,
        p: &LVal,
        layout: &PtrLayout,
        parts: std::ops::Range<usize>,
        index: VReg,
        range: TextRange,
    ) -> Vec<VReg> {
        let (on_null, on_oob) = self.access_codes(Access::Load, range);
        let bufs = self.part_buffers(p, layout, parts.clone(), on_null, on_oob);
        parts
            .zip(bufs)
            .map(|(k, b)| {
                self.fb
                    .load(layout.parts[k], b, p.regs[1], index, on_null, on_oob)
            })
            .collect()
    }

    fn store_parts(
        &mut self,
        p: &LVal,
        layout: &PtrLayout,
        first: usize,
        values: &[VReg],
        index: VReg,
        range: TextRange,
    ) {
        let (on_null, on_oob) = self.access_codes(Access::Store, range);
        let bufs = self.part_buffers(p, layout, first..first + values.len(), on_null, on_oob);
        for (b, &v) in bufs.into_iter().zip(values) {
            self.fb.store(b, p.regs[1], index, v, on_null, on_oob);
        }
    }

    /// `p[i]` with `i` converted to `i32` (a struct item: a reference,
    /// `memref`).
    pub fn ptr_getitem(&mut self, p: LVal, i: VReg, range: TextRange) -> Lowered<LVal> {
        let item = self
            .ptr_item(p.ty)
            .ok_or_else(|| LowerError::bug("a pointer access on a non-pointer"))?;
        let result = self.cx.interp.vm.types.ptr_item_result(p.ty).unwrap_or(item);
        if result != item {
            let i = self.fb.convert(Ty::I64, i);
            return self.ptr_item_ref(p, result, i, range);
        }
        let layout = self.ptr_layout(item, range)?;
        if layout.parts.is_empty() {
            return self.unsupported(
                format!("an item of a pointer to `{}`", self.type_name(item)),
                range,
            );
        }
        let i = self.fb.convert(Ty::I64, i);
        let regs = self.load_parts(&p, &layout, 0..layout.parts.len(), i, range);
        Ok(LVal { ty: item, regs })
    }

    /// `p[i] = v` with `i` converted to `i32` and `v` to the item type.
    pub fn ptr_setitem(&mut self, p: LVal, i: VReg, v: LVal, range: TextRange) -> Lowered<()> {
        let layout = self.ptr_layout(v.ty, range)?;
        if layout.parts.is_empty() {
            return self.unsupported(
                format!("an item of a pointer to `{}`", self.type_name(v.ty)),
                range,
            );
        }
        let i = self.fb.convert(Ty::I64, i);
        self.store_parts(&p, &layout, 0, &v.regs, i, range);
        Ok(())
    }

    /// `ptr_copy(dst, src, n)` and the other memory operations, the
    /// arguments converted by the operation's signature (`memops::signature`,
    /// as ASTFrame): the checks in `mem_rt::mem_check`, then one helper call
    /// per part buffer of the items.
    pub fn mem_op(
        &mut self,
        op: crate::vm::ops::memops::MemOp,
        params: &[Option<TypeId>],
        args: Vec<(LVal, TextRange)>,
        call: TextRange,
    ) -> Lowered<LVal> {
        use crate::vm::ops::memops::MemKind;
        let mut ptrs = Vec::new();
        let mut ints = Vec::new();
        for ((v, r), p) in args.into_iter().zip(params) {
            match p {
                Some(t) => {
                    let v = self.coerce(v, *t, r)?;
                    ints.push(self.fb.convert(Ty::I64, v.regs[0]));
                }
                None => ptrs.push(v),
            }
        }
        let Some(item) = ptrs.first().and_then(|p| self.ptr_item(p.ty)) else {
            return Err(LowerError::bug("a memory operation without a pointer"));
        };
        let layout = self.ptr_layout(item, call)?;
        if layout.parts.contains(&Ty::Handle) {
            return self.unsupported(format!("`{}` of items with str parts", op.name()), call);
        }
        let hs = self.cx.helpers;
        for i in ints {
            self.call_helper_in_call(hs.mem_arg, None, &[i], call, call);
        }
        let name = op.forwarded().name();
        let t = self.type_name(item);
        let wip = match op.kind() {
            MemKind::Cmp if item.as_prim().is_none() => {
                let msg = format!("{name} of `{t}` items is not supported yet");
                Some(self.cx.errors.helper_fixed(crate::error::ExcKind::Wip, &msg))
            }
            MemKind::Setbytes if layout.parts.iter().any(|p| !is_scalar(*p)) => {
                let msg =
                    format!("ptr_setbytes of `{t}` items with a byte other than 0 is not supported yet");
                Some(self.cx.errors.helper_fixed(crate::error::ExcKind::Wip, &msg))
            }
            _ => None,
        };
        let wip = self.fb.const_(Ty::U64, wip.map_or(0, |c| u64::from(c.get())));
        let code = crate::vm::ops::memops::MemOp::ALL
            .iter()
            .position(|&m| m == op)
            .ok_or_else(|| LowerError::bug("a memory operation not in MemOp::ALL"))?;
        let code = self.fb.const_(Ty::U64, code as u64);
        let dst = &ptrs[0];
        let (src_len, same) = match ptrs.get(1) {
            Some(src) => {
                let same = self.fb.cmp(IC::Eq, dst.regs[0], src.regs[0]);
                let nonnull = self.ptr_truth(dst);
                let both = self.fb.binary(spy_jit::ir::BinOp::And, same, nonnull);
                (src.regs[1], self.fb.convert(Ty::U64, both))
            }
            None => (self.fb.const_(Ty::I64, 0), self.fb.const_(Ty::U64, 0)),
        };
        self.call_helper_in_call(
            hs.mem_check,
            None,
            &[code, dst.regs[1], src_len, same, wip],
            call,
            call,
        );
        // (after the checks: the buffers of a NULL table are 0, which the
        // part operations never touch, as `mem_check` allowed no item)
        let dst_bufs = self.mem_part_buffers(dst, &layout, call)?;
        let src_bufs = match ptrs.get(1) {
            Some(s) => Some(self.mem_part_buffers(s, &layout, call)?),
            None => None,
        };
        let mut result = LVal::none();
        for (k, part) in layout.parts.iter().enumerate() {
            let size = self.fb.const_(Ty::U64, u64::from(part.size()));
            match (op.kind(), &src_bufs) {
                (MemKind::Setbytes, _) => {
                    let fill = part_prim(*part).map_or(super::mem_rt::FILL_ZERO, prim_code);
                    let fill = self.fb.const_(Ty::U64, fill);
                    self.call_helper_in_call(hs.mem_fill, None, &[dst_bufs[k], size, fill], call, call);
                }
                (MemKind::Copy { .. }, Some(src)) => {
                    self.call_helper_in_call(hs.mem_copy, None, &[dst_bufs[k], src[k], size], call, call);
                }
                (MemKind::Cmp, Some(src)) => {
                    // (the item is primitive: `wip` raised otherwise)
                    let r = self.helper_value_in_call(
                        hs.mem_cmp,
                        Ty::I32,
                        &[dst_bufs[k], src[k], size],
                        call,
                        call,
                    )?;
                    result = LVal::one(TypeId::I32, r);
                    break;
                }
                _ => return Err(LowerError::bug("a memory operation without its second pointer")),
            }
        }
        if op.kind() == MemKind::Cmp && result.regs.is_empty() {
            let z = self.fb.const_(Ty::I32, 0);
            result = LVal::one(TypeId::I32, z);
        }
        Ok(result)
    }

    /// The part buffers of pointer `p` for a memory operation: read from
    /// its table by a helper (0 for NULL, no error).
    fn mem_part_buffers(&mut self, p: &LVal, layout: &PtrLayout, call: TextRange) -> Lowered<Vec<VReg>> {
        if layout.prim {
            return Ok(vec![p.regs[0]]);
        }
        let hs = self.cx.helpers;
        (0..layout.parts.len())
            .map(|j| match layout.cached_buffer(j) {
                Some(r) => Ok(p.regs[r]),
                None => {
                    let j = self.fb.const_(Ty::U64, j as u64);
                    self.helper_value_in_call(hs.mem_part, Ty::Ptr, &[p.regs[0], j], call, call)
                }
            })
            .collect()
    }

    /// A pointer's truth: not NULL.
    pub fn ptr_truth(&mut self, p: &LVal) -> VReg {
        let null = self.fb.const_(Ty::Ptr, 0);
        self.fb.cmp(IC::Ne, p.regs[0], null)
    }

    /// `p == q` (`negate`: `!=`): the same allocation.
    pub fn ptr_identity(&mut self, a: &LVal, b: &LVal, negate: bool) -> VReg {
        let c = if negate { IC::Ne } else { IC::Eq };
        self.fb.cmp(c, a.regs[0], b.regs[0])
    }

    /// `str(p)`: ASTFrame's text of a live pointer or of NULL (it depends
    /// only on the type and on nullness), chosen at run time.
    pub fn ptr_text(&mut self, p: &LVal, range: TextRange) -> Lowered<VReg> {
        let item = self
            .ptr_item(p.ty)
            .ok_or_else(|| LowerError::bug("a pointer access on a non-pointer"))?;
        let live = self.cx.interp.zero_value(item);
        let mem = PtrMem::zeroed(
            item.as_prim(),
            live,
            0,
            &self.cx.interp.meter,
            self.cx.interp.limits.max_memory,
        )
        .ok()
        .map(|m| Rc::new(RefCell::new(m)));
        let texts = [mem, None].map(|mem| {
            let v = Typed::red(p.ty, Value::Ptr(PtrValue { ty: p.ty, mem }));
            let interp = &mut *self.cx.interp;
            let frame = interp.module_frame(self.module);
            interp.str_of(&frame, &v, range).ok()
        });
        let [Some(object), Some(null)] = texts else {
            return self.unsupported("the text of this pointer", range);
        };
        let (ho, hn) = (self.cx.string(&object), self.cx.string(&null));
        let out = self.fb.local(Ty::Handle);
        let t = self.ptr_truth(p);
        let (co, cn) = (self.fb.const_(Ty::Handle, ho), self.fb.const_(Ty::Handle, hn));
        self.fb.push(IrStmt::If {
            cond: t,
            then_: spy_jit::ir::Block(vec![IrStmt::Assign {
                dst: out,
                op: Op::Copy(co),
            }]),
            else_: spy_jit::ir::Block(vec![IrStmt::Assign {
                dst: out,
                op: Op::Copy(cn),
            }]),
        });
        Ok(self.fb.op(Ty::Handle, Op::Copy(out)))
    }
}
