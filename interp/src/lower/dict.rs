//! `dict[K, V]` values of residual code: a handle to a table the run owns
//! (`dict_rt`), whose entries are the words of a key and of a value of any
//! flattened layout. Displays, `dict[K, V]()`, `{}` converted to a dict
//! type, `d[k]`, `d[k] = v`, the methods of `signatures::dict_method`,
//! `k in d`, `len`, `for k in d` (keys by position, as ASTFrame's loop),
//! `==` (values compared by the value type's own `==`, in the machine
//! code) and the text (keys' and values' reprs by the lowering's `repr`,
//! joined by a helper): every rule is ASTFrame's (`frames::dict`).

use spy_jit::ir::{CmpOp as IC, Op, Ty, VReg};

use super::func::{FnLower, LVal};
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::ExprRef;
use crate::vm::types::TypeId;

/// How one dict type's keys and values live in entry words.
struct Shape {
    key: TypeId,
    value: TypeId,
    key_regs: Vec<Ty>,
    value_regs: Vec<Ty>,
}

impl FnLower<'_, '_, '_> {
    /// The key and value types of dict type `ty`, if it is one.
    pub fn dict_types(&self, ty: TypeId) -> Option<(TypeId, TypeId)> {
        self.cx.interp.vm.types.dict_types(ty)
    }

    fn shape(&self, ty: TypeId, range: TextRange) -> Lowered<Shape> {
        let Some((key, value)) = self.dict_types(ty) else {
            return self.unsupported(format!("a `{}` here", self.type_name(ty)), range);
        };
        Ok(Shape {
            key,
            value,
            key_regs: self.cx.flatten(key, &self.file, range)?,
            value_regs: self.cx.flatten(value, &self.file, range)?,
        })
    }

    /// A new empty dict of type `ty` (or the untyped `{}`).
    pub fn dict_new(&mut self, ty: TypeId, range: TextRange) -> Lowered<LVal> {
        let (strs, bytes, n) = if ty == TypeId::EMPTY_DICT {
            (0, 0, 0)
        } else {
            let s = self.shape(ty, range)?;
            let kinds = key_kinds(self, s.key);
            if kinds.len() != s.key_regs.len() || kinds.len() > 64 {
                return self.unsupported(format!("a dict with `{}` keys", self.type_name(s.key)), range);
            }
            let (mut strs, mut bytes) = (0u64, 0u64);
            for (i, k) in kinds.into_iter().enumerate() {
                match k {
                    TypeId::STR => strs |= 1 << i,
                    TypeId::BYTES => bytes |= 1 << i,
                    _ => {}
                }
            }
            (strs, bytes, s.key_regs.len() as u64)
        };
        let strs = self.fb.const_(Ty::U64, strs);
        let bytes = self.fb.const_(Ty::U64, bytes);
        let n = self.fb.const_(Ty::U64, n);
        let h = self.cx.helpers.dict.new;
        let r = self.helper_value(h, Ty::Handle, &[strs, bytes, n], range)?;
        Ok(LVal::one(ty, r))
    }

    /// Stage the words of `v` (registers of types `tys`) for the next dict
    /// helper.
    fn stage(&mut self, tys: &[Ty], v: &LVal, range: TextRange) -> Lowered<()> {
        let arg = self.cx.helpers.dict.arg;
        for (&t, &r) in tys.iter().zip(&v.regs) {
            let w = self.item_word(t, r, range)?;
            self.call_helper(arg, None, &[w], range);
        }
        Ok(())
    }

    /// The value of type `ty` (registers `tys`) read word by word from
    /// entry `k` of dict `h` by helper `read` (`dict_key`/`dict_value`).
    fn entry_part(
        &mut self,
        read: spy_jit::ir::HelperId,
        h: VReg,
        k: VReg,
        ty: TypeId,
        tys: &[Ty],
        range: TextRange,
    ) -> Lowered<LVal> {
        let mut regs = Vec::new();
        for (j, &t) in tys.iter().enumerate() {
            let j = self.fb.const_(Ty::U64, j as u64);
            let w = self.helper_value(read, Ty::U64, &[h, k, j], range)?;
            regs.push(self.word_item(t, w, range)?);
        }
        Ok(LVal { ty, regs })
    }

    /// `{k: v, ...}`: every key and value evaluated in order, then the
    /// dict typed by the first pair, each pair converted to it and
    /// inserted (ASTFrame's `eval_dict`/`make_dict`).
    pub fn dict_display(&mut self, pairs: &crate::syntax::ast::Pairs<'_>, range: TextRange) -> Lowered<LVal> {
        let mut vals = Vec::new();
        for (k, v) in pairs.iter() {
            let kv = self.expr(&k)?;
            let vv = self.expr(&v)?;
            vals.push(((kv, k.range), (vv, v.range)));
        }
        let Some(((k0, _), (v0, _))) = vals.first() else {
            return self.dict_new(TypeId::EMPTY_DICT, range);
        };
        let (kt, vt) = (k0.ty, v0.ty);
        let types = &mut self.cx.interp.vm.types;
        if !types.dict_key_ok(kt) {
            return self.unsupported(format!("a dict display of `{}` keys", self.type_name(kt)), range);
        }
        let interp = [kt, vt].iter().any(|&t| t == TypeId::TYPE || t == TypeId::OBJECT);
        let ty = types.dict(kt, vt, interp);
        let d = self.dict_new(ty, range)?;
        let s = self.shape(ty, range)?;
        for ((k, kr), (v, vr)) in vals {
            let k = self.coerce(k, kt, kr)?;
            let v = self.coerce(v, vt, vr)?;
            self.dict_store(&d, &s, &k, &v, range, range)?;
        }
        Ok(d)
    }

    /// `d[k] = v` of a converted key and value; a `MemoryError` is
    /// annotated at `label`, its frame at `frame`.
    fn dict_store(
        &mut self,
        d: &LVal,
        s: &Shape,
        k: &LVal,
        v: &LVal,
        label: TextRange,
        frame: TextRange,
    ) -> Lowered<()> {
        self.stage(&s.key_regs.clone(), k, label)?;
        self.stage(&s.value_regs.clone(), v, label)?;
        let h = self.cx.helpers.dict.set;
        self.call_helper_in_call(h, None, &[d.regs[0]], label, frame);
        Ok(())
    }

    /// The entry index of converted key `k` in `d`: `KeyError` at `label`
    /// when it is missing (`must`), else -1.
    fn dict_entry(
        &mut self,
        d: &LVal,
        s: &Shape,
        k: &LVal,
        must: bool,
        label: TextRange,
        frame: TextRange,
    ) -> Lowered<VReg> {
        self.stage(&s.key_regs.clone(), k, label)?;
        let hs = self.cx.helpers.dict;
        let h = if must { hs.get } else { hs.find };
        self.helper_value_in_call(h, Ty::I64, &[d.regs[0]], label, frame)
    }

    /// `d[k]`, the key converted to the key type; `KeyError` at the key.
    pub fn dict_getitem(&mut self, d: LVal, key: &ExprRef<'_>, _whole: TextRange) -> Lowered<LVal> {
        let s = self.shape(d.ty, key.range)?;
        let k = self.expr(key)?;
        let k = self.coerce(k, s.key, key.range)?;
        let e = self.dict_entry(&d, &s, &k, true, key.range, self.stmt_range)?;
        let read = self.cx.helpers.dict.value;
        self.entry_part(read, d.regs[0], e, s.value, &s.value_regs, key.range)
    }

    /// `d[k] = v` (the statement): key, then value, converted.
    pub fn dict_setitem(
        &mut self,
        d: LVal,
        key: &ExprRef<'_>,
        value: &ExprRef<'_>,
        whole: TextRange,
    ) -> Lowered<()> {
        let s = self.shape(d.ty, key.range)?;
        let k = self.expr(key)?;
        let v = self.expr(value)?;
        let k = self.coerce(k, s.key, key.range)?;
        let v = self.coerce(v, s.value, whole)?;
        self.dict_store(&d, &s, &k, &v, whole, self.stmt_range)
    }

    /// `k in d` (`k` of the key type exactly, `op_select`'s `DictContains`).
    pub fn dict_contains(&mut self, k: &LVal, d: &LVal, whole: TextRange) -> Lowered<LVal> {
        let s = self.shape(d.ty, whole)?;
        let e = self.dict_entry(d, &s, k, false, whole, self.stmt_range)?;
        let none = self.fb.const_(Ty::I64, u64::MAX);
        let found = self.fb.cmp(IC::Ne, e, none);
        Ok(LVal::one(TypeId::BOOL, found))
    }

    /// `len(d)` (also of `{}`).
    pub fn dict_len(&mut self, d: &LVal, range: TextRange) -> Lowered<LVal> {
        let h = self.cx.helpers.dict.len;
        let r = self.helper_value(h, Ty::I32, &[d.regs[0]], range)?;
        Ok(LVal::one(TypeId::I32, r))
    }

    /// `d.m(args)` by the method's signature (`signatures::method_signature`,
    /// as ASTFrame's `call_dict_method`); `obj` is the receiver's range.
    pub fn dict_method(
        &mut self,
        d: LVal,
        obj: TextRange,
        name: &str,
        args: Vec<(LVal, TextRange)>,
        whole: TextRange,
    ) -> Lowered<LVal> {
        use crate::vm::ops::signatures::{method_signature, DictMethod as M, MethodImpl, Param};
        let tys: Vec<TypeId> = args.iter().map(|(v, _)| v.ty).collect();
        let sig = method_signature(&mut self.cx.interp.vm.types, d.ty, name, &tys);
        let Some(Ok(sig)) = sig else {
            return self.unsupported(format!("this `{}.{name}` call", self.type_name(d.ty)), whole);
        };
        let MethodImpl::Dict(m) = sig.imp else {
            return self.unsupported(format!("this `{}.{name}` call", self.type_name(d.ty)), whole);
        };
        let mut vals = Vec::new();
        for ((v, r), p) in args.into_iter().zip(&sig.params) {
            let v = match p {
                Param::Convert(t) => self.coerce(v, *t, r)?,
                Param::Exact(t) if v.ty == *t => v,
                Param::Exact(_) => return self.unsupported(format!("this `{name}` argument"), r),
            };
            vals.push((v, r));
        }
        let s = self.shape(d.ty, obj)?;
        let hs = self.cx.helpers.dict;
        match m {
            M::Get => {
                let e = self.dict_entry(&d, &s, &vals[0].0, false, vals[0].1, whole)?;
                let none = self.fb.const_(Ty::I64, u64::MAX);
                let found = self.fb.cmp(IC::Ne, e, none);
                // the default is the value when the key is missing
                let out: Vec<VReg> = s.value_regs.iter().map(|&t| self.fb.local(t)).collect();
                for (&o, &r) in out.iter().zip(&vals[1].0.regs) {
                    self.fb.assign(o, Op::Copy(r));
                }
                self.fb.open_block();
                let read = self.entry_part(hs.value, d.regs[0], e, s.value, &s.value_regs, whole);
                if let Ok(v) = &read {
                    for (&o, &r) in out.iter().zip(&v.regs) {
                        self.fb.assign(o, Op::Copy(r));
                    }
                }
                let then_ = self.fb.close_block();
                read?;
                self.fb.push(spy_jit::ir::Stmt::If {
                    cond: found,
                    then_,
                    else_: spy_jit::ir::Block::default(),
                });
                let regs = out
                    .iter()
                    .zip(&s.value_regs)
                    .map(|(&o, &t)| self.fb.op(t, Op::Copy(o)))
                    .collect();
                Ok(LVal { ty: s.value, regs })
            }
            M::Keys => Ok(d),
            M::Contains => self.dict_contains(&vals[0].0, &d, whole),
            M::GetItem => {
                let e = self.dict_entry(&d, &s, &vals[0].0, true, vals[0].1, whole)?;
                self.entry_part(hs.value, d.regs[0], e, s.value, &s.value_regs, whole)
            }
            M::SetItem | M::Push => {
                self.dict_store(&d, &s, &vals[0].0, &vals[1].0, obj, whole)?;
                Ok(if m == M::Push { d } else { LVal::none() })
            }
            M::DelItem => {
                self.stage(&s.key_regs.clone(), &vals[0].0, vals[0].1)?;
                self.call_helper_in_call(hs.del, None, &[d.regs[0]], vals[0].1, whole);
                Ok(LVal::none())
            }
            M::Len => self.dict_len(&d, whole),
        }
    }

    /// `for k in d:`: the key of entry `k` while `k` is below the dict's
    /// length at that moment (ASTFrame's `key_at` loop).
    pub(super) fn for_dict(
        &mut self,
        target: &crate::syntax::ast::Identifier,
        d: LVal,
        iter: &ExprRef<'_>,
        body: &crate::syntax::ast::Stmts<'_>,
    ) -> Lowered<()> {
        let s = self.shape(d.ty, iter.range)?;
        self.declare_local(target, s.key)?;
        let hs = self.cx.helpers.dict;
        self.index_loop(
            |this, k| {
                let n = this.dict_len(&d, iter.range)?;
                let n = this.fb.convert(Ty::I64, n.regs[0]);
                Ok(this.fb.cmp(IC::Lt, k, n))
            },
            |this, k| {
                let x = this.entry_part(hs.key, d.regs[0], k, s.key, &s.key_regs, iter.range)?;
                this.store_local(target, x, target.range)?;
                this.block(body)
            },
        )
    }

    /// `a == b` of two dicts of one type (ASTFrame's `dicts_equal`): equal
    /// lengths, then every key of a snapshot of `a` in `b` with `==`
    /// values, stopping at the first that is not.
    pub(super) fn dict_eq(&mut self, a: &LVal, b: &LVal, range: TextRange) -> Lowered<VReg> {
        use spy_jit::ir::{BinOp as IB, Block, Stmt};
        let la = self.dict_len(a, range)?.regs[0];
        let lb = self.dict_len(b, range)?.regs[0];
        let out = self.fb.local(Ty::Bool);
        let same = self.fb.cmp(IC::Eq, la, lb);
        self.fb.assign(out, Op::Copy(same));
        if a.ty == TypeId::EMPTY_DICT {
            return Ok(self.fb.op(Ty::Bool, Op::Copy(out)));
        }
        let s = self.shape(a.ty, range)?;
        let hs = self.cx.helpers.dict;
        // the entries of `a` as they are now (an `__eq__` may change it)
        let snap = self.helper_value(hs.snapshot, Ty::Handle, &[a.regs[0]], range)?;
        let a = &LVal::one(a.ty, snap);
        let n = self.fb.convert(Ty::I64, la);
        self.index_loop(
            |this, k| {
                let more = this.fb.cmp(IC::Lt, k, n);
                let still = this.fb.op(Ty::Bool, Op::Copy(out));
                Ok(this.fb.binary(IB::And, more, still))
            },
            |this, k| {
                let key = this.entry_part(hs.key, a.regs[0], k, s.key, &s.key_regs, range)?;
                let va = this.entry_part(hs.value, a.regs[0], k, s.value, &s.value_regs, range)?;
                let e = this.dict_entry(b, &s, &key, false, range, this.stmt_range)?;
                let none = this.fb.const_(Ty::I64, u64::MAX);
                let found = this.fb.cmp(IC::Ne, e, none);
                this.fb.assign(out, Op::Copy(found));
                this.fb.open_block();
                let r = (|| {
                    let vb = this.entry_part(hs.value, b.regs[0], e, s.value, &s.value_regs, range)?;
                    let eq = this.value_eq(s.value, &va, &vb, range)?;
                    this.fb.assign(out, Op::Copy(eq));
                    Ok(())
                })();
                let then_ = this.fb.close_block();
                r?;
                this.fb.push(Stmt::If {
                    cond: found,
                    then_,
                    else_: Block::default(),
                });
                Ok(())
            },
        )?;
        Ok(self.fb.op(Ty::Bool, Op::Copy(out)))
    }

    /// `repr(d)` / `str(d)`: `{k: v, ...}` with the keys' and values'
    /// reprs, entry by entry (ASTFrame's `dict_text`).
    pub(super) fn dict_text(&mut self, d: &LVal, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        let b = self.helper_value(hs.list_new, Ty::Handle, &[], range)?;
        if d.ty != TypeId::EMPTY_DICT {
            let s = self.shape(d.ty, range)?;
            // the entries as they are now (a `__repr__` may change the dict)
            let snap = self.helper_value(hs.dict.snapshot, Ty::Handle, &[d.regs[0]], range)?;
            let d = &LVal::one(d.ty, snap);
            let n = self.dict_len(d, range)?;
            let n = self.fb.convert(Ty::I64, n.regs[0]);
            self.index_loop(
                |this, k| Ok(this.fb.cmp(IC::Lt, k, n)),
                |this, k| {
                    let key = this.entry_part(hs.dict.key, d.regs[0], k, s.key, &s.key_regs, range)?;
                    let v = this.entry_part(hs.dict.value, d.regs[0], k, s.value, &s.value_regs, range)?;
                    let kt = this.repr(key, range)?;
                    let vt = this.repr(v, range)?;
                    this.call_helper(hs.dict.text_part, None, &[b, kt, vt], range);
                    Ok(())
                },
            )?;
        }
        self.helper_value(hs.dict.text_end, Ty::Handle, &[b], range)
    }
}

/// The type of each register of key type `key` (an integer, `bool`,
/// `str` or `bytes`, and tuples of them: `None` has no register).
fn key_kinds(l: &FnLower<'_, '_, '_>, key: TypeId) -> Vec<TypeId> {
    fn walk(types: &crate::vm::types::TypeTable, t: TypeId, out: &mut Vec<TypeId>) {
        match types.tuple_items(t) {
            Some(items) => items.iter().for_each(|&i| walk(types, i, out)),
            None if t == TypeId::NONE => {}
            None => out.push(t),
        }
    }
    let mut out = Vec::new();
    walk(&l.cx.interp.vm.types, key, &mut out);
    out
}
