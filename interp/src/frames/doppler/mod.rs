//! DopplerFrame's hooks into the evaluator. Redshift runs the same
//! evaluation rules as ASTFrame (this is not a second interpreter): while
//! shifting, a red value is `Value::Residual(expr)` — the expression that
//! computes it at run time — and every operation with a red input (or with
//! a run-time effect) builds residual code instead of executing. Blue
//! values are computed as usual and become constants in the residual code.
//!
//! Residual code is built in one tree for the whole redshift (the
//! residual module, `DopplerState::residual`): `Value::Residual` holds an
//! expression of it, and the handle's builders (`Shift::call`,
//! `Shift::name`...) add nodes to it.
//!
//! Shifting is a typed mode: a redshift in progress is a [`Shift`] handle
//! (the shared [`DopplerState`]), and every shifting frame holds it
//! (`Frame::shift`), so "this frame shifts" and "the redshift state exists"
//! are one fact. Hooks that build residual code take the handle; called
//! outside a shifting frame they are an internal error, never a silently
//! dropped statement.
//!
//! | file        | owns                                                       |
//! |-------------|------------------------------------------------------------|
//! | `mod.rs`    | the handle and state: residual blocks, residual names of locals (a declaration executed again, e.g. in an unrolled body, gets a fresh name), imports, the redshift's bookkeeping of blue calls |
//! | `expr.rs`   | expressions while redshifting: residual nodes              |
//! | `stmt.rs`   | statements while redshifting: abstract control flow        |
//! | `consts.rs` | blue values spelled as residual constants                  |
//! | `record.rs` | what a redshift records for tools: expression colors, blue call sites |

mod consts;
mod expr;
pub mod record;
mod stmt;

pub(crate) use expr::BinSym;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::cell::{Ref, RefCell, RefMut};
use std::collections::BTreeSet;
use std::rc::Rc;

use crate::error::Bug;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast::{self, ExprId, ExprKind, ExprNode, IdentId, Identifier, NameId, StmtId, StmtNode};
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::TypeId;
use crate::vm::value::{Color, ResidualExpr, Typed, Value};

/// How static errors found while redshifting are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorMode {
    /// The first error aborts redshift (`spy-interp redshift`, default).
    Eager,
    /// A statement whose redshift fails becomes a `raise` of that error at
    /// that point (`execute --engine doppler`, `redshift -E lazy`).
    Lazy,
    /// Lazy, and every static error so deferred is also kept as a warning
    /// (`redshift -E warn`: `DopplerState::warnings`).
    Warn,
}

impl ErrorMode {
    /// Whether a static error becomes a `raise` in the residual code.
    pub fn is_lazy(self) -> bool {
        matches!(self, ErrorMode::Lazy | ErrorMode::Warn)
    }
}

/// Residual names of the locals of one function being shifted.
#[derive(Default)]
struct Names {
    by_slot: HashMap<u32, String>,
    used: HashSet<String>,
    /// Slots declared without a value and not assigned since (`x: T`).
    unassigned: HashSet<u32>,
}

/// An entry of the redshift's worklist (`DopplerState::red_functions`).
pub enum RedFunction {
    /// A red function's record.
    Made(Rc<crate::vm::value::Function>),
    /// A module-level `def` whose record is made when its turn comes, if
    /// no read made it before (`frames::pending_def`: a streaming redshift
    /// defers them as the interp engine does): module and global slot.
    Pending(crate::vm::value::ModuleId, u32),
    /// Taken by the streaming redshift, which shifted it.
    Taken,
}

/// The state of a redshift in progress.
pub struct DopplerState {
    pub error_mode: ErrorMode,
    /// The residual code built so far (every residual module's).
    pub residual: ast::Module,
    blocks: Vec<Vec<StmtId>>,
    names: Vec<Names>,
    /// `(importer, module, name)`: residual module `importer` must import
    /// `name` from builtin module `module`.
    pub imports: BTreeSet<(String, &'static str, &'static str)>,
    /// `(importer, module)`: residual module `importer` refers to names of
    /// user module `module` (spelled `module.name`, spec §16.8).
    pub user_imports: BTreeSet<(String, String)>,
    next_temp: u32,
    /// Residual `def`s of the functions shifted so far, by FQN: in the
    /// residual tree, or already printed (a streaming redshift).
    pub shifted: HashMap<Rc<str>, ShiftedDef>,
    /// The window of the residual arena residual values are made in: a
    /// streaming redshift cuts the arena back after each function and
    /// starts a new window (`vm::value::ResidualExpr`).
    pub window: u32,
    /// Stream: print each function once shifted and cut the residual
    /// arena back (`redshift::RedshiftOptions::stream`).
    pub stream: bool,
    /// The residual `def`s printed so far, by module name (streaming).
    pub printed: HashMap<String, crate::backend::PrintedDefs>,
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
    /// The errors found in lazy mode and turned into residual `raise`s, as
    /// ASTFrame would report them (`backend::origins`).
    pub folded: Vec<crate::backend::origins::FoldedError>,
    /// Keep module prefixes in residual names (`--full-fqn`).
    pub full_fqn: bool,
    /// Residual red `__eq__` methods of structs whose `__eq__` is a
    /// metafunc: the body `impl(self, other)` (None while it is resolved).
    pub eq_methods: std::collections::BTreeMap<TypeId, Option<ExprId>>,
    /// The blue calls being evaluated, innermost last (where a function
    /// made by blue code comes from). Recorded from module init on, only
    /// while redshifting.
    pub blue_calls: Vec<record::BlueCall>,
    /// Where each red function made by blue code comes from, by FQN
    /// (innermost call first).
    pub made_by: HashMap<String, Vec<record::BlueCall>>,
    /// Expression colors and note sites, when a tool asked for them.
    pub record: Option<record::Record>,
    /// Every red function created so far (the redshift worklist), and
    /// the module-level `def`s whose records are made when first read.
    pub red_functions: Vec<RedFunction>,
    /// The records of pending `def`s made while streaming (their module,
    /// global slot and `def`): given back once nothing else holds them
    /// (`Interp::release_made_defs`).
    pub(crate) made_defs: Vec<(crate::vm::value::ModuleId, u32, ast::FuncId)>,
    /// The static errors deferred to run time, in `ErrorMode::Warn`.
    pub warnings: Vec<crate::error::SpyError>,
    /// Residual statements emitted so far (the residual module's size, see `unroll`).
    pub(crate) emitted: u64,
    /// The range of the expression a statement being shifted consists of
    /// (`e`, `return e`, `x = e`, `x: T = e`): a `@force_inline` call there
    /// may splice its body's statements before the statement, since nothing
    /// of the statement runs after the call but the statement itself.
    /// (Keyed by the source file's address and the range.)
    pub(crate) splice_at: Option<(usize, TextRange)>,
}

/// The handle of a redshift in progress, shared by every shifting frame and
/// by the redshift driver.
#[derive(Clone)]
pub struct Shift(Rc<RefCell<DopplerState>>);

impl Shift {
    pub fn new(state: DopplerState) -> Shift {
        Shift(Rc::new(RefCell::new(state)))
    }

    /// The state, for one short access (never held across evaluation).
    pub(crate) fn state(&self) -> RefMut<'_, DopplerState> {
        self.0.borrow_mut()
    }

    pub(crate) fn read(&self) -> Ref<'_, DopplerState> {
        self.0.borrow()
    }

    pub(crate) fn error_mode(&self) -> ErrorMode {
        self.read().error_mode
    }

    pub(crate) fn provenance(&self) -> bool {
        self.read().provenance
    }

    /// Append a residual statement to the block under construction. Every
    /// shifted body opens its block before it runs, so a missing block is
    /// a broken invariant: a panic, which the engine's panic net reports as
    /// an internal error (never a dropped statement).
    pub(crate) fn emit(&self, node: StmtNode, range: TextRange) {
        let s = self.stmt(node, range);
        self.emit_id(s);
    }

    /// [`Shift::emit`] of a statement already built.
    pub(crate) fn emit_id(&self, s: StmtId) {
        let mut state = self.state();
        state.emitted += 1;
        match state.blocks.last_mut() {
            Some(block) => block.push(s),
            None => panic!("bug: a residual statement was emitted outside any residual block"),
        }
    }

    pub(crate) fn push_block(&self) {
        self.state().blocks.push(Vec::new());
    }

    /// The statements of the residual block last opened.
    pub(crate) fn pop_block(&self) -> Eval<Vec<StmtId>> {
        self.state()
            .blocks
            .pop()
            .ok_or_else(|| Bug::new("a residual block was closed that was never opened").into())
    }

    /// Number of statements in the current block (to undo a statement's
    /// partial output in lazy mode).
    pub(crate) fn block_len(&self) -> usize {
        self.read().blocks.last().map_or(0, |b| b.len())
    }

    pub(crate) fn truncate_block(&self, len: usize) {
        if let Some(block) = self.state().blocks.last_mut() {
            block.truncate(len);
        }
    }

    pub(crate) fn push_names(&self, reserved: impl IntoIterator<Item = String>) {
        let mut names = Names::default();
        names.used.extend(reserved);
        self.state().names.push(names);
    }

    /// Names for an inlined body: its own slots, but fresh against (and
    /// reserved in) the residual function it is inlined into.
    pub(crate) fn push_inline_names(&self) {
        let mut d = self.state();
        let used = d.names.last().map(|n| n.used.clone()).unwrap_or_default();
        d.names.push(Names {
            by_slot: HashMap::new(),
            used,
            unassigned: HashSet::new(),
        });
    }

    pub(crate) fn pop_inline_names(&self) {
        let mut d = self.state();
        if let Some(inner) = d.names.pop() {
            if let Some(outer) = d.names.last_mut() {
                outer.used.extend(inner.used);
            }
        }
    }

    pub(crate) fn pop_names(&self) {
        self.state().names.pop();
    }

    /// The residual name for a declaration of local `slot` (named `base`):
    /// `base` the first time, `base$1`, `base$2`... when the same slot is
    /// declared again (each repetition of an unrolled body has its own).
    pub(crate) fn declare_residual_name(&self, slot: u32, base: &str) -> Eval<String> {
        let mut d = self.state();
        let Some(names) = d.names.last_mut() else {
            return Err(Bug::new("a residual local was declared outside any residual function").into());
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
        Ok(name)
    }

    /// Record that local `slot` was declared without a value.
    pub(crate) fn mark_unassigned(&self, slot: u32) {
        if let Some(names) = self.state().names.last_mut() {
            names.unassigned.insert(slot);
        }
    }

    /// Whether local `slot` was declared without a value and not assigned
    /// yet (then its first assignment is not a reassignment).
    pub(crate) fn take_unassigned(&self, slot: u32) -> bool {
        self.state()
            .names
            .last_mut()
            .is_some_and(|n| n.unassigned.remove(&slot))
    }

    /// A fresh temporary name (for splat operands evaluated once).
    pub(crate) fn temp_name(&self, what: &str) -> String {
        let mut d = self.state();
        d.next_temp += 1;
        let name = format!("{what}${}", d.next_temp);
        if let Some(names) = d.names.last_mut() {
            names.used.insert(name.clone());
        }
        name
    }

    /// Record the color and type of an expression of `f` just evaluated
    /// (when a tool asked for colors and `f` runs the main module's code).
    pub(crate) fn record_color(&self, f: &Frame, range: TextRange, t: &Typed) {
        let mut state = self.state();
        if let Some(rec) = state.record.as_mut() {
            if f.file.path == rec.main_path {
                rec.colors.push(record::ExprColor {
                    range,
                    color: t.color,
                    ty: t.ty,
                });
            }
        }
    }

    /// A static error deferred to run time: kept as a warning in
    /// `ErrorMode::Warn`.
    pub(crate) fn deferred(&self, e: &crate::error::SpyError) {
        let mut state = self.state();
        if state.error_mode == ErrorMode::Warn {
            state.warnings.push(e.clone());
        }
    }

    pub(crate) fn note_import(&self, importer: &str, module: &'static str, name: &'static str) {
        self.state().imports.insert((importer.to_string(), module, name));
    }
}

/// Building residual code.
impl Shift {
    /// Read the residual code built so far.
    pub(crate) fn with_residual<R>(&self, f: impl FnOnce(&ast::Module) -> R) -> R {
        f(&self.read().residual)
    }

    pub(crate) fn expr(&self, node: ExprNode, range: TextRange) -> ExprId {
        self.state().residual.add_expr(node, range)
    }

    /// A residual expression as stored.
    pub(crate) fn expr_node(&self, e: ExprId) -> ast::Expr {
        self.read().residual.expr_node(e)
    }

    pub(crate) fn stmt(&self, node: StmtNode, range: TextRange) -> StmtId {
        self.state().residual.add_stmt(node, range)
    }

    /// A residual statement as stored.
    pub(crate) fn stmt_node(&self, s: StmtId) -> ast::Stmt {
        self.read().residual.stmt_node(s)
    }

    /// The shared `Name` spelled `name` (the residual module's name table
    /// has each once, as the parser's has a module's: a residual module
    /// has as many name occurrences as its source).
    fn intern(state: &mut DopplerState, name: &str) -> ast::Name {
        let sym = state.residual.intern(name);
        state.residual.name(sym).clone()
    }

    /// A residual identifier (its id a placeholder: the residual module is
    /// printed and parsed again before it runs).
    pub(crate) fn ident(&self, name: &str, range: TextRange) -> IdentId {
        let mut state = self.state();
        let name = Self::intern(&mut state, name);
        state.residual.add_ident(Identifier {
            name,
            range,
            id: NameId(0),
        })
    }

    /// The residual name expression `name`.
    pub(crate) fn name(&self, name: &str, range: TextRange) -> ExprId {
        let mut state = self.state();
        let sym = state.residual.intern(name);
        state
            .residual
            .add_expr(ExprNode::Name { sym, id: NameId(0) }, range)
    }

    /// The residual name expression of identifier `id`, at `range`: one
    /// node, the identifier's own range not kept. (Residual code is only
    /// printed, and a printed name shows and maps just its expression's
    /// range; an identifier entry per read of a red local was 2 heap bytes
    /// per source byte at the redshift's peak, issue 14 item 5.)
    pub(crate) fn name_at(&self, id: &Identifier, range: TextRange) -> ExprId {
        self.state().residual.add_name(id.name.clone(), id.id, range)
    }

    pub(crate) fn exprs(&self, items: impl IntoIterator<Item = ExprId>) -> ast::ExprList {
        self.state().residual.add_exprs(items)
    }

    pub(crate) fn block(&self, items: impl IntoIterator<Item = StmtId>) -> ast::Block {
        self.state().residual.add_block(items)
    }

    pub(crate) fn bytes(&self, bytes: impl Into<Box<[u8]>>, range: TextRange) -> ExprId {
        let mut state = self.state();
        let b = state.residual.add_bytes(bytes);
        state.residual.add_expr(ExprNode::Bytes(b), range)
    }

    pub(crate) fn str(&self, text: impl Into<Box<str>>, range: TextRange) -> ExprId {
        let mut state = self.state();
        let s = state.residual.add_str(text);
        state.residual.add_expr(ExprNode::Str(s), range)
    }

    /// A residual comment statement.
    pub(crate) fn comment(&self, text: impl Into<Box<str>>, range: TextRange) -> StmtId {
        let mut state = self.state();
        let s = state.residual.add_str(text);
        state.residual.add_stmt(StmtNode::Comment(s), range)
    }

    pub(crate) fn call(&self, func: ExprId, args: Vec<ExprId>, range: TextRange) -> ExprId {
        self.state().residual.add_call(func, args, range)
    }

    pub(crate) fn if_exp(&self, node: ast::IfExpNode, range: TextRange) -> ExprId {
        self.state().residual.add_if_exp(node, range)
    }

    pub(crate) fn slice(&self, node: ast::SliceNode, range: TextRange) -> ExprId {
        self.state().residual.add_slice(node, range)
    }

    pub(crate) fn subscript(&self, value: ExprId, indices: Vec<ExprId>, range: TextRange) -> ExprId {
        self.state().residual.add_subscript(value, indices, range)
    }

    pub(crate) fn attribute(&self, value: ExprId, attr: &str, range: TextRange) -> ExprId {
        let attr = self.ident(attr, range);
        self.expr(ExprNode::Attribute { value, attr }, range)
    }

    /// `target := value`.
    pub(crate) fn walrus(&self, target: IdentId, value: ExprId, range: TextRange) -> ExprId {
        self.expr(ExprNode::Walrus { target, value }, range)
    }

    /// An `i64` literal (a negative one as `-n`).
    pub(crate) fn int(&self, v: i64, range: TextRange) -> ExprId {
        let lit = self.expr(ExprNode::Int(ast::Lit64::from_u64(v.unsigned_abs())), range);
        if v < 0 {
            self.expr(
                ExprNode::UnaryOp {
                    op: ast::UnaryOp::Neg,
                    operand: lit,
                },
                range,
            )
        } else {
            lit
        }
    }

    /// `(items...)`.
    pub(crate) fn tuple(&self, items: Vec<ExprId>, range: TextRange) -> ExprId {
        let items = self.exprs(items);
        self.expr(ExprNode::Tuple(items), range)
    }

    /// A residual identifier table entry for `id`.
    pub(crate) fn with_ident(&self, id: Identifier) -> IdentId {
        self.state().residual.add_ident(id)
    }

    /// The identifier of residual expression `e` when it is a name.
    pub(crate) fn name_of(&self, e: ExprId) -> Option<Identifier> {
        self.with_residual(|m| m.expr(e).name_ident())
    }

    /// Residual expression `e` held by a red value: of the current window.
    pub(crate) fn value(&self, e: ExprId) -> Value {
        Value::Residual(ResidualExpr {
            expr: e,
            window: self.read().window,
        })
    }

    /// The expression a red value holds. One made in a window a streaming
    /// redshift has cut (its id may now name another node) is an internal
    /// error: a residual value outlived the function it was made for.
    pub(crate) fn live(&self, r: ResidualExpr) -> Eval<ExprId> {
        let window = self.read().window;
        if r.window != window {
            return Err(crate::bug!(
                "a residual value of window {} read in window {window}: it outlived the function it was made for",
                r.window
            ));
        }
        Ok(r.expr)
    }
}

/// A shifted function's residual `def`: in the residual tree, or already
/// printed into its module's `DopplerState::printed` (a streaming redshift).
#[derive(Clone, Copy, Debug)]
pub enum ShiftedDef {
    Tree(ast::FuncId),
    Printed,
}

impl Frame {
    /// The redshift this frame shifts for; a hook that builds residual code
    /// outside a shifting frame is an internal error.
    pub(crate) fn shift(&self) -> Eval<Shift> {
        self.shift
            .clone()
            .ok_or_else(|| Bug::new("a redshift hook ran in a frame that is not shifting").into())
    }

    /// A frame of a red function being redshifted.
    pub(crate) fn is_shifting(&self) -> bool {
        self.shift.is_some()
    }
}

impl DopplerState {
    pub fn new(error_mode: ErrorMode) -> DopplerState {
        DopplerState {
            error_mode,
            residual: ast::Module::new(),
            blocks: Vec::new(),
            names: Vec::new(),
            imports: BTreeSet::new(),
            user_imports: BTreeSet::new(),
            next_temp: 0,
            shifted: HashMap::new(),
            window: 0,
            stream: false,
            printed: HashMap::new(),
            order: Vec::new(),
            in_progress: HashSet::new(),
            provenance: false,
            full_fqn: false,
            conversions: Default::default(),
            raisers: Default::default(),
            folded: Vec::new(),
            eq_methods: Default::default(),
            blue_calls: Vec::new(),
            made_by: HashMap::new(),
            record: None,
            warnings: Vec::new(),
            red_functions: Vec::new(),
            made_defs: Vec::new(),
            emitted: 0,
            splice_at: None,
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

impl Interp<'_> {
    /// What ASTFrame would report for `e`, raised while `f` evaluated: kept
    /// for the residual `raise` at `site` that stands for it (with the
    /// specialization note ASTFrame adds when `e` leaves `f`).
    pub(crate) fn folded_error(
        &self,
        e: &crate::error::SpyError,
        f: &crate::frames::Frame,
        helper: Option<String>,
        site: TextRange,
    ) -> crate::backend::origins::FoldedError {
        let notes = match self.noted_specialization(e.clone().into(), f) {
            crate::error::Failure::Raise(noted) => noted.notes,
            _ => e.notes.clone(),
        };
        crate::backend::origins::FoldedError {
            helper,
            site,
            kind: e.kind,
            message: e.message.clone(),
            annotations: e.annotations.clone(),
            inner_traceback: e.traceback.clone(),
            current: f.current,
            notes,
        }
    }
}

impl Interp<'_> {
    /// A red value computed at run time by residual expression `e` (of
    /// the current window of `f`'s redshift).
    pub(crate) fn residual_value(f: &Frame, ty: TypeId, e: ExprId) -> Typed {
        let window = f.shift.as_ref().map_or(0, |sh| sh.read().window);
        Typed {
            color: Color::Red,
            ty,
            value: Value::Residual(ResidualExpr { expr: e, window }),
        }
    }

    /// The residual expression of `t`: its run-time expression, or the
    /// constant that spells its (blue) value.
    pub(crate) fn residual(&mut self, f: &Frame, t: &Typed, range: TextRange) -> Eval<ExprId> {
        match &t.value {
            Value::Residual(e) => f.shift()?.live(*e),
            v => self.const_expr(f, v, t.ty, range),
        }
    }

    pub(crate) fn residuals(&mut self, f: &Frame, ts: &[(Typed, TextRange)]) -> Eval<Vec<ExprId>> {
        ts.iter().map(|(t, r)| self.residual(f, t, *r)).collect()
    }

    /// Emit the residual declaration `name: T` (or `name: T = value`).
    pub(crate) fn emit_declaration(
        &mut self,
        f: &Frame,
        name: &str,
        ty: TypeId,
        value: Option<ExprId>,
        range: TextRange,
    ) -> Eval<()> {
        // The untyped empty list (dict) has no spelling: `l = []` declares it
        // again by its value (so that its later uses fail as in ASTFrame);
        // neither has a list iterator (`it = l.__fastiter__()`).
        let unspelled = matches!(ty, TypeId::EMPTY_LIST | TypeId::EMPTY_DICT)
            || self.vm.types.list_iter_list(ty).is_some();
        let annotation = match (unspelled, &value) {
            (true, Some(_)) => None,
            _ => Some(self.type_expr(f, ty, range)?),
        };
        let sh = f.shift()?;
        let name = sh.ident(name, range);
        sh.emit(
            StmtNode::VarDef {
                kind: None,
                name,
                annotation,
                value,
            },
            range,
        );
        Ok(())
    }

    /// Bind every run-time value of `args` to a fresh temporary, in order,
    /// and make it read that temporary: the bindings `t1 := a, t2 := b` let
    /// an operation use its operands in another order than the source
    /// evaluates them. See `after_bindings`.
    pub(crate) fn bind_in_order(&mut self, f: &Frame, args: &mut [(Typed, TextRange)]) -> Eval<Vec<ExprId>> {
        let mut bindings = Vec::new();
        for (a, r) in args.iter_mut() {
            if !is_runtime(a) {
                continue;
            }
            let value = self.residual(f, a, *r)?;
            let sh = f.shift()?;
            let tmp = sh.temp_name("arg");
            self.emit_declaration(f, &tmp, a.ty, None, *r)?;
            bindings.push(sh.walrus(sh.ident(&tmp, *r), value, *r));
            *a = Self::residual_value(f, a.ty, sh.name(&tmp, *r));
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
    ) -> Eval<Vec<ExprId>> {
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
        bindings: Vec<ExprId>,
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
        mut bindings: Vec<ExprId>,
        result: &Typed,
        range: TextRange,
    ) -> Eval<Typed> {
        let n = bindings.len() as i64;
        bindings.push(self.residual(f, result, range)?);
        let sh = f.shift()?;
        let tuple = sh.tuple(bindings, range);
        let index = sh.int(n, range);
        Ok(Self::residual_value(
            f,
            result.ty,
            sh.subscript(tuple, vec![index], range),
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
            if is_runtime(a) {
                let e = self.residual(f, a, r)?;
                if has_effects(&f.shift()?, e) {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// `--provenance`: a comment in the residual code.
    pub(crate) fn note(&mut self, f: &Frame, text: impl FnOnce() -> String, range: TextRange) -> Eval<()> {
        let sh = f.shift()?;
        if sh.provenance() {
            if let Some(rec) = sh.state().record.as_mut() {
                if f.file.path != rec.main_path {
                    rec.foreign_notes.insert(range);
                }
            }
            let comment = sh.comment(text(), range);
            sh.emit_id(comment);
        }
        Ok(())
    }

    /// A residual expression statement, e.g. to keep the side effects of an
    /// operand whose value folded to a constant.
    pub(crate) fn emit_effect(&mut self, f: &Frame, t: &Typed, range: TextRange) -> Eval<()> {
        if let Value::Residual(e) = &t.value {
            let sh = f.shift()?;
            let e = sh.live(*e)?;
            if has_effects(&sh, e) {
                sh.emit(StmtNode::Expr(e), range);
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
pub(crate) fn residual_local(
    sh: &Shift,
    ty: TypeId,
    name: &str,
    range: TextRange,
) -> crate::vm::value::Local {
    crate::vm::value::Local {
        ty,
        color: Color::Red,
        value: Some(sh.value(sh.name(name, range))),
    }
}

/// Whether evaluating residual expression `e` may have side effects
/// (calls, assignments).
pub(crate) fn has_effects(sh: &Shift, e: ExprId) -> bool {
    sh.with_residual(|m| {
        let mut effects = false;
        crate::syntax::walk::walk_expr(m.expr(e), &mut |e| {
            if matches!(e.kind(), ExprKind::Call { .. } | ExprKind::Walrus { .. }) {
                effects = true;
            }
        });
        effects
    })
}
