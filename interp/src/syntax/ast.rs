//! The SPy abstract syntax tree: what the parser produces and every later
//! phase consumes (name resolution, ASTFrame, DopplerFrame, the printer).
//!
//! A module's tree is one arena, [`Module`]: its expressions, statements,
//! identifiers, definitions and lists each in a vector, nodes naming their
//! children by typed index (`ExprId`, `StmtId`, `IdentId`, `FuncId`...),
//! as rust-analyzer's and rustc's IRs do. A node costs its own bytes only:
//! no allocation of its own, 4-byte child references (an expression is 12
//! bytes of node and 6 of packed range, a statement 16 and 6; a name
//! expression names its text by its entry in the module's name table), so
//! a program's tree takes about 6.5 bytes per source byte (issue 14 item 5;
//! `interp/tests/memory_per_source_byte.rs`).
//!
//! Reading goes through views (`ast/view.rs`): [`ExprRef`] and [`StmtRef`]
//! are a node with the arena it lives in; `e.kind()` gives the node as an
//! [`ExprKind`] whose children are views again, so every walk reads as a
//! match on node kinds. Building goes through `Module::add_*`, with the
//! stored forms ([`ExprNode`], [`StmtNode`], [`FuncNode`]...).
//!
//! Naming legend (as in the WebAssembly reference interpreter's `ast.ml`):
//! - every expression and statement carries `range: TextRange` (byte
//!   offsets; line:col only in diagnostics).
//! - `Identifier` is a name occurrence. Its `id` is unique within a module and
//!   keys the resolver's side tables, so evaluation never looks names up by
//!   string.
//! - `e` is an expression, `s` a statement, `t` a type expression (still an
//!   expression: types are ordinary blue values in SPy).
//!
//! The AST is pure syntax: colors, types and slots live in `resolve` and `vm`.

mod mark;
mod operators;
mod packed;
mod view;

use std::fmt;
use std::num::NonZeroU32;
use std::rc::Rc;

use packed::{PackedExpr, PackedStmt};

use crate::source::TextRange;

pub use mark::ArenaMark;
pub use operators::{BinOp, BoolOp, CmpOp, UnaryOp};
pub use view::*;

/// The bytes an expression node takes as stored (packed; one too wide to
/// pack takes an [`ExprNode`] more in the far table).
pub const STORED_EXPR_BYTES: usize = std::mem::size_of::<PackedExpr>();

/// The bytes a statement node takes as stored (as [`STORED_EXPR_BYTES`]).
pub const STORED_STMT_BYTES: usize = std::mem::size_of::<PackedStmt>();

/// The text of a name. The parser interns it in the module's name table
/// ([`NameSym`]): every occurrence of one name in a module shares one
/// allocation, so an `Identifier` costs no heap of its own (issue 14:
/// memory per source byte), and a name expression stores only its
/// 4-byte entry. It reads as a `str` and compares with `str`s. A thin
/// pointer (8 bytes) to one allocation of a 16-byte header and the text
/// (`arcstr::ArcStr`; an `Rc<str>` is a 16-byte pointer, an
/// `Rc<Box<str>>` two allocations).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(arcstr::ArcStr);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, not `write_str`: `{:<8}` and friends work as for a `str`
        f.pad(self.as_str())
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(arcstr::ArcStr::from(s))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(arcstr::ArcStr::from(s))
    }
}

impl From<Rc<str>> for Name {
    fn from(s: Rc<str>) -> Name {
        Name(arcstr::ArcStr::from(&*s))
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

/// Index of a name occurrence within its module (dense, from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

/// A name occurrence that is not a name expression (a definition's name,
/// a parameter, an attribute, an import...), kept in the module's
/// identifier table.
#[derive(Clone, Debug, PartialEq)]
pub struct Identifier {
    pub name: Name,
    pub range: TextRange,
    pub id: NameId,
}

// ----------------------------------------------------------------- indices

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(NonZeroU32);

        impl $name {
            fn at(index: usize) -> $name {
                // (A module has fewer nodes than source bytes, and a residual
                // module is bounded by the memory budget: far below 2^32.)
                let n = u32::try_from(index + 1).ok().and_then(NonZeroU32::new);
                $name(n.expect("fewer than 2^32 nodes of a kind in a module"))
            }

            /// The position in its vector.
            #[inline]
            pub fn index(self) -> usize {
                self.0.get() as usize - 1
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}#{}", stringify!($name), self.index())
            }
        }
    };
}

index_type!(
    /// An expression of a module (`Option<ExprId>` is 4 bytes).
    ExprId
);
index_type!(
    /// A statement of a module.
    StmtId
);
index_type!(
    /// An entry of a module's identifier table.
    IdentId
);
index_type!(
    /// A `def` of a module (dense: the resolver keeps one scope per `def`).
    FuncId
);
index_type!(
    /// A `class` of a module.
    ClassId
);
index_type!(
    /// A string literal's text.
    StrId
);
index_type!(
    /// A bytes literal's bytes.
    BytesId
);
index_type!(
    /// A distinct name of a module: its text is the module's name table
    /// entry ([`Module::name`]). A name expression stores this (4 bytes)
    /// rather than the [`Name`] (8 bytes, 8-byte aligned), so that an
    /// expression node is 12 bytes. The table is the module's own (built
    /// by the parse, or by redshift for a residual module) and goes with
    /// it: no table outlives the trees that use it, so a long fuzz
    /// campaign of hostile identifiers does not grow one.
    NameSym
);
index_type!(
    /// A conditional expression's children (a side table: 12 bytes of
    /// children would make every expression node 4 bytes larger).
    IfExpId
);
index_type!(
    /// A slice's bounds (a side table, as [`IfExpId`]).
    SliceId
);
index_type!(
    /// A generator expression's parts (a side table, as [`IfExpId`]).
    GeneratorExpId
);

/// A 64-bit literal stored as two 4-byte halves: an expression node is
/// then 4-byte aligned (12 bytes, not 16). A float keeps its exact bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lit64([u32; 2]);

impl Lit64 {
    #[inline]
    pub fn from_u64(v: u64) -> Lit64 {
        Lit64([v as u32, (v >> 32) as u32])
    }

    #[inline]
    pub fn from_f64(v: f64) -> Lit64 {
        Lit64::from_u64(v.to_bits())
    }

    #[inline]
    pub fn u64(self) -> u64 {
        u64::from(self.0[0]) | (u64::from(self.0[1]) << 32)
    }

    #[inline]
    pub fn f64(self) -> f64 {
        f64::from_bits(self.u64())
    }
}

impl fmt::Debug for Lit64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.u64())
    }
}

/// A run of `len` entries from `start` of one of the module's item vectors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

macro_rules! list_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name(Span);

        impl $name {
            #[inline]
            pub fn len(self) -> usize {
                self.0.len as usize
            }

            #[inline]
            pub fn is_empty(self) -> bool {
                self.0.len == 0
            }
        }
    };
}

list_type!(
    /// Expressions in a row (call arguments, display items; a dict's keys
    /// and values alternate).
    ExprList
);
list_type!(
    /// Identifiers in a row (type parameters).
    IdentList
);
list_type!(
    /// The parameters of a `def`.
    ParamList
);
list_type!(
    /// The names of a `from m import ...`.
    ImportNameList
);

/// A node's range as stored: its start and its length in 6 bytes, 2-byte
/// aligned, in a vector beside the nodes' (an expression node then costs
/// 18 bytes, not 20: issue 14 item 5). A range of 64 KiB or more (a `def`
/// with a long body, a long string literal) is in the module's side table
/// of long ranges, and `start` is its index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PackedRange {
    start: [u16; 2],
    len: u16,
}

impl PackedRange {
    /// The length of a range kept in the side table.
    const LONG: u16 = u16::MAX;

    #[inline]
    fn new(start: u32, len: u16) -> PackedRange {
        PackedRange {
            start: [start as u16, (start >> 16) as u16],
            len,
        }
    }

    #[inline]
    fn start(self) -> u32 {
        u32::from(self.start[0]) | (u32::from(self.start[1]) << 16)
    }
}

/// A statement body. One 4-byte index into the module's table of bodies
/// (an `if` has two and stays small); `Block::EMPTY` is the empty body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block(u32);

impl Block {
    pub const EMPTY: Block = Block(0);
}

// ------------------------------------------------------------ stored nodes

/// An expression as read back from its module: its node and its range
/// (stored apart: the node in one vector, the range packed in another,
/// [`PackedRange`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expr {
    pub node: ExprNode,
    pub range: TextRange,
}

/// An expression node as stored (children by index; 12 bytes, 4-byte
/// aligned: no 8-byte field, the rare nodes with 12 bytes of children in
/// side tables). Read it as an [`ExprKind`] through [`ExprRef::kind`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ExprNode {
    /// Integer literal. Python ints are unbounded; SPy literals must fit in
    /// u64 at most (larger ones are a ParseError).
    Int(Lit64),
    /// A float literal's bits.
    Float(Lit64),
    Str(StrId),
    Bytes(BytesId),
    Bool(bool),
    None,
    /// A name; the identifier's range is the expression's.
    Name {
        sym: NameSym,
        id: NameId,
    },
    /// A name whose expression is wider than the identifier (`(x)`: the
    /// parentheses are part of the expression's range).
    NameIn(IdentId),
    Attribute {
        value: ExprId,
        attr: IdentId,
    },
    /// The callee, then the arguments (which may contain `Starred`
    /// items, anywhere, any number): one list, so that the node is 8
    /// bytes of children ([`Module::add_call`]).
    Call(ExprList),
    /// `v[i]`, `v[i, j]`, `v[a:b]`, `v[*ts]`: the value, then one entry
    /// per index ([`Module::add_subscript`]).
    Subscript(ExprList),
    /// `a:b:c`, only as a subscript index ([`Module::add_slice`]).
    Slice(SliceId),
    UnaryOp {
        op: UnaryOp,
        operand: ExprId,
    },
    BinOp {
        left: ExprId,
        op: BinOp,
        right: ExprId,
    },
    /// A binary comparison (chains are rejected by the parser, as upstream).
    Compare {
        left: ExprId,
        op: CmpOp,
        right: ExprId,
    },
    /// `a and b` / `a or b`
    BoolOp {
        op: BoolOp,
        left: ExprId,
        right: ExprId,
    },
    /// `body if test else orelse` ([`Module::add_if_exp`])
    IfExp(IfExpId),
    /// `(a, b)`, `a, b`, `(*t, 1)`
    Tuple(ExprList),
    List(ExprList),
    /// Keys and values alternate.
    Dict(ExprList),
    /// `(elt for target in iter)`: exactly one `for`, no `if`
    /// ([`Module::add_generator_exp`]).
    GeneratorExp(GeneratorExpId),
    /// `*e` in call arguments, tuple displays and subscripts.
    Starred(ExprId),
    /// `x := e`
    Walrus {
        target: IdentId,
        value: ExprId,
    },
}

/// The children of `body if test else orelse`, as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IfExpNode {
    pub test: ExprId,
    pub body: ExprId,
    pub orelse: ExprId,
}

/// The bounds of `lower:upper:step`, as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SliceNode {
    pub lower: Option<ExprId>,
    pub upper: Option<ExprId>,
    pub step: Option<ExprId>,
}

/// The parts of `(elt for target in iter)`, as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeneratorExpNode {
    pub elt: ExprId,
    pub target: IdentId,
    pub iter: ExprId,
}

/// A statement as read back from its module (stored as an expression
/// is: [`Expr`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stmt {
    pub node: StmtNode,
    pub range: TextRange,
}

/// A statement node as stored. Read it as a [`StmtKind`] through
/// [`StmtRef::kind`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StmtNode {
    FuncDef(FuncId),
    ClassDef(ClassId),
    /// `import m` / `import m as a`
    Import {
        module: IdentId,
        alias: Option<IdentId>,
    },
    /// `from m import a, b as c`
    ImportFrom {
        module: IdentId,
        names: ImportNameList,
    },
    /// `x = e`, `o.a = e`, `o[i] = e`, `a, b = e`: the target is the
    /// expression it was written as (a name, attribute, subscript, or a
    /// tuple of names), read through [`AssignTarget`].
    Assign {
        target: ExprId,
        value: ExprId,
    },
    /// `x += e` (name targets only; others are rejected by the parser)
    AugAssign {
        target: IdentId,
        op: BinOp,
        value: ExprId,
    },
    /// `x: T`, `x: T = e`, `var x = e`, `var x: T = e`, `const x = e` ...
    /// (`kind` is `None` for `x: T = e`, no keyword).
    VarDef {
        kind: Option<VarKind>,
        name: IdentId,
        annotation: Option<ExprId>,
        value: Option<ExprId>,
    },
    /// `elif` becomes a nested `If` as the only statement of `orelse`.
    If {
        test: ExprId,
        body: Block,
        orelse: Block,
    },
    While {
        test: ExprId,
        body: Block,
    },
    For {
        target: IdentId,
        iter: ExprId,
        body: Block,
    },
    Break,
    Continue,
    Pass,
    Return(Option<ExprId>),
    Raise(ExprId),
    Assert {
        test: ExprId,
        msg: Option<ExprId>,
    },
    Expr(ExprId),
    /// A provenance comment inserted by redshift into a residual module; the
    /// SPy printer writes it as `# text` lines (one per `\n`-separated
    /// line). The parser never produces it (comments are not in the AST) and
    /// executing it does nothing.
    Comment(StrId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Var,
    Const,
}

/// Color of a function: plain `def` is red; `@blue*` is blue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncColor {
    Red,
    Blue,
}

/// What kind of blue function `@blue`, `@blue.generic`, `@blue.metafunc` made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncKind {
    Plain,
    Generic,
    Metafunc,
}

/// A `def`, as built and as read ([`Module::add_func`],
/// [`Module::func_node`]; stored as a [`FuncRecord`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FuncNode {
    pub name: IdentId,
    pub color: FuncColor,
    pub kind: FuncKind,
    /// Decorators other than `@blue`, `@blue.generic`, `@blue.metafunc`,
    /// outermost first (applied bottom-up).
    pub decorators: ExprList,
    /// PEP 695 type parameters: `def f[T, n](...)`. `None` when absent.
    pub type_params: Option<IdentList>,
    pub params: ParamList,
    pub return_type: Option<ExprId>,
    pub body: Block,
    /// The `def name(...) -> T` prototype, for "function defined here".
    pub proto_range: TextRange,
}

/// A `def` as stored: its decorators and type parameters, which almost no
/// `def` has, in a side table (20 bytes less a `def`, issue 14 item 5).
#[derive(Clone, Debug, PartialEq)]
pub struct FuncRecord {
    pub name: IdentId,
    pub color: FuncColor,
    pub kind: FuncKind,
    pub params: ParamList,
    pub return_type: Option<ExprId>,
    pub body: Block,
    /// (Read through [`Module::proto_range`].)
    proto_range: PackedRange,
    /// Its entry in `Module::func_extras`, if it has decorators or type
    /// parameters.
    extras: Option<NonZeroU32>,
}

/// The rare parts of a `def`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FuncExtras {
    decorators: ExprList,
    type_params: Option<IdentList>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An ordinary positional parameter (also after `*args`: SPy treats those
    /// as positional, not keyword-only).
    Positional,
    /// `*args` / `*args: T`.
    Star,
}

/// A parameter, as built ([`Module::add_params`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamNode {
    pub name: IdentId,
    pub kind: ParamKind,
    pub annotation: Option<ExprId>,
    pub default: Option<ExprId>,
    pub range: TextRange,
}

/// A parameter as stored (its range packed: 20 bytes, not 24).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamRecord {
    pub name: IdentId,
    pub kind: ParamKind,
    pub annotation: Option<ExprId>,
    pub default: Option<ExprId>,
    range: PackedRange,
}

/// A `class` as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassNode {
    pub name: IdentId,
    /// `@struct` was present.
    pub is_struct: bool,
    /// Other decorators (rejected at execution, as upstream).
    pub decorators: ExprList,
    pub type_params: Option<IdentList>,
    pub body: Block,
}

/// One name of a `from m import ...`, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportNameNode {
    pub name: IdentId,
    pub alias: Option<IdentId>,
    pub range: TextRange,
}

// ------------------------------------------------------------------ module

/// The tree of one module: every node in a vector of its kind, the
/// top-level body, and the number of `NameId`s handed out.
#[derive(Clone)]
pub struct Module {
    /// Each expression node, packed ([`packed`]: 8 bytes).
    exprs: Vec<PackedExpr>,
    /// The expression nodes too wide to pack, whole.
    far_exprs: Vec<ExprNode>,
    /// The range of each expression (by the same index as `exprs`).
    expr_ranges: Vec<PackedRange>,
    /// Each statement node, packed ([`packed`]: 12 bytes).
    stmts: Vec<PackedStmt>,
    /// The statement nodes too wide to pack, whole.
    far_stmts: Vec<StmtNode>,
    stmt_ranges: Vec<PackedRange>,
    /// The ranges of 64 KiB or more ([`PackedRange`]).
    long_ranges: Vec<TextRange>,
    idents: Vec<Identifier>,
    funcs: Vec<FuncRecord>,
    func_extras: Vec<FuncExtras>,
    classes: Vec<ClassNode>,
    params: Vec<ParamRecord>,
    import_names: Vec<ImportNameNode>,
    expr_items: Vec<ExprId>,
    ident_items: Vec<IdentId>,
    stmt_items: Vec<StmtId>,
    /// The statements of each `Block` (0: the empty body).
    blocks: Vec<Span>,
    strs: Vec<Box<str>>,
    bytes: Vec<Box<[u8]>>,
    if_exps: Vec<IfExpNode>,
    slices: Vec<SliceNode>,
    generator_exps: Vec<GeneratorExpNode>,
    /// The text of each distinct name ([`NameSym`]).
    names: Vec<Name>,
    /// The entry of each text in `names` (4 bytes an entry: the text is
    /// read from `names`), while the tree is built (given back by
    /// [`Module::shrink_to_fit`]; a name added after that may get a second
    /// entry, which costs only its 8 bytes).
    name_index: hashbrown::HashTable<NameSym>,
    name_hasher: foldhash::fast::RandomState,
    /// The top-level statements.
    pub body: Block,
    /// Number of `NameId`s handed out while parsing this module (0 for a
    /// module redshift built: its ids are placeholders).
    pub name_count: u32,
}

impl Default for Module {
    fn default() -> Module {
        Module::new()
    }
}

impl Module {
    /// An empty module.
    pub fn new() -> Module {
        Module {
            exprs: Vec::new(),
            far_exprs: Vec::new(),
            expr_ranges: Vec::new(),
            stmts: Vec::new(),
            far_stmts: Vec::new(),
            stmt_ranges: Vec::new(),
            long_ranges: Vec::new(),
            idents: Vec::new(),
            funcs: Vec::new(),
            func_extras: Vec::new(),
            classes: Vec::new(),
            params: Vec::new(),
            import_names: Vec::new(),
            expr_items: Vec::new(),
            ident_items: Vec::new(),
            stmt_items: Vec::new(),
            blocks: vec![Span::default()],
            strs: Vec::new(),
            bytes: Vec::new(),
            if_exps: Vec::new(),
            slices: Vec::new(),
            generator_exps: Vec::new(),
            names: Vec::new(),
            name_index: Default::default(),
            name_hasher: Default::default(),
            body: Block::EMPTY,
            name_count: 0,
        }
    }

    /// An empty module with room for the tree of about `source_len` bytes
    /// of source ([`Module::reserve_for`]).
    pub fn with_capacity_for(source_len: usize) -> Module {
        let mut m = Module::new();
        m.reserve_for(source_len);
        m
    }

    /// Room for the nodes of about `source_len` more bytes of source (or
    /// of the residual code redshift makes from them), so that building a
    /// large tree does not copy its node vectors while they double: the
    /// copy is made when the vector is largest, and for a moment both
    /// copies are alive (with redshift, on top of the whole source
    /// module). The room is only address space until nodes are written
    /// into it. Densely written code has about one expression per 5
    /// source bytes and one statement or identifier per 25; residual code
    /// spells every type and local it declares.
    pub fn reserve_for(&mut self, source_len: usize) {
        self.exprs.reserve(source_len / 4);
        self.expr_ranges.reserve(source_len / 4);
        self.stmts.reserve(source_len / 20);
        self.stmt_ranges.reserve(source_len / 20);
        self.stmt_items.reserve(source_len / 20);
        self.idents.reserve(source_len / 20);
        self.params.reserve(source_len / 50);
        self.funcs.reserve(source_len / 100);
        self.expr_items.reserve(source_len / 50);
    }

    /// Give back the room no node took.
    pub fn shrink_to_fit(&mut self) {
        self.exprs.shrink_to_fit();
        self.far_exprs.shrink_to_fit();
        self.expr_ranges.shrink_to_fit();
        self.stmts.shrink_to_fit();
        self.far_stmts.shrink_to_fit();
        self.stmt_ranges.shrink_to_fit();
        self.long_ranges.shrink_to_fit();
        self.idents.shrink_to_fit();
        self.funcs.shrink_to_fit();
        self.func_extras.shrink_to_fit();
        self.classes.shrink_to_fit();
        self.params.shrink_to_fit();
        self.import_names.shrink_to_fit();
        self.expr_items.shrink_to_fit();
        self.ident_items.shrink_to_fit();
        self.stmt_items.shrink_to_fit();
        self.blocks.shrink_to_fit();
        self.strs.shrink_to_fit();
        self.bytes.shrink_to_fit();
        self.if_exps.shrink_to_fit();
        self.slices.shrink_to_fit();
        self.generator_exps.shrink_to_fit();
        self.names.shrink_to_fit();
        self.name_index = Default::default();
    }

    /// Room for about `n` distinct names.
    pub fn reserve_names(&mut self, n: usize) {
        use std::hash::BuildHasher;
        self.names.reserve(n);
        let (names, hasher) = (&self.names, &self.name_hasher);
        self.name_index
            .reserve(n, |s| hasher.hash_one(names[s.index()].as_str()));
    }

    /// The entry of `text` in the module's name table (added if new).
    pub fn intern(&mut self, text: &str) -> NameSym {
        self.intern_with(text, |t| Name::from(t))
    }

    /// The entry of `name` in the module's name table (added if new).
    pub fn intern_name(&mut self, name: Name) -> NameSym {
        let text = name.clone();
        self.intern_with(&text, move |_| name)
    }

    /// The entry of `text`; `make` makes its `Name` when it is new (one
    /// hash and one probe either way).
    fn intern_with(&mut self, text: &str, make: impl FnOnce(&str) -> Name) -> NameSym {
        use hashbrown::hash_table::Entry;
        use std::hash::BuildHasher;
        let Module {
            names,
            name_index,
            name_hasher,
            ..
        } = self;
        let hash = name_hasher.hash_one(text);
        let entry = name_index.entry(
            hash,
            |s| names[s.index()].as_str() == text,
            |s| name_hasher.hash_one(names[s.index()].as_str()),
        );
        match entry {
            Entry::Occupied(e) => *e.get(),
            Entry::Vacant(v) => {
                names.push(make(text));
                let sym = NameSym::at(names.len() - 1);
                v.insert(sym);
                sym
            }
        }
    }

    /// The text of a name of the module's table.
    #[inline]
    pub fn name(&self, sym: NameSym) -> &Name {
        &self.names[sym.index()]
    }

    // ---------------------------------------------------------- building

    pub fn add_expr(&mut self, node: ExprNode, range: TextRange) -> ExprId {
        let range = self.pack(range);
        let node = self.pack_expr(node, self.exprs.len());
        self.exprs.push(node);
        self.expr_ranges.push(range);
        ExprId::at(self.exprs.len() - 1)
    }

    /// `node` as stored at index `at` (in the far table if it does not
    /// pack).
    fn pack_expr(&mut self, node: ExprNode, at: usize) -> PackedExpr {
        PackedExpr::pack(node, at).unwrap_or_else(|| {
            self.far_exprs.push(node);
            PackedExpr::far(self.far_exprs.len() - 1)
        })
    }

    /// `node` as stored (in the far table if it does not pack).
    fn pack_stmt(&mut self, node: StmtNode) -> PackedStmt {
        PackedStmt::pack(node).unwrap_or_else(|| {
            self.far_stmts.push(node);
            PackedStmt::far(self.far_stmts.len() - 1)
        })
    }

    /// The number of expressions.
    pub fn exprs_len(&self) -> usize {
        self.exprs.len()
    }

    pub fn add_stmt(&mut self, node: StmtNode, range: TextRange) -> StmtId {
        let range = self.pack(range);
        let node = self.pack_stmt(node);
        self.stmts.push(node);
        self.stmt_ranges.push(range);
        StmtId::at(self.stmts.len() - 1)
    }

    pub fn add_ident(&mut self, ident: Identifier) -> IdentId {
        self.idents.push(ident);
        IdentId::at(self.idents.len() - 1)
    }

    pub fn add_func(&mut self, func: FuncNode) -> FuncId {
        let record = self.record_of(func);
        self.funcs.push(record);
        FuncId::at(self.funcs.len() - 1)
    }

    pub fn add_class(&mut self, class: ClassNode) -> ClassId {
        self.classes.push(class);
        ClassId::at(self.classes.len() - 1)
    }

    pub fn add_str(&mut self, text: impl Into<Box<str>>) -> StrId {
        self.strs.push(text.into());
        StrId::at(self.strs.len() - 1)
    }

    pub fn add_bytes(&mut self, bytes: impl Into<Box<[u8]>>) -> BytesId {
        self.bytes.push(bytes.into());
        BytesId::at(self.bytes.len() - 1)
    }

    pub fn add_exprs(&mut self, items: impl IntoIterator<Item = ExprId>) -> ExprList {
        ExprList(push_span(&mut self.expr_items, items))
    }

    pub fn add_idents(&mut self, items: impl IntoIterator<Item = IdentId>) -> IdentList {
        IdentList(push_span(&mut self.ident_items, items))
    }

    pub fn add_params(&mut self, items: impl IntoIterator<Item = ParamNode>) -> ParamList {
        let start = self.params.len();
        for p in items {
            let range = self.pack(p.range);
            self.params.push(ParamRecord {
                name: p.name,
                kind: p.kind,
                annotation: p.annotation,
                default: p.default,
                range,
            });
        }
        let (start, end) = (start as u32, self.params.len() as u32);
        ParamList(Span {
            start,
            len: end - start,
        })
    }

    pub fn add_import_names(&mut self, items: impl IntoIterator<Item = ImportNameNode>) -> ImportNameList {
        ImportNameList(push_span(&mut self.import_names, items))
    }

    /// A new body of `items` (the empty body is shared).
    pub fn add_block(&mut self, items: impl IntoIterator<Item = StmtId>) -> Block {
        let span = push_span(&mut self.stmt_items, items);
        if span.len == 0 {
            return Block::EMPTY;
        }
        self.blocks.push(span);
        Block(u32::try_from(self.blocks.len() - 1).expect("fewer than 2^32 bodies"))
    }

    /// A name expression (its identifier's range is `range`).
    pub fn add_name(&mut self, name: Name, id: NameId, range: TextRange) -> ExprId {
        let sym = self.intern_name(name);
        self.add_expr(ExprNode::Name { sym, id }, range)
    }

    /// `func(args...)`.
    pub fn add_call(
        &mut self,
        func: ExprId,
        args: impl IntoIterator<Item = ExprId>,
        range: TextRange,
    ) -> ExprId {
        let items = self.add_first_and_rest(func, args);
        self.add_expr(ExprNode::Call(items), range)
    }

    /// The list `first, rest...` (pushed in two steps: a chained iterator
    /// would push its items one by one).
    fn add_first_and_rest(&mut self, first: ExprId, rest: impl IntoIterator<Item = ExprId>) -> ExprList {
        let start = self.expr_items.len();
        self.expr_items.push(first);
        self.expr_items.extend(rest);
        let len = (self.expr_items.len() - start) as u32;
        ExprList(Span {
            start: start as u32,
            len,
        })
    }

    /// `value[indices...]`.
    pub fn add_subscript(
        &mut self,
        value: ExprId,
        indices: impl IntoIterator<Item = ExprId>,
        range: TextRange,
    ) -> ExprId {
        let items = self.add_first_and_rest(value, indices);
        self.add_expr(ExprNode::Subscript(items), range)
    }

    /// `lower:upper:step`.
    pub fn add_slice(&mut self, slice: SliceNode, range: TextRange) -> ExprId {
        let node = self.slice_entry(slice);
        self.add_expr(node, range)
    }

    /// `body if test else orelse`.
    pub fn add_if_exp(&mut self, if_exp: IfExpNode, range: TextRange) -> ExprId {
        let node = self.if_exp_entry(if_exp);
        self.add_expr(node, range)
    }

    /// `(elt for target in iter)`.
    pub fn add_generator_exp(&mut self, gen: GeneratorExpNode, range: TextRange) -> ExprId {
        let node = self.generator_exp_entry(gen);
        self.add_expr(node, range)
    }

    /// The node of a new slice (its side-table entry added; for tools that
    /// rewrite trees, [`Module::add_slice`] otherwise).
    pub fn slice_entry(&mut self, slice: SliceNode) -> ExprNode {
        self.slices.push(slice);
        ExprNode::Slice(SliceId::at(self.slices.len() - 1))
    }

    /// The node of a new conditional expression (as [`Module::slice_entry`]).
    pub fn if_exp_entry(&mut self, if_exp: IfExpNode) -> ExprNode {
        self.if_exps.push(if_exp);
        ExprNode::IfExp(IfExpId::at(self.if_exps.len() - 1))
    }

    /// The node of a new generator expression (as [`Module::slice_entry`]).
    pub fn generator_exp_entry(&mut self, gen: GeneratorExpNode) -> ExprNode {
        self.generator_exps.push(gen);
        ExprNode::GeneratorExp(GeneratorExpId::at(self.generator_exps.len() - 1))
    }

    // ---------------------------------------------------------- rewriting

    /// Change the statements of `block` (a body other than the empty one;
    /// for tools that rewrite trees: the old list stays unused).
    pub fn set_block(&mut self, block: Block, items: impl IntoIterator<Item = StmtId>) {
        let span = push_span(&mut self.stmt_items, items);
        if block != Block::EMPTY {
            self.blocks[block.0 as usize] = span;
        }
    }

    /// Change the node of expression `id` (its range stays; a far entry
    /// it had stays unused).
    pub fn set_expr_node(&mut self, id: ExprId, node: ExprNode) {
        self.exprs[id.index()] = self.pack_expr(node, id.index());
    }

    /// Change the range of expression `id` (a long range it had stays
    /// unused in the side table).
    pub fn set_expr_range(&mut self, id: ExprId, range: TextRange) {
        self.expr_ranges[id.index()] = self.pack(range);
    }

    /// Replace expression `id` whole.
    pub fn set_expr(&mut self, id: ExprId, expr: Expr) {
        self.set_expr_node(id, expr.node);
        self.set_expr_range(id, expr.range);
    }

    /// Change the node of statement `id` (its range stays; a far entry it
    /// had stays unused).
    pub fn set_stmt_node(&mut self, id: StmtId, node: StmtNode) {
        self.stmts[id.index()] = self.pack_stmt(node);
    }

    pub fn ident_mut(&mut self, id: IdentId) -> &mut Identifier {
        &mut self.idents[id.index()]
    }

    /// Change `def` `id` (for tools that rewrite trees).
    pub fn set_func(&mut self, id: FuncId, func: FuncNode) {
        let record = self.record_of(func);
        self.funcs[id.index()] = record;
    }

    fn record_of(&mut self, f: FuncNode) -> FuncRecord {
        let extras = (!f.decorators.is_empty() || f.type_params.is_some()).then(|| {
            self.func_extras.push(FuncExtras {
                decorators: f.decorators,
                type_params: f.type_params,
            });
            let n = u32::try_from(self.func_extras.len())
                .ok()
                .and_then(NonZeroU32::new);
            n.expect("fewer than 2^32 defs in a module")
        });
        FuncRecord {
            name: f.name,
            color: f.color,
            kind: f.kind,
            params: f.params,
            return_type: f.return_type,
            body: f.body,
            proto_range: self.pack(f.proto_range),
            extras,
        }
    }

    pub fn class_mut(&mut self, id: ClassId) -> &mut ClassNode {
        &mut self.classes[id.index()]
    }

    pub fn import_names_mut(&mut self, list: ImportNameList) -> &mut [ImportNameNode] {
        &mut self.import_names[list.0.range()]
    }

    // ---------------------------------------------------- stored reading

    /// The stored expression (reading goes through [`Module::expr`]).
    #[inline(always)]
    pub fn expr_node(&self, id: ExprId) -> Expr {
        Expr {
            node: self.exprs[id.index()].unpack(id.index(), &self.far_exprs),
            range: self.unpack(self.expr_ranges[id.index()]),
        }
    }

    #[inline(always)]
    pub fn stmt_node(&self, id: StmtId) -> Stmt {
        Stmt {
            node: self.stmts[id.index()].unpack(&self.far_stmts),
            range: self.unpack(self.stmt_ranges[id.index()]),
        }
    }

    /// `range` as stored (a long one added to the side table).
    fn pack(&mut self, range: TextRange) -> PackedRange {
        match u16::try_from(range.len()) {
            Ok(len) if len != PackedRange::LONG => PackedRange::new(range.start, len),
            _ => {
                self.long_ranges.push(range);
                let at = u32::try_from(self.long_ranges.len() - 1).expect("fewer than 2^32 long ranges");
                PackedRange::new(at, PackedRange::LONG)
            }
        }
    }

    /// The range `packed` stands for.
    #[inline]
    fn unpack(&self, packed: PackedRange) -> TextRange {
        let start = packed.start();
        if packed.len == PackedRange::LONG {
            self.long_ranges[start as usize]
        } else {
            TextRange::new(start, start + u32::from(packed.len))
        }
    }

    #[inline]
    pub fn ident(&self, id: IdentId) -> &Identifier {
        &self.idents[id.index()]
    }

    /// The stored `def` (its common parts, read without the side table:
    /// a call reads them on every activation).
    #[inline]
    pub fn func_record(&self, id: FuncId) -> &FuncRecord {
        &self.funcs[id.index()]
    }

    /// The `def name(...) -> T` prototype of `def` `id`.
    #[inline]
    pub fn proto_range(&self, id: FuncId) -> TextRange {
        self.unpack(self.funcs[id.index()].proto_range)
    }

    /// The range of a stored parameter.
    #[inline]
    pub fn param_range(&self, p: &ParamRecord) -> TextRange {
        self.unpack(p.range)
    }

    /// `def` `id` whole.
    #[inline]
    pub fn func_node(&self, id: FuncId) -> FuncNode {
        let f = &self.funcs[id.index()];
        let extras = f
            .extras
            .and_then(|e| self.func_extras.get(e.get() as usize - 1))
            .copied()
            .unwrap_or(FuncExtras {
                decorators: ExprList::default(),
                type_params: None,
            });
        FuncNode {
            name: f.name,
            color: f.color,
            kind: f.kind,
            decorators: extras.decorators,
            type_params: extras.type_params,
            params: f.params,
            return_type: f.return_type,
            body: f.body,
            proto_range: self.unpack(f.proto_range),
        }
    }

    #[inline]
    pub fn class_node(&self, id: ClassId) -> &ClassNode {
        &self.classes[id.index()]
    }

    #[inline]
    pub fn if_exp_node(&self, id: IfExpId) -> &IfExpNode {
        &self.if_exps[id.index()]
    }

    #[inline]
    pub fn slice_node(&self, id: SliceId) -> &SliceNode {
        &self.slices[id.index()]
    }

    #[inline]
    pub fn generator_exp_node(&self, id: GeneratorExpId) -> &GeneratorExpNode {
        &self.generator_exps[id.index()]
    }

    /// A call's callee and arguments, a subscript's value and indices: the
    /// first item of `list` and the rest.
    #[inline]
    pub fn first_and_rest(&self, list: ExprList) -> (ExprId, ExprList) {
        let Span { start, len } = list.0;
        // (a call's and a subscript's lists are never empty: the index
        // check is the only one)
        let rest = Span {
            start: start + 1,
            len: len.saturating_sub(1),
        };
        (self.expr_items[start as usize], ExprList(rest))
    }

    #[inline]
    pub fn str(&self, id: StrId) -> &str {
        &self.strs[id.index()]
    }

    #[inline]
    pub fn bytes(&self, id: BytesId) -> &[u8] {
        &self.bytes[id.index()]
    }

    #[inline]
    pub fn expr_items(&self, list: ExprList) -> &[ExprId] {
        &self.expr_items[list.0.range()]
    }

    #[inline]
    pub fn ident_items(&self, list: IdentList) -> &[IdentId] {
        &self.ident_items[list.0.range()]
    }

    #[inline]
    pub fn param_nodes(&self, list: ParamList) -> &[ParamRecord] {
        &self.params[list.0.range()]
    }

    #[inline]
    pub fn import_name_nodes(&self, list: ImportNameList) -> &[ImportNameNode] {
        &self.import_names[list.0.range()]
    }

    #[inline]
    pub fn block_items(&self, block: Block) -> &[StmtId] {
        &self.stmt_items[self.blocks[block.0 as usize].range()]
    }

    /// The index of `ident`, an identifier of this module's table (for
    /// walkers that rewrite what they read; found by its address).
    pub fn ident_id_of(&self, ident: &Identifier) -> IdentId {
        let base = self.idents.as_ptr() as usize;
        let at = (ident as *const Identifier as usize).wrapping_sub(base) / std::mem::size_of::<Identifier>();
        assert!(
            self.idents.get(at).is_some_and(|i| std::ptr::eq(i, ident)),
            "an identifier of another module"
        );
        IdentId::at(at)
    }

    /// Number of `def`s (`FuncId`s are `0..func_count()`).
    pub fn func_count(&self) -> usize {
        self.funcs.len()
    }

    /// Number of `class`es.
    pub fn class_count(&self) -> usize {
        self.classes.len()
    }
}

/// Append `items` to `vec`; the span they take.
fn push_span<T>(vec: &mut Vec<T>, items: impl IntoIterator<Item = T>) -> Span {
    let start = vec.len();
    vec.extend(items);
    let (start, end) = (start as u32, vec.len() as u32);
    Span {
        start,
        len: end - start,
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    /// Hot types stay small: a size change is a deliberate decision (the
    /// AST is most of the memory a large program takes, issue 14 item 5;
    /// `interp/tests/memory_per_source_byte.rs` measures the whole).
    #[test]
    fn node_sizes() {
        use std::mem::size_of;
        assert_eq!(size_of::<Name>(), 8);
        assert_eq!(size_of::<Option<ExprId>>(), 4);
        assert_eq!(size_of::<Identifier>(), 24);
        assert_eq!(size_of::<ExprNode>(), 12);
        assert_eq!(size_of::<Expr>(), 20);
        assert_eq!(size_of::<PackedExpr>(), 8);
        assert_eq!(size_of::<PackedStmt>(), 12);
        assert_eq!(size_of::<PackedRange>(), 6);
        assert_eq!(std::mem::align_of::<PackedRange>(), 2);
        assert_eq!(size_of::<StmtNode>(), 16);
        assert_eq!(size_of::<Stmt>(), 24);
        assert_eq!(size_of::<ParamRecord>(), 20);
        assert_eq!(size_of::<FuncRecord>(), 32);
    }

    /// Ranges read back as they were stored, short (packed in the node's
    /// 6 bytes) or long (the side table), also after a node's range is
    /// changed.
    #[test]
    fn ranges_round_trip() {
        let mut m = Module::new();
        let ranges = [
            TextRange::new(0, 0),
            TextRange::new(7, 7 + 65_534),
            TextRange::new(7, 7 + 65_535),
            TextRange::new(u32::MAX - 70_000, u32::MAX),
            TextRange::new(0x0001_0000, 0x0001_0003),
        ];
        let ids: Vec<ExprId> = ranges.iter().map(|&r| m.add_expr(ExprNode::None, r)).collect();
        let stmts: Vec<StmtId> = ranges.iter().map(|&r| m.add_stmt(StmtNode::Pass, r)).collect();
        for ((&r, &e), &s) in ranges.iter().zip(&ids).zip(&stmts) {
            assert_eq!(m.expr(e).range, r);
            assert_eq!(m.stmt(s).range, r);
        }
        m.set_expr_range(ids[0], ranges[3]);
        m.set_expr_range(ids[3], ranges[4]);
        assert_eq!(m.expr(ids[0]).range, ranges[3]);
        assert_eq!(m.expr(ids[3]).range, ranges[4]);
        let name = m.add_ident(Identifier {
            name: Name::from("p"),
            range: ranges[0],
            id: NameId(0),
        });
        let params = m.add_params(ranges.iter().map(|&range| ParamNode {
            name,
            kind: ParamKind::Positional,
            annotation: None,
            default: None,
            range,
        }));
        let body = m.add_block([]);
        let def = m.add_func(FuncNode {
            name,
            color: FuncColor::Red,
            kind: FuncKind::Plain,
            decorators: ExprList::default(),
            type_params: None,
            params,
            return_type: None,
            body,
            proto_range: ranges[2],
        });
        m.shrink_to_fit();
        assert_eq!(m.expr(ids[2]).range, ranges[2]);
        let read: Vec<TextRange> = m.params(params).iter().map(|p| p.range).collect();
        assert_eq!(read, ranges);
        assert_eq!(m.proto_range(def), ranges[2]);
        assert_eq!(m.func(def).proto_range, ranges[2]);
    }
}
