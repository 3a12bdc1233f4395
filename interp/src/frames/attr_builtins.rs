//! `getattr(o, NAME)`, `setattr(o, NAME, v)` and `hasattr(o, NAME)` with a
//! blue `str` NAME: upstream special-cases these calls in its ASTFrame
//! (`eval_expr_Call`) as the attribute read `o.NAME`, the assignment
//! `o.NAME = v` and the question whether `o.NAME` is accepted, so their
//! errors are the attribute errors. DopplerFrame shifts them the same way:
//! the residual code holds `o.NAME` (and `o.NAME = v`), never a call.

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::doppler::is_runtime;
use crate::frames::{Eval, Frame, Interp};
use crate::syntax::ast::{ExprRef, Exprs, Identifier, NameId};
use crate::vm::builtins::Builtin;
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Typed, Value};

impl Interp<'_> {
    /// `b(args...)` where `b` is `getattr`, `setattr` or `hasattr`; `None`
    /// for another callee.
    pub(crate) fn eval_attr_builtin(
        &mut self,
        f: &mut Frame,
        b: Builtin,
        func: &ExprRef<'_>,
        args: &Exprs<'_>,
    ) -> Option<Eval<Typed>> {
        let n = match b {
            Builtin::Getattr | Builtin::Hasattr => 2,
            Builtin::Setattr => 3,
            _ => return None,
        };
        Some(self.attr_builtin(f, b, n, func, args))
    }

    fn attr_builtin(
        &mut self,
        f: &mut Frame,
        b: Builtin,
        n: usize,
        func: &ExprRef<'_>,
        args: &Exprs<'_>,
    ) -> Eval<Typed> {
        let argv = self.eval_items(f, args)?;
        self.check_arity(f, n, n, &argv, func.range, None)?;
        let mut argv = argv.into_iter();
        let (obj, _) = argv.next().expect("arity checked");
        let (name, name_range) = argv.next().expect("arity checked");
        let attr = self.name_of(f, name, name_range)?;
        let obj_expr = &args.first().ok_or_else(|| crate::bug!("arity checked"))?;
        match b {
            Builtin::Getattr => self.get_attr(f, obj, obj_expr, &attr),
            Builtin::Setattr => {
                let (value, value_range) = argv.next().expect("arity checked");
                self.set_attr(f, obj, obj_expr, &attr, value, value_range)?;
                Ok(Typed::red(TypeId::NONE, Value::None))
            }
            _ => self.has_attr(f, obj, obj_expr, &attr),
        }
    }

    /// The attribute a blue `str` names.
    fn name_of(&mut self, f: &Frame, name: Typed, name_range: crate::source::TextRange) -> Eval<Identifier> {
        if !name.is_blue() {
            return Err(SpyError::new(ExcKind::TypeError, "expected blue argument")
                .with_error(&f.file, name_range, "this is red")
                .into());
        }
        let name = self.convert_to(f, name, TypeId::STR, name_range, None)?;
        Ok(Identifier {
            name: name.value.checked_str()?.into(),
            range: name_range,
            id: NameId(0),
        })
    }

    /// `hasattr`: blue `True` iff reading `o.NAME` is accepted for `o`'s
    /// static type, or `NAME` is a method of it. A `dynamic` receiver asks
    /// its value's type when the call runs (`dynamic_has_attr`).
    fn has_attr(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        attr: &Identifier,
    ) -> Eval<Typed> {
        if obj.ty == TypeId::DYNAMIC {
            return self.dynamic_has_attr(f, obj, obj_expr, attr);
        }
        // `__getattribute__` answers without running the implementation
        // it chooses (upstream's `w_HASATTR`)
        if let Some(m) = self.vm.struct_method(obj.ty, "__getattribute__") {
            let whole = obj_expr.range.cover(attr.range);
            let args = vec![
                (obj, obj_expr.range),
                (Typed::blue(TypeId::STR, Value::str(&attr.name)), attr.range),
            ];
            let found = self.getattribute_op(f, &m, &args, whole)?.is_some();
            return Ok(Typed::blue(TypeId::BOOL, Value::bool(found)));
        }
        // a method is an attribute too, though `o.m` is only ever called here
        if self.vm.struct_method(obj.ty, &attr.name).is_some() {
            return Ok(Typed::blue(TypeId::BOOL, Value::bool(true)));
        }
        let found = match self.get_attr(f, obj, obj_expr, attr) {
            Ok(_) => true,
            Err(Failure::Raise(e)) if is_no_attribute(&e, &attr.name) => false,
            Err(other) => return Err(other),
        };
        Ok(Typed::blue(TypeId::BOOL, Value::bool(found)))
    }
}

impl Interp<'_> {
    /// `hasattr(o, NAME)` of a `dynamic` `o` (upstream `dynamic_hasattr`):
    /// the question asked of o's own type when the call runs, a red
    /// `dynamic` result; residual code keeps the call.
    fn dynamic_has_attr(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        obj_expr: &ExprRef<'_>,
        attr: &Identifier,
    ) -> Eval<Typed> {
        if f.is_shifting() && is_runtime(&obj) {
            let name = Typed::blue(TypeId::STR, Value::str(&attr.name));
            let callee = f.shift()?.name("hasattr", obj_expr.range);
            let args = [(obj, obj_expr.range), (name, attr.range)];
            return self.shift_call(
                f,
                callee,
                &args,
                TypeId::DYNAMIC,
                obj_expr.range.cover(attr.range),
            );
        }
        let obj = self.undynamic(obj);
        if obj.ty == TypeId::DYNAMIC {
            return Err(crate::bug!("a `dynamic` value without a type of its own"));
        }
        let found = self.has_attr(f, obj, obj_expr, attr)?;
        Ok(Typed {
            color: Color::Red,
            ty: TypeId::DYNAMIC,
            value: found.value,
        })
    }
}

/// The error of reading an attribute a type does not have.
fn is_no_attribute(e: &SpyError, name: &str) -> bool {
    e.kind == ExcKind::TypeError && e.message.ends_with(&format!("has no attribute '{name}'"))
}
