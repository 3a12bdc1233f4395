//! Conversions: implicit ones (applied where an expected type meets a
//! different static type: typed declarations, assignments, arguments,
//! `return`, conditions) and explicit ones (`T(x)`), plus evaluating type
//! expressions in annotations.

use crate::error::{ExcKind, SpyError};
use crate::frames::meta::{ArgSpec, ResolvedOp};
use crate::frames::stmt::Because;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast::ExprRef;
use crate::vm::builtins::Builtin;
use crate::vm::ops::signatures::ConvImpl;
use crate::vm::ops::{self, convert as opconv, Scalar};
use crate::vm::types::TypeId;
use crate::vm::value::{Typed, Value};

impl Interp<'_> {
    /// Convert `v` to `to` with the implicit rules, or raise
    /// `TypeError: mismatched types` annotated at `range`.
    #[inline]
    pub(crate) fn convert_to(
        &mut self,
        f: &Frame,
        v: Typed,
        to: TypeId,
        range: TextRange,
        because: Option<Because>,
    ) -> Eval<Typed> {
        if v.ty == to {
            return Ok(v);
        }
        self.convert_to_other_type(f, v, to, range, because)
    }

    /// `convert_to` where the static type changes.
    fn convert_to_other_type(
        &mut self,
        f: &Frame,
        v: Typed,
        to: TypeId,
        range: TextRange,
        because: Option<Because>,
    ) -> Eval<Typed> {
        if to == TypeId::OBJECT || to == TypeId::DYNAMIC {
            return Ok(Typed { ty: to, ..v });
        }
        if v.ty == TypeId::OBJECT || v.ty == TypeId::DYNAMIC {
            if f.is_shifting() && crate::frames::doppler::is_runtime(&v) {
                // the downcast of a value known at run time: the residual
                // code converts where the source does (a declaration, an
                // argument, a `return`), checking the value's own type then
                return Ok(Typed { ty: to, ..v });
            }
            let dynamic = self.dynamic_type(&v.value);
            if dynamic == Some(to) {
                return Ok(Typed { ty: to, ..v });
            }
            let got = dynamic
                .map(|t| self.vm.types.name(t).to_string())
                .unwrap_or_default();
            return Err(SpyError::new(
                ExcKind::TypeError,
                format!("Invalid cast. Expected `{}`, got `{got}`", self.vm.types.name(to)),
            )
            .with_error(&f.file, range, "")
            .into());
        }
        if crate::frames::doppler::is_runtime(&v) {
            // A run-time value: check the conversion, keep its residual
            // expression (the residual code converts it again).
            let convertible = match (v.ty.as_prim(), to.as_prim()) {
                (Some(a), Some(b)) => opconv::implicit_convertible(a, b),
                _ => {
                    (v.ty == TypeId::EMPTY_LIST && self.vm.types.list_item(to).is_some())
                        || (v.ty == TypeId::EMPTY_DICT && self.vm.types.dict_types(to).is_some())
                        || (to == TypeId::BOOL
                            && matches!(self.vm.types.kind(v.ty), crate::vm::types::TypeKind::Ptr { .. }))
                        || self.vm.types.ref_item(v.ty) == Some(to)
                }
            };
            if convertible {
                return self.shift_conversion(f, v, to, range);
            }
        }
        if v.ty == TypeId::EMPTY_LIST && self.vm.types.list_item(to).is_some() {
            return Ok(Typed {
                color: v.color,
                ty: to,
                value: self.new_list(to, Vec::new()),
            });
        }
        if v.ty == TypeId::EMPTY_DICT && self.vm.types.dict_types(to).is_some() {
            return Ok(Typed {
                color: v.color,
                ty: to,
                value: self.new_dict(to),
            });
        }
        // a reference converts to the struct it refers to: a copy
        // (upstream's `W_Ref.__convert_to__`, `ptr.deref`)
        if let (Some(item), Value::Ref(r)) = (self.vm.types.ref_item(v.ty), &v.value) {
            if item == to {
                return Ok(Typed {
                    color: v.color,
                    ty: to,
                    value: self.deref(r)?,
                });
            }
        }
        if to == TypeId::BOOL && matches!(self.vm.types.kind(v.ty), crate::vm::types::TypeKind::Ptr { .. }) {
            if let Value::Ptr(p) = &v.value {
                return Ok(Typed {
                    color: v.color,
                    ty: TypeId::BOOL,
                    value: Value::bool(p.mem.is_some()),
                });
            }
        }
        if let (Some(from_p), Some(to_p), Value::Scalar(s)) = (v.ty.as_prim(), to.as_prim(), &v.value) {
            if opconv::implicit_convertible(from_p, to_p) {
                return Ok(Typed {
                    color: v.color,
                    ty: to,
                    value: Value::Scalar(opconv::convert(*s, to_p)),
                });
            }
        }
        // Conversion hooks can convert again: count them as calls so that a
        // conversion loop ends in RecursionError.
        self.enter_call()?;
        let hooked = self.convert_via_hooks(f, &v, to, range);
        self.leave_call();
        if let Some(converted) = hooked? {
            return Ok(converted);
        }
        Err(self.mismatched(f, v.ty, to, range, because))
    }

    /// `__convert_to__` on the value's type, then `__convert_from__` on the
    /// expected type. Both receive (expected type, got type, value) as
    /// MetaArgs when they are metafuncs (a simple `OpSpec(g)` calls `g(x)`),
    /// or just the value when they are plain functions. `OpSpec.NULL` means
    /// "not handled".
    fn convert_via_hooks(
        &mut self,
        f: &Frame,
        v: &Typed,
        to: TypeId,
        range: TextRange,
    ) -> Eval<Option<Typed>> {
        for (owner, name) in [(v.ty, "__convert_to__"), (to, "__convert_from__")] {
            let Some(hook) = self.vm.struct_method(owner, name) else {
                continue;
            };
            let result = if hook.kind == crate::syntax::ast::FuncKind::Metafunc {
                let args = vec![
                    (Typed::blue(TypeId::TYPE, Value::Type(to)), range),
                    (Typed::blue(TypeId::TYPE, Value::Type(v.ty)), range),
                    (v.clone(), range),
                ];
                match self.metafunc_op(f, &hook, &args, range, range, &[2])? {
                    ResolvedOp::Null => continue,
                    ResolvedOp::Const(c) => Typed { color: v.color, ..c },
                    ResolvedOp::Call { callee, args: specs } => {
                        let Value::Func(g) = &callee.value else {
                            return Err(crate::bug!("conversion OpSpec must call a function"));
                        };
                        let actual = specs
                            .into_iter()
                            .map(|s| match s {
                                ArgSpec::Arg(i) => args[i].clone(),
                                ArgSpec::Const(c) => (c, range),
                            })
                            .collect();
                        self.call_function(f, g, actual, range)?
                    }
                }
            } else {
                self.call_function(f, &hook, vec![(v.clone(), range)], range)?
            };
            if result.ty != to {
                return Err(self.mismatched(f, result.ty, to, range, None));
            }
            return Ok(Some(result));
        }
        Ok(None)
    }

    pub(crate) fn mismatched(
        &self,
        f: &Frame,
        got: TypeId,
        expected: TypeId,
        range: TextRange,
        because: Option<Because>,
    ) -> crate::error::Failure {
        let mut err = SpyError::new(ExcKind::TypeError, "mismatched types").with_error(
            &f.file,
            range,
            format!(
                "expected `{}`, got `{}`",
                self.vm.types.name(expected),
                self.vm.types.name(got)
            ),
        );
        if let Some(b) = because {
            err = err.with_note(
                &f.file,
                b.range,
                format!("expected `{}` {}", self.vm.types.name(expected), b.message),
            );
        }
        err.into()
    }

    /// The item types of a tuple value: from its static tuple type, or each
    /// item's own type for an interp tuple.
    pub(crate) fn tuple_item_types(&self, t: &crate::vm::value::TupleValue) -> Vec<TypeId> {
        match self.vm.types.tuple_items(t.ty) {
            Some(types) => types.to_vec(),
            None => t
                .items
                .iter()
                .map(|i| self.dynamic_type(i).unwrap_or(TypeId::DYNAMIC))
                .collect(),
        }
    }

    /// The dynamic type of a value, where it is determined by the value.
    pub(crate) fn dynamic_type(&self, v: &Value) -> Option<TypeId> {
        match v {
            Value::Scalar(s) => Some(TypeId::prim(s.ty())),
            Value::Str(_) => Some(TypeId::STR),
            Value::Bytes(_) => Some(TypeId::BYTES),
            Value::None => Some(TypeId::NONE),
            Value::Type(_) => Some(TypeId::TYPE),
            Value::Struct(s) => Some(s.ty),
            Value::Func(func) => Some(func.ty),
            Value::Range(_) => Some(TypeId::RANGE),
            Value::File(_) => Some(TypeId::FILE),
            Value::Builtin(Builtin::ExcClass(_)) => Some(TypeId::TYPE),
            Value::Builtin(Builtin::NotImplemented) => Some(TypeId::NOT_IMPLEMENTED),
            Value::Builtin(_) => Some(TypeId::BUILTIN_FUNC),
            Value::Exception(_) => Some(TypeId::EXCEPTION),
            Value::Module(_) => Some(TypeId::MODULE),
            Value::Tuple(t) => Some(t.ty),
            Value::Meta(_) => Some(TypeId::METAARG),
            Value::OpSpec(_) => Some(TypeId::OPSPEC),
            Value::Ptr(p) => Some(p.ty),
            Value::Ref(r) => Some(r.ty),
            Value::Simd(v) => Some(v.ty),
            Value::List(l) => Some(l.ty),
            Value::ListIter(it) => Some(it.ty),
            Value::Dict(d) => Some(d.ty),
            Value::GenericStruct(_) => Some(TypeId::TYPE),
            Value::Residual(_) => None,
        }
    }

    /// `T(x)` for a builtin type `T`.
    pub(crate) fn explicit_convert(
        &mut self,
        f: &Frame,
        to: TypeId,
        arg: Typed,
        arg_range: TextRange,
        call_range: TextRange,
    ) -> Eval<Typed> {
        let site = crate::frames::signatures::Site::at(call_range, call_range);
        let located = |e: ops::OpError| -> crate::error::Failure {
            SpyError::from(e).with_error(&f.file, arg_range, "").into()
        };
        match self.conversion_sig(f, to, &(arg.clone(), arg_range), site)? {
            // Deliberate choice: `T(x)` with `x` already of type `T` is the
            // identity (upstream returns NULL from `__new__`).
            ConvImpl::Identity => Ok(arg),
            ConvImpl::Str => {
                let text = self.str_of(f, &arg, arg_range)?;
                // `str(x)` is red for non-str arguments (upstream:
                // `i32.__str__` is not pure).
                Ok(Typed::red(TypeId::STR, Value::str(&text)))
            }
            ConvImpl::StrToInt(p) => {
                let s = arg.value.checked_str()?;
                let v = ops::str::str_to_int(s, p).map_err(located)?;
                Ok(Typed::red(to, Value::Scalar(v)))
            }
            ConvImpl::Prim { to: p, .. } => {
                let Value::Scalar(s) = &arg.value else {
                    return Err(crate::bug!("number-typed {:?}", arg.value));
                };
                let v = opconv::explicit_convert(*s, p).map_err(located)?;
                Ok(Typed {
                    color: arg.color,
                    ty: to,
                    value: Value::Scalar(v),
                })
            }
        }
    }

    /// Evaluate an annotation: it must be a type (`None` means NoneType).
    pub(crate) fn eval_type_expr(&mut self, f: &mut Frame, t: &ExprRef<'_>) -> Eval<TypeId> {
        let v = self.eval_expr(f, t)?;
        match v.value {
            Value::Type(ty) => Ok(ty),
            Value::None => Ok(TypeId::NONE),
            // `range` names both the builtin and its type (upstream's
            // `_range.range` is a struct type)
            Value::Builtin(Builtin::Range) => Ok(TypeId::RANGE),
            // `OpSpec` names both the constructor and its type (upstream's
            // `W_OpSpec` is a type), so `-> OpSpec` annotates a metafunc
            Value::Builtin(Builtin::OpSpec) => Ok(TypeId::OPSPEC),
            // `Exception` names both the class and the type of every
            // exception instance (upstream's `W_Exception`); the subclasses
            // have no type of their own here, so they stay rejected.
            Value::Builtin(Builtin::ExcClass(crate::error::ExcKind::Exception)) => Ok(TypeId::EXCEPTION),
            _ => Err(SpyError::new(
                ExcKind::TypeError,
                format!("expected `type`, got `{}`", self.vm.types.name(v.ty)),
            )
            .with_error(&f.file, t.range, "expected `type`")
            .into()),
        }
    }

    /// Truthiness for values that are already bool.
    pub(crate) fn scalar_bool(v: &Value) -> bool {
        matches!(v, Value::Scalar(Scalar::Bool(true)))
    }
}
