//! Calls of builtins: `print`, `len`, `abs`, `min`, `max`, `range`, `repr`,
//! `ord`, exception classes, and calling types (`i32(x)`, `str(x)`,
//! struct constructors, `tuple[...](...)`).

use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::frames::call::Args;
use crate::frames::doppler::is_runtime;
use crate::frames::signatures::Site;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast::CmpOp;
use crate::vm::builtins::Builtin;
use crate::vm::ops::signatures::{self as sig, BuiltinImpl, BuiltinSig};
use crate::vm::ops::{self, Scalar};
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::{Color, ExceptionValue, RangeValue, StructValue, TupleValue, Typed, Value};

impl Interp<'_> {
    pub(crate) fn call_builtin(
        &mut self,
        f: &mut Frame,
        b: Builtin,
        callee_range: TextRange,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        if f.is_shifting() {
            if let Some(result) = self.shift_builtin(f, b, callee_range, &args, call_range) {
                return result;
            }
        }
        let site = Site::at(callee_range, call_range);
        if let Some(sig) = self.builtin_sig(f, b, &args, site) {
            let sig = sig?;
            // `repr(s)` of a known struct runs its `__repr__` (red code).
            let residual = sig.imp.has_effects()
                || args.iter().any(|(a, _)| is_runtime(a))
                || (sig.imp == BuiltinImpl::Repr
                    && args
                        .iter()
                        .any(|(a, _)| crate::vm::op_select::display_runs_user_code(&self.vm, a.ty)));
            if f.is_shifting() && sig.imp != BuiltinImpl::LenDunder && residual {
                return self.shift_builtin_call(f, b, &sig, callee_range, &args, call_range);
            }
            return self.exec_builtin(f, b, &sig, args, call_range);
        }
        match b {
            Builtin::Print => {
                // Every argument's text first (an error prints nothing); a
                // `str` is written as it is, not copied.
                let mut parts: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(args.len());
                for (a, r) in &args {
                    parts.push(match &a.value {
                        Value::Str(s) => std::borrow::Cow::Borrowed(&***s),
                        _ => std::borrow::Cow::Owned(self.str_of(f, a, *r)?),
                    });
                }
                self.write_line(&parts)?;
                Ok(Typed::red(TypeId::NONE, Value::None))
            }
            Builtin::List => Err(
                SpyError::new(ExcKind::TypeError, "cannot call objects of type `type`")
                    .with_error(
                        &f.file,
                        callee_range,
                        "use `list[T]()` or a list display `[a, b]`",
                    )
                    .into(),
            ),
            Builtin::Tuple => Err(
                SpyError::new(ExcKind::TypeError, "cannot call objects of type `type`")
                    .with_error(
                        &f.file,
                        callee_range,
                        "use `tuple[T0, ...]` or a tuple display `(a, b)`",
                    )
                    .into(),
            ),
            Builtin::StructMake(t) => self.make_struct(f, t, callee_range, args),
            Builtin::NotImplemented => Err(SpyError::new(
                ExcKind::TypeError,
                "cannot call objects of type `types::NotImplementedType`",
            )
            .with_error(&f.file, callee_range, "this is `NotImplemented`")
            .into()),
            Builtin::Module(m) => Err(SpyError::new(
                ExcKind::TypeError,
                "cannot call objects of type `types::module`",
            )
            .with_error(&f.file, callee_range, format!("this is module `{}`", m.name()))
            .into()),
            Builtin::ExcClass(kind) => {
                self.check_arity(f, 0, 1, &args, callee_range, None)?;
                // Exception constructors are blue functions.
                if let Some((_, r)) = args.iter().find(|(a, _)| !a.is_blue()) {
                    return Err(SpyError::new(
                        ExcKind::TypeError,
                        "cannot call blue function with red arguments",
                    )
                    .with_error(&f.file, callee_range, "this is blue")
                    .with_error(&f.file, *r, "this is red")
                    .into());
                }
                let message = match args.first() {
                    None => String::new(),
                    Some((a, r)) => match &a.value {
                        Value::Str(s) if a.ty == TypeId::STR => s.to_string(),
                        _ => return Err(self.mismatched(f, a.ty, TypeId::STR, *r, None)),
                    },
                };
                Ok(Typed::blue(
                    TypeId::EXCEPTION,
                    Value::Exception(Rc::new(ExceptionValue { kind, message })),
                ))
            }
            // only a call written `getattr(o, NAME)` reaches them
            // (`eval_attr_builtin`), as in upstream's ASTFrame
            Builtin::Getattr | Builtin::Setattr | Builtin::Hasattr => Err(SpyError::new(
                ExcKind::TypeError,
                format!("`{}` can only be called directly", b.name()),
            )
            .with_error(&f.file, callee_range, "")
            .into()),
            other => match self.call_module_builtin(f, other, callee_range, args, call_range) {
                Some(result) => result,
                None => Err(crate::bug!(
                    "builtin `{}` has no call implementation",
                    other.name()
                )),
            },
        }
    }

    /// A builtin of the signature table on values, as its signature says.
    fn exec_builtin(
        &mut self,
        f: &mut Frame,
        b: Builtin,
        sig: &BuiltinSig,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        match sig.imp {
            BuiltinImpl::Time => return Ok(self.time_now()),
            BuiltinImpl::Sleep => return self.sleep(f, &args),
            BuiltinImpl::Open => return self.exec_open(f, &args, call_range),
            BuiltinImpl::Alloc { item, gc } => return self.alloc(f, item, gc, &args),
            BuiltinImpl::SimdLoad { lane, lanes } => {
                return self.simd_load(f, sig, lane, lanes, call_range, &args)
            }
            BuiltinImpl::SimdStore => return self.simd_store(f, call_range, &args),
            BuiltinImpl::Mem(op) => return self.exec_memop(f, op, sig, args, call_range),
            BuiltinImpl::Rb(rb) => return self.exec_rawbuffer(f, rb, &args, call_range),
            _ => {}
        }
        let (a, r) = args
            .first()
            .cloned()
            .ok_or_else(|| crate::bug!("builtin without arguments"))?;
        let with_color = |ty: TypeId, value: Value| Typed {
            color: a.color,
            ty,
            value,
        };
        match sig.imp {
            BuiltinImpl::Time
            | BuiltinImpl::Sleep
            | BuiltinImpl::Open
            | BuiltinImpl::Alloc { .. }
            | BuiltinImpl::SimdLoad { .. }
            | BuiltinImpl::SimdStore
            | BuiltinImpl::Mem(_)
            | BuiltinImpl::Rb(_) => Err(crate::bug!("effect builtin {:?} dispatched twice", sig.imp)),
            // Decision: len() of a static tuple is blue (it depends only
            // on the type).
            BuiltinImpl::LenOfTuple(n) => Ok(Typed::blue(TypeId::I32, Value::i32(n as i32))),
            BuiltinImpl::LenOfList => match &a.value {
                Value::List(l) => Ok(Typed::red(TypeId::I32, len_i32(l.items.borrow().len())?)),
                other => Err(crate::bug!("len of a list-typed {other:?}")),
            },
            BuiltinImpl::LenOfDict => match &a.value {
                Value::Dict(d) => Ok(Typed::red(TypeId::I32, len_i32(d.len())?)),
                other => Err(crate::bug!("len of a dict-typed {other:?}")),
            },
            // interp tuples: blue when the tuple is
            BuiltinImpl::LenOfInterpTuple => match &a.value {
                Value::Tuple(t) => Ok(with_color(TypeId::I32, len_i32(t.items.len())?)),
                other => Err(crate::bug!("len of a tuple-typed {other:?}")),
            },
            BuiltinImpl::LenOfStr => match &a.value {
                Value::Str(s) => Ok(with_color(TypeId::I32, len_i32(s.len())?)),
                other => Err(crate::bug!("len of a str-typed {other:?}")),
            },
            BuiltinImpl::LenOfBytes => match &a.value {
                Value::Bytes(b) => Ok(with_color(TypeId::I32, len_i32(b.len())?)),
                other => Err(crate::bug!("len of a bytes-typed {other:?}")),
            },
            BuiltinImpl::LenDunder => {
                // A metafunc `__len__` goes through the metacall protocol.
                let m = self
                    .vm
                    .struct_method(a.ty, "__len__")
                    .ok_or_else(|| crate::bug!("`__len__` vanished"))?;
                self.call_dunder(f, &m, vec![(a, r)], call_range)
            }
            BuiltinImpl::Abs => match &a.value {
                Value::Scalar(s) => Ok(with_color(a.ty, Value::Scalar(abs_scalar(*s)))),
                other => Err(crate::bug!("abs of a number-typed {other:?}")),
            },
            BuiltinImpl::MinMax { .. } => self.call_min_max(f, b, args),
            BuiltinImpl::Div { op, operand } => {
                let mut xs = Vec::with_capacity(2);
                let mut color = crate::vm::value::Color::Blue;
                for (a, r) in &args {
                    color = color.join(a.color);
                    let v = self.convert_to(f, a.clone(), TypeId::prim(operand), *r, None)?;
                    match v.value.as_scalar() {
                        Some(s) => xs.push(s),
                        None => return Err(crate::bug!("an unsafe division operand is not a scalar")),
                    }
                }
                let [a, b] = xs[..] else {
                    return Err(crate::bug!("unsafe division arity"));
                };
                match op.apply(operand, a, b) {
                    Ok(s) => Ok(Typed {
                        color,
                        ty: TypeId::prim(s.ty()),
                        value: Value::Scalar(s),
                    }),
                    Err(e) => Err(SpyError::from(e).with_error(&f.file, call_range, "").into()),
                }
            }
            BuiltinImpl::Math(m) => {
                let mut xs = Vec::with_capacity(args.len());
                let mut color = crate::vm::value::Color::Blue;
                for (a, r) in &args {
                    color = color.join(a.color);
                    let v = self.convert_to(f, a.clone(), TypeId::F64, *r, None)?;
                    match v.value.as_scalar() {
                        Some(crate::vm::ops::Scalar::F64(x)) => xs.push(x),
                        _ => return Err(crate::bug!("a math argument converted to f64 is not an f64")),
                    }
                }
                Ok(Typed {
                    color,
                    ty: TypeId::F64,
                    value: Value::Scalar(crate::vm::ops::Scalar::F64(m.apply(&xs))),
                })
            }
            BuiltinImpl::Range => {
                let mut ints = Vec::with_capacity(3);
                for ((a, r), to) in args.iter().zip(&sig.params) {
                    let to = to.ok_or_else(|| crate::bug!("range parameter without a type"))?;
                    let v = self.convert_to(f, a.clone(), to, *r, None)?;
                    ints.push(v.value.checked_i32()?);
                }
                let (start, stop, step) = match ints.as_slice() {
                    [stop] => (0, *stop, 1),
                    [start, stop] => (*start, *stop, 1),
                    [start, stop, step] => (*start, *stop, *step),
                    _ => return Err(crate::bug!("range arity")),
                };
                if step == 0 {
                    return Err(SpyError::from(crate::vm::rt_error::RuntimeError::RangeStepZero)
                        .with_error(&f.file, args[2].1, "this is zero")
                        .into());
                }
                Ok(Typed::red(
                    TypeId::RANGE,
                    Value::Range(RangeValue { start, stop, step }),
                ))
            }
            BuiltinImpl::Repr => {
                let text = self.repr_of(f, &a, r)?;
                Ok(with_color(TypeId::STR, Value::str(&text)))
            }
            BuiltinImpl::OrdBytes => match ops::bytes::ord(a.value.checked_bytes()?) {
                Ok(byte) => Ok(with_color(
                    TypeId::U8,
                    Value::Scalar(crate::vm::ops::Scalar::U8(byte)),
                )),
                Err(e) => Err(SpyError::from(e).with_error(&f.file, r, "").into()),
            },
            BuiltinImpl::Ord => {
                let byte = ops::str::ord(a.value.checked_str()?).map_err(|e| -> crate::error::Failure {
                    SpyError::from(e).with_error(&f.file, r, "").into()
                })?;
                Ok(with_color(TypeId::I32, Value::i32(byte)))
            }
        }
    }

    /// `min`/`max` pairwise, each step converting both operands to the type
    /// they meet at (checked by the signature).
    fn call_min_max(&mut self, f: &mut Frame, b: Builtin, args: Args) -> Eval<Typed> {
        let mut args = args.into_iter();
        let mut best = args.next().ok_or_else(|| crate::bug!("min/max arity"))?;
        for (a, r) in args {
            let operand =
                sig::min_max_operand(best.0.ty, a.ty).ok_or_else(|| crate::bug!("min/max types"))?;
            let ty = TypeId::prim(operand);
            let x = self.convert_to(f, best.0.clone(), ty, best.1, None)?;
            let y = self.convert_to(f, a, ty, r, None)?;
            let (Value::Scalar(sx), Value::Scalar(sy)) = (&x.value, &y.value) else {
                return Err(crate::bug!("min/max on non-scalars"));
            };
            let less = |a: Scalar, b: Scalar| ops::cmpop(CmpOp::Lt, a, b) == Ok(Scalar::Bool(true));
            // upstream's `_min`/`_max` (stdlib/_builtins.spy): `x if x < y
            // else y` and `x if x > y else y`, so with NaN or equal zeros
            // the second operand wins
            let take_y = if b == Builtin::Min {
                !less(*sx, *sy)
            } else {
                !less(*sy, *sx)
            };
            let color = x.color.join(y.color);
            best = if take_y {
                (Typed { color, ..y }, r)
            } else {
                (Typed { color, ..x }, best.1)
            };
        }
        Ok(best.0)
    }

    /// Calling a type: conversions, struct constructors, tuple types.
    pub(crate) fn call_type(
        &mut self,
        f: &mut Frame,
        t: TypeId,
        callee_range: TextRange,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        if f.is_shifting() {
            if let Some(result) = self.shift_type_call(f, t, callee_range, &args, call_range) {
                return result;
            }
        }
        match self.vm.types.kind(t) {
            TypeKind::Prim(_) | TypeKind::Str => {
                self.check_arity(f, 1, 1, &args, callee_range, None)?;
                let mut args = args;
                let (a, r) = args.pop().expect("arity checked");
                self.pools.recycle_args(args);
                self.explicit_convert(f, t, a, r, call_range)
            }
            TypeKind::Struct { .. } => {
                if let Some(new) = self.vm.struct_method(t, "__new__") {
                    return self.call_function(f, &new, args, call_range);
                }
                self.make_struct(f, t, callee_range, args)
            }
            TypeKind::Tuple(items) => {
                let items = items.clone();
                self.check_arity(f, items.len(), items.len(), &args, callee_range, None)?;
                let mut values = Vec::with_capacity(items.len());
                for ((a, r), ty) in args.into_iter().zip(items.iter()) {
                    values.push(self.convert_to(f, a, *ty, r, None)?.value);
                }
                Ok(Typed {
                    color: Color::Red,
                    ty: t,
                    value: Value::Tuple(Rc::new(TupleValue {
                        ty: t,
                        items: values.into(),
                    })),
                })
            }
            TypeKind::Simd { .. } => self.make_simd(f, t, callee_range, args),
            TypeKind::MetaArg => {
                // `MetaArg('blue' | 'red', T, value)`
                self.check_arity(f, 3, 3, &args, callee_range, None)?;
                let color = match args[0].0.value.as_str() {
                    Some("blue") => Color::Blue,
                    Some("red") => Color::Red,
                    _ => {
                        return Err(SpyError::new(
                            ExcKind::TypeError,
                            "MetaArg color must be 'blue' or 'red'",
                        )
                        .with_error(&f.file, args[0].1, "")
                        .into())
                    }
                };
                let Value::Type(ty) = args[1].0.value else {
                    return Err(self.mismatched(f, args[1].0.ty, TypeId::TYPE, args[1].1, None));
                };
                let value = args[2].0.value.clone();
                let meta = crate::vm::value::MetaArgValue { color, ty, value };
                Ok(Typed::blue(TypeId::METAARG, Value::Meta(Rc::new(meta))))
            }
            // `interp_list[T](a, b, ...)` (upstream `W_InterpList.__new__`):
            // a list of the items, each converted to `T`
            TypeKind::List(item) if self.vm.types.is_interp_list(t) => {
                let item = *item;
                self.check_memory(f, crate::vm::value::ListValue::bytes_of(args.len()), callee_range)?;
                let mut items = Vec::with_capacity(args.len());
                for (a, r) in args {
                    items.push(self.convert_to(f, a, item, r, None)?.value);
                }
                Ok(Typed::red(t, self.new_list(t, items)))
            }
            TypeKind::List(_) => {
                self.check_arity(f, 0, 0, &args, callee_range, None)?;
                Ok(Typed::red(t, self.new_list(t, Vec::new())))
            }
            // `dict[K, V]()`: a new empty dict (upstream `_dict.__new__`)
            TypeKind::Dict { .. } => {
                self.check_arity(f, 0, 0, &args, callee_range, None)?;
                Ok(Typed::red(t, self.new_dict(t)))
            }
            // `interp_tuple(a, b, ...)` (upstream `W_InterpTuple.__new__`):
            // a blue tuple of the items as given. Decision: the items must
            // be blue; upstream's interpreter also holds red ones, which no
            // residual code could (a WIP error in every engine).
            TypeKind::InterpTuple => {
                if let Some((_, r)) = args.iter().find(|(a, _)| !a.is_blue()) {
                    return Err(SpyError::new(
                        ExcKind::Wip,
                        "interp_tuple(...) of red values is not supported",
                    )
                    .with_error(&f.file, *r, "this is red")
                    .into());
                }
                let items = args.into_iter().map(|(a, _)| a.value).collect();
                Ok(Typed::blue(
                    TypeId::INTERP_TUPLE,
                    crate::frames::meta::interp_tuple(items),
                ))
            }
            TypeKind::Type if args.len() == 1 => {
                let (a, _) = &args[0];
                let dynamic = self.dynamic_type(&a.value).unwrap_or(a.ty);
                Ok(Typed::blue(TypeId::TYPE, Value::Type(dynamic)))
            }
            _ => {
                let name = self.vm.types.name(t).to_string();
                Err(
                    SpyError::new(ExcKind::TypeError, format!("cannot instantiate `{name}`"))
                        .with_error(&f.file, callee_range, format!("this is `{name}`"))
                        .into(),
                )
            }
        }
    }

    /// `S.__make__(...)`: one argument per field, converted to its type.
    pub(crate) fn make_struct(
        &mut self,
        f: &mut Frame,
        t: TypeId,
        callee_range: TextRange,
        args: Args,
    ) -> Eval<Typed> {
        let field_types: Vec<TypeId> = self
            .struct_make_fields(f, t, callee_range, &args)?
            .iter()
            .map(|field| field.ty)
            .collect();
        let mut values = Vec::with_capacity(field_types.len());
        for ((a, r), ty) in args.into_iter().zip(field_types) {
            values.push(self.convert_to(f, a, ty, r, None)?.value);
        }
        Ok(Typed::red(
            t,
            Value::Struct(Rc::new(StructValue {
                ty: t,
                fields: values.into(),
            })),
        ))
    }

    /// The fields of struct `t` whose `__make__` is called with `args`:
    /// one argument per field, or the arity error (noting the struct's
    /// definition).
    pub(crate) fn struct_make_fields(
        &self,
        f: &Frame,
        t: TypeId,
        callee_range: TextRange,
        args: &Args,
    ) -> Eval<Vec<crate::vm::types::Field>> {
        let fields = self.vm.types.checked_struct_fields(t)?.to_vec();
        if args.len() != fields.len() {
            let def = self.vm.structs.get(&t).map(|s| (s.file.clone(), s.def_range));
            let def_ref = def.as_ref().map(|(file, range)| (file, *range));
            let n = fields.len();
            self.check_arity(f, n, n, args, callee_range, def_ref)?;
        }
        Ok(fields)
    }

    /// `print`'s line: the parts separated by spaces, and a newline.
    fn write_line(&mut self, parts: &[std::borrow::Cow<'_, str>]) -> Eval<()> {
        let mut write = || -> std::io::Result<()> {
            for (i, part) in parts.iter().enumerate() {
                if i > 0 {
                    self.out.write_all(b" ")?;
                }
                self.out.write_all(part.as_bytes())?;
            }
            self.out.write_all(b"\n")
        };
        write().map_err(|e| crate::error::HostError::output(&e).into())
    }
}

/// `abs()` of a number: wrapping for ints (`abs(-128 as i8) == -128`).
fn abs_scalar(s: Scalar) -> Scalar {
    match s {
        Scalar::I8(v) => Scalar::I8(v.wrapping_abs()),
        Scalar::I32(v) => Scalar::I32(v.wrapping_abs()),
        Scalar::I64(v) => Scalar::I64(v.wrapping_abs()),
        // upstream's `_abs`: `-x if x < 0 else x`, so `abs(-0.0)` is `-0.0`
        // (and NaN stays as it is)
        Scalar::F32(v) => Scalar::F32(if v < 0.0 { -v } else { v }),
        Scalar::F64(v) => Scalar::F64(if v < 0.0 { -v } else { v }),
        unsigned_or_bool => unsigned_or_bool,
    }
}

/// `len(x)` as an `i32`: a length that does not fit is an OverflowError,
/// never a wrapped value (the caller locates it).
fn len_i32(n: usize) -> Result<Value, crate::error::Failure> {
    match i32::try_from(n) {
        Ok(n) => Ok(Value::i32(n)),
        Err(_) => {
            Err(SpyError::from(crate::vm::rt_error::RuntimeError::LenTooLarge { len: n as u64 }).into())
        }
    }
}
