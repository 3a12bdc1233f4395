//! The SPy abstract syntax tree: what the parser produces and every later
//! phase consumes (name resolution, ASTFrame, DopplerFrame, the printer).
//!
//! Naming legend (as in the WebAssembly reference interpreter's `ast.ml`):
//! - `Stmt`/`Expr` are enums of `StmtX`/`ExprX`-shaped variants; every node
//!   carries `range: TextRange` (byte offsets; line:col only in diagnostics).
//! - `Identifier` is a name occurrence. Its `id` is unique within a module and
//!   keys the resolver's side tables, so evaluation never looks names up by
//!   string.
//! - `e` is an expression, `s` a statement, `t` a type expression (still an
//!   `Expr`: types are ordinary blue values in SPy).
//!
//! The AST is pure syntax: colors, types and slots live in `resolve` and `vm`.

use std::rc::Rc;

use crate::source::TextRange;

/// The text of a name. The parser interns it: every occurrence of one
/// name in a module shares one allocation, so an `Identifier` costs no
/// heap of its own (issue 14: memory per source byte). It reads as a
/// `str` and compares with `str`s. A thin pointer (8 bytes, the text's
/// length is behind it): every `Identifier` and so every name `Expr` is
/// 8 bytes smaller than with an `Rc<str>`.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name(Rc<Box<str>>);

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
        std::fmt::Debug::fmt(&**self.0, f)
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, not `write_str`: `{:<8}` and friends work as for a `str`
        f.pad(&self.0[..])
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(Rc::new(Box::from(s)))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(Rc::new(s.into_boxed_str()))
    }
}

impl From<Rc<str>> for Name {
    fn from(s: Rc<str>) -> Name {
        Name(Rc::new(Box::from(&*s)))
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.0.to_string()
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        &**self.0 == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        &**self.0 == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        &**self.0 == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == &**other.0
    }
}

impl PartialEq<Name> for str {
    fn eq(&self, other: &Name) -> bool {
        self == &**other.0
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == &**other.0
    }
}

/// Index of a name occurrence within its module (dense, from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NameId(pub u32);

#[derive(Clone, Debug, PartialEq)]
pub struct Identifier {
    pub name: Name,
    pub range: TextRange,
    pub id: NameId,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub body: Vec<Stmt>,
    /// Number of `NameId`s handed out while parsing this module.
    pub name_count: u32,
}

// ---------------------------------------------------------------- statements

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    FuncDef(Rc<FuncDef>),
    ClassDef(Rc<ClassDef>),
    /// `import m` / `import m as a`
    Import {
        module: Identifier,
        alias: Option<Identifier>,
    },
    /// `from m import a, b as c`
    ImportFrom {
        module: Identifier,
        names: Vec<ImportName>,
    },
    /// `x = e`, `o.a = e`, `o[i] = e`, `a, b = e`
    Assign {
        target: Box<AssignTarget>,
        value: Expr,
    },
    /// `x += e` (name targets only; others are rejected by the parser)
    AugAssign {
        target: Identifier,
        op: BinOp,
        value: Box<Expr>,
    },
    /// `x: T`, `x: T = e`, `var x = e`, `var x: T = e`, `const x = e` ...
    VarDef(Box<VarDef>),
    // (The tests and iterables of compound statements are boxed: inline,
    // they would make every `Stmt` 40 bytes larger, issue 14 item 5.)
    If {
        test: Box<Expr>,
        body: Vec<Stmt>,
        /// `elif` becomes a nested `If` as the only statement of `orelse`.
        orelse: Vec<Stmt>,
    },
    While {
        test: Box<Expr>,
        body: Vec<Stmt>,
    },
    For {
        target: Identifier,
        iter: Box<Expr>,
        body: Vec<Stmt>,
    },
    Break,
    Continue,
    Pass,
    Return(Option<Expr>),
    Raise(Expr),
    Assert {
        test: Expr,
        msg: Option<Box<Expr>>,
    },
    Expr(Expr),
    /// A provenance comment inserted by redshift into a residual module; the
    /// SPy printer writes it as `# text` lines (one per `\n`-separated
    /// line). The parser never produces it (comments are not in the AST) and
    /// executing it does nothing.
    Comment(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ImportName {
    pub name: Identifier,
    pub alias: Option<Identifier>,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AssignTarget {
    Name(Identifier),
    /// (`value` boxed: every assignment's target is boxed, and most are
    /// plain names.)
    Attribute {
        value: Box<Expr>,
        attr: Identifier,
        range: TextRange,
    },
    Subscript {
        value: Box<Expr>,
        indices: Vec<Expr>,
        range: TextRange,
    },
    /// `a, b = e` / `(a, b) = e`: plain names only.
    Unpack {
        names: Vec<Identifier>,
        range: TextRange,
    },
}

impl AssignTarget {
    pub fn range(&self) -> TextRange {
        match self {
            AssignTarget::Name(id) => id.range,
            AssignTarget::Attribute { range, .. }
            | AssignTarget::Subscript { range, .. }
            | AssignTarget::Unpack { range, .. } => *range,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Var,
    Const,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VarDef {
    /// `None` for `x: T = e` (no keyword).
    pub kind: Option<VarKind>,
    pub name: Identifier,
    pub annotation: Option<Expr>,
    pub value: Option<Expr>,
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

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    pub name: Identifier,
    pub color: FuncColor,
    pub kind: FuncKind,
    /// Decorators other than `@blue`, `@blue.generic`, `@blue.metafunc`,
    /// outermost first (applied bottom-up).
    pub decorators: Vec<Expr>,
    /// PEP 695 type parameters: `def f[T, n](...)`. `None` when absent.
    pub type_params: Option<Vec<Identifier>>,
    pub params: Vec<Param>,
    pub return_type: Option<Expr>,
    pub body: Vec<Stmt>,
    /// The `def name(...) -> T` prototype, for "function defined here".
    pub proto_range: TextRange,
}

impl FuncDef {
    /// Index of the `*args` parameter, if any.
    pub fn vararg_index(&self) -> Option<usize> {
        self.params.iter().position(|p| p.kind == ParamKind::Star)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An ordinary positional parameter (also after `*args`: SPy treats those
    /// as positional, not keyword-only).
    Positional,
    /// `*args` / `*args: T`.
    Star,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Identifier,
    pub kind: ParamKind,
    pub annotation: Option<Expr>,
    /// Boxed: most parameters have none.
    pub default: Option<Box<Expr>>,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClassDef {
    pub name: Identifier,
    /// `@struct` was present.
    pub is_struct: bool,
    /// Other decorators (rejected at execution, as upstream).
    pub decorators: Vec<Expr>,
    pub type_params: Option<Vec<Identifier>>,
    pub body: Vec<Stmt>,
}

// --------------------------------------------------------------- expressions

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub range: TextRange,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal. Python ints are unbounded; SPy literals must fit in
    /// u64 at most (larger ones are a ParseError).
    Int(u64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Bool(bool),
    None,
    Name(Identifier),
    /// (`attr` boxed, as the other rare identifiers of expressions: an
    /// inline one would make every `Expr` 16 bytes larger.)
    Attribute {
        value: Box<Expr>,
        attr: Box<Identifier>,
    },
    Call {
        func: Box<Expr>,
        /// May contain `Starred` items, anywhere, any number. (A boxed
        /// slice, not a `Vec`: no capacity word, and no spare room.)
        args: Box<[Expr]>,
    },
    /// `v[i]`, `v[i, j]`, `v[a:b]`, `v[*ts]`: one entry per index.
    Subscript {
        value: Box<Expr>,
        indices: Box<[Expr]>,
    },
    /// `a:b:c`, only as a subscript index.
    Slice {
        lower: Option<Box<Expr>>,
        upper: Option<Box<Expr>>,
        step: Option<Box<Expr>>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    BinOp {
        left: Box<Expr>,
        op: BinOp,
        right: Box<Expr>,
    },
    /// A binary comparison (chains are rejected by the parser, as upstream).
    Compare {
        left: Box<Expr>,
        op: CmpOp,
        right: Box<Expr>,
    },
    /// `a and b` / `a or b`
    BoolOp {
        op: BoolOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// `body if test else orelse`
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// `(a, b)`, `a, b`, `(*t, 1)`
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
    /// `(elt for target in iter)`: exactly one `for`, no `if`.
    GeneratorExp {
        elt: Box<Expr>,
        target: Box<Identifier>,
        iter: Box<Expr>,
    },
    /// `*e` in call arguments, tuple displays and subscripts.
    Starred(Box<Expr>),
    /// `x := e`
    Walrus {
        target: Box<Identifier>,
        value: Box<Expr>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Pos,
    Invert,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    LShift,
    RShift,
    BitAnd,
    BitOr,
    BitXor,
    MatMul,
}

impl BinOp {
    /// Every binary operator (for exhaustive tests and generators).
    pub const ALL: [BinOp; 13] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::FloorDiv,
        BinOp::Mod,
        BinOp::Pow,
        BinOp::LShift,
        BinOp::RShift,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::MatMul,
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    /// Every comparison operator (for exhaustive tests and generators).
    pub const ALL: [CmpOp; 10] = [
        CmpOp::Eq,
        CmpOp::NotEq,
        CmpOp::Lt,
        CmpOp::LtE,
        CmpOp::Gt,
        CmpOp::GtE,
        CmpOp::Is,
        CmpOp::IsNot,
        CmpOp::In,
        CmpOp::NotIn,
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Invert => "~",
            UnaryOp::Not => "not",
        }
    }
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
            BinOp::LShift => "<<",
            BinOp::RShift => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::MatMul => "@",
        }
    }
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

impl BoolOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BoolOp::And => "and",
            BoolOp::Or => "or",
        }
    }
}

impl Expr {
    pub fn new(kind: ExprKind, range: TextRange) -> Expr {
        Expr { kind, range }
    }
}

impl Stmt {
    pub fn new(kind: StmtKind, range: TextRange) -> Stmt {
        Stmt { kind, range }
    }
}

#[cfg(test)]
mod size_tests {
    use super::*;

    /// Hot types stay small: a size change is a deliberate decision (the
    /// AST is most of the memory a large program takes, issue 14 item 5;
    /// `interp/tests/memory_per_source_byte.rs` measures the whole).
    /// Rare identifiers and expressions inside nodes are boxed for this.
    #[test]
    fn node_sizes() {
        use std::mem::size_of;
        assert_eq!(size_of::<Name>(), 8);
        assert_eq!(size_of::<Identifier>(), 24);
        assert_eq!(size_of::<Expr>(), 40);
        assert_eq!(size_of::<Stmt>(), 72);
        assert_eq!(size_of::<AssignTarget>(), 48);
        assert_eq!(size_of::<Param>(), 88);
        assert_eq!(size_of::<FuncDef>(), 176);
    }
}
