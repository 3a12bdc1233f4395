//! `dict[K, V]` and `interp_dict[K, V]`: the types `dict[K, V]` makes,
//! displays `{k: v, ...}`, the empty dict `{}` (untyped until it meets an
//! expected dict type, upstream's `EmptyDictType`), `d[k]`, `d[k] = v`,
//! methods, `in`, iteration and equality. Dicts are red and have reference
//! semantics, as upstream's `stdlib/_dict.spy`; the entry table is
//! `vm::dict`.

use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast;
use crate::vm::dict::DictValue;
use crate::vm::ops::signatures::DictMethod;
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::TypeId;
use crate::vm::value::{Typed, Value};

/// One `key: value` of a display, evaluated.
pub(crate) type Pair = ((Typed, TextRange), (Typed, TextRange));

impl Interp<'_> {
    pub(crate) fn new_dict(&self, ty: TypeId) -> Value {
        Value::Dict(Rc::new(DictValue::new(ty)))
    }

    /// `dict[K, V]` / `interp_dict[K, V]`. As upstream's `_dict.spy`,
    /// `dict[K, V]` with `type` or `object` as `K` or `V` is
    /// `interp_dict[K, V]`.
    pub(crate) fn dict_type(&mut self, f: &Frame, interp: bool, idx: &Args, whole: TextRange) -> Eval<Typed> {
        let name = if interp { "interp_dict" } else { "dict" };
        let mut types = Vec::with_capacity(2);
        for (t, r) in idx {
            match t.value {
                Value::Type(ty) => types.push((ty, *r)),
                Value::None => types.push((TypeId::NONE, *r)),
                _ => {
                    return Err(SpyError::new(
                        ExcKind::TypeError,
                        format!("expected `type`, got `{}`", self.vm.types.name(t.ty)),
                    )
                    .with_error(&f.file, *r, "expected `type`")
                    .into())
                }
            }
        }
        let [(key, key_range), (value, _)] = types[..] else {
            return Err(
                SpyError::new(ExcKind::TypeError, format!("`{name}[...]` takes two types"))
                    .with_error(&f.file, whole, "")
                    .into(),
            );
        };
        let ty = self.dict_of(f, interp, key, value, key_range)?;
        Ok(Typed::blue(TypeId::TYPE, Value::Type(ty)))
    }

    /// The dict type of `key` and `value`, or the error for a key type
    /// that cannot be hashed (`key_range`: where the key type comes from).
    fn dict_of(
        &mut self,
        f: &Frame,
        interp: bool,
        key: TypeId,
        value: TypeId,
        key_range: TextRange,
    ) -> Eval<TypeId> {
        if !self.vm.types.dict_key_ok(key) {
            let k = self.vm.types.name(key).to_string();
            return Err(
                SpyError::new(ExcKind::TypeError, format!("`{k}` cannot be a dict key type"))
                    .with_error(&f.file, key_range, format!("this is `{k}`"))
                    .with_note(
                        &f.file,
                        key_range,
                        "dict keys are integers, `bool`, `str`, types or tuples of them",
                    )
                    .into(),
            );
        }
        self.check_storable(f, value, key_range)?;
        let interp = interp
            || [key, value]
                .iter()
                .any(|&t| t == TypeId::TYPE || t == TypeId::OBJECT);
        Ok(self.vm.types.dict(key, value, interp))
    }

    /// The type of the display `{k: v, ...}`: the first pair's key and
    /// value types (the others are converted to them); `{}` is the untyped
    /// empty dict.
    pub(crate) fn display_dict_type(&mut self, f: &Frame, pairs: &[Pair]) -> Eval<TypeId> {
        let Some(((k, kr), (v, _))) = pairs.first() else {
            return Ok(TypeId::EMPTY_DICT);
        };
        let (kt, vt, kr) = (k.ty, v.ty, *kr);
        self.dict_of(f, false, kt, vt, kr)
    }

    /// The display `{k: v, ...}`: keys and values evaluated in order;
    /// while shifting, a residual display of the converted items.
    pub(crate) fn eval_dict(
        &mut self,
        f: &mut Frame,
        pairs: &ast::Pairs<'_>,
        range: TextRange,
    ) -> Eval<Typed> {
        let mut evaluated = Vec::with_capacity(pairs.len());
        for (k, v) in pairs.iter() {
            let kt = self.eval_expr(f, &k)?;
            let vt = self.eval_expr(f, &v)?;
            evaluated.push(((kt, k.range), (vt, v.range)));
        }
        let ty = self.display_dict_type(f, &evaluated)?;
        if !f.is_shifting() {
            return self.make_dict(f, ty, evaluated, range);
        }
        let mut out = Vec::with_capacity(2 * evaluated.len());
        if let Some((kt, vt)) = self.vm.types.dict_types(ty) {
            for ((k, kr), (v, vr)) in evaluated {
                let k = self.convert_to(f, k, kt, kr, None)?;
                let v = self.convert_to(f, v, vt, vr, None)?;
                out.push(self.residual(f, &k, kr)?);
                out.push(self.residual(f, &v, vr)?);
            }
        }
        let sh = f.shift()?;
        let out = sh.exprs(out);
        Ok(Self::residual_value(
            f,
            ty,
            sh.expr(ast::ExprNode::Dict(out), range),
        ))
    }

    /// `{k: v, ...}` on values. `ty` is [`Self::display_dict_type`]'s.
    pub(crate) fn make_dict(
        &mut self,
        f: &Frame,
        ty: TypeId,
        pairs: Vec<Pair>,
        range: TextRange,
    ) -> Eval<Typed> {
        let value = self.new_dict(ty);
        let Value::Dict(d) = &value else {
            return Err(crate::bug!("new_dict made {value:?}"));
        };
        if ty != TypeId::EMPTY_DICT {
            let (kt, vt) = self.vm.types.checked_dict_types(ty)?;
            for ((k, kr), (v, vr)) in pairs {
                let k = self.convert_to(f, k, kt, kr, None)?;
                let v = self.convert_to(f, v, vt, vr, None)?;
                self.dict_insert(f, d, k.value, v.value, range)?;
            }
        }
        Ok(Typed::red(ty, value))
    }

    /// `d[k] = v` on values already converted, within the memory budget.
    fn dict_insert(&mut self, f: &Frame, d: &DictValue, k: Value, v: Value, range: TextRange) -> Eval<()> {
        if !d.contains(&k) {
            self.check_memory(f, DictValue::bytes_of(1), range)?;
        }
        d.insert(k, v);
        Ok(())
    }

    fn key_error(&self, f: &Frame, range: TextRange) -> crate::error::Failure {
        SpyError::from(RuntimeError::KeyNotFound)
            .with_error(&f.file, range, "")
            .into()
    }

    /// `d[k]`: the key converted to the key type.
    pub(crate) fn dict_getitem(&mut self, f: &Frame, dict: &Typed, d: &DictValue, idx: &Args) -> Eval<Typed> {
        let [(k, kr)] = idx.as_slice() else {
            return Err(crate::bug!("dict subscript not checked by its signature"));
        };
        let (kt, vt) = self.vm.types.checked_dict_types(dict.ty)?;
        let k = self.convert_to(f, k.clone(), kt, *kr, None)?;
        match d.get(&k.value) {
            Some(v) => Ok(Typed::red(vt, v)),
            None => Err(self.key_error(f, *kr)),
        }
    }

    /// `d[k] = v`.
    pub(crate) fn dict_setitem(
        &mut self,
        f: &Frame,
        dict: &Typed,
        d: &DictValue,
        idx: &Args,
        v: Typed,
        range: TextRange,
    ) -> Eval<()> {
        let [(k, kr)] = idx.as_slice() else {
            return Err(crate::bug!("dict store not checked by its signature"));
        };
        let (kt, vt) = self.vm.types.checked_dict_types(dict.ty)?;
        let k = self.convert_to(f, k.clone(), kt, *kr, None)?;
        let v = self.convert_to(f, v, vt, range, None)?;
        self.dict_insert(f, d, k.value, v.value, range)
    }

    /// `d.m(args)`, the arguments converted by the method's signature.
    pub(crate) fn call_dict_method(
        &mut self,
        f: &Frame,
        dict: Typed,
        obj_range: TextRange,
        m: DictMethod,
        args: Args,
    ) -> Eval<Typed> {
        let Value::Dict(d) = &dict.value else {
            return Err(crate::bug!("dict method on a non-dict"));
        };
        let (_, vt) = self.vm.types.checked_dict_types(dict.ty)?;
        let arg = |k: usize| -> Eval<&(Typed, TextRange)> {
            args.get(k)
                .ok_or_else(|| crate::bug!("dict method argument {k} missing"))
        };
        let none = Typed::red(TypeId::NONE, Value::None);
        match m {
            DictMethod::Get => {
                let (k, _) = arg(0)?;
                let v = match d.get(&k.value) {
                    Some(v) => v,
                    None => arg(1)?.0.value.clone(),
                };
                Ok(Typed::red(vt, v))
            }
            DictMethod::Keys => Ok(Typed::red(dict.ty, dict.value.clone())),
            DictMethod::Contains => Ok(Typed::red(
                TypeId::BOOL,
                Value::bool(d.contains(&arg(0)?.0.value)),
            )),
            DictMethod::GetItem => {
                let (k, kr) = arg(0)?;
                match d.get(&k.value) {
                    Some(v) => Ok(Typed::red(vt, v)),
                    None => Err(self.key_error(f, *kr)),
                }
            }
            DictMethod::SetItem | DictMethod::Push => {
                let (k, v) = (arg(0)?.0.value.clone(), arg(1)?.0.value.clone());
                self.dict_insert(f, d, k, v, obj_range)?;
                if m == DictMethod::Push {
                    return Ok(Typed::red(dict.ty, dict.value.clone()));
                }
                Ok(none)
            }
            DictMethod::DelItem => {
                let (k, kr) = arg(0)?;
                match d.remove(&k.value) {
                    Some(_) => Ok(none),
                    None => Err(self.key_error(f, *kr)),
                }
            }
            DictMethod::Len => Ok(Typed::red(TypeId::I32, Value::i32(d.len() as i32))),
        }
    }

    /// Whether two dicts of type `ty` hold the same keys with equal values
    /// (upstream's `__eq__`: same length, every key of one in the other
    /// with `==` values).
    pub(crate) fn dicts_equal(
        &mut self,
        f: &mut Frame,
        ty: TypeId,
        a: &DictValue,
        b: &DictValue,
        whole: TextRange,
    ) -> Eval<bool> {
        if a.len() != b.len() {
            return Ok(false);
        }
        let (_, vt) = match self.vm.types.dict_types(ty) {
            Some(kv) => kv,
            // two untyped `{}`
            None => return Ok(true),
        };
        for (k, va) in a.entries() {
            let Some(vb) = b.get(&k) else {
                return Ok(false);
            };
            if !self.values_equal(f, vt, &va, &vb, whole)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// `repr(d)`: `{k: v, ...}` with keys and values as `repr` (as
    /// upstream's `interp_dict`).
    pub(crate) fn dict_text(
        &mut self,
        f: &Frame,
        color: crate::vm::value::Color,
        d: &DictValue,
        range: TextRange,
    ) -> Eval<String> {
        let Some((kt, vt)) = self.vm.types.dict_types(d.ty) else {
            return Ok("{}".to_string());
        };
        let mut parts = Vec::with_capacity(d.len());
        let mut total: usize = 2;
        for (k, v) in d.entries() {
            let k = self.repr_of(
                f,
                &Typed {
                    color,
                    ty: kt,
                    value: k,
                },
                range,
            )?;
            let v = self.repr_of(
                f,
                &Typed {
                    color,
                    ty: vt,
                    value: v,
                },
                range,
            )?;
            total = total.saturating_add(k.len() + v.len() + 4);
            self.check_str_len(f, total, range)?;
            parts.push(format!("{k}: {v}"));
        }
        Ok(format!("{{{}}}", parts.join(", ")))
    }
}
