//! `list[T]` values of residual code: a handle to a table the run owns,
//! built, indexed, measured and formatted by runtime helpers that call the
//! interpreter's own functions (`frames::list::list_slot`,
//! `op_select::list_text`, the item formatting), so index errors and texts
//! cannot diverge. Items of one register (primitives, `str`, handles) are
//! one word each; items of several (structs, tuples) are `wide_list.rs`'s.

use spy_jit::ir::{HelperId, Ty, VReg};

use super::func::{FnLower, LVal};
use super::helpers::STR_ITEM;
use super::layout::prim_code;
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::{ExprRef, Exprs};
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// The item type of list type `ty`, if it is one.
    pub fn list_item(&self, ty: TypeId) -> Option<TypeId> {
        self.cx.interp.vm.types.list_item(ty)
    }

    /// The one register type of a list's items.
    fn item_reg(&self, item: TypeId, range: TextRange) -> Lowered<Ty> {
        match self.cx.flatten(item, &self.file, range)?.as_slice() {
            [t] => Ok(*t),
            _ => self.unsupported(format!("a list of `{}`", self.type_name(item)), range),
        }
    }

    /// `[a, b, ...]`: the item type is the first item's; every item is
    /// evaluated, then converted to it (ASTFrame's `make_list`).
    pub fn list_display(&mut self, items: &Exprs<'_>, range: TextRange) -> Lowered<LVal> {
        if items.is_empty() {
            return self.empty_list(range);
        }
        let mut vals = Vec::new();
        for e in items {
            vals.push((self.expr(&e)?, e.range));
        }
        let item = vals[0].0.ty;
        let ty = self.cx.interp.vm.types.list(item);
        if let Some(parts) = self.wide_item(item, range)? {
            let mut conv = Vec::new();
            for (v, r) in vals {
                conv.push(self.coerce(v, item, r)?);
            }
            let h = self.cx.helpers.list_new;
            let h = self.helper_value(h, Ty::Handle, &[], range)?;
            for v in conv {
                self.wide_append(h, &parts, &v, range, None)?;
            }
            return Ok(LVal::one(ty, h));
        }
        let t = self.item_reg(item, range)?;
        let mut regs = Vec::new();
        for (v, r) in vals {
            regs.push(self.coerce(v, item, r)?.regs[0]);
        }
        let hs = self.cx.helpers;
        let h = self.helper_value(hs.list_new, Ty::Handle, &[], range)?;
        for r in regs {
            let (push, arg) = match t {
                Ty::F64 => (hs.list_push_f64, r),
                Ty::F32 => (hs.list_push_f32, r),
                _ => (hs.list_push, self.fb.convert(Ty::U64, r)),
            };
            self.call_helper(push, None, &[h, arg], range);
        }
        Ok(LVal::one(ty, h))
    }

    /// `list[T]()`: a new empty list.
    pub fn list_empty(&mut self, ty: TypeId, range: TextRange) -> Lowered<LVal> {
        let item = self.list_item(ty).unwrap_or(TypeId::NONE);
        if self.wide_item(item, range)?.is_none() {
            self.item_reg(item, range)?;
        }
        let h = self.cx.helpers.list_new;
        let h = self.helper_value(h, Ty::Handle, &[], range)?;
        Ok(LVal::one(ty, h))
    }

    /// `l[i]` with `i` converted to `i32`.
    pub fn list_getitem(&mut self, l: LVal, i: VReg, range: TextRange) -> Lowered<LVal> {
        self.list_getitem_at(l, i, range, None)
    }

    /// [`Self::list_getitem`] for a method call at `call` (its errors'
    /// frame is the call, as in ASTFrame, not the statement).
    fn list_getitem_at(
        &mut self,
        l: LVal,
        i: VReg,
        range: TextRange,
        call: Option<TextRange>,
    ) -> Lowered<LVal> {
        let Some(item) = self.list_item(l.ty) else {
            return self.unsupported("a subscript of this list", range);
        };
        if let Some(parts) = self.wide_item(item, range)? {
            let i = self.fb.convert(Ty::I64, i);
            return self.wide_getitem(&l, item, &parts, i, range, call);
        }
        let t = self.item_reg(item, range)?;
        let i = self.fb.convert(Ty::I64, i);
        let hs = self.cx.helpers;
        let (get, rt): (HelperId, Ty) = match t {
            Ty::F64 => (hs.list_get_f64, Ty::F64),
            Ty::F32 => (hs.list_get_f32, Ty::F32),
            _ => (hs.list_get, Ty::U64),
        };
        let w = match call {
            Some(call) => self.helper_value_in_call(get, rt, &[l.regs[0], i], range, call)?,
            None => self.helper_value(get, rt, &[l.regs[0], i], range)?,
        };
        let r = if rt == t { w } else { self.fb.convert(t, w) };
        Ok(LVal::one(item, r))
    }

    /// `len(l)`.
    pub fn list_len(&mut self, l: &LVal, range: TextRange) -> Lowered<VReg> {
        if let Some(parts) = self.wide_list(l, range)? {
            return self.wide_len(l, &parts, range);
        }
        let h = self.cx.helpers.list_len;
        self.helper_value(h, Ty::I32, &[l.regs[0]], range)
    }

    /// `repr(l)` / `str(l)`.
    pub fn list_text(&mut self, l: &LVal, range: TextRange) -> Lowered<VReg> {
        let item = if l.ty == TypeId::EMPTY_LIST {
            Some(TypeId::NONE)
        } else {
            self.list_item(l.ty)
        };
        let Some(item) = item else {
            return self.unsupported("the text of this list", range);
        };
        let code = match item.as_prim() {
            Some(p) => prim_code(p),
            None if item == TypeId::STR => STR_ITEM,
            // `[]`: no item to format
            None if l.ty == TypeId::EMPTY_LIST => STR_ITEM,
            // items of any other type: their reprs, in the machine code
            None => return self.list_text_loop(l, range),
        };
        let code = self.fb.const_(Ty::U64, code);
        let h = self.cx.helpers.list_text;
        self.helper_value(h, Ty::Handle, &[l.regs[0], code], range)
    }
}

/// Words in and out of list tables; the methods, `+`, `*`, slices.
impl FnLower<'_, '_, '_> {
    /// The canonical word of item register `r` of type `t`.
    pub(super) fn item_word(&mut self, t: Ty, r: VReg, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        match t {
            Ty::F64 => self.helper_value(hs.word_of_f64, Ty::U64, &[r], range),
            Ty::F32 => self.helper_value(hs.word_of_f32, Ty::U64, &[r], range),
            _ => Ok(self.fb.convert(Ty::U64, r)),
        }
    }

    /// The item register of type `t` of canonical word `w`.
    pub(super) fn word_item(&mut self, t: Ty, w: VReg, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        match t {
            Ty::F64 => self.helper_value(hs.f64_of_word, Ty::F64, &[w], range),
            Ty::F32 => self.helper_value(hs.f32_of_word, Ty::F32, &[w], range),
            _ => Ok(self.fb.convert(t, w)),
        }
    }

    /// The registers of list `l`'s items, when they are several.
    pub(super) fn wide_list(&self, l: &LVal, range: TextRange) -> Lowered<Option<Vec<Ty>>> {
        match self.list_item(l.ty) {
            Some(item) => self.wide_item(item, range),
            None => Ok(None),
        }
    }

    /// The item type of list `l` and the one register type of its items.
    fn list_items(&self, l: &LVal, range: TextRange) -> Lowered<(TypeId, Ty)> {
        let Some(item) = self.list_item(l.ty) else {
            return self.unsupported(format!("a `{}` here", self.type_name(l.ty)), range);
        };
        Ok((item, self.item_reg(item, range)?))
    }

    /// The untyped empty list `[]`: a handle to an empty table (it is never
    /// changed: every method that would is a static error).
    pub fn empty_list(&mut self, range: TextRange) -> Lowered<LVal> {
        let h = self.cx.helpers.list_new;
        let h = self.helper_value(h, Ty::Handle, &[], range)?;
        Ok(LVal::one(TypeId::EMPTY_LIST, h))
    }

    /// `[]` converted to `list[T]`: a new empty list (ASTFrame's
    /// `convert_to`).
    pub fn typed_empty_list(&mut self, to: TypeId, range: TextRange) -> Lowered<LVal> {
        self.list_empty(to, range)
    }

    /// `l[i] = v` (`i` already `i32`, `v` already the item type); an
    /// `IndexError` is annotated at the index, as ASTFrame's.
    pub fn list_setitem(&mut self, l: LVal, i: VReg, v: LVal, index: TextRange) -> Lowered<()> {
        let i = self.fb.convert(Ty::I64, i);
        if let Some(parts) = self.wide_list(&l, index)? {
            return self.wide_setitem(&l, &parts, i, &v, index);
        }
        let (_, t) = self.list_items(&l, index)?;
        let w = self.item_word(t, v.regs[0], index)?;
        let h = self.cx.helpers.list_set;
        self.call_helper(h, None, &[l.regs[0], i, w], index);
        Ok(())
    }

    /// `a + b` of two lists of type `ty`.
    pub fn list_concat(&mut self, ty: TypeId, a: &LVal, b: &LVal, whole: TextRange) -> Lowered<LVal> {
        if let Some(parts) = self.wide_list(a, whole)? {
            let f = self.cx.helpers.wide_list.concat;
            let r = self.wide_call(f, &parts, &[a.regs[0], b.regs[0]], Some(Ty::Handle), whole, None);
            return Ok(LVal::one(
                ty,
                r.ok_or_else(|| super::LowerError::bug("no result"))?,
            ));
        }
        let h = self.cx.helpers.list_concat;
        let r = self.helper_value(h, Ty::Handle, &[a.regs[0], b.regs[0]], whole)?;
        Ok(LVal::one(ty, r))
    }

    /// `a * n` (`n` converted to `i32`).
    pub fn list_repeat(
        &mut self,
        ty: TypeId,
        a: &LVal,
        n: LVal,
        nr: TextRange,
        whole: TextRange,
    ) -> Lowered<LVal> {
        let n = self.coerce(n, TypeId::I32, nr)?;
        if let Some(parts) = self.wide_list(a, whole)? {
            let f = self.cx.helpers.wide_list.repeat;
            let r = self.wide_call(f, &parts, &[a.regs[0], n.regs[0]], Some(Ty::Handle), whole, None);
            return Ok(LVal::one(
                ty,
                r.ok_or_else(|| super::LowerError::bug("no result"))?,
            ));
        }
        let h = self.cx.helpers.list_repeat;
        let r = self.helper_value(h, Ty::Handle, &[a.regs[0], n.regs[0]], whole)?;
        Ok(LVal::one(ty, r))
    }

    /// `l[a:b:c]` of a list, a str or a bytes: each given bound converted to `i32` (ASTFrame's
    /// `eval_slice`); a zero step raises at the list's expression.
    pub fn list_slice(
        &mut self,
        l: LVal,
        obj: TextRange,
        bounds: [Option<&ExprRef<'_>>; 3],
    ) -> Lowered<LVal> {
        let h = if l.ty == TypeId::STR {
            self.cx.helpers.str_slice
        } else if l.ty == TypeId::BYTES {
            self.cx.helpers.bytes.slice
        } else {
            self.cx.helpers.list_slice
        };
        let mut regs = Vec::new();
        let mut given = 0;
        for (k, b) in bounds.iter().enumerate() {
            match b {
                Some(e) => {
                    let v = self.expr(e)?;
                    if v.ty == TypeId::NONE {
                        // `l[None:]`: as if not given (ASTFrame's `eval_slice`)
                        regs.push(self.fb.const_(Ty::I64, 0));
                        continue;
                    }
                    let v = self.coerce(v, TypeId::I32, e.range)?;
                    regs.push(self.fb.convert(Ty::I64, v.regs[0]));
                    given |= 1 << k;
                }
                None => regs.push(self.fb.const_(Ty::I64, 0)),
            }
        }
        if let Some(parts) = self.wide_list(&l, obj)? {
            // (the words per item ride above the three `given` bits: a
            // helper takes six words besides the run context)
            let given = self.fb.const_(Ty::U64, given | (parts.len() as u64) << 3);
            let f = self.cx.helpers.wide_list.slice;
            let r = self.helper_value(f, Ty::Handle, &[l.regs[0], regs[0], regs[1], regs[2], given], obj)?;
            return Ok(LVal::one(l.ty, r));
        }
        let given = self.fb.const_(Ty::U64, given);
        let r = self.helper_value(h, Ty::Handle, &[l.regs[0], regs[0], regs[1], regs[2], given], obj)?;
        Ok(LVal::one(l.ty, r))
    }

    /// `l.m(args)`: the implementation and parameter types are the method's
    /// signature (`signatures::method_signature`, as ASTFrame and redshift
    /// check it); `obj` is the receiver's range.
    pub fn list_method(
        &mut self,
        l: LVal,
        obj: TextRange,
        name: &str,
        args: Vec<(LVal, TextRange)>,
        whole: TextRange,
    ) -> Lowered<LVal> {
        use crate::vm::ops::signatures::{method_signature, ListMethod as M, MethodImpl, Param};
        let tys: Vec<TypeId> = args.iter().map(|(v, _)| v.ty).collect();
        let sig = method_signature(&mut self.cx.interp.vm.types, l.ty, name, &tys);
        let Some(Ok(sig)) = sig else {
            return self.unsupported(format!("this `{}.{name}` call", self.type_name(l.ty)), whole);
        };
        let mut vals = Vec::new();
        let mut ranges = Vec::new();
        for ((v, r), p) in args.into_iter().zip(&sig.params) {
            let v = match p {
                Param::Convert(t) => self.coerce(v, *t, r)?,
                Param::Exact(t) if v.ty == *t => v,
                Param::Exact(_) => return self.unsupported(format!("this `{name}` argument"), r),
            };
            vals.push(v);
            ranges.push(r);
        }
        let m = match sig.imp {
            MethodImpl::List(m) => m,
            MethodImpl::ListIter(_) => return Err(super::LowerError::bug("an iterator method of a list")),
            // `[].copy()` and the other methods that leave `[]` as it is
            MethodImpl::EmptyList => return self.empty_list(whole),
            MethodImpl::Str(_) => return Err(super::LowerError::bug("a str method of a list")),
            MethodImpl::Bytes(_) => return Err(super::LowerError::bug("a bytes method of a list")),
            MethodImpl::Dict(_) => return Err(super::LowerError::bug("a dict method of a list")),
            MethodImpl::File(_) => return Err(super::LowerError::bug("a file method of a list")),
        };
        let hs = self.cx.helpers;
        let h = l.regs[0];
        let none = Ok(LVal::none());
        // the methods that do not look at the items
        match m {
            M::Clear => {
                self.call_helper_in_call(hs.list_clear, None, &[h], obj, whole);
                return none;
            }
            M::Copy => {
                let r = self.helper_value_in_call(hs.list_copy, Ty::Handle, &[h], obj, whole)?;
                return Ok(LVal::one(l.ty, r));
            }
            M::FastIter => {
                let ty = self.cx.interp.vm.types.list_iter(l.ty);
                let zero = self.fb.const_(Ty::I32, 0);
                return Ok(LVal {
                    ty,
                    regs: vec![h, zero],
                });
            }
            _ => {}
        }
        if let Some(parts) = self.wide_list(&l, obj)? {
            return self.wide_method(l, m, vals, &ranges, &parts, obj, whole);
        }
        let (item, t) = self.list_items(&l, obj)?;
        match m {
            M::Append => {
                let w = self.item_word(t, vals[0].regs[0], obj)?;
                self.call_helper_in_call(hs.list_append, None, &[h, w], obj, whole);
                none
            }
            M::Insert => {
                let i = self.fb.convert(Ty::I64, vals[0].regs[0]);
                let w = self.item_word(t, vals[1].regs[0], obj)?;
                self.call_helper_in_call(hs.list_insert, None, &[h, i, w], obj, whole);
                none
            }
            M::Pop => {
                let (i, given, at) = match vals.first() {
                    Some(v) => (self.fb.convert(Ty::I64, v.regs[0]), 1, ranges[0]),
                    None => (self.fb.const_(Ty::I64, 0), 0, obj),
                };
                let given = self.fb.const_(Ty::U64, given);
                let w = self.helper_value_in_call(hs.list_pop, Ty::U64, &[h, i, given], at, whole)?;
                let r = self.word_item(t, w, at)?;
                Ok(LVal::one(item, r))
            }
            M::Clear | M::Copy | M::FastIter => Err(super::LowerError::bug("a list method handled above")),
            M::Extend => {
                self.call_helper_in_call(hs.list_extend, None, &[h, vals[0].regs[0]], obj, whole);
                none
            }
            M::Remove | M::Count | M::Index => {
                let code = match item.as_prim() {
                    Some(p) => prim_code(p),
                    None if item == TypeId::STR => STR_ITEM,
                    // items compared by a user `__eq__` or field by field:
                    // the loop is machine code
                    None => {
                        let scan = match m {
                            M::Remove => Scan::Remove,
                            M::Count => Scan::Count,
                            _ => Scan::Index,
                        };
                        return self.list_scan(&l, &vals[0], scan, ranges[0], whole);
                    }
                };
                let mode = match m {
                    M::Remove => super::list_rt::FIND_REMOVE,
                    M::Count => super::list_rt::FIND_COUNT,
                    _ => super::list_rt::FIND_INDEX,
                };
                let w = self.item_word(t, vals[0].regs[0], ranges[0])?;
                let code = self.fb.const_(Ty::U64, code);
                let mode = self.fb.const_(Ty::U64, mode);
                let r =
                    self.helper_value_in_call(hs.list_find, Ty::U64, &[h, code, w, mode], ranges[0], whole)?;
                if m == M::Remove {
                    return none;
                }
                let r = self.fb.convert(Ty::I32, r);
                Ok(LVal::one(TypeId::I32, r))
            }
        }
    }
}

/// What [`FnLower::list_scan`] answers about an item `x`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    /// `x in l`: a `bool`.
    Contains,
    /// `l.count(x)`: an `i32`.
    Count,
    /// `l.index(x)`: an `i32`, or `ValueError`.
    Index,
    /// `l.remove(x)`: removes the first equal item, or `ValueError`.
    Remove,
}

/// Equality of list items by the item type's own `==` (a user `__eq__`
/// included), looping in the machine code: ASTFrame's `values_equal`.
impl FnLower<'_, '_, '_> {
    /// A snapshot of `l`'s items (ASTFrame compares a clone of them: an
    /// `__eq__` that changes the list does not change what is compared)
    /// and its length as an `I64`.
    fn snapshot(&mut self, l: &LVal, range: TextRange) -> Lowered<(LVal, VReg)> {
        let h = self.cx.helpers.list_copy;
        let s = self.helper_value(h, Ty::Handle, &[l.regs[0]], range)?;
        let s = LVal::one(l.ty, s);
        let n = self.list_len(&s, range)?;
        let n = self.fb.convert(Ty::I64, n);
        Ok((s, n))
    }

    /// Item `k` (an `I64` known to be in range) of list `l`.
    fn item_at(&mut self, l: &LVal, k: VReg, range: TextRange) -> Lowered<LVal> {
        let k = self.fb.convert(Ty::I32, k);
        self.list_getitem(l.clone(), k, range)
    }

    /// `a == b` for two lists of one type: equal lengths, then item by
    /// item, stopping at the first unequal one.
    pub fn list_eq(&mut self, a: &LVal, b: &LVal, range: TextRange) -> Lowered<VReg> {
        use spy_jit::ir::{BinOp as IB, CmpOp as IC, Op};
        let Some(item) = self.list_item(a.ty) else {
            return self.unsupported(
                format!("`{}` == `{}`", self.type_name(a.ty), self.type_name(b.ty)),
                range,
            );
        };
        let (xs, n) = self.snapshot(a, range)?;
        let (ys, m) = self.snapshot(b, range)?;
        let out = self.fb.local(Ty::Bool);
        let same_len = self.fb.cmp(IC::Eq, n, m);
        self.fb.assign(out, Op::Copy(same_len));
        self.index_loop(
            |this, k| {
                let more = this.fb.cmp(IC::Lt, k, n);
                let still = this.fb.op(Ty::Bool, Op::Copy(out));
                Ok(this.fb.binary(IB::And, more, still))
            },
            |this, k| {
                let x = this.item_at(&xs, k, range)?;
                let y = this.item_at(&ys, k, range)?;
                let eq = this.value_eq(item, &x, &y, range)?;
                this.fb.assign(out, Op::Copy(eq));
                Ok(())
            },
        )?;
        Ok(self.fb.op(Ty::Bool, Op::Copy(out)))
    }

    /// `x in l`, `l.count(x)`, `l.index(x)`, `l.remove(x)` (`x` already of
    /// the item type), comparing `x == item` for each item of a snapshot
    /// in order; `arg` is `x`'s range (where `ValueError` is annotated),
    /// `call` the call's.
    pub fn list_scan(
        &mut self,
        l: &LVal,
        x: &LVal,
        scan: Scan,
        arg: TextRange,
        call: TextRange,
    ) -> Lowered<LVal> {
        use spy_jit::ir::{BinOp as IB, CmpOp as IC, Op, Stmt as IrStmt};
        let Some(item) = self.list_item(l.ty) else {
            return self.unsupported(format!("a search of a `{}`", self.type_name(l.ty)), call);
        };
        let (snap, n) = self.snapshot(l, call)?;
        let (out_ty, result_ty) = match scan {
            Scan::Contains => (Ty::Bool, TypeId::BOOL),
            Scan::Count | Scan::Index => (Ty::I32, TypeId::I32),
            Scan::Remove => (Ty::Bool, TypeId::NONE),
        };
        // `found` for contains/remove; the count, or the index for index
        let out = self.fb.local(out_ty);
        let init = self
            .fb
            .const_(out_ty, if scan == Scan::Index { u64::MAX } else { 0 });
        self.fb.assign(out, Op::Copy(init));
        self.index_loop(
            |this, k| Ok(this.fb.cmp(IC::Lt, k, n)),
            |this, k| {
                let y = this.item_at(&snap, k, call)?;
                let eq = this.value_eq(item, x, &y, call)?;
                this.fb.open_block();
                match scan {
                    Scan::Contains => {
                        let t = this.fb.const_(Ty::Bool, 1);
                        this.fb.assign(out, Op::Copy(t));
                        this.fb.break_();
                    }
                    Scan::Count => {
                        let c = this.fb.op(Ty::I32, Op::Copy(out));
                        let one = this.fb.const_(Ty::I32, 1);
                        let c1 = this.fb.binary(IB::Add, c, one);
                        this.fb.assign(out, Op::Copy(c1));
                    }
                    Scan::Index => {
                        let k32 = this.fb.convert(Ty::I32, k);
                        this.fb.assign(out, Op::Copy(k32));
                        this.fb.break_();
                    }
                    Scan::Remove => {
                        // (an `__eq__` may have shortened the list: then
                        // nothing is removed, as in ASTFrame)
                        match this.wide_list(l, arg)? {
                            Some(parts) => {
                                let f = this.cx.helpers.wide_list.remove_at;
                                this.wide_call(f, &parts, &[l.regs[0], k], None, arg, Some(call));
                            }
                            None => {
                                let h = this.cx.helpers.list_remove_at;
                                this.call_helper_in_call(h, None, &[l.regs[0], k], arg, call);
                            }
                        }
                        let t = this.fb.const_(Ty::Bool, 1);
                        this.fb.assign(out, Op::Copy(t));
                        this.fb.break_();
                    }
                }
                let then_ = this.fb.close_block();
                this.fb.push(IrStmt::If {
                    cond: eq,
                    then_,
                    else_: spy_jit::ir::Block::default(),
                });
                Ok(())
            },
        )?;
        let v = self.fb.op(out_ty, Op::Copy(out));
        if matches!(scan, Scan::Index | Scan::Remove) {
            let missing = match scan {
                Scan::Index => {
                    let none = self.fb.const_(Ty::I32, u64::MAX);
                    self.fb.cmp(IC::Eq, v, none)
                }
                _ => self.fb.unary(spy_jit::ir::UnOp::Not, v),
            };
            let at = (
                self.frame_at(call),
                super::errors::Label {
                    range: arg,
                    text: String::new(),
                },
            );
            let code = self
                .cx
                .errors
                .runtime(&crate::vm::rt_error::RuntimeError::NotInList, at);
            self.fb.push(IrStmt::If {
                cond: missing,
                then_: spy_jit::ir::Block(vec![IrStmt::Raise {
                    code,
                    operands: [None, None],
                }]),
                else_: spy_jit::ir::Block::default(),
            });
        }
        Ok(match result_ty {
            TypeId::NONE => LVal::none(),
            t => LVal::one(t, v),
        })
    }

    /// A method of `list[T]::list_iterator` (ASTFrame's
    /// `call_list_iter_method`): the iterator is its list's handle and an
    /// `i32` index.
    pub fn list_iter_method(
        &mut self,
        it: LVal,
        obj: TextRange,
        name: &str,
        whole: TextRange,
    ) -> Lowered<LVal> {
        use crate::vm::ops::signatures::{method_signature, ListIterMethod as M, MethodImpl};
        use spy_jit::ir::CmpOp as IC;
        let sig = method_signature(&mut self.cx.interp.vm.types, it.ty, name, &[]);
        let (Some(Ok(sig)), Some(list)) = (sig, self.cx.interp.vm.types.list_iter_list(it.ty)) else {
            return self.unsupported(format!("this `{}.{name}` call", self.type_name(it.ty)), whole);
        };
        let MethodImpl::ListIter(m) = sig.imp else {
            return Err(super::LowerError::bug("another method of a list iterator"));
        };
        let [h, i] = it.regs[..] else {
            return Err(super::LowerError::bug("a list iterator is not two registers"));
        };
        let l = LVal::one(list, h);
        match m {
            M::Continue => {
                // unsigned: a negative index (wrapped) is past the end
                let n = self.list_len(&l, obj)?;
                let n = self.fb.convert(Ty::U64, n);
                let k = self.fb.convert(Ty::U64, i);
                Ok(LVal::one(TypeId::BOOL, self.fb.cmp(IC::Lt, k, n)))
            }
            M::Item => {
                // a negative index is out of range, not counted from the end
                let k = self.fb.local(Ty::I32);
                self.fb.assign(k, spy_jit::ir::Op::Copy(i));
                let zero = self.fb.const_(Ty::I32, 0);
                let neg = self.fb.cmp(IC::Lt, i, zero);
                self.fb.if_(
                    neg,
                    |b| b.assign(k, spy_jit::ir::Op::Const(i32::MIN as i64 as u64)),
                    |_| {},
                );
                self.list_getitem_at(l, k, obj, Some(whole))
            }
            M::Next => {
                let one = self.fb.const_(Ty::I32, 1);
                let k = self.fb.binary(spy_jit::ir::BinOp::Add, i, one);
                Ok(LVal {
                    ty: it.ty,
                    regs: vec![h, k],
                })
            }
        }
    }
}
