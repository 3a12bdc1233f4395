//! DopplerFrame's hooks into the evaluator. Redshift runs the same
//! evaluation rules as ASTFrame (this is not a second interpreter): while
//! shifting, a red value is `Value::Residual(expr)` — the expression that
//! computes it at run time — and every operation with a red input (or with
//! a run-time effect) builds residual code instead of executing. Blue
//! values are computed as usual and become constants in the residual code.
//!
//! This file owns the shifting state: the residual blocks under
//! construction, the residual names of locals (a declaration executed again,
//! e.g. in an unrolled body, gets a fresh name), and the imports the
//! residual module needs.

use crate::vm::rt_error::RuntimeError;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast::{self, Expr, ExprKind, Identifier, NameId, Stmt, StmtKind};
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Typed, Value};

/// How static errors found while redshifting are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorMode {
    /// The first error aborts redshift (`spy-interp redshift`, default).
    Eager,
    /// A statement whose redshift fails becomes a `raise` of that error at
    /// that point (`execute --engine doppler`, `redshift -E lazy`).
    Lazy,
}

/// Residual names of the locals of one function being shifted.
#[derive(Default)]
struct Names {
    by_slot: HashMap<u32, String>,
    used: HashSet<String>,
    /// Slots declared without a value and not assigned since (`x: T`).
    unassigned: HashSet<u32>,
}

/// The state of a redshift in progress.
pub struct DopplerState {
    pub error_mode: ErrorMode,
    blocks: Vec<Vec<Stmt>>,
    names: Vec<Names>,
    /// `(module, name)` pairs the residual module must import.
    pub imports: BTreeSet<(&'static str, &'static str)>,
    next_temp: u32,
    /// Residual `def`s of the functions shifted so far, by FQN.
    pub shifted: HashMap<String, ast::FuncDef>,
    /// The shifted functions, in the order they were shifted.
    pub order: Vec<Rc<crate::vm::value::Function>>,
    /// FQNs of the functions being shifted (on-demand shifting nests).
    pub in_progress: HashSet<String>,
    /// Emit provenance comments (`--provenance`).
    pub provenance: bool,
    /// Residual helpers for implicit conversions with no explicit spelling:
    /// name -> (from, to).
    pub conversions: std::collections::BTreeMap<String, (TypeId, TypeId)>,
    /// Residual helpers that raise an error found while folding a blue
    /// operation (lazy mode): name -> (what it raises, result type).
    pub raisers: std::collections::BTreeMap<String, (Raised, TypeId)>,
    /// Keep module prefixes in residual names (`--full-fqn`).
    pub full_fqn: bool,
    /// Residual red `__eq__` methods of structs whose `__eq__` is a
    /// metafunc: the body `impl(self, other)` (None while it is resolved).
    pub eq_methods: std::collections::BTreeMap<TypeId, Option<Expr>>,
}

impl DopplerState {
    pub fn new(error_mode: ErrorMode) -> DopplerState {
        DopplerState {
            error_mode,
            blocks: Vec::new(),
            names: Vec::new(),
            imports: BTreeSet::new(),
            next_temp: 0,
            shifted: HashMap::new(),
            order: Vec::new(),
            in_progress: HashSet::new(),
            provenance: false,
            full_fqn: false,
            conversions: Default::default(),
            raisers: Default::default(),
            eq_methods: Default::default(),
        }
    }
}

/// What a `$raise[N]` helper raises: a typed run-time error (by its stable
/// code, `vm::rt_error`, as the JIT raises it), or another exception found
/// while folding a blue operation (a TypeError of a blue call...) by kind and
/// message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Raised {
    Runtime(RuntimeError),
    Other(crate::error::ExcKind, String),
}

impl Raised {
    pub fn of(e: &crate::error::SpyError) -> Raised {
        match e.runtime.as_deref().map(RuntimeError::from_runtime_code) {
            Some(Some(rt)) => Raised::Runtime(rt),
            // not a run-time error (every code `RuntimeError` makes decodes,
            // tested in `vm::rt_error`)
            _ => Raised::Other(e.kind, e.message.clone()),
        }
    }

    pub fn kind(&self) -> crate::error::ExcKind {
        match self {
            Raised::Runtime(rt) => rt.kind(),
            Raised::Other(kind, _) => *kind,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Raised::Runtime(rt) => rt.to_string(),
            Raised::Other(_, message) => message.clone(),
        }
    }
}

pub(crate) fn ident(name: &str, range: TextRange) -> Identifier {
    Identifier {
        name: name.to_string(),
        range,
        id: NameId(0),
    }
}

pub(crate) fn name_expr(name: &str, range: TextRange) -> Expr {
    Expr::new(ExprKind::Name(ident(name, range)), range)
}

impl Interp<'_> {
    /// A red value computed at run time by `e`.
    pub(crate) fn residual_value(ty: TypeId, e: Expr) -> Typed {
        Typed {
            color: Color::Red,
            ty,
            value: Value::Residual(Rc::new(e)),
        }
    }

    /// The residual expression of `t`: its run-time expression, or the
    /// constant that spells its (blue) value.
    pub(crate) fn residual(&mut self, f: &Frame, t: &Typed, range: TextRange) -> Eval<Expr> {
        match &t.value {
            Value::Residual(e) => Ok((**e).clone()),
            v => self.const_expr(f, v, t.ty, range),
        }
    }

    pub(crate) fn residuals(&mut self, f: &Frame, ts: &[(Typed, TextRange)]) -> Eval<Vec<Expr>> {
        ts.iter().map(|(t, r)| self.residual(f, t, *r)).collect()
    }

    /// Append a residual statement to the block under construction.
    pub(crate) fn emit(&mut self, s: Stmt) {
        if let Some(block) = self.doppler.as_mut().and_then(|d| d.blocks.last_mut()) {
            block.push(s);
        }
    }

    pub(crate) fn push_block(&mut self) {
        if let Some(d) = self.doppler.as_mut() {
            d.blocks.push(Vec::new());
        }
    }

    pub(crate) fn pop_block(&mut self) -> Vec<Stmt> {
        self.doppler
            .as_mut()
            .and_then(|d| d.blocks.pop())
            .unwrap_or_default()
    }

    /// Number of statements in the current block (to undo a statement's
    /// partial output in lazy mode).
    pub(crate) fn block_len(&self) -> usize {
        self.doppler
            .as_ref()
            .and_then(|d| d.blocks.last())
            .map_or(0, |b| b.len())
    }

    pub(crate) fn truncate_block(&mut self, len: usize) {
        if let Some(block) = self.doppler.as_mut().and_then(|d| d.blocks.last_mut()) {
            block.truncate(len);
        }
    }

    pub(crate) fn push_names(&mut self, reserved: impl IntoIterator<Item = String>) {
        if let Some(d) = self.doppler.as_mut() {
            let mut names = Names::default();
            names.used.extend(reserved);
            d.names.push(names);
        }
    }

    /// Names for an inlined body: its own slots, but fresh against (and
    /// reserved in) the residual function it is inlined into.
    pub(crate) fn push_inline_names(&mut self) {
        if let Some(d) = self.doppler.as_mut() {
            let used = d.names.last().map(|n| n.used.clone()).unwrap_or_default();
            d.names.push(Names {
                by_slot: HashMap::new(),
                used,
                unassigned: HashSet::new(),
            });
        }
    }

    pub(crate) fn pop_inline_names(&mut self) {
        if let Some(d) = self.doppler.as_mut() {
            if let Some(inner) = d.names.pop() {
                if let Some(outer) = d.names.last_mut() {
                    outer.used.extend(inner.used);
                }
            }
        }
    }

    pub(crate) fn pop_names(&mut self) {
        if let Some(d) = self.doppler.as_mut() {
            d.names.pop();
        }
    }

    /// The residual name for a declaration of local `slot` (named `base`):
    /// `base` the first time, `base$1`, `base$2`... when the same slot is
    /// declared again (each repetition of an unrolled body has its own).
    pub(crate) fn declare_residual_name(&mut self, slot: u32, base: &str) -> String {
        let Some(names) = self.doppler.as_mut().and_then(|d| d.names.last_mut()) else {
            return base.to_string();
        };
        let name = if names.by_slot.contains_key(&slot) || names.used.contains(base) {
            (1..)
                .map(|k| format!("{base}${k}"))
                .find(|n| !names.used.contains(n))
                .expect("a free name")
        } else {
            base.to_string()
        };
        names.used.insert(name.clone());
        names.by_slot.insert(slot, name.clone());
        name
    }

    /// Record that local `slot` was declared without a value.
    pub(crate) fn mark_unassigned(&mut self, slot: u32) {
        if let Some(names) = self.doppler.as_mut().and_then(|d| d.names.last_mut()) {
            names.unassigned.insert(slot);
        }
    }

    /// Whether local `slot` was declared without a value and not assigned
    /// yet (then its first assignment is not a reassignment).
    pub(crate) fn take_unassigned(&mut self, slot: u32) -> bool {
        self.doppler
            .as_mut()
            .and_then(|d| d.names.last_mut())
            .is_some_and(|n| n.unassigned.remove(&slot))
    }

    /// Emit the residual declaration `name: T` (or `name: T = value`).
    pub(crate) fn emit_declaration(
        &mut self,
        f: &Frame,
        name: &str,
        ty: TypeId,
        value: Option<Expr>,
        range: TextRange,
    ) -> Eval<()> {
        let annotation = self.type_expr(f, ty, range)?;
        let def = ast::VarDef {
            kind: None,
            name: ident(name, range),
            annotation: Some(annotation),
            value,
        };
        self.emit(Stmt::new(StmtKind::VarDef(Box::new(def)), range));
        Ok(())
    }

    /// A fresh temporary name (for splat operands evaluated once).
    pub(crate) fn temp_name(&mut self, what: &str) -> String {
        let Some(d) = self.doppler.as_mut() else {
            return what.to_string();
        };
        d.next_temp += 1;
        let name = format!("{what}${}", d.next_temp);
        if let Some(names) = d.names.last_mut() {
            names.used.insert(name.clone());
        }
        name
    }

    /// Bind every run-time value of `args` to a fresh temporary, in order,
    /// and make it read that temporary: the bindings `t1 := a, t2 := b` let
    /// an operation use its operands in another order than the source
    /// evaluates them. See `after_bindings`.
    pub(crate) fn bind_in_order(&mut self, f: &Frame, args: &mut [(Typed, TextRange)]) -> Eval<Vec<Expr>> {
        let mut bindings = Vec::new();
        for (a, r) in args.iter_mut() {
            if !is_runtime(a) {
                continue;
            }
            let value = self.residual(f, a, *r)?;
            let tmp = self.temp_name("arg");
            self.emit_declaration(f, &tmp, a.ty, None, *r)?;
            bindings.push(build::walrus(ident(&tmp, *r), value, *r));
            *a = Self::residual_value(a.ty, name_expr(&tmp, *r));
        }
        Ok(bindings)
    }

    /// Whether converting a value of type `from` to `to` calls a conversion
    /// hook (`__convert_to__` of `from` or `__convert_from__` of `to`).
    pub(crate) fn converts_via_hook(&self, from: TypeId, to: TypeId) -> bool {
        from != to
            && (self.vm.struct_method(from, "__convert_to__").is_some()
                || self.vm.struct_method(to, "__convert_from__").is_some())
    }

    /// ASTFrame evaluates every argument of a call, then converts them. A
    /// conversion hook is a call that the residual code makes in its
    /// argument's place, so when a later argument is evaluated at run time
    /// the hook would run first: bind every run-time argument to a
    /// temporary before converting (`bind_in_order`), and build the result
    /// with `after_bindings`. `target(k)`: the type argument `k` is
    /// converted to. No bindings when no hook runs before a run-time
    /// argument.
    pub(crate) fn bind_before_hooks(
        &mut self,
        f: &Frame,
        args: &mut [(Typed, TextRange)],
        target: impl Fn(usize) -> Option<TypeId>,
    ) -> Eval<Vec<Expr>> {
        let first_hook = args
            .iter()
            .enumerate()
            .position(|(k, (a, _))| target(k).is_some_and(|t| self.converts_via_hook(a.ty, t)));
        match first_hook {
            Some(k) if args[k + 1..].iter().any(|(a, _)| is_runtime(a)) => self.bind_in_order(f, args),
            _ => Ok(Vec::new()),
        }
    }

    /// `result` after the `bindings` of `bind_before_hooks` (none: itself).
    pub(crate) fn after_bindings_if_any(
        &mut self,
        f: &Frame,
        bindings: Vec<Expr>,
        result: Eval<Typed>,
        range: TextRange,
    ) -> Eval<Typed> {
        if bindings.is_empty() {
            return result;
        }
        self.after_bindings(f, bindings, &result?, range)
    }

    /// `(t1 := a, t2 := b, result)[2]`: `result` evaluated after the
    /// `bindings` of `bind_in_order`.
    pub(crate) fn after_bindings(
        &mut self,
        f: &Frame,
        mut bindings: Vec<Expr>,
        result: &Typed,
        range: TextRange,
    ) -> Eval<Typed> {
        let n = bindings.len() as i64;
        bindings.push(self.residual(f, result, range)?);
        let tuple = Expr::new(ExprKind::Tuple(bindings), range);
        Ok(Self::residual_value(
            result.ty,
            build::subscript(tuple, vec![build::int(n, range)], range),
        ))
    }

    /// Whether a run-time value among `args` has effects (so moving its
    /// evaluation would be observable).
    pub(crate) fn any_effects<'a>(
        &mut self,
        f: &Frame,
        args: impl IntoIterator<Item = (&'a Typed, TextRange)>,
    ) -> Eval<bool> {
        for (a, r) in args {
            if is_runtime(a) && has_effects(&self.residual(f, a, r)?) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `--provenance`: a comment in the residual code.
    pub(crate) fn note(&mut self, text: impl FnOnce() -> String, range: TextRange) {
        if self.doppler.as_ref().is_some_and(|d| d.provenance) {
            let text = text();
            self.emit(Stmt::new(StmtKind::Comment(text), range));
        }
    }

    pub(crate) fn note_import(&mut self, module: &'static str, name: &'static str) {
        if let Some(d) = self.doppler.as_mut() {
            d.imports.insert((module, name));
        }
    }

    /// A residual expression statement, e.g. to keep the side effects of an
    /// operand whose value folded to a constant.
    pub(crate) fn emit_effect(&mut self, f: &Frame, t: &Typed, range: TextRange) -> Eval<()> {
        if let Value::Residual(e) = &t.value {
            if has_effects(e) {
                let _ = f;
                self.emit(Stmt::new(StmtKind::Expr((**e).clone()), range));
            }
        }
        Ok(())
    }
}

/// A value only known at run time (a red value of a frame being shifted).
/// Red values computed from blue inputs without effects (a tuple display,
/// `str(5)`) stay concrete and are spelled as constants.
pub(crate) fn is_runtime(t: &Typed) -> bool {
    matches!(t.value, Value::Residual(_))
}

/// A red local known at run time by the residual name `name`.
pub(crate) fn residual_local(ty: TypeId, name: &str, range: TextRange) -> crate::vm::value::Local {
    crate::vm::value::Local {
        ty,
        color: Color::Red,
        value: Some(Value::Residual(Rc::new(name_expr(name, range)))),
    }
}

/// Whether evaluating `e` may have side effects (calls, assignments).
pub(crate) fn has_effects(e: &Expr) -> bool {
    let mut effects = false;
    crate::syntax::walk::walk_expr(e, &mut |e| {
        if matches!(e.kind, ExprKind::Call { .. } | ExprKind::Walrus { .. }) {
            effects = true;
        }
    });
    effects
}

/// Build `Expr` nodes for residual code.
pub(crate) mod build {
    use super::*;

    pub fn call(func: Expr, args: Vec<Expr>, range: TextRange) -> Expr {
        Expr::new(
            ExprKind::Call {
                func: Box::new(func),
                args,
            },
            range,
        )
    }

    pub fn subscript(value: Expr, indices: Vec<Expr>, range: TextRange) -> Expr {
        Expr::new(
            ExprKind::Subscript {
                value: Box::new(value),
                indices,
            },
            range,
        )
    }

    pub fn attribute(value: Expr, attr: &str, range: TextRange) -> Expr {
        Expr::new(
            ExprKind::Attribute {
                value: Box::new(value),
                attr: ident(attr, range),
            },
            range,
        )
    }

    pub fn walrus(target: Identifier, value: Expr, range: TextRange) -> Expr {
        Expr::new(
            ExprKind::Walrus {
                target,
                value: Box::new(value),
            },
            range,
        )
    }

    pub fn int(v: i64, range: TextRange) -> Expr {
        if v < 0 {
            Expr::new(
                ExprKind::UnaryOp {
                    op: ast::UnaryOp::Neg,
                    operand: Box::new(Expr::new(ExprKind::Int(v.unsigned_abs()), range)),
                },
                range,
            )
        } else {
            Expr::new(ExprKind::Int(v as u64), range)
        }
    }
}
