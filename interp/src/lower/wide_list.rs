//! `list[T]` whose items are several registers (`T` a struct or a tuple of
//! more than one scalar, `layout::flatten`): the same handle to a table of
//! the run as a one-register list, holding each item's words one after
//! another (`list_rt`'s wide helpers, which count, check and charge in
//! items by the interpreter's rules). An item is read or written by
//! parts: a helper gives the address of its first word (or raises the
//! `IndexError` ASTFrame raises), then one `Load`/`Store` per part, part
//! `j` in word `j`. `list.rs` sends every list operation here when its
//! item is wide; the text of a list whose items are not primitives or strs
//! is built here in the machine code from each item's repr.

use spy_jit::ir::{CmpOp as IC, HelperId, Ty, VReg};

use super::func::{FnLower, LVal};
use super::Lowered;
use crate::source::TextRange;
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// The registers of a list's item type when they are more than one.
    pub(super) fn wide_item(&self, item: TypeId, range: TextRange) -> Lowered<Option<Vec<Ty>>> {
        let parts = self.cx.flatten(item, &self.file, range)?;
        Ok((parts.len() > 1).then_some(parts))
    }

    /// The words per item of a wide item, as a register.
    fn words_per_item(&mut self, parts: &[Ty]) -> VReg {
        self.fb.const_(Ty::U64, parts.len() as u64)
    }

    /// Length and index registers of part `j` of an item of `n` words at a
    /// helper's address, in elements of the part's type.
    fn part_at(&mut self, t: Ty, j: usize, n: usize) -> (VReg, VReg) {
        let per_word = 8 / u64::from(t.size());
        let len = self.fb.const_(Ty::U64, n as u64 * per_word);
        let i = self.fb.const_(Ty::U64, j as u64 * per_word);
        (len, i)
    }

    /// The item of type `item` (registers `parts`) at `addr`.
    fn load_item(&mut self, item: TypeId, parts: &[Ty], addr: VReg) -> LVal {
        let mut regs = Vec::new();
        for (j, &t) in parts.iter().enumerate() {
            let (len, i) = self.part_at(t, j, parts.len());
            regs.push(self.fb.load(t, addr, len, i, Self::never(), Self::never()));
        }
        LVal { ty: item, regs }
    }

    /// Write item `v` (already of the item type) at `addr`.
    fn store_item(&mut self, parts: &[Ty], addr: VReg, v: &LVal) {
        for (j, (&t, &r)) in parts.iter().zip(&v.regs).enumerate() {
            let (len, i) = self.part_at(t, j, parts.len());
            self.fb.store(addr, len, i, r, Self::never(), Self::never());
        }
    }

    /// Append `v` (of the item type) to wide list `h` (a display's item,
    /// `append`); `call` is the method call, when it is one.
    pub(super) fn wide_append(
        &mut self,
        h: VReg,
        parts: &[Ty],
        v: &LVal,
        at: TextRange,
        call: Option<TextRange>,
    ) -> Lowered<()> {
        let n = self.words_per_item(parts);
        let f = self.cx.helpers.wide_list.append;
        let addr = self.wide_addr(f, &[h, n], at, call)?;
        self.store_item(parts, addr, v);
        Ok(())
    }

    /// A wide helper's address result (in the frame of `call`, if given).
    fn wide_addr(
        &mut self,
        f: HelperId,
        args: &[VReg],
        at: TextRange,
        call: Option<TextRange>,
    ) -> Lowered<VReg> {
        match call {
            Some(call) => self.helper_value_in_call(f, Ty::Ptr, args, at, call),
            None => self.helper_value(f, Ty::Ptr, args, at),
        }
    }

    /// `l[i]` (`i` an `I64`).
    pub(super) fn wide_getitem(
        &mut self,
        l: &LVal,
        item: TypeId,
        parts: &[Ty],
        i: VReg,
        at: TextRange,
        call: Option<TextRange>,
    ) -> Lowered<LVal> {
        let n = self.words_per_item(parts);
        let zero = self.fb.const_(Ty::U64, 0);
        let f = self.cx.helpers.wide_list.item;
        let addr = self.wide_addr(f, &[l.regs[0], i, n, zero], at, call)?;
        Ok(self.load_item(item, parts, addr))
    }

    /// `l[i] = v` (`i` an `I64`, `v` of the item type).
    pub(super) fn wide_setitem(
        &mut self,
        l: &LVal,
        parts: &[Ty],
        i: VReg,
        v: &LVal,
        at: TextRange,
    ) -> Lowered<()> {
        let n = self.words_per_item(parts);
        let one = self.fb.const_(Ty::U64, 1);
        let f = self.cx.helpers.wide_list.item;
        let addr = self.helper_value(f, Ty::Ptr, &[l.regs[0], i, n, one], at)?;
        self.store_item(parts, addr, v);
        Ok(())
    }

    /// `len(l)`, an `I32`.
    pub(super) fn wide_len(&mut self, l: &LVal, parts: &[Ty], at: TextRange) -> Lowered<VReg> {
        let n = self.words_per_item(parts);
        let f = self.cx.helpers.wide_list.len;
        self.helper_value(f, Ty::I32, &[l.regs[0], n], at)
    }

    /// `l.insert(i, v)` (`i` an `I64`).
    pub(super) fn wide_insert(
        &mut self,
        l: &LVal,
        parts: &[Ty],
        i: VReg,
        v: &LVal,
        at: TextRange,
        call: TextRange,
    ) -> Lowered<()> {
        let n = self.words_per_item(parts);
        let f = self.cx.helpers.wide_list.insert;
        let addr = self.wide_addr(f, &[l.regs[0], i, n], at, Some(call))?;
        self.store_item(parts, addr, v);
        Ok(())
    }

    /// `l.pop()` / `l.pop(i)` (`given` says which; `i` an `I64`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wide_pop(
        &mut self,
        l: &LVal,
        item: TypeId,
        parts: &[Ty],
        i: VReg,
        given: VReg,
        at: TextRange,
        call: TextRange,
    ) -> Lowered<LVal> {
        let n = self.words_per_item(parts);
        let f = self.cx.helpers.wide_list.pop;
        let addr = self.wide_addr(f, &[l.regs[0], i, given, n], at, Some(call))?;
        Ok(self.load_item(item, parts, addr))
    }

    /// A wide helper taking the item's word count last: `extend`,
    /// `remove_at`, `+`, `*`, slices.
    pub(super) fn wide_call(
        &mut self,
        f: HelperId,
        parts: &[Ty],
        args: &[VReg],
        result: Option<Ty>,
        at: TextRange,
        call: Option<TextRange>,
    ) -> Option<VReg> {
        let n = self.words_per_item(parts);
        let mut all = args.to_vec();
        all.push(n);
        match call {
            Some(call) => self.call_helper_in_call(f, result, &all, at, call),
            None => self.call_helper(f, result, &all, at),
        }
    }

    /// `repr(l)` of a list whose items are not primitives or strs: each
    /// item's repr by the lowering's `repr` (a struct's `__repr__` called
    /// natively), over the items as they are when the text starts (ASTFrame
    /// formats a copy), joined by `op_select::list_text` within the str
    /// limit.
    pub(super) fn list_text_loop(&mut self, l: &LVal, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        let b = self.helper_value(hs.wide_list.text_start, Ty::Handle, &[], range)?;
        let snap = self.helper_value(hs.list_copy, Ty::Handle, &[l.regs[0]], range)?;
        let snap = LVal::one(l.ty, snap);
        let n = self.list_len(&snap, range)?;
        let n = self.fb.convert(Ty::I64, n);
        self.index_loop(
            |this, k| Ok(this.fb.cmp(IC::Lt, k, n)),
            |this, k| {
                let k32 = this.fb.convert(Ty::I32, k);
                let x = this.list_getitem(snap.clone(), k32, range)?;
                let t = this.repr(x, range)?;
                this.call_helper(hs.wide_list.text_part, None, &[b, t], range);
                Ok(())
            },
        )?;
        self.helper_value(hs.wide_list.text_end, Ty::Handle, &[b], range)
    }
}

impl FnLower<'_, '_, '_> {
    /// The methods of a wide list that look at its items (`list_method`
    /// has checked the arguments against the method's signature and
    /// converted them; `ranges` are theirs).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wide_method(
        &mut self,
        l: LVal,
        m: crate::vm::ops::signatures::ListMethod,
        vals: Vec<LVal>,
        ranges: &[TextRange],
        parts: &[Ty],
        obj: TextRange,
        whole: TextRange,
    ) -> Lowered<LVal> {
        use super::list::Scan;
        use crate::vm::ops::signatures::ListMethod as M;
        let item = self.list_item(l.ty).unwrap_or(TypeId::NONE);
        let h = l.regs[0];
        match m {
            M::Append => {
                self.wide_append(h, parts, &vals[0], obj, Some(whole))?;
                Ok(LVal::none())
            }
            M::Insert => {
                let i = self.fb.convert(Ty::I64, vals[0].regs[0]);
                self.wide_insert(&l, parts, i, &vals[1], obj, whole)?;
                Ok(LVal::none())
            }
            M::Pop => {
                let (i, given, at) = match vals.first() {
                    Some(v) => (self.fb.convert(Ty::I64, v.regs[0]), 1, ranges[0]),
                    None => (self.fb.const_(Ty::I64, 0), 0, obj),
                };
                let given = self.fb.const_(Ty::U64, given);
                self.wide_pop(&l, item, parts, i, given, at, whole)
            }
            M::Extend => {
                let f = self.cx.helpers.wide_list.extend;
                self.wide_call(f, parts, &[h, vals[0].regs[0]], None, obj, Some(whole));
                Ok(LVal::none())
            }
            M::Remove | M::Count | M::Index => {
                let scan = match m {
                    M::Remove => Scan::Remove,
                    M::Count => Scan::Count,
                    _ => Scan::Index,
                };
                self.list_scan(&l, &vals[0], scan, ranges[0], whole)
            }
            M::Clear | M::Copy | M::FastIter => Err(super::LowerError::bug(
                "a list method that does not look at the items",
            )),
        }
    }
}
