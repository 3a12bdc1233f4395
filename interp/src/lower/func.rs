//! One residual function body into one IR function: its locals (each SPy
//! local is one IR local per flattened register), its statements and its
//! structured control flow. Expressions are in `expr.rs`.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::collections::BTreeMap;
use std::rc::Rc;

use spy_jit::ir::{Block, ErrCode, FunctionBuilder, Op, Stmt as IrStmt, Ty, VReg};

use super::errors::{FrameAt, Label};
use super::{Declared, LowerCx, LowerError, Lowered};
use crate::error::ExcKind;
use crate::resolve::{NameRef, Resolution};
use crate::source::{SourceFile, TextRange};
use crate::syntax::ast::{self, AssignTarget, ExprKind, StmtKind};
use crate::syntax::ast::{ExprRef, Exprs, StmtRef, Stmts};
use crate::vm::builtins::Builtin;
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::TypeId;
use crate::vm::value::{Function, Value};

/// A lowered SPy value: its static type and its registers (flattened).
#[derive(Clone, Debug)]
pub(crate) struct LVal {
    pub ty: TypeId,
    pub regs: Vec<VReg>,
}

impl LVal {
    pub fn none() -> LVal {
        LVal {
            ty: TypeId::NONE,
            regs: Vec::new(),
        }
    }
    pub fn one(ty: TypeId, r: VReg) -> LVal {
        LVal { ty, regs: vec![r] }
    }
}

/// The lowering of one function.
pub(crate) struct FnLower<'c, 'a, 'out> {
    pub cx: &'c mut LowerCx<'a, 'out>,
    pub fb: FunctionBuilder,
    pub func: Rc<Function>,
    /// The module the function is in (its globals, its names' meaning).
    pub module: crate::vm::value::ModuleId,
    pub file: Rc<SourceFile>,
    pub res: Rc<Resolution>,
    /// Locals by slot: declared type and IR locals.
    pub locals: HashMap<u32, LVal>,
    /// The statement being lowered (the frame's `current` in tracebacks).
    pub stmt_range: TextRange,
    /// The `print`/`str`/`repr` call whose display is being lowered: the
    /// frame's position while a struct's `__str__`/`__repr__` runs.
    pub display_call: Option<TextRange>,
    /// Definite assignment: the slots assigned on every path reaching the
    /// statement being lowered, and whether it is reachable at all (`dead`
    /// after `return`/`raise`/`break`/`continue`).
    pub defined: HashSet<u32>,
    pub dead: bool,
    /// The slots read where they may be unassigned (with their types):
    /// those get a definedness flag (`flags`) in the second lowering.
    pub needs: BTreeMap<u32, TypeId>,
    pub flags: HashMap<u32, VReg>,
    /// Interp tuple locals by slot: their shape and registers.
    pub interp_tuples: HashMap<u32, Vec<super::interp_tuple::Item>>,
}

/// Lower a function body. A local read where it may not be assigned
/// (ASTFrame raises `NameError` there) needs a definedness flag, which is
/// known once the whole body is seen: the body is then lowered again with
/// a flag for each such local (initialized at entry with its registers,
/// set by every assignment, tested by every read not proven assigned).
pub(crate) fn lower_function(cx: &mut LowerCx<'_, '_>, d: &Declared) -> Lowered<FunctionBuilder> {
    let (fb, needs) = lower_body(cx, d, &BTreeMap::new())?;
    if needs.is_empty() {
        return Ok(fb);
    }
    let (fb, again) = lower_body(cx, d, &needs)?;
    if again.keys().any(|k| !needs.contains_key(k)) {
        return Err(LowerError::bug(format!(
            "`{}`: the second lowering needs other definedness flags",
            d.func.fqn
        )));
    }
    Ok(fb)
}

fn lower_body(
    cx: &mut LowerCx<'_, '_>,
    d: &Declared,
    flagged: &BTreeMap<u32, TypeId>,
) -> Lowered<(FunctionBuilder, BTreeMap<u32, TypeId>)> {
    let func = d.func.clone();
    let code = func.code.clone();
    let fb = cx.builder.function(d.id);
    let mut l = FnLower {
        cx,
        fb,
        func: func.clone(),
        module: code.module,
        file: code.file.clone(),
        res: code.res.clone(),
        locals: HashMap::new(),
        stmt_range: code.proto_range(),
        display_call: None,
        defined: HashSet::new(),
        dead: false,
        needs: BTreeMap::new(),
        flags: HashMap::new(),
        interp_tuples: HashMap::new(),
    };
    // Parameters: each is the local the resolver gave it.
    let mut next = 0;
    for (p, spec) in code.params().iter().zip(&func.params) {
        let tys = l.cx.flatten(spec.ty, &l.file, p.range)?;
        let n = super::simd::abi_tys(&tys).len();
        let abi: Vec<VReg> = (next..next + n).map(|k| l.fb.param(k)).collect();
        let regs = super::simd::params_from_abi(&mut l.fb, &tys, &abi);
        next += n;
        let crate::resolve::NameRef::Local(slot) = code.res.name(p.name.id) else {
            // the resolver makes every parameter a local of its function
            return Err(LowerError::bug(format!(
                "parameter `{}` is not a local",
                p.name.name
            )));
        };
        l.locals.insert(slot, LVal { ty: spec.ty, regs });
        l.defined.insert(slot);
    }
    // Flagged locals: registers zeroed and the flag cleared at entry.
    for (&slot, &ty) in flagged {
        let tys = l.cx.flatten(ty, &l.file, code.proto_range())?;
        let regs: Vec<VReg> = tys.iter().map(|&t| l.fb.local(t)).collect();
        for &r in &regs {
            let t = l.fb.ty(r);
            let z = l.fb.const_(t, 0);
            l.fb.assign(r, Op::Copy(z));
        }
        let flag = l.fb.local(Ty::Bool);
        let f = l.fb.const_(Ty::Bool, 0);
        l.fb.assign(flag, Op::Copy(f));
        l.locals.insert(slot, LVal { ty, regs });
        l.flags.insert(slot, flag);
    }
    l.block(&code.body())?;
    // Falling off the end: `return None` (a body whose every path returns
    // makes this dead code, which the IR allows).
    if func.ret() == TypeId::NONE {
        l.fb.ret(&[]);
    } else {
        // ASTFrame: the error points at the last statement of the body.
        let end = code
            .def()
            .body
            .last()
            .map(|s| s.range)
            .unwrap_or(code.proto_range());
        l.stmt_range = end;
        let code = l.fixed_code(
            ExcKind::TypeError,
            "reached the end of the function without a `return`",
            end,
            "no return",
        );
        l.fb.raise(code, [None, None]);
    }
    Ok((l.fb, l.needs))
}

impl FnLower<'_, '_, '_> {
    pub fn unsupported<T>(&self, what: impl Into<String>, range: TextRange) -> Lowered<T> {
        Err(LowerError::unsupported(what, &self.file, range))
    }

    pub fn type_name(&self, ty: TypeId) -> String {
        self.cx.interp.vm.types.name(ty).to_string()
    }

    pub fn frame_at(&self, range: TextRange) -> FrameAt {
        FrameAt {
            name: self.func.fqn.clone(),
            file: self.file.clone(),
            range,
        }
    }

    /// Where an error raised by the operation at `range` of the current
    /// statement points.
    fn error_at(&self, range: TextRange, label: &str) -> (FrameAt, Label) {
        (
            self.frame_at(self.stmt_range),
            Label {
                range,
                text: label.to_string(),
            },
        )
    }

    /// The code of run-time error `e` raised by the operation at `range`.
    pub fn rt_code(&mut self, e: RuntimeError, range: TextRange, label: &str) -> ErrCode {
        let at = self.error_at(range, label);
        self.cx.errors.runtime(&e, at)
    }

    /// [`Self::rt_code`] of an error a builtin call at `range` raises: as in
    /// ASTFrame, the frame's position is the call, not its statement.
    pub fn rt_code_in_call(&mut self, e: RuntimeError, range: TextRange) -> ErrCode {
        let at = (
            self.frame_at(range),
            Label {
                range,
                text: String::new(),
            },
        );
        self.cx.errors.runtime(&e, at)
    }

    /// The code of an error that is not a run-time error (a user `raise`,
    /// a missing `return`) raised at `range`.
    pub fn fixed_code(
        &mut self,
        kind: ExcKind,
        message: impl Into<String>,
        range: TextRange,
        label: &str,
    ) -> ErrCode {
        let at = self.error_at(range, label);
        self.cx.errors.fixed(kind, message.into(), at)
    }

    /// [`Self::fixed_code`] with the annotation `first` and then `more`
    /// (ASTFrame's two operand labels of an operator's type error).
    pub fn fixed_code_labeled(
        &mut self,
        kind: ExcKind,
        message: impl Into<String>,
        first: (TextRange, &str),
        more: &[(TextRange, String)],
    ) -> ErrCode {
        let at = self.error_at(first.0, first.1);
        let more = more
            .iter()
            .map(|(range, text)| Label {
                range: *range,
                text: text.clone(),
            })
            .collect();
        self.cx.errors.fixed_labeled(kind, message.into(), at, more)
    }

    /// Lower statements into the current block, then `f` runs nothing else.
    fn nested(&mut self, body: &Stmts<'_>) -> Lowered<Block> {
        self.fb.open_block();
        let r = self.block(body);
        let b = self.fb.close_block();
        r.map(|_| b)
    }

    pub(super) fn block(&mut self, body: &Stmts<'_>) -> Lowered<()> {
        for s in body {
            self.stmt(&s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &StmtRef<'_>) -> Lowered<()> {
        self.stmt_range = s.range;
        // The listing's source line for the code that follows.
        let mark = self.cx.marks.len() as u32;
        self.cx.marks.push(super::MarkAt {
            file: self.file.clone(),
            offset: s.range.start,
        });
        self.fb.push(IrStmt::Mark(mark));
        match &s.kind() {
            StmtKind::Pass | StmtKind::Comment(_) => {}
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::VarDef(v) => self.vardef(v, s.range)?,
            StmtKind::Assign { target, value } => self.assign(target, value)?,
            StmtKind::AugAssign { target, op, value } => {
                let cur = self.read_local(target)?;
                let rhs = self.expr(value)?;
                let whole = target.range.cover(value.range);
                let r = self.binop(*op, cur, target.range, rhs, value.range, whole)?;
                self.store_local(target, r, value.range)?;
            }
            StmtKind::If { test, body, orelse } => {
                let c = self.condition(test)?;
                let before = (self.defined.clone(), self.dead);
                let then_ = self.nested(body)?;
                let after_then = std::mem::replace(&mut self.defined, before.0.clone());
                let dead_then = std::mem::replace(&mut self.dead, before.1);
                let else_ = self.nested(orelse)?;
                self.join(after_then, dead_then);
                self.fb.push(IrStmt::If {
                    cond: c,
                    then_,
                    else_,
                });
            }
            StmtKind::While { test, body } => {
                self.fb.open_block();
                let before = (self.defined.clone(), self.dead);
                let r = self.while_body(test, body);
                // the body may run no time, and leaves by `break` too
                (self.defined, self.dead) = before;
                let b = self.fb.close_block();
                r?;
                self.fb.push(IrStmt::Loop { body: b });
            }
            StmtKind::For { target, iter, body } => {
                let before = (self.defined.clone(), self.dead);
                let r = self.for_range(target, iter, body);
                (self.defined, self.dead) = before;
                r?
            }
            StmtKind::Break => {
                self.fb.break_();
                self.dead = true;
            }
            StmtKind::Continue => {
                self.fb.continue_();
                self.dead = true;
            }
            StmtKind::Return(value) => {
                let v = match value {
                    Some(e) => {
                        let v = self.expr(e)?;
                        self.coerce(v, self.func.ret(), e.range)?
                    }
                    None => self.coerce(LVal::none(), self.func.ret(), s.range)?,
                };
                let regs = super::simd::to_abi(&mut self.fb, &v.regs);
                self.fb.ret(&regs);
                self.dead = true;
            }
            StmtKind::Raise(e) => {
                let (kind, message) = self.raised(e)?;
                let code = self.fixed_code(kind, message, s.range, "raised here");
                self.fb.raise(code, [None, None]);
                self.dead = true;
            }
            StmtKind::Assert { test, msg } => self.assert(s, test, msg.as_ref())?,
            StmtKind::FuncDef(_) | StmtKind::ClassDef(_) => {
                return self.unsupported("a nested `def`/`class`", s.range)
            }
            StmtKind::Import { .. } | StmtKind::ImportFrom { .. } => {
                return self.unsupported("an `import` in a function", s.range)
            }
        }
        Ok(())
    }

    /// After an `if`: what both branches assigned (a branch that does not
    /// fall through does not count).
    fn join(&mut self, other: HashSet<u32>, other_dead: bool) {
        match (other_dead, self.dead) {
            (true, _) => {}
            (false, true) => {
                self.defined = other;
                self.dead = false;
            }
            (false, false) => self.defined.retain(|s| other.contains(s)),
        }
    }

    /// Lower `f` as code that may not run (a conditional operand): what it
    /// assigns is not definitely assigned after it.
    pub fn maybe_runs<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let before = (self.defined.clone(), self.dead);
        let r = f(self);
        (self.defined, self.dead) = before;
        r
    }

    fn while_body(&mut self, test: &ExprRef<'_>, body: &Stmts<'_>) -> Lowered<()> {
        let c = self.condition(test)?;
        let stop = Block(vec![IrStmt::Break]);
        self.fb.push(IrStmt::If {
            cond: c,
            then_: Block::default(),
            else_: stop,
        });
        self.block(body)
    }

    /// `for i in range(start, stop, step)`, as ASTFrame runs it: the
    /// counter is an `i64`, the target an `i32`, a zero step raises.
    fn for_range(&mut self, target: &ast::Identifier, iter: &ExprRef<'_>, body: &Stmts<'_>) -> Lowered<()> {
        let kind = iter.kind();
        let range_args = match &kind {
            ExprKind::Call { func, args }
                if matches!(self.static_value(func), Some(Value::Builtin(Builtin::Range))) =>
            {
                Some(args)
            }
            _ => None,
        };
        let (start, stop, step) = match range_args {
            Some(args) => self.range_parts(args, iter.range, None)?,
            None => {
                let it = self.expr(iter)?;
                if self.dict_types(it.ty).is_some() {
                    return self.for_dict(target, it, iter, body);
                }
                if it.ty == TypeId::FILE {
                    return self.for_file(target, it, iter, body);
                }
                if it.ty != TypeId::RANGE {
                    return self.for_list(target, it, iter, body);
                }
                let w: Vec<VReg> = it.regs.iter().map(|&r| self.fb.convert(Ty::I64, r)).collect();
                (w[0], w[1], w[2])
            }
        };
        self.range_loop(target, start, stop, step, body)
    }

    /// `range(args)`: start, stop and step (`I64`s), each argument converted
    /// to `i32`; a zero step raises as ASTFrame's `range` does (`call`: the
    /// range object's call, the frame's position then; `None` in a `for`
    /// header, where ASTFrame's frame is at the statement).
    pub fn range_parts(
        &mut self,
        args: &Exprs<'_>,
        range: TextRange,
        call: Option<TextRange>,
    ) -> Lowered<(VReg, VReg, VReg)> {
        if args.is_empty() || args.len() > 3 {
            return self.unsupported("`range` with other than 1 to 3 arguments", range);
        }
        let mut ints = Vec::new();
        for a in args {
            let v = self.expr(&a)?;
            let v = self.coerce(v, TypeId::I32, a.range)?;
            ints.push(self.fb.convert(Ty::I64, v.regs[0]));
        }
        let zero = self.fb.const_(Ty::I64, 0);
        let one = self.fb.const_(Ty::I64, 1);
        let (start, stop, step) = match ints.as_slice() {
            [stop] => (zero, *stop, one),
            [start, stop] => (*start, *stop, one),
            [start, stop, step] => (*start, *stop, *step),
            _ => return Err(LowerError::bug("`range` with other than 1 to 3 arguments")),
        };
        if args.len() == 3 {
            let is_zero = self.fb.cmp(spy_jit::ir::CmpOp::Eq, step, zero);
            let frame = call.unwrap_or(self.stmt_range);
            let at = (
                self.frame_at(frame),
                Label {
                    range: args.get(2).map_or(frame, |a| a.range),
                    text: "this is zero".into(),
                },
            );
            let code = self.cx.errors.runtime(&RuntimeError::RangeStepZero, at);
            let raise = Block(vec![IrStmt::Raise {
                code,
                operands: [None, None],
            }]);
            self.fb.push(IrStmt::If {
                cond: is_zero,
                then_: raise,
                else_: Block::default(),
            });
        }
        Ok((start, stop, step))
    }

    /// The loop of `for target in range(...)` over `I64` bounds.
    fn range_loop(
        &mut self,
        target: &ast::Identifier,
        start: VReg,
        stop: VReg,
        step: VReg,
        body: &Stmts<'_>,
    ) -> Lowered<()> {
        let zero = self.fb.const_(Ty::I64, 0);
        // The target is an `i32` local (declared by the loop, as ASTFrame's
        // `store_slot` does).
        self.declare_local(target, TypeId::I32)?;
        let next = self.fb.local(Ty::I64);
        self.fb.assign(next, Op::Copy(start));
        self.fb.open_block();
        let r = (|| {
            use spy_jit::ir::{BinOp as IB, CmpOp as IC};
            let i = self.fb.op(Ty::I64, Op::Copy(next));
            let pos = self.fb.cmp(IC::Gt, step, zero);
            let below = self.fb.cmp(IC::Lt, i, stop);
            let up = self.fb.binary(IB::And, pos, below);
            let neg = self.fb.cmp(IC::Lt, step, zero);
            let above = self.fb.cmp(IC::Gt, i, stop);
            let down = self.fb.binary(IB::And, neg, above);
            let go = self.fb.binary(IB::Or, up, down);
            self.fb.push(IrStmt::If {
                cond: go,
                then_: Block::default(),
                else_: Block(vec![IrStmt::Break]),
            });
            let advanced = self.fb.binary(IB::Add, i, step);
            self.fb.assign(next, Op::Copy(advanced));
            let value = self.fb.convert(Ty::I32, i);
            self.store_local(target, LVal::one(TypeId::I32, value), target.range)?;
            self.block(body)
        })();
        let b = self.fb.close_block();
        r?;
        self.fb.push(IrStmt::Loop { body: b });
        Ok(())
    }

    /// `for x in l:` over a `list[T]`, as ASTFrame's: item `k` is read
    /// while `k` is below the list's length at that moment (the body may
    /// change the list).
    fn for_list(
        &mut self,
        target: &ast::Identifier,
        l: LVal,
        iter: &ExprRef<'_>,
        body: &Stmts<'_>,
    ) -> Lowered<()> {
        let Some(item) = self.list_item(l.ty) else {
            return self.unsupported(
                format!("a `for` loop over a `{}`", self.type_name(l.ty)),
                iter.range,
            );
        };
        self.declare_local(target, item)?;
        self.index_loop(
            |this, k| {
                use spy_jit::ir::CmpOp as IC;
                let n = this.list_len(&l, iter.range)?;
                let n = this.fb.convert(Ty::I64, n);
                Ok(this.fb.cmp(IC::Lt, k, n))
            },
            |this, k| {
                let k32 = this.fb.convert(Ty::I32, k);
                let x = this.list_getitem(l.clone(), k32, iter.range)?;
                this.store_local(target, x, target.range)?;
                this.block(body)
            },
        )
    }

    /// `k = 0; loop { if not go(k): break; k += 1; body(k) }` with `k` an
    /// `i64` index read at the top of each iteration (`body` sees the
    /// index before the increment): the loops the lowering builds over
    /// lists and their snapshots.
    pub(super) fn index_loop(
        &mut self,
        go: impl FnOnce(&mut Self, VReg) -> Lowered<VReg>,
        body: impl FnOnce(&mut Self, VReg) -> Lowered<()>,
    ) -> Lowered<()> {
        use spy_jit::ir::BinOp as IB;
        let next = self.fb.local(Ty::I64);
        let zero = self.fb.const_(Ty::I64, 0);
        self.fb.assign(next, Op::Copy(zero));
        self.fb.open_block();
        let r = (|| {
            let k = self.fb.op(Ty::I64, Op::Copy(next));
            let cond = go(self, k)?;
            self.fb.push(IrStmt::If {
                cond,
                then_: Block::default(),
                else_: Block(vec![IrStmt::Break]),
            });
            let one = self.fb.const_(Ty::I64, 1);
            let advanced = self.fb.binary(IB::Add, k, one);
            self.fb.assign(next, Op::Copy(advanced));
            body(self, k)
        })();
        let b = self.fb.close_block();
        r?;
        self.fb.push(IrStmt::Loop { body: b });
        Ok(())
    }

    fn assert(&mut self, s: &StmtRef<'_>, test: &ExprRef<'_>, msg: Option<&ExprRef<'_>>) -> Lowered<()> {
        let c = self.condition(test)?;
        self.fb.open_block();
        let r = (|| {
            let at = (
                self.frame_at(s.range),
                Label {
                    range: s.range,
                    text: "assertion failed".to_string(),
                },
            );
            match msg {
                None => {
                    let code = self.cx.errors.runtime(&RuntimeError::AssertionFailed, at);
                    self.fb.raise(code, [None, None]);
                }
                Some(m) => {
                    let v = self.maybe_runs(|l| l.expr(m))?;
                    if v.ty != TypeId::STR {
                        return self.unsupported("an `assert` message that is not a `str`", m.range);
                    }
                    // The message is the text operand (word 1, a str handle).
                    let e = RuntimeError::AssertionMessage {
                        message: String::new(),
                    };
                    let code = self.cx.errors.runtime(&e, at);
                    self.fb.raise(code, [None, Some(v.regs[0])]);
                }
            }
            Ok(())
        })();
        let fail = self.fb.close_block();
        r?;
        self.fb.push(IrStmt::If {
            cond: c,
            then_: Block::default(),
            else_: fail,
        });
        Ok(())
    }

    /// What `raise e` raises: a blue exception, spelled as a literal in
    /// residual code (`ValueError('msg')` or `ValueError`).
    fn raised(&mut self, e: &ExprRef<'_>) -> Lowered<(ExcKind, String)> {
        let class = |l: &mut Self, callee: &ExprRef<'_>| match l.static_value(callee) {
            Some(Value::Builtin(Builtin::ExcClass(k))) => Some(k),
            _ => None,
        };
        match &e.kind() {
            ExprKind::Call { func, args } => {
                if let (Some(k), Some([arg])) = (class(self, func), args.as_array()) {
                    if let ExprKind::Str(m) = arg.kind() {
                        return Ok((k, m.to_string()));
                    }
                }
                if let (Some(k), true) = (class(self, func), args.is_empty()) {
                    return Ok((k, String::new()));
                }
            }
            _ => {
                if let Some(k) = class(self, e) {
                    return Ok((k, String::new()));
                }
            }
        }
        self.unsupported("a `raise` of anything but an exception literal", e.range)
    }

    // ------------------------------------------------------------ locals

    fn slot(&self, id: &ast::Identifier) -> Lowered<u32> {
        match self.res.name(id.id) {
            NameRef::Local(slot) => Ok(slot),
            NameRef::Global(_) => self.unsupported(
                format!("an assignment to the module global `{}`", id.name),
                id.range,
            ),
            _ => self.unsupported(format!("the variable `{}`", id.name), id.range),
        }
    }

    /// Declare the IR locals of a SPy local of type `ty` (once per slot).
    pub(super) fn declare_local(&mut self, id: &ast::Identifier, ty: TypeId) -> Lowered<LVal> {
        let slot = self.slot(id)?;
        if let Some(l) = self.locals.get(&slot) {
            if l.ty == ty {
                return Ok(l.clone());
            }
            return self.unsupported(
                format!("the local `{}` redeclared with another type", id.name),
                id.range,
            );
        }
        let tys = self.cx.flatten(ty, &self.file, id.range)?;
        let regs = tys.iter().map(|&t| self.fb.local(t)).collect();
        let l = LVal { ty, regs };
        self.locals.insert(slot, l.clone());
        Ok(l)
    }

    /// `x := e` declares `x` with `e`'s type when it is new.
    /// (`calls := e` of a module `var`, as an inlined callee's body
    /// assigns it: nothing to declare, `store_local` stores the global.)
    pub fn declare_walrus(&mut self, id: &ast::Identifier, ty: TypeId) -> Lowered<()> {
        if let NameRef::Global(_) = self.res.name(id.id) {
            return Ok(());
        }
        let slot = self.slot(id)?;
        if !self.locals.contains_key(&slot) {
            self.declare_local(id, ty)?;
        }
        Ok(())
    }

    fn vardef(&mut self, v: &ast::VarDef, range: TextRange) -> Lowered<()> {
        let Some(annotation) = &v.annotation else {
            return self.unsupported("a declaration without a type", range);
        };
        let ty = self.eval_type(annotation)?;
        if ty == TypeId::INTERP_TUPLE {
            return match &v.value {
                Some(value) => self.interp_tuple_store(v.name, value),
                None => self.unsupported("an interp tuple declared without a value", range),
            };
        }
        self.declare_local(v.name, ty)?;
        if let Some(value) = &v.value {
            let x = self.expr(value)?;
            self.store_local(v.name, x, value.range)?;
        }
        Ok(())
    }

    /// The type an annotation denotes, evaluated by ASTFrame in the module.
    pub fn eval_type(&mut self, t: &ExprRef<'_>) -> Lowered<TypeId> {
        let interp = &mut *self.cx.interp;
        let mut frame = interp.module_frame(self.module);
        interp
            .eval_type_expr(&mut frame, t)
            .or_else(|_| self.unsupported("a type annotation that cannot be evaluated", t.range))
    }

    fn assign(&mut self, target: &AssignTarget, value: &ExprRef<'_>) -> Lowered<()> {
        match target {
            AssignTarget::Name(id) if self.is_interp_tuple_local(id) => self.interp_tuple_store(id, value),
            AssignTarget::Name(id) => {
                let x = self.expr(value)?;
                // `l = []`: the residual code has no annotation for the
                // untyped empty list (no type can be written for it), so its
                // first assignment declares it
                // (nor for `d = {}`, the untyped empty dict, nor for a list
                // iterator, `it = l.__fastiter__()`)
                let unspelled = x.ty == TypeId::EMPTY_LIST
                    || x.ty == TypeId::EMPTY_DICT
                    || self.cx.interp.vm.types.list_iter_list(x.ty).is_some();
                if unspelled && !matches!(self.res.name(id.id), NameRef::Global(_)) {
                    let slot = self.slot(id)?;
                    if !self.locals.contains_key(&slot) {
                        self.declare_local(id, x.ty)?;
                    }
                }
                self.store_local(id, x, value.range)
            }
            AssignTarget::Unpack { names, range } => {
                let x = self.expr(value)?;
                let Some(items) = self.cx.interp.vm.types.tuple_items(x.ty).map(|i| i.to_vec()) else {
                    return self.unsupported(format!("unpacking a `{}`", self.type_name(x.ty)), *range);
                };
                if items.len() != names.len() {
                    return self.unsupported("an unpacking of the wrong arity", *range);
                }
                let parts = self.split(&x, &items, *range)?;
                for (id, part) in names.iter().zip(parts) {
                    self.store_local(&id, part, value.range)?;
                }
                Ok(())
            }
            AssignTarget::Attribute {
                value: obj,
                attr,
                range,
            } => {
                // the object first (`p[i]`: a reference, checked), then
                // the value, as ASTFrame
                let o = self.expr(obj)?;
                if !self.is_mem_field(o.ty, attr) {
                    return self.unsupported("an assignment to an attribute", *range);
                }
                let v = self.expr(value)?;
                let ty = self.mem_field_type(o.ty, attr, *range)?;
                let v = self.coerce(v, ty, value.range)?;
                self.mem_set_field(o, attr, v, value.range)
            }
            AssignTarget::Subscript {
                value: obj,
                indices,
                range,
            } => {
                let o = self.expr(obj)?;
                if let (Some(_), Some([index])) = (self.dict_types(o.ty), indices.as_array()) {
                    return self.dict_setitem(o, &index, value, *range);
                }
                if let (Some(item), Some([index])) = (self.list_item(o.ty), indices.as_array()) {
                    let i = self.expr(&index)?;
                    let v = self.expr(value)?;
                    let i = self.coerce(i, TypeId::I32, index.range)?;
                    let v = self.coerce(v, item, value.range)?;
                    return self.list_setitem(o, i.regs[0], v, index.range);
                }
                let (Some(item), Some([index])) = (self.ptr_item(o.ty), indices.as_array()) else {
                    return self.unsupported("an assignment to a subscript", *range);
                };
                let i = self.expr(&index)?;
                let v = self.expr(value)?;
                let i = self.coerce(i, TypeId::I32, index.range)?;
                let v = self.coerce(v, item, value.range)?;
                self.ptr_setitem(o, i.regs[0], v, *range)
            }
        }
    }

    /// The values of the items of a flattened tuple/struct `x`.
    pub fn split(&self, x: &LVal, items: &[TypeId], range: TextRange) -> Lowered<Vec<LVal>> {
        let mut out = Vec::new();
        let mut at = 0;
        for &t in items {
            let n = self.cx.flatten(t, &self.file, range)?.len();
            out.push(LVal {
                ty: t,
                regs: x.regs[at..at + n].to_vec(),
            });
            at += n;
        }
        Ok(out)
    }

    /// Assign `x` (converted to the local's declared type) to a local.
    pub fn store_local(&mut self, id: &ast::Identifier, x: LVal, range: TextRange) -> Lowered<()> {
        if let NameRef::Global(g) = self.res.name(id.id) {
            return self.store_global(g, &id.name, x, range);
        }
        let slot = self.slot(id)?;
        let Some(local) = self.locals.get(&slot).cloned() else {
            return self.unsupported(format!("the undeclared local `{}`", id.name), id.range);
        };
        let x = self.coerce(x, local.ty, range)?;
        for (&dst, &src) in local.regs.iter().zip(&x.regs) {
            self.fb.assign(dst, Op::Copy(src));
        }
        self.assigned(slot);
        Ok(())
    }

    /// `slot` is assigned here.
    fn assigned(&mut self, slot: u32) {
        if let Some(&flag) = self.flags.get(&slot) {
            let t = self.fb.const_(Ty::Bool, 1);
            self.fb.assign(flag, Op::Copy(t));
        }
        self.defined.insert(slot);
    }

    /// Before reading `slot`: ASTFrame's `NameError` when it is not
    /// assigned, unless every path to here assigns it.
    fn check_assigned(&mut self, id: &ast::Identifier, slot: u32, ty: TypeId) {
        if self.defined.contains(&slot) {
            return;
        }
        self.needs.insert(slot, ty);
        if let Some(&flag) = self.flags.get(&slot) {
            let code = self.fixed_code(
                ExcKind::NameError,
                format!("local variable `{}` is read before being assigned", id.name),
                id.range,
                "read here",
            );
            let f = self.fb.op(Ty::Bool, Op::Copy(flag));
            self.fb.push(IrStmt::If {
                cond: f,
                then_: Block::default(),
                else_: Block(vec![IrStmt::Raise {
                    code,
                    operands: [None, None],
                }]),
            });
            self.defined.insert(slot);
        }
    }

    /// A copy of a local's current value (temporaries, so later
    /// assignments to the local do not change it).
    pub fn read_local(&mut self, id: &ast::Identifier) -> Lowered<LVal> {
        if let NameRef::Global(g) = self.res.name(id.id) {
            return self.read_global(g, &id.name, id.range);
        }
        let slot = self.slot(id)?;
        let Some(local) = self.locals.get(&slot).cloned() else {
            return self.unsupported(format!("the undeclared local `{}`", id.name), id.range);
        };
        self.check_assigned(id, slot, local.ty);
        let regs = local
            .regs
            .iter()
            .map(|&r| {
                let t = self.fb.ty(r);
                self.fb.op(t, Op::Copy(r))
            })
            .collect();
        Ok(LVal { ty: local.ty, regs })
    }
}
