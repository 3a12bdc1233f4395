//! Operator dispatch on static types, as upstream's `operator` module: an
//! operator and the static types of its operands select one implementation
//! (`OpImpl`), which is then executed on the values. Dispatch never looks at
//! dynamic values, so the same selection serves redshift.

use std::rc::Rc;

use crate::source::TextRange;
use crate::syntax::ast::ExprRef;

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::doppler::is_runtime;
use crate::frames::doppler::BinSym;
use crate::frames::lowlevel::SimdOp;
use crate::frames::{Eval, Frame, Interp, Mutation};
use crate::syntax::ast::{BinOp, CmpOp, UnaryOp};
use crate::vm::ops::{self, PrimTy, Scalar};
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Function, Typed, Value};

pub(crate) use crate::vm::op_select::OpImpl;
use crate::vm::op_select::{binop_impl, cmpop_impl};

impl OpImpl {
    /// Pure implementations give a blue result when all inputs are blue.
    fn is_pure(&self) -> bool {
        // a list is red and has identity: every `a + b` makes a new one
        !matches!(
            self,
            OpImpl::Method { .. } | OpImpl::ListConcat { .. } | OpImpl::ListRepeat { .. }
        )
    }

    /// The static type of the result (a dunder's is its function's).
    pub(crate) fn result_type(&self) -> Option<TypeId> {
        Some(match self {
            OpImpl::PrimBin { result, .. } => TypeId::prim(*result),
            OpImpl::StrConcat | OpImpl::StrRepeat => TypeId::STR,
            OpImpl::BytesConcat | OpImpl::BytesRepeat => TypeId::BYTES,
            OpImpl::ListConcat { ty } | OpImpl::ListRepeat { ty } => *ty,
            OpImpl::Method { .. } => return None,
            _ => TypeId::BOOL,
        })
    }

    /// How residual code spells this implementation: the operator that
    /// selects it again from the same static types (a dunder is a call).
    pub(crate) fn spelling(&self) -> Option<BinSym> {
        let cmp = |negate: bool, yes: CmpOp, no: CmpOp| BinSym::Cmp(if negate { no } else { yes });
        Some(match *self {
            OpImpl::PrimBin { op, .. } => BinSym::Bin(op),
            OpImpl::PrimCmp { op, .. } => BinSym::Cmp(op),
            OpImpl::StrConcat | OpImpl::BytesConcat => BinSym::Bin(BinOp::Add),
            OpImpl::StrRepeat | OpImpl::BytesRepeat | OpImpl::ListRepeat { .. } => BinSym::Bin(BinOp::Mul),
            OpImpl::ListConcat { .. } => BinSym::Bin(BinOp::Add),
            OpImpl::StrEq { negate }
            | OpImpl::BytesEq { negate }
            | OpImpl::IdentityEq { negate }
            | OpImpl::ValueEq { negate } => cmp(negate, CmpOp::Eq, CmpOp::NotEq),
            OpImpl::Is { negate } => cmp(negate, CmpOp::Is, CmpOp::IsNot),
            OpImpl::StrContains
            | OpImpl::TupleContains
            | OpImpl::RangeContains
            | OpImpl::ListContains
            | OpImpl::DictContains => BinSym::Cmp(CmpOp::In),
            OpImpl::Method { .. } => return None,
        })
    }
}

fn wip_op(symbol: &str) -> String {
    format!("Operator not implemented yet: {symbol}")
}

impl Interp<'_> {
    /// `WIP: Operator not implemented yet: sym`, with each operand
    /// annotated with its static type (as `cannot_do` does).
    fn wip_operands(&self, f: &Frame, sym: &str, operands: &[(TypeId, TextRange)]) -> Failure {
        let mut e = SpyError::new(ExcKind::Wip, wip_op(sym));
        for &(ty, range) in operands {
            e = e.with_error(&f.file, range, format!("this is `{}`", self.vm.types.name(ty)));
        }
        e.into()
    }

    fn cannot_do(&self, f: &Frame, l: TypeId, sym: &str, r: TypeId, le: TextRange, re: TextRange) -> Failure {
        let (ln, rn) = (
            self.vm.types.name(l).to_string(),
            self.vm.types.name(r).to_string(),
        );
        SpyError::new(ExcKind::TypeError, format!("cannot do `{ln}` {sym} `{rn}`"))
            .with_error(&f.file, le, format!("this is `{ln}`"))
            .with_error(&f.file, re, format!("this is `{rn}`"))
            .into()
    }

    fn dunder(&self, ty: TypeId, name: &str) -> Option<Rc<Function>> {
        self.vm.struct_method(ty, name)
    }

    pub(crate) fn binop(
        &mut self,
        f: &mut Frame,
        op: BinOp,
        (l, le): (Typed, TextRange),
        (r, re): (Typed, TextRange),
        whole: TextRange,
    ) -> Eval<Typed> {
        // Primitive operands, the common case: the operation follows from
        // the two static types alone (no dunder, SIMD or residual code).
        if !f.is_shifting() && !self.general_paths_only {
            if let (Some(a), Some(b)) = (l.ty.as_prim(), r.ty.as_prim()) {
                if let Some(sig) = ops::binop_signature(op, a, b) {
                    return self.prim_binop(f, op, sig, &l, &r, whole);
                }
            }
        }
        if Self::dynamic_binop_supported(op) {
            if let Some(res) = self.dynamic_binary(f, BinSym::Bin(op), (&l, le), (&r, re), whole) {
                return res;
            }
        }
        if op == BinOp::MatMul {
            return Err(self.wip_operands(f, "@", &[(l.ty, le), (r.ty, re)]));
        }
        let simd = SimdOp::Bin(op);
        if simd.supported() {
            if let Some(r) = self.simd_binop(f, simd, (&l, le), (&r, re), whole) {
                return r;
            }
        }
        let imp = binop_impl(&self.vm, op, l.ty, r.ty);
        let Some(imp) = imp else {
            return Err(self.cannot_do(f, l.ty, op.symbol(), r.ty, le, re));
        };
        self.exec_binary(f, imp, l, r, whole)
    }

    pub(crate) fn cmpop(
        &mut self,
        f: &mut Frame,
        op: CmpOp,
        (l, le): (Typed, TextRange),
        (r, re): (Typed, TextRange),
        whole: TextRange,
    ) -> Eval<Typed> {
        if !f.is_shifting() && !self.general_paths_only {
            if let (Some(a), Some(b)) = (l.ty.as_prim(), r.ty.as_prim()) {
                if let Some(sig) = ops::cmpop_signature(op, a, b) {
                    return self.prim_cmpop(f, op, sig.operand, &l, &r, whole);
                }
            }
        }
        if Self::dynamic_cmpop_supported(op) {
            if let Some(res) = self.dynamic_binary(f, BinSym::Cmp(op), (&l, le), (&r, re), whole) {
                return res;
            }
        }
        if op == CmpOp::NotIn {
            return self.not_contains(f, (l, le), (r, re), whole);
        }
        let simd = SimdOp::Cmp(op);
        if simd.supported() {
            if let Some(r) = self.simd_binop(f, simd, (&l, le), (&r, re), whole) {
                return r;
            }
        }
        let imp = self.resolve_cmp(op, l.ty, r.ty);
        let Some(imp) = imp else {
            if matches!(op, CmpOp::Is | CmpOp::IsNot) {
                let (ln, rn) = (
                    self.vm.types.name(l.ty).to_string(),
                    self.vm.types.name(r.ty).to_string(),
                );
                return Err(SpyError::new(
                    ExcKind::TypeError,
                    format!("cannot do `{ln}` {} `{rn}`", op.symbol()),
                )
                .with_error(&f.file, le, format!("this is `{ln}`"))
                .with_error(&f.file, re, format!("this is `{rn}`"))
                .with_note(
                    &f.file,
                    whole,
                    if self.vm.types.ref_item(l.ty).is_some() || self.vm.types.ref_item(r.ty).is_some() {
                        "cannot use `is` with references: compare what they refer to with `==`"
                    } else {
                        "cannot use `is` between value types as they don't have an identity"
                    },
                )
                .into());
            }
            if op == CmpOp::In {
                return self.bad_contains(f, "in", l.ty, r.ty, le, re);
            }
            return Err(self.cannot_do(f, l.ty, op.symbol(), r.ty, le, re));
        };
        self.exec_binary(f, imp, l, r, whole)
    }

    pub(crate) fn resolve_cmp(&self, op: CmpOp, l: TypeId, r: TypeId) -> Option<OpImpl> {
        cmpop_impl(&self.vm, op, l, r)
    }

    /// `a not in b` (spec §6, a deliberate difference: upstream's is `WIP`):
    /// the negation of `a in b`, chosen by the same rule (`str`, `range`,
    /// `list`, `dict`, tuple, a user `__contains__`); its errors name
    /// `not in`. Shifting, the residual code is `not (a in b)`.
    fn not_contains(
        &mut self,
        f: &mut Frame,
        (l, le): (Typed, TextRange),
        (r, re): (Typed, TextRange),
        whole: TextRange,
    ) -> Eval<Typed> {
        let Some(imp) = self.resolve_cmp(CmpOp::In, l.ty, r.ty) else {
            return self.bad_contains(f, "not in", l.ty, r.ty, le, re);
        };
        let contains = self.exec_binary(f, imp, l, r, whole)?;
        // a user `__contains__` may return another type: `not` converts it
        let contains = self.convert_to(f, contains, TypeId::BOOL, whole, None)?;
        if is_runtime(&contains) {
            return self.shift_unary(f, UnaryOp::Not, &contains, TypeId::BOOL, whole);
        }
        let Value::Scalar(Scalar::Bool(held)) = contains.value else {
            return Err(crate::bug!("a `bool` value is not a bool"));
        };
        Ok(Typed {
            color: contains.color,
            ty: TypeId::BOOL,
            value: Value::Scalar(Scalar::Bool(!held)),
        })
    }

    fn bad_contains(
        &self,
        f: &Frame,
        sym: &str,
        l: TypeId,
        r: TypeId,
        le: TextRange,
        re: TextRange,
    ) -> Eval<Typed> {
        if let Some(items) = self.vm.types.tuple_items(r) {
            let message = if items.windows(2).any(|w| w[0] != w[1]) {
                format!("'{sym}' is not supported on heterogeneous tuples")
            } else {
                "type mismatch: argument is not of the tuple's element type".to_string()
            };
            let rn = self.vm.types.name(r).to_string();
            return Err(SpyError::new(ExcKind::TypeError, message)
                .with_error(&f.file, re, format!("this is `{rn}`"))
                .into());
        }
        Err(self.cannot_do(f, l, sym, r, le, re))
    }

    pub(crate) fn unaryop(
        &mut self,
        f: &mut Frame,
        op: UnaryOp,
        v: Typed,
        operand: &ExprRef<'_>,
        whole: TextRange,
    ) -> Eval<Typed> {
        if matches!(op, UnaryOp::Pos | UnaryOp::Invert) {
            return Err(self.wip_operands(f, op.symbol(), &[(v.ty, operand.range)]));
        }
        if let (Some(p), true) = (v.ty.as_prim(), is_runtime(&v)) {
            if let Some(result) = ops::unaryop_signature(op, p) {
                return self.shift_unary(f, op, &v, TypeId::prim(result), whole);
            }
        }
        if let (Some(p), Value::Scalar(s)) = (v.ty.as_prim(), &v.value) {
            if let Some(result) = ops::unaryop_signature(op, p) {
                return match ops::unaryop(op, *s) {
                    Ok(x) => Ok(Typed {
                        color: v.color,
                        ty: TypeId::prim(result),
                        value: Value::Scalar(x),
                    }),
                    Err(e) => Err(SpyError::from(e).with_error(&f.file, whole, "").into()),
                };
            }
        }
        if let Some(func) = self.dunder(v.ty, "__neg__") {
            return self.call_dunder(f, &func, vec![(v, operand.range)], whole);
        }
        let name = self.vm.types.name(v.ty).to_string();
        Err(
            SpyError::new(ExcKind::TypeError, format!("cannot do {}`{name}`", op.symbol()))
                .with_error(&f.file, operand.range, format!("this is `{name}`"))
                .into(),
        )
    }

    fn exec_binary(
        &mut self,
        f: &mut Frame,
        imp: OpImpl,
        l: Typed,
        r: Typed,
        whole: TextRange,
    ) -> Eval<Typed> {
        if let (true, Some(ty)) = (f.is_shifting(), imp.result_type()) {
            // Equality of value types may call user `__eq__`s: decide it at
            // run time whenever an operand is red.
            let deep = matches!(
                imp,
                OpImpl::ValueEq { .. } | OpImpl::TupleContains | OpImpl::ListContains
            );
            if is_runtime(&l) || is_runtime(&r) || (deep && !(l.is_blue() && r.is_blue())) {
                return self.shift_binary(f, &imp, &l, &r, whole);
            }
            // Folding blue operands: an error (`1 // 0`) happens at run time,
            // at this point of the expression.
            let folded = self.exec_binary_values(f, imp, l, r, whole);
            return self.lazy_raise_or(f, folded, ty, whole);
        }
        self.exec_binary_values(f, imp, l, r, whole)
    }

    fn exec_binary_values(
        &mut self,
        f: &mut Frame,
        imp: OpImpl,
        l: Typed,
        r: Typed,
        whole: TextRange,
    ) -> Eval<Typed> {
        let (l, r) = if imp.decays_operands() {
            (self.decayed(l)?, self.decayed(r)?)
        } else {
            (l, r)
        };
        let color = if imp.is_pure() {
            l.color.join(r.color)
        } else {
            Color::Red
        };
        let fail = |e: ops::OpError| -> Failure { SpyError::from(e).with_error(&f.file, whole, "").into() };
        let (ty, value) = match imp {
            OpImpl::PrimBin { op, operand, result } => {
                return self.prim_binop(f, op, ops::BinSig { operand, result }, &l, &r, whole);
            }
            OpImpl::PrimCmp { op, operand } => return self.prim_cmpop(f, op, operand, &l, &r, whole),
            OpImpl::StrConcat => {
                let (a, b) = (l.value.checked_str()?, r.value.checked_str()?);
                self.check_str_len(f, a.len() + b.len(), whole)?;
                let mut s = String::with_capacity(a.len() + b.len());
                s.push_str(a);
                s.push_str(b);
                (TypeId::STR, Value::Str(Rc::new(s.into())))
            }
            OpImpl::StrRepeat => {
                let n = r.value.checked_i32()?;
                let a = l.value.checked_str()?;
                self.check_str_len(f, a.len().saturating_mul(n.max(0) as usize), whole)?;
                let s = ops::str::repeat(a, n.into()).map_err(fail)?;
                (TypeId::STR, Value::str(&s))
            }
            OpImpl::StrEq { negate } => (
                TypeId::BOOL,
                Value::bool((l.value.checked_str()? == r.value.checked_str()?) != negate),
            ),
            OpImpl::BytesConcat => {
                let (a, b) = (l.value.checked_bytes()?, r.value.checked_bytes()?);
                self.check_str_len(f, a.len() + b.len(), whole)?;
                let mut v = Vec::with_capacity(a.len() + b.len());
                v.extend_from_slice(a);
                v.extend_from_slice(b);
                (
                    TypeId::BYTES,
                    Value::Bytes(Rc::new(crate::vm::memory::Blob::new(v))),
                )
            }
            OpImpl::BytesRepeat => {
                let n = r.value.checked_i32()?;
                let a = l.value.checked_bytes()?;
                self.check_str_len(f, a.len().saturating_mul(n.max(0) as usize), whole)?;
                let v = ops::bytes::repeat(a, n.into()).map_err(fail)?;
                (
                    TypeId::BYTES,
                    Value::Bytes(Rc::new(crate::vm::memory::Blob::new(v))),
                )
            }
            OpImpl::BytesEq { negate } => (
                TypeId::BOOL,
                Value::bool((l.value.checked_bytes()? == r.value.checked_bytes()?) != negate),
            ),
            OpImpl::StrContains => {
                let found = r.value.checked_str()?.contains(l.value.checked_str()?);
                (TypeId::BOOL, Value::bool(found))
            }
            OpImpl::IdentityEq { negate } | OpImpl::Is { negate } => (
                TypeId::BOOL,
                Value::bool(self.identical(&l.value, &r.value) != negate),
            ),
            OpImpl::ValueEq { negate } => {
                let eq = self.values_equal(f, l.ty, &l.value, &r.value, whole)?;
                (TypeId::BOOL, Value::bool(eq != negate))
            }
            OpImpl::TupleContains => {
                let Value::Tuple(tuple) = &r.value else {
                    return Err(crate::bug!("tuple-typed value is not a tuple"));
                };
                let mut found = false;
                for item in tuple.items.iter() {
                    if self.values_equal(f, l.ty, &l.value, item, whole)? {
                        found = true;
                        break;
                    }
                }
                (TypeId::BOOL, Value::bool(found))
            }
            OpImpl::ListConcat { ty } => {
                let (Value::List(a), Value::List(b)) = (&l.value, &r.value) else {
                    return Err(crate::bug!("list-typed value is not a list"));
                };
                let n = a.items.borrow().len() + b.items.borrow().len();
                self.check_memory(f, (n * std::mem::size_of::<Value>()) as u64, whole)?;
                let mut items = Vec::with_capacity(n);
                items.extend(a.items.borrow().iter().cloned());
                items.extend(b.items.borrow().iter().cloned());
                (ty, self.new_list(ty, items))
            }
            OpImpl::ListRepeat { ty } => {
                let Value::List(a) = &l.value else {
                    return Err(crate::bug!("list-typed value is not a list"));
                };
                let len = a.items.borrow().len() as u64;
                // (an empty list stays empty however often it is repeated)
                let times = if len == 0 {
                    0
                } else {
                    r.value.checked_i32()?.max(0) as u64
                };
                let bytes = (len * times).saturating_mul(std::mem::size_of::<Value>() as u64);
                self.check_memory(f, bytes, whole)?;
                let items = a.items.borrow();
                let mut out = Vec::with_capacity((len * times) as usize);
                for _ in 0..times {
                    out.extend(items.iter().cloned());
                }
                drop(items);
                (ty, self.new_list(ty, out))
            }
            OpImpl::ListContains => {
                let Value::List(list) = &r.value else {
                    return Err(crate::bug!("list-typed value is not a list"));
                };
                let items = list.items.borrow().clone();
                let mut found = false;
                for item in items.iter() {
                    if self.values_equal(f, l.ty, &l.value, item, whole)? {
                        found = true;
                        break;
                    }
                }
                (TypeId::BOOL, Value::bool(found))
            }
            OpImpl::DictContains => {
                let Value::Dict(d) = &r.value else {
                    return Err(crate::bug!("dict-typed value is not a dict"));
                };
                (TypeId::BOOL, Value::bool(d.contains(&l.value)))
            }
            OpImpl::RangeContains => {
                let (Value::Range(rg), Some(x)) = (&r.value, l.value.as_i32()) else {
                    return Err(crate::bug!("bad operands for range contains"));
                };
                let (x, start, stop, step) = (x as i64, rg.start as i64, rg.stop as i64, rg.step as i64);
                let inside = if step > 0 {
                    start <= x && x < stop
                } else {
                    stop < x && x <= start
                };
                (TypeId::BOOL, Value::bool(inside && (x - start) % step == 0))
            }
            // `c.__contains__(x)` for `x in c`: when an operand has effects,
            // both are bound first, in source order (spec §6.1).
            OpImpl::Method { func, swap: true }
                if f.is_shifting() && self.any_effects(f, [(&l, whole), (&r, whole)])? =>
            {
                let mut operands = [(l, whole), (r, whole)];
                let bindings = self.bind_in_order(f, &mut operands)?;
                let [l, r] = operands;
                let result = self.call_dunder(f, &func, vec![r, l], whole)?;
                return self.after_bindings(f, bindings, &result, whole);
            }
            OpImpl::Method { func, swap } => {
                let args = if swap {
                    vec![(r, whole), (l, whole)]
                } else {
                    vec![(l, whole), (r, whole)]
                };
                return self.call_dunder(f, &func, args, whole);
            }
        };
        Ok(Typed { color, ty, value })
    }

    /// `l OP r` on primitive values: both operands converted to the
    /// signature's operand type, the pure operation, the joined color.
    fn prim_binop(
        &self,
        f: &Frame,
        op: BinOp,
        sig: ops::BinSig,
        l: &Typed,
        r: &Typed,
        whole: TextRange,
    ) -> Eval<Typed> {
        let (a, b) = (
            prim_operand(&l.value, sig.operand)?,
            prim_operand(&r.value, sig.operand)?,
        );
        let v = ops::dispatch::run_binop(op, sig.operand, a, b).map_err(|e| op_error(f, e, whole))?;
        // Planted bug (test-only): redshift folds blue `//` rounding toward zero.
        let v = match (a, b) {
            (Scalar::I32(a), Scalar::I32(b))
                if f.is_shifting()
                    && op == BinOp::FloorDiv
                    && b != 0
                    && self.mutations.has(Mutation::FloorDivRoundsTowardZero) =>
            {
                Scalar::I32(a.wrapping_div(b))
            }
            _ => v,
        };
        Ok(Typed {
            color: l.color.join(r.color),
            ty: TypeId::prim(sig.result),
            value: Value::Scalar(v),
        })
    }

    /// `l OP r` comparing primitive values (converted to `operand`).
    fn prim_cmpop(
        &self,
        f: &Frame,
        op: CmpOp,
        operand: PrimTy,
        l: &Typed,
        r: &Typed,
        whole: TextRange,
    ) -> Eval<Typed> {
        let (a, b) = (prim_operand(&l.value, operand)?, prim_operand(&r.value, operand)?);
        let v = ops::dispatch::run_cmpop(op, operand, a, b).map_err(|e| op_error(f, e, whole))?;
        Ok(Typed {
            color: l.color.join(r.color),
            ty: TypeId::BOOL,
            value: Value::Scalar(v),
        })
    }

    /// Equality of two values of the same static type `ty`.
    pub(crate) fn values_equal(
        &mut self,
        f: &mut Frame,
        ty: TypeId,
        a: &Value,
        b: &Value,
        whole: TextRange,
    ) -> Eval<bool> {
        match (a, b) {
            (Value::Scalar(x), Value::Scalar(y)) => {
                let eq =
                    ops::cmpop(CmpOp::Eq, *x, *y).map_err(|e| -> Failure { SpyError::from(e).into() })?;
                Ok(x.ty() == y.ty() && eq == Scalar::Bool(true))
            }
            (Value::Str(x), Value::Str(y)) => Ok(x == y),
            (Value::Bytes(x), Value::Bytes(y)) => Ok(x == y),
            // references in a tuple compare as the structs they refer to
            (Value::Ref(x), Value::Ref(y)) => {
                let item = self.vm.types.method_owner(ty);
                let (a, b) = (self.deref(x)?, self.deref(y)?);
                self.values_equal(f, item, &a, &b, whole)
            }
            (Value::Tuple(x), Value::Tuple(y)) => {
                let (xs, ys) = (&x.items, &y.items);
                if xs.len() != ys.len() {
                    return Ok(false);
                }
                let item_types = self.tuple_item_types(x);
                let _ = ty;
                for ((x, y), t) in xs.iter().zip(ys.iter()).zip(item_types) {
                    if !self.values_equal(f, t, x, y, whole)? {
                        return Ok(false);
                    }
                }
                Ok(xs.len() == ys.len())
            }
            (Value::List(x), Value::List(y)) => {
                let item_ty = self.vm.types.checked_list_item(x.ty)?;
                let (xs, ys) = (x.items.borrow().clone(), y.items.borrow().clone());
                if xs.len() != ys.len() {
                    return Ok(false);
                }
                for (a, b) in xs.iter().zip(ys.iter()) {
                    if !self.values_equal(f, item_ty, a, b, whole)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            (Value::Dict(x), Value::Dict(y)) => {
                let (x, y) = (x.clone(), y.clone());
                let ty = x.ty;
                self.dicts_equal(f, ty, &x, &y, whole)
            }
            (Value::Struct(x), Value::Struct(y)) => {
                if let Some(eq) = self.dunder(ty, "__eq__") {
                    let args = vec![
                        (Typed::red(ty, a.clone()), whole),
                        (Typed::red(ty, b.clone()), whole),
                    ];
                    let r = self.call_dunder(f, &eq, args, whole)?;
                    return Ok(Self::scalar_bool(&r.value));
                }
                let fields = self.vm.types.checked_struct_fields(x.ty)?.to_vec();
                for ((fx, fy), field) in x.fields.iter().zip(y.fields.iter()).zip(fields) {
                    if !self.values_equal(f, field.ty, fx, fy, whole)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            _ => Ok(self.identical(a, b)),
        }
    }

    /// Identity of reference values (`is`, and `==` on types/functions).
    pub(crate) fn identical(&self, a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::None, Value::None) => true,
            (Value::Type(x), Value::Type(y)) => x == y,
            (Value::Func(x), Value::Func(y)) => Rc::ptr_eq(x, y),
            (Value::Builtin(x), Value::Builtin(y)) => x == y,
            (Value::Exception(x), Value::Exception(y)) => Rc::ptr_eq(x, y),
            (Value::Module(x), Value::Module(y)) => x == y,
            (Value::Struct(x), Value::Struct(y)) => Rc::ptr_eq(x, y),
            (Value::Ptr(x), Value::Ptr(y)) => x.identity() == y.identity(),
            (Value::Meta(x), Value::Meta(y)) => Rc::ptr_eq(x, y),
            (Value::OpSpec(x), Value::OpSpec(y)) => Rc::ptr_eq(x, y),
            (Value::Scalar(x), Value::Scalar(y)) => x == y,
            (Value::Str(x), Value::Str(y)) => x == y,
            (Value::Bytes(x), Value::Bytes(y)) => x == y,
            _ => false,
        }
    }
}

/// An error of the pure operator layer, located at the whole operation.
fn op_error(f: &Frame, e: ops::OpError, whole: TextRange) -> Failure {
    SpyError::from(e).with_error(&f.file, whole, "").into()
}

#[inline]
fn prim_operand(v: &Value, to: PrimTy) -> Eval<Scalar> {
    match v {
        Value::Scalar(s) if s.ty() == to => Ok(*s),
        Value::Scalar(s) => Ok(ops::convert::convert(*s, to)),
        other => Err(crate::bug!("primitive operator applied to {other:?}")),
    }
}
