//! Expressions of residual code: literals, names, operators (typed by
//! `vm::ops`' signature functions), conversions, tuples, calls of red
//! functions and of builtins (`print`, `len`, `str`, `repr`, `T(x)`).

use spy_jit::ir::{BinOp as IB, CmpOp as IC, Op, SiteId, Stmt as IrStmt, Ty, UnOp, VReg, Word};

use super::errors::{Label, Site};
use super::func::{FnLower, LVal};
use super::helpers::binop_code;
use super::layout::{prim_code, prim_ty, word_of_scalar};
use super::Lowered;
use crate::error::ExcKind;
use crate::resolve::NameRef;
use crate::source::TextRange;
use crate::syntax::ast::{BinOp, BoolOp, CmpOp, Expr, ExprKind, UnaryOp};
use crate::vm::builtins::{self, Builtin};
use crate::vm::ops::{self, convert, PrimTy, Scalar};
use crate::vm::types::TypeId;
use crate::vm::value::Value;

impl FnLower<'_, '_, '_> {
    /// The blue value a name (or `module.attr`) denotes, if it is one
    /// (builtins, module-level constants, functions and types).
    pub fn static_value(&self, e: &Expr) -> Option<Value> {
        let ExprKind::Name(id) = &e.kind else {
            return None;
        };
        match self.res.name(id.id) {
            NameRef::Builtin(i) => Some(builtins::value(i).value),
            NameRef::Global(slot) => {
                let m = self.cx.interp.vm.module(self.cx.module);
                let sym = m.resolution.module_scope.symbols.get(slot as usize)?;
                if sym.kind != crate::resolve::VarKind::Const {
                    return None;
                }
                m.globals.get(slot as usize)?.as_ref()?.value.clone()
            }
            _ => None,
        }
    }

    fn konst(&mut self, s: Scalar) -> LVal {
        let r = self.fb.const_(prim_ty(s.ty()), word_of_scalar(s));
        LVal::one(TypeId::prim(s.ty()), r)
    }

    pub fn expr(&mut self, e: &Expr) -> Lowered<LVal> {
        match &e.kind {
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
                _ => match self.static_value(e) {
                    Some(Value::Scalar(s)) => Ok(self.konst(s)),
                    Some(Value::Str(s)) => {
                        let h = self.cx.string(&s);
                        let r = self.fb.const_(Ty::Handle, h);
                        Ok(LVal::one(TypeId::STR, r))
                    }
                    Some(Value::None) => Ok(LVal::none()),
                    Some(_) => {
                        self.unsupported(format!("the value of `{}` used as a value", id.name), e.range)
                    }
                    None => self.unsupported(format!("the module variable `{}`", id.name), e.range),
                },
            },
            ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            } if matches!(operand.kind, ExprKind::Int(_)) => {
                let ExprKind::Int(v) = operand.kind else {
                    unreachable!()
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
                let r = self.condition(right).map(|r| self.fb.assign(out, Op::Copy(r)));
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
                let a = self.expr(body);
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
                let b = self.expr(orelse).and_then(|b| self.coerce(b, a.ty, orelse.range));
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
                    if matches!(item.kind, ExprKind::Starred(_)) {
                        return self.unsupported("a starred item in a tuple display", item.range);
                    }
                    let v = self.expr(item)?;
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
            ExprKind::Subscript { value, indices } => self.subscript(value, indices, e.range),
            ExprKind::Call { func, args } => self.call(e, func, args),
            ExprKind::Attribute { .. } => self.unsupported("an attribute", e.range),
            ExprKind::List(_) => self.unsupported("a `list[T]` display", e.range),
            _ => self.unsupported("this kind of expression", e.range),
        }
    }

    /// `e` converted to `bool` (conditions, `not`, `and`/`or`).
    pub fn condition(&mut self, e: &Expr) -> Lowered<VReg> {
        let v = self.expr(e)?;
        Ok(self.coerce(v, TypeId::BOOL, e.range)?.regs[0])
    }

    /// The implicit conversion of `x` to `to` (ASTFrame's `convert_to`).
    pub fn coerce(&mut self, x: LVal, to: TypeId, range: TextRange) -> Lowered<LVal> {
        if x.ty == to {
            return Ok(x);
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
        let frame = self.frame_at(self.stmt_range);
        self.cx.errors.site(Site {
            frame,
            label: Some(Label {
                range,
                text: String::new(),
            }),
        })
    }

    fn call_helper(
        &mut self,
        h: spy_jit::ir::HelperId,
        result: Option<Ty>,
        args: &[VReg],
        range: TextRange,
    ) -> Option<VReg> {
        let site = self.helper_site(range);
        self.fb.call_helper(h, result, args, site)
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
        if l.ty == TypeId::STR && r.ty == TypeId::STR && op == BinOp::Add {
            let h = self.cx.helpers.str_concat;
            let v = self.call_helper(h, Some(Ty::Handle), &[l.regs[0], r.regs[0]], whole);
            return Ok(LVal::one(TypeId::STR, v.expect("a result")));
        }
        if l.ty == TypeId::STR && r.ty == TypeId::I32 && op == BinOp::Mul {
            let h = self.cx.helpers.str_repeat;
            let v = self.call_helper(h, Some(Ty::Handle), &[l.regs[0], r.regs[0]], whole);
            return Ok(LVal::one(TypeId::STR, v.expect("a result")));
        }
        let sig = match (l.ty.as_prim(), r.ty.as_prim()) {
            (Some(a), Some(b)) => ops::binop_signature(op, a, b),
            _ => None,
        };
        let Some(sig) = sig else {
            return self.unsupported(
                format!(
                    "`{}` {} `{}`",
                    self.type_name(l.ty),
                    op.symbol(),
                    self.type_name(r.ty)
                ),
                whole,
            );
        };
        let operand = TypeId::prim(sig.operand);
        let a = self.coerce(l, operand, lr)?.regs[0];
        let b = self.coerce(r, operand, rr)?.regs[0];
        let result = TypeId::prim(sig.result);
        let p = sig.operand;
        let zero = |l: &mut Self, msg: &str| l.raise_code(ExcKind::ZeroDivisionError, msg, whole, "");
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
                let code = zero(self, "integer division or modulo by zero");
                self.fb.floor_div(a, b, code)
            }
            BinOp::Mod if p.is_int() => {
                let code = zero(self, "integer modulo by zero");
                self.fb.floor_mod(a, b, code)
            }
            BinOp::Div if p.is_float() => {
                let code = zero(self, "float division by zero");
                self.fb.fdiv(a, b, code)
            }
            BinOp::LShift | BinOp::RShift if p.is_int() => {
                let code = self.raise_code(ExcKind::ValueError, "negative shift count", whole, "");
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
                    .expect("a result")
            }
            BinOp::Pow if p.is_int() => {
                let h = self.cx.helpers.int_binop;
                let (o, ty) = (self.word(binop_code(op)), self.word(prim_code(p)));
                let (wa, wb) = (self.fb.convert(Ty::U64, a), self.fb.convert(Ty::U64, b));
                let w = self
                    .call_helper(h, Some(Ty::U64), &[o, ty, wa, wb], whole)
                    .expect("a result");
                self.fb.convert(prim_ty(p), w)
            }
            BinOp::FloorDiv | BinOp::Mod | BinOp::Pow if p.is_float() => {
                let (h, t) = match p {
                    PrimTy::F64 => (self.cx.helpers.f64_binop, Ty::F64),
                    _ => (self.cx.helpers.f32_binop, Ty::F32),
                };
                let o = self.word(binop_code(op));
                self.call_helper(h, Some(t), &[o, a, b], whole).expect("a result")
            }
            _ => return self.unsupported(format!("`{p}` {} `{p}`", op.symbol()), whole),
        };
        Ok(LVal::one(result, v))
    }

    fn compare(&mut self, op: CmpOp, l: LVal, r: LVal, whole: TextRange) -> Lowered<LVal> {
        if l.ty == TypeId::STR && r.ty == TypeId::STR && matches!(op, CmpOp::Eq | CmpOp::NotEq) {
            let h = self.cx.helpers.str_eq;
            let eq = self
                .call_helper(h, Some(Ty::Bool), &[l.regs[0], r.regs[0]], whole)
                .expect("a result");
            let v = if op == CmpOp::Eq {
                eq
            } else {
                self.fb.unary(UnOp::Not, eq)
            };
            return Ok(LVal::one(TypeId::BOOL, v));
        }
        let sig = match (l.ty.as_prim(), r.ty.as_prim()) {
            (Some(a), Some(b)) => ops::cmpop_signature(op, a, b),
            _ => None,
        };
        let Some(sig) = sig else {
            return self.unsupported(
                format!(
                    "`{}` {} `{}`",
                    self.type_name(l.ty),
                    op.symbol(),
                    self.type_name(r.ty)
                ),
                whole,
            );
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

    fn subscript(&mut self, value: &Expr, indices: &[Expr], range: TextRange) -> Lowered<LVal> {
        let v = self.expr(value)?;
        let [index] = indices else {
            return self.unsupported("a subscript with several indices", range);
        };
        if v.ty == TypeId::STR {
            let i = self.expr(index)?;
            let i = self.coerce(i, TypeId::I32, index.range)?;
            let i = self.fb.convert(Ty::I64, i.regs[0]);
            let h = self.cx.helpers.str_index;
            let r = self.call_helper(h, Some(Ty::Handle), &[v.regs[0], i], range);
            return Ok(LVal::one(TypeId::STR, r.expect("a result")));
        }
        let Some(items) = self.cx.interp.vm.types.tuple_items(v.ty).map(|i| i.to_vec()) else {
            return self.unsupported(format!("a subscript of a `{}`", self.type_name(v.ty)), range);
        };
        let k = match &index.kind {
            ExprKind::Int(k) => Some(*k as i128),
            ExprKind::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            } => match operand.kind {
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

    // -------------------------------------------------------------- calls

    fn call(&mut self, e: &Expr, func: &Expr, args: &[Expr]) -> Lowered<LVal> {
        if let Some((name, v, _)) = crate::resolve::prefixed_int_literal(e) {
            if matches!(
                self.res.name(match &func.kind {
                    ExprKind::Name(id) => id.id,
                    _ => unreachable!("a prefixed literal's callee is a name"),
                }),
                NameRef::Builtin(_)
            ) {
                let p = PrimTy::from_name(name).expect("an integer type name");
                let s = Scalar::wrap_int(v, p).expect("an integer type");
                return Ok(self.konst(s));
            }
        }
        if args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_))) {
            return self.unsupported("a starred call argument", e.range);
        }
        match self.static_value(func) {
            Some(Value::Func(f)) => {
                let d = self.cx.declare(&f, &self.file, e.range)?;
                if args.len() != f.params.len() {
                    return self.unsupported("a call with the wrong number of arguments", e.range);
                }
                let mut regs = Vec::new();
                for (a, p) in args.iter().zip(&f.params) {
                    let v = self.expr(a)?;
                    regs.extend(self.coerce(v, p.ty, a.range)?.regs);
                }
                let site = self.cx.errors.site(Site {
                    frame: self.frame_at(e.range),
                    label: None,
                });
                let results = self.fb.call_with(d.id, &d.results, &regs, site);
                Ok(LVal {
                    ty: f.ret,
                    regs: results,
                })
            }
            Some(Value::Builtin(Builtin::Print)) => self.print(args, e.range),
            Some(Value::Builtin(Builtin::Repr)) => {
                let [a] = args else {
                    return self.unsupported("`repr` with other than one argument", e.range);
                };
                let v = self.expr(a)?;
                let s = self.repr(v, a.range)?;
                Ok(LVal::one(TypeId::STR, s))
            }
            Some(Value::Builtin(Builtin::Len)) => {
                let [a] = args else {
                    return self.unsupported("`len` with other than one argument", e.range);
                };
                let v = self.expr(a)?;
                if v.ty != TypeId::STR {
                    return self.unsupported(format!("`len` of a `{}`", self.type_name(v.ty)), e.range);
                }
                let h = self.cx.helpers.str_len;
                let r = self.call_helper(h, Some(Ty::I32), &[v.regs[0]], e.range);
                Ok(LVal::one(TypeId::I32, r.expect("a result")))
            }
            Some(Value::Type(TypeId::STR)) => {
                let [a] = args else {
                    return self.unsupported("`str` with other than one argument", e.range);
                };
                let v = self.expr(a)?;
                let s = self.str_of(v, a.range)?;
                Ok(LVal::one(TypeId::STR, s))
            }
            Some(Value::Type(t)) if t.as_prim().is_some() => {
                let to = t.as_prim().expect("primitive");
                let [a] = args else {
                    return self.unsupported(format!("`{to}(...)` with other than one argument"), e.range);
                };
                let v = self.expr(a)?;
                match v.ty.as_prim() {
                    Some(from) if convert::explicit_convertible(to, from) => {
                        let r = if from == to {
                            v.regs[0]
                        } else {
                            self.fb.convert(prim_ty(to), v.regs[0])
                        };
                        Ok(LVal::one(t, r))
                    }
                    _ => self.unsupported(format!("`{to}(x)` of a `{}`", self.type_name(v.ty)), e.range),
                }
            }
            _ => self.unsupported("a call of this callee", func.range),
        }
    }

    /// `str(e)` of a blue value that is not a scalar or a str (a type, a
    /// function, a builtin), formatted now by ASTFrame's `str_of`.
    fn static_text(&mut self, e: &Expr) -> Option<String> {
        let v = self.static_value(e)?;
        if matches!(v, Value::Scalar(_) | Value::Str(_) | Value::None) {
            return None;
        }
        let ty = match &v {
            Value::Type(_) => TypeId::TYPE,
            _ => TypeId::BUILTIN_FUNC,
        };
        let interp = &mut *self.cx.interp;
        let frame = interp.module_frame(self.cx.module);
        interp
            .str_of(&frame, &crate::vm::value::Typed::blue(ty, v), e.range)
            .ok()
    }

    /// `str(v)`: a str handle.
    fn str_of(&mut self, v: LVal, range: TextRange) -> Lowered<VReg> {
        if v.ty == TypeId::STR {
            return Ok(v.regs[0]);
        }
        self.repr(v, range)
    }

    /// `repr(v)`, formatted by the interpreter's `format` functions.
    fn repr(&mut self, v: LVal, range: TextRange) -> Lowered<VReg> {
        let hs = self.cx.helpers;
        if v.ty == TypeId::STR {
            return Ok(self
                .call_helper(hs.repr_str, Some(Ty::Handle), &[v.regs[0]], range)
                .expect("a result"));
        }
        if v.ty == TypeId::NONE {
            let h = self.cx.string("None");
            return Ok(self.fb.const_(Ty::Handle, h));
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
        Ok(r.expect("a result"))
    }

    /// `print(a, b, ...)`: every argument evaluated, then formatted, then
    /// the line written by the interpreter's rule (parts joined by a space).
    fn print(&mut self, args: &[Expr], range: TextRange) -> Lowered<LVal> {
        let mut values = Vec::new();
        for a in args {
            match self.static_text(a) {
                Some(text) => {
                    let h = self.cx.string(&text);
                    let r = self.fb.const_(Ty::Handle, h);
                    values.push((LVal::one(TypeId::STR, r), a.range));
                }
                None => values.push((self.expr(a)?, a.range)),
            }
        }
        let mut parts = Vec::new();
        for (v, r) in values {
            parts.push((self.str_of(v, r)?, r));
        }
        let hs = self.cx.helpers;
        for (p, r) in parts {
            self.call_helper(hs.print_part, None, &[p], r);
        }
        self.call_helper(hs.print_end, None, &[], range);
        Ok(LVal::none())
    }
}
