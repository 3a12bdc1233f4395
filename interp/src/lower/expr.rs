//! Expressions of residual code: literals, names, operators (typed by
//! `vm::ops`' signature functions), conversions, tuples, calls of red
//! functions and of builtins (`print`, `len`, `str`, `repr`, `T(x)`).

use spy_jit::ir::{BinOp as IB, CmpOp as IC, Op, SiteId, Stmt as IrStmt, Ty, UnOp, VReg, Word};

use super::errors::{Label, Site};
use super::func::{FnLower, LVal};
use super::helpers::binop_code;
use super::layout::{prim_code, prim_ty, word_of_scalar};
use super::{LowerError, Lowered};
use crate::error::ExcKind;
use crate::resolve::NameRef;
use crate::source::TextRange;
use crate::syntax::ast;
use crate::syntax::ast::{BinOp, BoolOp, CmpOp, ExprKind, UnaryOp};
use crate::syntax::ast::{ExprRef, Exprs};
use crate::vm::builtins::{self, Builtin};
use crate::vm::op_select::{self, EqImpl, OpImpl};
use crate::vm::ops::signatures::{self, BuiltinImpl, ConvImpl};
use crate::vm::ops::{self, convert, PrimTy, Scalar};
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::TypeId;
use crate::vm::value::{Function, StarKind, Typed, Value};
use std::rc::Rc;

/// The IR builder gave no result for a call declared with one.
fn no_result() -> LowerError {
    LowerError::bug("a helper call declared with a result has none")
}

impl FnLower<'_, '_, '_> {
    /// The blue value a name (or `module.attr`) denotes, if it is one
    /// (builtins, module-level constants, functions and types).
    pub fn static_value(&mut self, e: &ExprRef<'_>) -> Option<Value> {
        let kind = e.kind();
        let id = match &kind {
            ExprKind::Name(id) => id,
            ExprKind::Attribute { value, attr } => return self.static_attr(value, attr),
            // `SIMD[T, N]`: a type, evaluated by ASTFrame.
            ExprKind::Subscript { value, .. }
                if matches!(self.static_value(value), Some(Value::Builtin(Builtin::SimdType))) =>
            {
                return self.eval_type(e).ok().map(Value::Type);
            }
            ExprKind::Subscript { value, .. } => return self.static_subscript(value, e),
            _ => return None,
        };
        match self.res.name(id.id) {
            NameRef::Builtin(i) => Some(builtins::value(i).value),
            NameRef::Global(slot) => {
                let m = self.cx.interp.vm.module(self.module);
                let sym = m.resolution.module_scope.symbols.get(slot as usize)?;
                if sym.kind != crate::resolve::VarKind::Const {
                    return None;
                }
                // (a `def` the engine deferred gets its record now:
                // `frames::pending_def`)
                self.cx.interp.make_pending_def(self.module, slot as usize).ok()?;
                let m = self.cx.interp.vm.module(self.module);
                m.globals.get(slot as usize)?.as_ref()?.value.clone()
            }
            _ => None,
        }
    }

    /// The slot of `var` global `name` of module `m`, if it is one.
    fn module_var(&self, m: crate::vm::value::ModuleId, name: &str) -> Option<u32> {
        let module = self.cx.interp.vm.module(m);
        let slot = module.resolution.module_scope.find(name)?;
        (module.resolution.module_scope.symbols[slot].kind == crate::resolve::VarKind::Var)
            .then_some(slot as u32)
    }

    /// `obj.attr` of a static type or module (`T.__make__`, `T.method`,
    /// `m.f`), looked up by ASTFrame's `get_attr` (which has no effects on
    /// those).
    fn static_attr(&mut self, obj: &ExprRef<'_>, attr: &ast::Identifier) -> Option<Value> {
        let v = self.static_value(obj)?;
        let ty = match &v {
            Value::Type(_) => TypeId::TYPE,
            Value::Module(_) | Value::Builtin(Builtin::Module(_)) => self.cx.interp.dynamic_type(&v)?,
            _ => return None,
        };
        let interp = &mut *self.cx.interp;
        let mut frame = interp.module_frame(self.module);
        interp
            .get_attr(&mut frame, Typed::blue(ty, v), obj, attr)
            .ok()
            .map(|t| t.value)
    }

    /// `B[...]` of a static generic builtin or type with blue indices
    /// (`gc_alloc[T]`, `gc_ptr[T]`, `tuple[A, B]`), evaluated by ASTFrame in
    /// the module (which has no effects on those).
    fn static_subscript(&mut self, obj: &ExprRef<'_>, e: &ExprRef<'_>) -> Option<Value> {
        match self.static_value(obj)? {
            Value::Builtin(_) | Value::Type(_) => {}
            _ => return None,
        }
        let interp = &mut *self.cx.interp;
        let mut frame = interp.module_frame(self.module);
        let v = interp.eval_expr(&mut frame, e).ok()?;
        v.is_blue().then_some(v.value)
    }

    /// A static value used as a value (a constant).
    pub(crate) fn static_lval(&mut self, v: Option<Value>, what: &str, range: TextRange) -> Lowered<LVal> {
        match v {
            Some(Value::Scalar(s)) => Ok(self.konst(s)),
            Some(Value::Str(s)) => {
                let h = self.cx.string(&s);
                let r = self.fb.const_(Ty::Handle, h);
                Ok(LVal::one(TypeId::STR, r))
            }
            Some(Value::Bytes(b)) => Ok(self.bytes_literal(&b)),
            Some(Value::Exception(x)) => Ok(self.exception_lval(&x)),
            Some(Value::None) => Ok(LVal::none()),
            Some(Value::Ptr(p)) if p.mem.is_none() => self.ptr_null(p.ty, range),
            Some(Value::Type(t)) => match self.cx.type_handle(t) {
                Some(h) => Ok(LVal::one(TypeId::TYPE, self.fb.const_(Ty::Handle, h))),
                None => self.unsupported(format!("the type `{what}` (another type prints alike)"), range),
            },
            Some(_) => self.unsupported(format!("the value of `{what}` used as a value"), range),
            None => self.unsupported(format!("the module variable `{what}`"), range),
        }
    }

    fn konst(&mut self, s: Scalar) -> LVal {
        let r = self.fb.const_(prim_ty(s.ty()), word_of_scalar(s));
        LVal::one(TypeId::prim(s.ty()), r)
    }

    pub fn expr(&mut self, e: &ExprRef<'_>) -> Lowered<LVal> {
        match &e.kind() {
            ExprKind::Int(v) => match i32::try_from(*v) {
                Ok(x) => Ok(self.konst(Scalar::I32(x))),
                Err(_) => self.unsupported("an integer literal out of the `i32` range", e.range),
            },
            ExprKind::Float(x) => Ok(self.konst(Scalar::F64(*x))),
            ExprKind::Bool(b) => Ok(self.konst(Scalar::Bool(*b))),
            ExprKind::None => Ok(LVal::none()),
            ExprKind::Str(s) => {
                let h = self.cx.string(s);
                let r = self.fb.const_(Ty::Handle, h);
                Ok(LVal::one(TypeId::STR, r))
            }
            ExprKind::Name(id) => match self.res.name(id.id) {
                NameRef::Local(_) => self.read_local(id),
                NameRef::Global(_) if self.static_value(e).is_none() => self.read_local(id),
                _ => {
                    let v = self.static_value(e);
                    self.static_lval(v, &id.name, e.range)
                }
            },
            ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            } if matches!(operand.kind(), ExprKind::Int(_)) => {
                let ExprKind::Int(v) = operand.kind() else {
                    return Err(LowerError::bug("a negated literal that is not an int"));
                };
                match i32::try_from(-(v as i128)) {
                    Ok(x) => Ok(self.konst(Scalar::I32(x))),
                    Err(_) => self.unsupported("an integer literal out of the `i32` range", e.range),
                }
            }
            ExprKind::UnaryOp { op, operand } => {
                let v = self.expr(operand)?;
                self.unary(*op, v, e.range)
            }
            ExprKind::BinOp { left, op, right } => {
                let l = self.expr(left)?;
                let r = self.expr(right)?;
                self.binop(*op, l, left.range, r, right.range, e.range)
            }
            ExprKind::Compare { left, op, right } => {
                let l = self.expr(left)?;
                let r = self.expr(right)?;
                self.compare(*op, l, r, e.range)
            }
            ExprKind::BoolOp { op, left, right } => {
                let l = self.condition(left)?;
                let out = self.fb.local(Ty::Bool);
                self.fb.assign(out, Op::Copy(l));
                // `and` evaluates the right operand when the left is true.
                self.fb.open_block();
                let r = self.maybe_runs(|l| l.condition(right).map(|r| l.fb.assign(out, Op::Copy(r))));
                let other = self.fb.close_block();
                r?;
                let (then_, else_) = match op {
                    BoolOp::And => (other, Default::default()),
                    BoolOp::Or => (Default::default(), other),
                };
                self.fb.push(IrStmt::If {
                    cond: l,
                    then_,
                    else_,
                });
                let v = self.fb.op(Ty::Bool, Op::Copy(out));
                Ok(LVal::one(TypeId::BOOL, v))
            }
            ExprKind::IfExp { test, body, orelse } => {
                let c = self.condition(test)?;
                self.fb.open_block();
                let a = self.maybe_runs(|l| l.expr(body));
                let then_ = self.fb.close_block();
                let a = a?;
                let tys = self.cx.flatten(a.ty, &self.file, body.range)?;
                let out: Vec<VReg> = tys.iter().map(|&t| self.fb.local(t)).collect();
                let mut then_ = then_;
                for (&o, &r) in out.iter().zip(&a.regs) {
                    then_.0.push(IrStmt::Assign {
                        dst: o,
                        op: Op::Copy(r),
                    });
                }
                self.fb.open_block();
                let b = self.maybe_runs(|l| l.expr(orelse).and_then(|b| l.coerce(b, a.ty, orelse.range)));
                if let Ok(b) = &b {
                    for (&o, &r) in out.iter().zip(&b.regs) {
                        self.fb.assign(o, Op::Copy(r));
                    }
                }
                let else_ = self.fb.close_block();
                b?;
                self.fb.push(IrStmt::If {
                    cond: c,
                    then_,
                    else_,
                });
                let regs = out
                    .iter()
                    .map(|&o| {
                        let t = self.fb.ty(o);
                        self.fb.op(t, Op::Copy(o))
                    })
                    .collect();
                Ok(LVal { ty: a.ty, regs })
            }
            ExprKind::Tuple(items) => {
                let mut tys = Vec::new();
                let mut regs = Vec::new();
                for item in items {
                    if matches!(item.kind(), ExprKind::Starred(_)) {
                        return self.unsupported("a starred item in a tuple display", item.range);
                    }
                    let v = self.expr(&item)?;
                    tys.push(v.ty);
                    regs.extend(v.regs);
                }
                let ty = self.cx.interp.vm.types.tuple(tys);
                Ok(LVal { ty, regs })
            }
            ExprKind::Walrus { target, value } => {
                let v = self.expr(value)?;
                self.declare_walrus(target, v.ty)?;
                self.store_local(target, v, value.range)?;
                self.read_local(target)
            }
            // `list[f64]` used as a value (a dict key): a type constant
            ExprKind::Subscript { value, indices } => match self.static_value(e) {
                Some(t @ Value::Type(_)) => self.static_lval(Some(t), "this type", e.range),
                _ => self.subscript(value, indices, e.range),
            },
            ExprKind::Call { func, args } => self.call(e, func, args),
            ExprKind::Attribute { value, attr } => match self.static_value(value) {
                // `m.x` of a `var` of user module `m`: read at run time
                Some(Value::Module(m)) if self.module_var(m, &attr.name).is_some() => {
                    let slot = self.module_var(m, &attr.name).expect("checked");
                    self.read_global_of(m, slot, &attr.name, e.range)
                }
                Some(_) => {
                    let v = self.static_attr(value, attr);
                    self.static_lval(v, &attr.name, e.range)
                }
                None => match &value.kind() {
                    ExprKind::Subscript { value: v, indices } => {
                        self.subscript_field(v, indices, value.range, attr, e.range)
                    }
                    _ => {
                        let obj = self.expr(value)?;
                        self.field(obj, attr, e.range)
                    }
                },
            },
            ExprKind::List(items) => self.list_display(items, e.range),
            ExprKind::Dict(pairs) => self.dict_display(pairs, e.range),
            ExprKind::Bytes(b) => Ok(self.bytes_literal(b)),
            _ => self.unsupported("this kind of expression", e.range),
        }
    }

    /// `e` converted to `bool` (conditions, `not`, `and`/`or`).
    pub fn condition(&mut self, e: &ExprRef<'_>) -> Lowered<VReg> {
        let v = self.expr(e)?;
        Ok(self.coerce(v, TypeId::BOOL, e.range)?.regs[0])
    }

    /// The implicit conversion of `x` to `to` (ASTFrame's `convert_to`).
    pub fn coerce(&mut self, x: LVal, to: TypeId, range: TextRange) -> Lowered<LVal> {
        if x.ty == to {
            return Ok(x);
        }
        if to == TypeId::BOOL && self.ptr_item(x.ty).is_some() {
            let r = self.ptr_truth(&x);
            return Ok(LVal::one(TypeId::BOOL, r));
        }
        if self.cx.interp.vm.types.ref_item(x.ty) == Some(to) {
            return self.deref(x, range);
        }
        if x.ty == TypeId::EMPTY_LIST && self.list_item(to).is_some() {
            return self.typed_empty_list(to, range);
        }
        if x.ty == TypeId::EMPTY_DICT && self.dict_types(to).is_some() {
            return self.dict_new(to, range);
        }
        if let (Some(a), Some(b)) = (x.ty.as_prim(), to.as_prim()) {
            if convert::implicit_convertible(a, b) {
                let r = self.fb.convert(prim_ty(b), x.regs[0]);
                return Ok(LVal::one(to, r));
            }
        }
        self.unsupported(
            format!(
                "a conversion from `{}` to `{}`",
                self.type_name(x.ty),
                self.type_name(to)
            ),
            range,
        )
    }

    /// A call site for a helper implementing the operation at `range`.
    fn helper_site(&mut self, range: TextRange) -> SiteId {
        self.helper_site_framed(range, self.stmt_range)
    }

    /// [`Self::helper_site`] with the caller's frame at `frame` (ASTFrame
    /// puts the frame of an error raised by a builtin or method call at the
    /// call, not at its statement).
    fn helper_site_framed(&mut self, range: TextRange, frame: TextRange) -> SiteId {
        let frame = self.frame_at(frame);
        self.cx.errors.site(Site {
            frame,
            label: Some(Label {
                range,
                text: String::new(),
            }),
        })
    }

    pub(crate) fn call_helper(
        &mut self,
        h: spy_jit::ir::HelperId,
        result: Option<Ty>,
        args: &[VReg],
        range: TextRange,
    ) -> Option<VReg> {
        let site = self.helper_site(range);
        self.fb.call_helper(h, result, args, site)
    }

    /// A helper implementing (part of) the builtin or method call at
    /// `call`; an error it raises is annotated at `label`, its frame at the
    /// call.
    pub(crate) fn call_helper_in_call(
        &mut self,
        h: spy_jit::ir::HelperId,
        result: Option<Ty>,
        args: &[VReg],
        label: TextRange,
        call: TextRange,
    ) -> Option<VReg> {
        let site = self.helper_site_framed(label, call);
        self.fb.call_helper(h, result, args, site)
    }

    /// [`Self::call_helper_in_call`] with a result: the result.
    pub(crate) fn helper_value_in_call(
        &mut self,
        h: spy_jit::ir::HelperId,
        result: Ty,
        args: &[VReg],
        label: TextRange,
        call: TextRange,
    ) -> Lowered<VReg> {
        self.call_helper_in_call(h, Some(result), args, label, call)
            .ok_or_else(no_result)
    }

    /// A call of a helper with a result: the result.
    pub(crate) fn helper_value(
        &mut self,
        h: spy_jit::ir::HelperId,
        result: Ty,
        args: &[VReg],
        range: TextRange,
    ) -> Lowered<VReg> {
        self.call_helper(h, Some(result), args, range)
            .ok_or_else(no_result)
    }

    fn word(&mut self, w: Word) -> VReg {
        self.fb.const_(Ty::U64, w)
    }

    fn unary(&mut self, op: UnaryOp, v: LVal, range: TextRange) -> Lowered<LVal> {
        let Some(t) = v.ty.as_prim() else {
            return self.unsupported(
                format!("`{}` of a `{}`", op.symbol(), self.type_name(v.ty)),
                range,
            );
        };
        let Some(result) = ops::unaryop_signature(op, t) else {
            return self.unsupported(format!("`{}` of a `{}`", op.symbol(), t), range);
        };
        match op {
            UnaryOp::Neg => {
                let r = self.fb.unary(UnOp::Neg, v.regs[0]);
                Ok(LVal::one(TypeId::prim(result), r))
            }
            UnaryOp::Not => {
                let b = self.coerce(v, TypeId::BOOL, range)?;
                let r = self.fb.unary(UnOp::Not, b.regs[0]);
                Ok(LVal::one(TypeId::BOOL, r))
            }
            UnaryOp::Pos | UnaryOp::Invert => self.unsupported(format!("unary `{}`", op.symbol()), range),
        }
    }

    pub fn binop(
        &mut self,
        op: BinOp,
        l: LVal,
        lr: TextRange,
        r: LVal,
        rr: TextRange,
        whole: TextRange,
    ) -> Lowered<LVal> {
        let simd = super::simd::SimdOp::Bin(op);
        if let Some(v) = self.simd_binop(simd, (l.clone(), lr), (r.clone(), rr), whole) {
            return v;
        }
        let imp = op_select::binop_impl(&self.cx.interp.vm, op, l.ty, r.ty);
        let sig = match imp {
            Some(OpImpl::PrimBin { operand, result, .. }) => ops::BinSig { operand, result },
            Some(OpImpl::StrConcat) => {
                let h = self.cx.helpers.str_concat;
                let v = self.call_helper(h, Some(Ty::Handle), &[l.regs[0], r.regs[0]], whole);
                return Ok(LVal::one(TypeId::STR, v.ok_or_else(no_result)?));
            }
            Some(OpImpl::StrRepeat) => {
                let h = self.cx.helpers.str_repeat;
                let v = self.call_helper(h, Some(Ty::Handle), &[l.regs[0], r.regs[0]], whole);
                return Ok(LVal::one(TypeId::STR, v.ok_or_else(no_result)?));
            }
            Some(OpImpl::Method { func, swap }) => {
                return self.dunder_call(&func, swap, (l, lr), (r, rr), whole)
            }
            Some(OpImpl::ListConcat { ty }) => return self.list_concat(ty, &l, &r, whole),
            Some(OpImpl::BytesConcat) => return self.bytes_concat(&l, &r, whole),
            Some(OpImpl::BytesRepeat) => return self.bytes_repeat(&l, r, rr, whole),
            Some(OpImpl::ListRepeat { ty }) => return self.list_repeat(ty, &l, r, rr, whole),
            _ => return self.unsupported_operator(l.ty, op.symbol(), r.ty, whole),
        };
        let operand = TypeId::prim(sig.operand);
        let a = self.coerce(l, operand, lr)?.regs[0];
        let b = self.coerce(r, operand, rr)?.regs[0];
        let result = TypeId::prim(sig.result);
        let p = sig.operand;
        let zero = |l: &mut Self, e: RuntimeError| l.rt_code(e, whole, "");
        let v = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
                if p.is_int() || p.is_float() || p == PrimTy::Bool =>
            {
                let ib = match op {
                    BinOp::Add => IB::Add,
                    BinOp::Sub => IB::Sub,
                    BinOp::Mul => IB::Mul,
                    BinOp::BitAnd => IB::And,
                    BinOp::BitOr => IB::Or,
                    _ => IB::Xor,
                };
                self.fb.binary(ib, a, b)
            }
            BinOp::FloorDiv if p.is_int() => {
                let code = zero(self, RuntimeError::IntFloorDivByZero);
                self.fb.floor_div(a, b, code)
            }
            BinOp::Mod if p.is_int() => {
                let code = zero(self, RuntimeError::IntModByZero);
                self.fb.floor_mod(a, b, code)
            }
            BinOp::Div if p.is_float() => {
                let code = zero(self, RuntimeError::FloatDivByZero);
                self.fb.fdiv(a, b, code)
            }
            BinOp::LShift | BinOp::RShift if p.is_int() => {
                let code = self.rt_code(RuntimeError::NegativeShiftCount, whole, "");
                let s = if op == BinOp::LShift {
                    spy_jit::ir::ShiftOp::Shl
                } else {
                    spy_jit::ir::ShiftOp::Shr
                };
                self.fb.shift(s, a, b, code)
            }
            BinOp::Div if p.is_int() => {
                let (h, ty) = (self.cx.helpers.int_div, self.word(prim_code(p)));
                let (wa, wb) = (self.fb.convert(Ty::U64, a), self.fb.convert(Ty::U64, b));
                self.call_helper(h, Some(Ty::F64), &[ty, wa, wb], whole)
                    .ok_or_else(no_result)?
            }
            BinOp::Pow if p.is_int() => {
                let h = self.cx.helpers.int_binop;
                let (o, ty) = (self.word(binop_code(op)), self.word(prim_code(p)));
                let (wa, wb) = (self.fb.convert(Ty::U64, a), self.fb.convert(Ty::U64, b));
                let w = self
                    .call_helper(h, Some(Ty::U64), &[o, ty, wa, wb], whole)
                    .ok_or_else(no_result)?;
                self.fb.convert(prim_ty(p), w)
            }
            BinOp::FloorDiv | BinOp::Mod | BinOp::Pow if p.is_float() => {
                let (h, t) = match p {
                    PrimTy::F64 => (self.cx.helpers.f64_binop, Ty::F64),
                    _ => (self.cx.helpers.f32_binop, Ty::F32),
                };
                let o = self.word(binop_code(op));
                self.helper_value(h, t, &[o, a, b], whole)?
            }
            _ => return self.unsupported(format!("`{p}` {} `{p}`", op.symbol()), whole),
        };
        Ok(LVal::one(result, v))
    }

    /// An operator implemented by a red dunder method: a call, with the
    /// operands swapped for a reflected dunder.
    fn dunder_call(
        &mut self,
        func: &Rc<Function>,
        swap: bool,
        l: (LVal, TextRange),
        r: (LVal, TextRange),
        whole: TextRange,
    ) -> Lowered<LVal> {
        let args = if swap { vec![r, l] } else { vec![l, r] };
        self.call_red(func, args, whole)
    }

    /// An operator whose implementation the lowering does not handle yet.
    fn unsupported_operator<T>(&self, l: TypeId, symbol: &str, r: TypeId, whole: TextRange) -> Lowered<T> {
        let what = format!("`{}` {symbol} `{}`", self.type_name(l), self.type_name(r));
        self.unsupported(what, whole)
    }

    pub(super) fn compare(&mut self, op: CmpOp, l: LVal, r: LVal, whole: TextRange) -> Lowered<LVal> {
        let simd = super::simd::SimdOp::Cmp(op);
        if let Some(v) = self.simd_binop(simd, (l.clone(), whole), (r.clone(), whole), whole) {
            return v;
        }
        let imp = op_select::cmpop_impl(&self.cx.interp.vm, op, l.ty, r.ty);
        let (l, r) = match &imp {
            Some(imp) if imp.decays_operands() => (self.decayed(l, whole)?, self.decayed(r, whole)?),
            _ => (l, r),
        };
        let negated = |me: &mut Self, negate: bool, v: VReg| {
            let v = if negate { me.fb.unary(UnOp::Not, v) } else { v };
            Ok(LVal::one(TypeId::BOOL, v))
        };
        let operand = match imp {
            Some(OpImpl::PrimCmp { operand, .. }) => operand,
            Some(OpImpl::StrEq { negate }) => {
                let h = self.cx.helpers.str_eq;
                let eq = self.helper_value(h, Ty::Bool, &[l.regs[0], r.regs[0]], whole)?;
                return negated(self, negate, eq);
            }
            Some(OpImpl::ValueEq { negate }) => {
                let eq = self.value_eq(l.ty, &l, &r, whole)?;
                return negated(self, negate, eq);
            }
            Some(OpImpl::BytesEq { negate }) => {
                let eq = self.bytes_eq(&l, &r, whole)?;
                return negated(self, negate, eq);
            }
            Some(OpImpl::StrContains) => {
                let h = self.cx.helpers.str_methods.contains;
                let found = self.helper_value(h, Ty::Bool, &[l.regs[0], r.regs[0]], whole)?;
                return Ok(LVal::one(TypeId::BOOL, found));
            }
            Some(OpImpl::DictContains) => return self.dict_contains(&l, &r, whole),
            Some(OpImpl::ListContains) => {
                let found = self.list_scan(&r, &l, super::list::Scan::Contains, whole, whole)?;
                return Ok(found);
            }
            Some(OpImpl::RangeContains) => {
                let x = self.coerce(l, TypeId::I32, whole)?;
                let v = self.range_contains(x.regs[0], &r.regs, whole);
                return Ok(LVal::one(TypeId::BOOL, v));
            }
            Some(OpImpl::TupleContains) => {
                let items = self
                    .cx
                    .interp
                    .vm
                    .types
                    .tuple_items(r.ty)
                    .map(|i| i.to_vec())
                    .unwrap_or_default();
                let parts = self.split(&r, &items, whole)?;
                return self
                    .any_equal(&l, &parts, whole)
                    .map(|v| LVal::one(TypeId::BOOL, v));
            }
            Some(OpImpl::Method { func, swap }) => {
                return self.dunder_call(&func, swap, (l, whole), (r, whole), whole)
            }
            Some(OpImpl::IdentityEq { negate } | OpImpl::Is { negate })
                if l.ty == r.ty && (self.ptr_item(l.ty).is_some() || l.ty == TypeId::RAW_BUFFER) =>
            {
                let v = self.ptr_identity(&l, &r, negate);
                return Ok(LVal::one(TypeId::BOOL, v));
            }
            _ => return self.unsupported_operator(l.ty, op.symbol(), r.ty, whole),
        };
        let sig = ops::BinSig {
            operand,
            result: PrimTy::Bool,
        };
        let operand = TypeId::prim(sig.operand);
        let a = self.coerce(l, operand, whole)?.regs[0];
        let b = self.coerce(r, operand, whole)?.regs[0];
        let c = match op {
            CmpOp::Eq => IC::Eq,
            CmpOp::NotEq => IC::Ne,
            CmpOp::Lt => IC::Lt,
            CmpOp::LtE => IC::Le,
            CmpOp::Gt => IC::Gt,
            CmpOp::GtE => IC::Ge,
            _ => return self.unsupported(format!("`{}`", op.symbol()), whole),
        };
        let v = self.fb.cmp(c, a, b);
        Ok(LVal::one(TypeId::BOOL, v))
    }

    fn subscript(&mut self, value: &ExprRef<'_>, indices: &Exprs<'_>, range: TextRange) -> Lowered<LVal> {
        if let (ExprKind::Name(id), Some([index])) = (&value.kind(), indices.as_array()) {
            if self.is_interp_tuple_local(id) {
                return self.interp_tuple_item(id, &index, range);
            }
        }
        let v = self.expr(value)?;
        self.subscript_of(v, value, indices, range)
    }

    /// `obj.attr` where `obj` is the subscript `value[indices]`: for a
    /// pointer to structs and a field read by value, the field of the item
    /// is loaded directly (`memref::item_field`: the same checks as making
    /// the reference, without an explicit one), else the item, then its
    /// field.
    fn subscript_field(
        &mut self,
        value: &ExprRef<'_>,
        indices: &Exprs<'_>,
        sub_range: TextRange,
        attr: &ast::Identifier,
        range: TextRange,
    ) -> Lowered<LVal> {
        if let (ExprKind::Name(id), 1) = (&value.kind(), indices.len()) {
            if self.is_interp_tuple_local(id) {
                let obj = self.subscript(value, indices, sub_range)?;
                return self.field(obj, attr, range);
            }
        }
        let v = self.expr(value)?;
        if let Some([index]) = indices.as_array() {
            if let Some(r) = self.item_field(&v, &index, attr, sub_range)? {
                return Ok(r);
            }
        }
        let obj = self.subscript_of(v, value, indices, sub_range)?;
        self.field(obj, attr, range)
    }

    /// `v[indices]` of an evaluated `v` (the expression `value`).
    fn subscript_of(
        &mut self,
        v: LVal,
        value: &ExprRef<'_>,
        indices: &Exprs<'_>,
        range: TextRange,
    ) -> Lowered<LVal> {
        let Some([index]) = indices.as_array() else {
            return self.unsupported("a subscript with several indices", range);
        };
        let index = &index;
        if matches!(
            self.cx.interp.vm.types.kind(v.ty),
            crate::vm::types::TypeKind::Simd { .. }
        ) {
            let blue = match (&index.kind(), self.static_value(index)) {
                (ExprKind::Int(k), _) => Some(i32::try_from(*k).ok()),
                (_, Some(Value::Scalar(Scalar::I32(k)))) => Some(Some(k)),
                (_, Some(_)) => Some(None),
                (_, None) => None,
            };
            let ix = crate::vm::ops::signatures::Index {
                ty: TypeId::I32,
                blue,
            };
            return match crate::vm::ops::signatures::subscript_signature(
                &self.cx.interp.vm.types,
                v.ty,
                &[ix],
            ) {
                Some(Ok(crate::vm::ops::signatures::SubscriptSig {
                    imp: crate::vm::ops::signatures::SubscriptImpl::SimdLane(k),
                    ..
                })) => Ok(self.simd_lane(v, k)),
                _ => self.unsupported("a SIMD lane index that is not a blue in-range `i32`", index.range),
            };
        }
        if self.ptr_item(v.ty).is_some() {
            let i = self.expr(index)?;
            let i = self.coerce(i, TypeId::I32, index.range)?;
            return self.ptr_getitem(v, i.regs[0], range);
        }
        if self.list_item(v.ty).is_some() {
            if let ExprKind::Slice { lower, upper, step } = &index.kind() {
                let b = [lower.as_ref(), upper.as_ref(), step.as_ref()];
                return self.list_slice(v, value.range, b);
            }
            let i = self.expr(index)?;
            let i = self.coerce(i, TypeId::I32, index.range)?;
            return self.list_getitem(v, i.regs[0], index.range);
        }
        if v.ty == TypeId::BYTES {
            if let ExprKind::Slice { lower, upper, step } = &index.kind() {
                let b = [lower.as_ref(), upper.as_ref(), step.as_ref()];
                return self.list_slice(v, value.range, b);
            }
            return self.bytes_getitem(v, index, range);
        }
        if self.dict_types(v.ty).is_some() {
            return self.dict_getitem(v, index, range);
        }
        if v.ty == TypeId::STR {
            if let ExprKind::Slice { lower, upper, step } = &index.kind() {
                let b = [lower.as_ref(), upper.as_ref(), step.as_ref()];
                return self.list_slice(v, value.range, b);
            }
            let i = self.expr(index)?;
            let i = self.coerce(i, TypeId::I32, index.range)?;
            let i = self.fb.convert(Ty::I64, i.regs[0]);
            let h = self.cx.helpers.str_index;
            let r = self.call_helper(h, Some(Ty::Handle), &[v.regs[0], i], range);
            return Ok(LVal::one(TypeId::STR, r.ok_or_else(no_result)?));
        }
        let Some(items) = self.cx.interp.vm.types.tuple_items(v.ty).map(|i| i.to_vec()) else {
            return self.unsupported(format!("a subscript of a `{}`", self.type_name(v.ty)), range);
        };
        let k = match &index.kind() {
            ExprKind::Int(k) => Some(*k as i128),
            ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            } => match operand.kind() {
                ExprKind::Int(k) => Some(-(k as i128)),
                _ => None,
            },
            _ => None,
        };
        let n = items.len() as i128;
        match k.map(|k| if k < 0 { k + n } else { k }) {
            Some(k) if (0..n).contains(&k) => {
                let parts = self.split(&v, &items, range)?;
                Ok(parts[k as usize].clone())
            }
            _ => self.unsupported("a tuple subscript that is not an in-range literal", index.range),
        }
    }

    /// `x in r` for a range `r` (ASTFrame's `RangeContains`): between the
    /// bounds on the step's side, at a whole number of steps from start.
    fn range_contains(&mut self, x: VReg, r: &[VReg], whole: TextRange) -> VReg {
        let [x, start, stop, step] = [x, r[0], r[1], r[2]].map(|v| self.fb.convert(Ty::I64, v));
        let zero = self.fb.const_(Ty::I64, 0);
        let pos = self.fb.cmp(IC::Gt, step, zero);
        let from_start = self.fb.cmp(IC::Le, start, x);
        let below = self.fb.cmp(IC::Lt, x, stop);
        let up = self.fb.binary(IB::And, from_start, below);
        let above = self.fb.cmp(IC::Lt, stop, x);
        let to_start = self.fb.cmp(IC::Le, x, start);
        let down = self.fb.binary(IB::And, above, to_start);
        let up = self.fb.binary(IB::And, pos, up);
        let neg = self.fb.unary(UnOp::Not, pos);
        let down = self.fb.binary(IB::And, neg, down);
        let inside = self.fb.binary(IB::Or, up, down);
        // (a range's step is never 0: the code is never raised)
        let code = self.rt_code(RuntimeError::IntModByZero, whole, "");
        let off = self.fb.binary(IB::Sub, x, start);
        let m = self.fb.floor_mod(off, step, code);
        let on_step = self.fb.cmp(IC::Eq, m, zero);
        self.fb.binary(IB::And, inside, on_step)
    }

    /// `a == b` for two values of value type `ty`, decided by
    /// `op_select::value_eq_impl` (parts compared in order, the first
    /// unequal one stops, as ASTFrame's `values_equal`).
    pub(super) fn value_eq(&mut self, ty: TypeId, a: &LVal, b: &LVal, range: TextRange) -> Lowered<VReg> {
        if let Some(item) = self.cx.interp.vm.types.ref_item(ty) {
            // references in a tuple compare as the structs they refer to
            let (a, b) = (self.deref(a.clone(), range)?, self.deref(b.clone(), range)?);
            return self.value_eq(item, &a, &b, range);
        }
        if self.list_item(ty).is_some() {
            return self.list_eq(a, b, range);
        }
        if self.dict_types(ty).is_some() || ty == TypeId::EMPTY_DICT {
            return self.dict_eq(a, b, range);
        }
        if ty == TypeId::BYTES {
            return self.bytes_eq(a, b, range);
        }
        let Some(imp) = op_select::value_eq_impl(&self.cx.interp.vm, ty) else {
            let t = self.type_name(ty);
            return self.unsupported(format!("`{t}` == `{t}`"), range);
        };
        Ok(match imp {
            EqImpl::Prim(_) => self.fb.cmp(IC::Eq, a.regs[0], b.regs[0]),
            EqImpl::Str => {
                let h = self.cx.helpers.str_eq;
                self.helper_value(h, Ty::Bool, &[a.regs[0], b.regs[0]], range)?
            }
            EqImpl::Always => self.fb.const_(Ty::Bool, 1),
            EqImpl::Dunder(func) => {
                if func.ret() != TypeId::BOOL {
                    return self.unsupported(format!("`{}` not returning `bool`", func.fqn), range);
                }
                let r = self.call_red(&func, vec![(a.clone(), range), (b.clone(), range)], range)?;
                r.regs[0]
            }
            EqImpl::Items(items) => {
                let (xs, ys) = (self.split(a, &items, range)?, self.split(b, &items, range)?);
                let out = self.fb.local(Ty::Bool);
                let t = self.fb.const_(Ty::Bool, 1);
                self.fb.assign(out, Op::Copy(t));
                self.all_of(out, &items, &xs, &ys, range)?;
                self.fb.op(Ty::Bool, Op::Copy(out))
            }
        })
    }

    /// `out = xs[0] == ys[0] and xs[1] == ys[1] and ...` (short-circuit).
    fn all_of(
        &mut self,
        out: VReg,
        items: &[TypeId],
        xs: &[LVal],
        ys: &[LVal],
        range: TextRange,
    ) -> Lowered<()> {
        let Some((&t, rest)) = items.split_first() else {
            return Ok(());
        };
        let eq = self.value_eq(t, &xs[0], &ys[0], range)?;
        self.fb.assign(out, Op::Copy(eq));
        if rest.is_empty() {
            return Ok(());
        }
        self.fb.open_block();
        let r = self.all_of(out, rest, &xs[1..], &ys[1..], range);
        let then_ = self.fb.close_block();
        r?;
        self.fb.push(IrStmt::If {
            cond: eq,
            then_,
            else_: Default::default(),
        });
        Ok(())
    }

    /// `x in (a, b, ...)`: `x == a or x == b or ...` (short-circuit).
    fn any_equal(&mut self, x: &LVal, parts: &[LVal], range: TextRange) -> Lowered<VReg> {
        let out = self.fb.local(Ty::Bool);
        let f = self.fb.const_(Ty::Bool, 0);
        self.fb.assign(out, Op::Copy(f));
        self.any_of(out, x, parts, range)?;
        Ok(self.fb.op(Ty::Bool, Op::Copy(out)))
    }

    fn any_of(&mut self, out: VReg, x: &LVal, parts: &[LVal], range: TextRange) -> Lowered<()> {
        let Some((p, rest)) = parts.split_first() else {
            return Ok(());
        };
        let eq = self.value_eq(x.ty, x, p, range)?;
        self.fb.assign(out, Op::Copy(eq));
        if rest.is_empty() {
            return Ok(());
        }
        self.fb.open_block();
        let r = self.any_of(out, x, rest, range);
        let else_ = self.fb.close_block();
        r?;
        self.fb.push(IrStmt::If {
            cond: eq,
            then_: Default::default(),
            else_,
        });
        Ok(())
    }

    /// `obj.attr` of a struct value: its field (a slice of its registers).
    fn field(&mut self, obj: LVal, attr: &ast::Identifier, range: TextRange) -> Lowered<LVal> {
        if self.is_mem_field(obj.ty, attr) {
            return self.mem_get_field(obj, attr, range);
        }
        let fields = self.cx.interp.vm.types.struct_fields(obj.ty).map(|f| f.to_vec());
        let Some(fields) = fields else {
            return self.unsupported(format!("an attribute of a `{}`", self.type_name(obj.ty)), range);
        };
        let Some(i) = fields.iter().position(|f| f.name == attr.name) else {
            return self.unsupported(format!("the unknown field `{}`", attr.name), range);
        };
        let tys: Vec<TypeId> = fields.iter().map(|f| f.ty).collect();
        let mut parts = self.split(&obj, &tys, range)?;
        Ok(parts.swap_remove(i))
    }

    /// A call of red function `func` of the module with evaluated
    /// arguments (converted to its parameter types); the caller's frame
    /// points at `range`.
    pub fn call_red(
        &mut self,
        func: &Rc<Function>,
        args: Vec<(LVal, TextRange)>,
        range: TextRange,
    ) -> Lowered<LVal> {
        let d = self.cx.declare(func, &self.file, range)?;
        // A parameter pack takes `len(types)` arguments, each converted to
        // its type (ASTFrame's `bind_args`).
        let pack = match func.star() {
            Some(st) => match &st.kind {
                StarKind::Pack(_, types) => Some((st.index, types.clone())),
                StarKind::Variadic(_) => None,
            },
            None => None,
        };
        let expected =
            func.params.len() + pack.as_ref().map_or(0, |(_, t)| t.len()) - usize::from(pack.is_some());
        if args.len() != expected {
            return self.unsupported("a call with the wrong number of arguments", range);
        }
        let mut regs = Vec::new();
        let mut given = args.into_iter();
        for (k, p) in func.params.iter().enumerate() {
            match &pack {
                Some((index, types)) if *index == k => {
                    for &t in types {
                        let (v, r) = given.next().ok_or_else(|| LowerError::bug("pack arity"))?;
                        regs.extend(self.coerce(v, t, r)?.regs);
                    }
                }
                _ => {
                    let (v, r) = given.next().ok_or_else(|| LowerError::bug("call arity"))?;
                    regs.extend(self.coerce(v, p.ty, r)?.regs);
                }
            }
        }
        let site = self.cx.errors.site(Site {
            frame: self.frame_at(range),
            label: None,
        });
        let regs = super::simd::to_abi(&mut self.fb, &regs);
        let results = self.fb.call_with(d.id, &d.results, &regs, site);
        let tys = self.cx.flatten(func.ret(), &self.file, range)?;
        Ok(LVal {
            ty: func.ret(),
            regs: super::simd::from_abi(&mut self.fb, &tys, &results),
        })
    }

    // -------------------------------------------------------------- calls

    fn call(&mut self, e: &ExprRef<'_>, func: &ExprRef<'_>, args: &Exprs<'_>) -> Lowered<LVal> {
        if let Some((name, v, _)) = crate::resolve::prefixed_int_literal(e) {
            if matches!(
                self.res.name(match &func.kind() {
                    ExprKind::Name(id) => id.id,
                    _ => return Err(LowerError::bug("a prefixed literal whose callee is not a name")),
                }),
                NameRef::Builtin(_)
            ) {
                let p =
                    PrimTy::from_name(&name).ok_or_else(|| LowerError::bug("a prefixed literal's type"))?;
                let s = Scalar::wrap_int(v, p).ok_or_else(|| LowerError::bug("a prefixed literal's type"))?;
                return Ok(self.konst(s));
            }
        }
        if args.iter().any(|a| matches!(a.kind(), ExprKind::Starred(_))) {
            return self.unsupported("a starred call argument", e.range);
        }
        let callee = self.static_value(func);
        if let (None, ExprKind::Attribute { value, attr }) = (&callee, &func.kind()) {
            let recv = self.expr(value)?;
            if recv.ty == TypeId::EMPTY_LIST || self.list_item(recv.ty).is_some() {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                return self.list_method(recv, value.range, &attr.name, vals, e.range);
            }
            if self.cx.interp.vm.types.list_iter_list(recv.ty).is_some() && args.is_empty() {
                return self.list_iter_method(recv, value.range, &attr.name, e.range);
            }
            if recv.ty == TypeId::FILE {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                return self.file_method(recv, &attr.name, attr.range, vals, e.range);
            }
            if self.dict_types(recv.ty).is_some() {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                return self.dict_method(recv, value.range, &attr.name, vals, e.range);
            }
            if recv.ty == TypeId::STR || recv.ty == TypeId::BYTES {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                return self.text_method(recv, &attr.name, vals, func.range, e.range);
            }
            return self.unsupported(format!("a method of a `{}`", self.type_name(recv.ty)), func.range);
        }
        match callee {
            Some(Value::Func(f)) => {
                self.cx.declare(&f, &self.file, e.range)?;
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                self.call_red(&f, vals, e.range)
            }
            Some(Value::Builtin(Builtin::StructMake(t))) => {
                let fields = self
                    .cx
                    .interp
                    .vm
                    .types
                    .struct_fields(t)
                    .map(|f| f.to_vec())
                    .unwrap_or_default();
                if fields.len() != args.len() {
                    return self.unsupported("a `__make__` with the wrong number of arguments", e.range);
                }
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                let mut regs = Vec::new();
                for ((v, r), fd) in vals.into_iter().zip(&fields) {
                    regs.extend(self.coerce(v, fd.ty, r)?.regs);
                }
                Ok(LVal { ty: t, regs })
            }
            Some(Value::Builtin(Builtin::AllocOf { item, gc })) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                let tys: Vec<TypeId> = vals.iter().map(|(v, _)| v.ty).collect();
                let types = &mut self.cx.interp.vm.types;
                let sig =
                    signatures::builtin_signature(types, Builtin::AllocOf { item, gc }, &tys, |_| false);
                let (Some(Ok(sig)), [(n, r)]) = (sig, vals.as_slice()) else {
                    return self.unsupported("this `gc_alloc` call", e.range);
                };
                let n = self.coerce(n.clone(), TypeId::I32, *r)?;
                let ty = sig
                    .result
                    .ok_or_else(|| LowerError::bug("gc_alloc without a result type"))?;
                self.ptr_alloc(ty, item, n.regs[0], *r, e.range)
            }
            Some(Value::Builtin(b @ (Builtin::PtrSimdLoadOf(_) | Builtin::PtrSimdStore))) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                self.simd_memory(b, vals, e.range)
            }
            Some(Value::Builtin(b @ Builtin::Mem(op))) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                let tys: Vec<TypeId> = vals.iter().map(|(v, _)| v.ty).collect();
                let types = &mut self.cx.interp.vm.types;
                let Some(Ok(sig)) = signatures::builtin_signature(types, b, &tys, |_| false) else {
                    return self.unsupported(format!("this `{}` call", b.name()), e.range);
                };
                self.mem_op(op, &sig.params, vals, e.range)
            }
            Some(Value::Builtin(Builtin::Range)) => {
                // a range object (a `for` loop over `range(...)` does not make one)
                let (start, stop, step) = self.range_parts(args, e.range, Some(e.range))?;
                let regs = [start, stop, step].map(|r| self.fb.convert(Ty::I32, r)).to_vec();
                Ok(LVal {
                    ty: TypeId::RANGE,
                    regs,
                })
            }
            Some(Value::Builtin(Builtin::Print)) => self.print(args, e.range),
            Some(Value::Builtin(Builtin::Ord)) => self.ord_call(args, e.range),
            Some(Value::Builtin(Builtin::ExcClass(_))) => self.exception_make(e, args),
            Some(Value::Builtin(Builtin::Div(d))) => self.unsafe_div(d, args, e.range),
            Some(Value::Builtin(Builtin::Rb(r))) => self.rawbuffer_call(r, args, e.range),
            Some(Value::Builtin(Builtin::Open)) => self.file_open(args, e.range),
            Some(Value::Builtin(b @ (Builtin::Time | Builtin::Sleep | Builtin::Math(_)))) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                let tys: Vec<TypeId> = vals.iter().map(|(v, _)| v.ty).collect();
                let types = &mut self.cx.interp.vm.types;
                let sig = signatures::builtin_signature(types, b, &tys, |_| false);
                let Some(Ok(sig)) = sig else {
                    return self.unsupported(format!("this `{}` call", b.name()), e.range);
                };
                let mut regs = Vec::new();
                for ((v, r), p) in vals.into_iter().zip(&sig.params) {
                    regs.extend(match p {
                        Some(t) => self.coerce(v, *t, r)?.regs,
                        None => v.regs,
                    });
                }
                let hs = self.cx.helpers;
                match sig.imp {
                    BuiltinImpl::Time => {
                        let r = self.helper_value(hs.time_now, Ty::F64, &regs, e.range)?;
                        Ok(LVal::one(TypeId::F64, r))
                    }
                    BuiltinImpl::Math(m) => {
                        // one helper for every function: its number, then
                        // two f64 operands (the second unused by the unary)
                        let code = ops::math::MathFn::ALL
                            .iter()
                            .position(|&x| x == m)
                            .ok_or_else(|| LowerError::bug("a math function not in MathFn::ALL"))?;
                        let mut args = vec![self.word(code as Word)];
                        args.extend(regs);
                        if args.len() < 3 {
                            args.push(self.fb.const_(Ty::F64, 0f64.to_bits()));
                        }
                        let r = self.helper_value(hs.math_call, Ty::F64, &args, e.range)?;
                        Ok(LVal::one(TypeId::F64, r))
                    }
                    _ => {
                        self.call_helper(hs.sleep, None, &regs, e.range);
                        Ok(LVal::none())
                    }
                }
            }
            Some(Value::Type(t)) if self.is_interp_list(t) => {
                self.interp_list_make(t, args, func.range, e.range)
            }
            Some(Value::Type(t)) if self.list_item(t).is_some() && args.is_empty() => {
                self.list_empty(t, e.range)
            }
            Some(Value::Type(t)) if self.dict_types(t).is_some() && args.is_empty() => {
                self.dict_new(t, e.range)
            }
            Some(Value::Type(t)) if self.cx.interp.vm.types.tuple_items(t).is_some() => {
                // `tuple[A, B](a, b)`: each argument converted to its item
                // type (ASTFrame's `call_type`).
                let items = self
                    .cx
                    .interp
                    .vm
                    .types
                    .tuple_items(t)
                    .map(|i| i.to_vec())
                    .unwrap_or_default();
                if items.len() != args.len() {
                    return self
                        .unsupported("a tuple constructor with the wrong number of arguments", e.range);
                }
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                let mut regs = Vec::new();
                for ((v, r), &it) in vals.into_iter().zip(&items) {
                    regs.extend(self.coerce(v, it, r)?.regs);
                }
                Ok(LVal { ty: t, regs })
            }
            Some(Value::Builtin(Builtin::Repr)) => {
                let Some([a]) = args.as_array() else {
                    return self.unsupported("`repr` with other than one argument", e.range);
                };
                let v = self.expr(&a)?;
                let outer = self.display_call.replace(e.range);
                let s = self.repr(v, a.range);
                self.display_call = outer;
                Ok(LVal::one(TypeId::STR, s?))
            }
            Some(Value::Builtin(Builtin::Len)) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(&a)?);
                }
                let tys: Vec<TypeId> = vals.iter().map(|v| v.ty).collect();
                let types = &mut self.cx.interp.vm.types;
                let sig = signatures::builtin_signature(types, Builtin::Len, &tys, |_| false);
                match (sig, vals.as_slice()) {
                    (Some(Ok(sig)), [v]) => match sig.imp {
                        BuiltinImpl::LenOfStr => {
                            let h = self.cx.helpers.str_len;
                            let r = self.helper_value(h, Ty::I32, &[v.regs[0]], e.range)?;
                            Ok(LVal::one(TypeId::I32, r))
                        }
                        BuiltinImpl::LenOfTuple(n) => Ok(self.konst(Scalar::I32(n as i32))),
                        BuiltinImpl::LenOfBytes => self.bytes_len(v, e.range),
                        BuiltinImpl::LenOfDict => self.dict_len(v, e.range),
                        BuiltinImpl::LenOfList
                            if self.list_item(v.ty).is_some() || v.ty == TypeId::EMPTY_LIST =>
                        {
                            let r = self.list_len(v, e.range)?;
                            Ok(LVal::one(TypeId::I32, r))
                        }
                        _ => self.unsupported(format!("`len` of a `{}`", self.type_name(v.ty)), e.range),
                    },
                    _ => self.unsupported("this `len` call", e.range),
                }
            }
            Some(Value::Type(t))
                if matches!(
                    self.cx.interp.vm.types.kind(t),
                    crate::vm::types::TypeKind::Simd { .. }
                ) =>
            {
                let mut vals = Vec::new();
                for a in args {
                    vals.push((self.expr(&a)?, a.range));
                }
                self.simd_make(t, vals, e.range)
            }
            Some(Value::Type(t)) if t.as_prim().is_some() || t == TypeId::STR => {
                let Some([a]) = args.as_array() else {
                    let n = self.type_name(t);
                    return self.unsupported(format!("`{n}(...)` with other than one argument"), e.range);
                };
                let v = self.expr(&a)?;
                self.conversion(t, v, a.range, e.range)
            }
            Some(Value::Builtin(b @ (Builtin::Min | Builtin::Max | Builtin::Abs))) => {
                self.min_max_abs(b, args, e.range)
            }
            _ => self.unsupported("a call of this callee", func.range),
        }
    }

    /// `to(v)`: the implementation `conversion_signature` selects (the
    /// table ASTFrame uses).
    fn conversion(&mut self, to: TypeId, v: LVal, arg: TextRange, whole: TextRange) -> Lowered<LVal> {
        let sig = signatures::conversion_signature(&self.cx.interp.vm.types, to, v.ty);
        match sig {
            Ok(ConvImpl::Identity) => Ok(v),
            Ok(ConvImpl::Str) => {
                let outer = self.display_call.replace(whole);
                let s = self.str_of(v, arg);
                self.display_call = outer;
                Ok(LVal::one(TypeId::STR, s?))
            }
            Ok(ConvImpl::Prim { to: p, .. }) => {
                let r = self.fb.convert(prim_ty(p), v.regs[0]);
                Ok(LVal::one(to, r))
            }
            Ok(ConvImpl::StrToInt(p)) => {
                let ty = self.word(prim_code(p));
                let h = self.cx.helpers.str_to_int;
                let w = self.helper_value(h, Ty::U64, &[ty, v.regs[0]], whole)?;
                let r = self.fb.convert(prim_ty(p), w);
                Ok(LVal::one(to, r))
            }
            // a static error: redshift leaves a lazy `$raise` instead
            Err(_) => self.unsupported(
                format!("`{}(x)` of a `{}`", self.type_name(to), self.type_name(v.ty)),
                whole,
            ),
        }
    }

    /// `str(e)` of a blue value that is not a scalar or a str (a type, a
    /// function, a builtin), formatted now by ASTFrame's `str_of`.
    fn static_text(&mut self, e: &ExprRef<'_>) -> Option<String> {
        if let ExprKind::Tuple(items) = &e.kind() {
            return self.static_tuple_text(e, items);
        }
        let v = self.static_value(e)?;
        if matches!(v, Value::Scalar(_) | Value::Str(_) | Value::None) {
            return None;
        }
        let ty = match &v {
            Value::Type(_) => TypeId::TYPE,
            _ => TypeId::BUILTIN_FUNC,
        };
        let interp = &mut *self.cx.interp;
        let frame = interp.module_frame(self.module);
        interp
            .str_of(&frame, &crate::vm::value::Typed::blue(ty, v), e.range)
            .ok()
    }

    /// Whether `e` is made of blue values only (literals, static names,
    /// tuples of those): evaluating it has no effect.
    pub(crate) fn is_static_expr(&mut self, e: &ExprRef<'_>) -> bool {
        match &e.kind() {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) | ExprKind::None => {
                true
            }
            ExprKind::Tuple(items) => items.iter().all(|i| self.is_static_expr(&i)),
            ExprKind::Name(_) | ExprKind::Attribute { .. } | ExprKind::Subscript { .. } => {
                self.static_value(e).is_some()
            }
            _ => false,
        }
    }

    /// The text of a tuple display of blue values that is not a value of
    /// a static tuple type (an interp tuple: types, functions), formatted
    /// now by ASTFrame.
    fn static_tuple_text(&mut self, e: &ExprRef<'_>, items: &Exprs<'_>) -> Option<String> {
        if !items.iter().all(|i| self.is_static_expr(&i)) {
            return None;
        }
        let interp = &mut *self.cx.interp;
        let mut frame = interp.module_frame(self.module);
        let v = interp.eval_expr(&mut frame, e).ok()?;
        if v.ty != TypeId::INTERP_TUPLE || !v.is_blue() {
            return None;
        }
        interp.str_of(&frame, &v, e.range).ok()
    }

    /// `str(v)`: a str handle.
    fn str_of(&mut self, v: LVal, range: TextRange) -> Lowered<VReg> {
        if v.ty == TypeId::STR {
            return Ok(v.regs[0]);
        }
        self.repr(v, range)
    }

    /// `repr(v)`, formatted by the interpreter's `format` functions.
    pub(super) fn repr(&mut self, v: LVal, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        if v.ty == TypeId::STR {
            return self.helper_value(hs.repr_str, Ty::Handle, &[v.regs[0]], range);
        }
        if v.ty == TypeId::BYTES {
            return self.bytes_repr(&v, range);
        }
        if v.ty == TypeId::EXCEPTION {
            return self.exception_repr(&v, range);
        }
        if v.ty == TypeId::TYPE {
            // (the handle of the type's repr: `LowerCx::type_handle`)
            return Ok(v.regs[0]);
        }
        if v.ty == TypeId::NONE {
            let h = self.cx.string("None");
            return Ok(self.fb.const_(Ty::Handle, h));
        }
        if v.ty == TypeId::RANGE {
            return self.helper_value(hs.range_text, Ty::Handle, &v.regs, range);
        }
        if let Some(items) = self.cx.interp.vm.types.tuple_items(v.ty).map(|i| i.to_vec()) {
            let parts = self.split(&v, &items, range)?;
            let mut texts = Vec::new();
            for p in parts {
                texts.push(self.repr(p, range)?);
            }
            for t in texts {
                self.call_helper(hs.join_part, None, &[t], range);
            }
            return self.helper_value(hs.tuple_text, Ty::Handle, &[], range);
        }
        if matches!(
            self.cx.interp.vm.types.kind(v.ty),
            crate::vm::types::TypeKind::Simd { .. }
        ) {
            return self.simd_text(v, range);
        }
        if self.ptr_item(v.ty).is_some() {
            return self.ptr_text(&v, range);
        }
        if self.cx.interp.vm.types.list_iter_list(v.ty).is_some() {
            // upstream's list iterator is a struct: its default text
            let text = op_select::opaque_struct_text(&self.cx.interp.vm, v.ty);
            let h = self.cx.string(&text);
            return Ok(self.fb.const_(Ty::Handle, h));
        }
        if self.cx.interp.vm.types.ref_item(v.ty).is_some() || v.ty == TypeId::RAW_BUFFER {
            // (a RawBuffer prints as an object, never NULL)
            let text = op_select::object_text(&self.cx.interp.vm, v.ty);
            let h = self.cx.string(&text);
            return Ok(self.fb.const_(Ty::Handle, h));
        }
        if self.list_item(v.ty).is_some() || v.ty == TypeId::EMPTY_LIST {
            return self.list_text(&v, range);
        }
        if self.dict_types(v.ty).is_some() || v.ty == TypeId::EMPTY_DICT {
            return self.dict_text(&v, range);
        }
        if v.ty == TypeId::FILE {
            return self.file_text(&v, range);
        }
        if self.cx.interp.vm.types.is_struct(v.ty) {
            return match op_select::display_dunder(&self.cx.interp.vm, v.ty) {
                Some((_, m)) if m.ret() == TypeId::STR => {
                    let call = self.display_call.unwrap_or(range);
                    let r = self.call_red(&m, vec![(v, range)], call)?;
                    Ok(r.regs[0])
                }
                // A declared result that can never hold a str: the dunder
                // runs (its effects happen), then ASTFrame's TypeError.
                Some((d, m)) if m.ret() != TypeId::OBJECT && m.ret() != TypeId::DYNAMIC => {
                    let call = self.display_call.unwrap_or(range);
                    self.call_red(&m, vec![(v, range)], call)?;
                    let at = (
                        self.frame_at(call),
                        Label {
                            range,
                            text: String::new(),
                        },
                    );
                    let code =
                        self.cx
                            .errors
                            .fixed(ExcKind::TypeError, format!("{d} returned non-string"), at);
                    self.fb.raise(code, [None, None]);
                    let h = self.cx.string("");
                    Ok(self.fb.const_(Ty::Handle, h))
                }
                Some((d, _)) => self.unsupported(
                    format!("a `{d}` returning `{}`", self.type_name(TypeId::DYNAMIC)),
                    range,
                ),
                None => {
                    let text = op_select::opaque_struct_text(&self.cx.interp.vm, v.ty);
                    let h = self.cx.string(&text);
                    Ok(self.fb.const_(Ty::Handle, h))
                }
            };
        }
        let r = match v.ty.as_prim() {
            Some(PrimTy::F64) => self.call_helper(hs.fmt_f64, Some(Ty::Handle), &[v.regs[0]], range),
            Some(PrimTy::F32) => self.call_helper(hs.fmt_f32, Some(Ty::Handle), &[v.regs[0]], range),
            Some(p) => {
                let ty = self.word(prim_code(p));
                let w = self.fb.convert(Ty::U64, v.regs[0]);
                self.call_helper(hs.fmt_scalar, Some(Ty::Handle), &[ty, w], range)
            }
            None => return self.unsupported(format!("`str()` of a `{}`", self.type_name(v.ty)), range),
        };
        r.ok_or_else(no_result)
    }

    /// `print(a, b, ...)`: every argument evaluated, then formatted, then
    /// the line written by the interpreter's rule (parts joined by a space).
    fn print(&mut self, args: &Exprs<'_>, range: TextRange) -> Lowered<LVal> {
        let mut values = Vec::new();
        for a in args {
            match self.static_text(&a) {
                Some(text) => {
                    let h = self.cx.string(&text);
                    let r = self.fb.const_(Ty::Handle, h);
                    values.push((LVal::one(TypeId::STR, r), a.range));
                }
                None => values.push((self.expr(&a)?, a.range)),
            }
        }
        let mut parts = Vec::new();
        let outer = self.display_call.replace(range);
        for (v, r) in values {
            match self.str_of(v, r) {
                Ok(p) => parts.push((p, r)),
                Err(e) => {
                    self.display_call = outer;
                    return Err(e);
                }
            }
        }
        self.display_call = outer;
        let hs = self.cx.helpers;
        for (p, r) in parts {
            self.call_helper(hs.print_part, None, &[p], r);
        }
        self.call_helper(hs.print_end, None, &[], range);
        Ok(LVal::none())
    }
}
