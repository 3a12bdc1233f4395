//! Reading a module's tree: views that pair a node with the arena it lives
//! in. [`ExprRef`] and [`StmtRef`] read as their stored node (`e.range`)
//! and give their kind with its children as views again (`e.kind()`), so
//! a walk is a match on kinds, as over a tree of boxes. A view always
//! carries its own module: the nodes of two trees (a source module and
//! the residual module redshift builds) cannot be mixed up.
//!
//! Views are small `Copy` values built on demand; equality of views is
//! equality of the trees they show (not of indices), so two modules built
//! in different orders compare equal when their trees are.

use std::fmt;
use std::ops::Deref;

use super::*;

/// An expression of `module` (and the stored node with its range, read
/// once).
#[derive(Clone, Copy)]
pub struct ExprRef<'a> {
    pub module: &'a Module,
    pub id: ExprId,
    stored: Expr,
}

/// A statement of `module` (and the stored node with its range, read
/// once).
#[derive(Clone, Copy)]
pub struct StmtRef<'a> {
    pub module: &'a Module,
    pub id: StmtId,
    stored: Stmt,
}

/// An expression as read: its children are views.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind<'a> {
    Int(u64),
    Float(f64),
    Str(&'a str),
    Bytes(&'a [u8]),
    Bool(bool),
    None,
    Name(Identifier),
    Attribute {
        value: ExprRef<'a>,
        attr: &'a Identifier,
    },
    Call {
        func: ExprRef<'a>,
        args: Exprs<'a>,
    },
    Subscript {
        value: ExprRef<'a>,
        indices: Exprs<'a>,
    },
    Slice {
        lower: Option<ExprRef<'a>>,
        upper: Option<ExprRef<'a>>,
        step: Option<ExprRef<'a>>,
    },
    UnaryOp {
        op: UnaryOp,
        operand: ExprRef<'a>,
    },
    BinOp {
        left: ExprRef<'a>,
        op: BinOp,
        right: ExprRef<'a>,
    },
    Compare {
        left: ExprRef<'a>,
        op: CmpOp,
        right: ExprRef<'a>,
    },
    BoolOp {
        op: BoolOp,
        left: ExprRef<'a>,
        right: ExprRef<'a>,
    },
    IfExp {
        test: ExprRef<'a>,
        body: ExprRef<'a>,
        orelse: ExprRef<'a>,
    },
    Tuple(Exprs<'a>),
    List(Exprs<'a>),
    Dict(Pairs<'a>),
    GeneratorExp {
        elt: ExprRef<'a>,
        target: &'a Identifier,
        iter: ExprRef<'a>,
    },
    Starred(ExprRef<'a>),
    Walrus {
        target: &'a Identifier,
        value: ExprRef<'a>,
    },
}

/// A statement as read.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind<'a> {
    FuncDef(FuncDef<'a>),
    ClassDef(ClassDef<'a>),
    Import {
        module: &'a Identifier,
        alias: Option<&'a Identifier>,
    },
    ImportFrom {
        module: &'a Identifier,
        names: ImportNames<'a>,
    },
    Assign {
        target: AssignTarget<'a>,
        value: ExprRef<'a>,
    },
    AugAssign {
        target: &'a Identifier,
        op: BinOp,
        value: ExprRef<'a>,
    },
    VarDef(VarDef<'a>),
    If {
        test: ExprRef<'a>,
        body: Stmts<'a>,
        orelse: Stmts<'a>,
    },
    While {
        test: ExprRef<'a>,
        body: Stmts<'a>,
    },
    For {
        target: &'a Identifier,
        iter: ExprRef<'a>,
        body: Stmts<'a>,
    },
    Break,
    Continue,
    Pass,
    Return(Option<ExprRef<'a>>),
    Raise(ExprRef<'a>),
    Assert {
        test: ExprRef<'a>,
        msg: Option<ExprRef<'a>>,
    },
    Expr(ExprRef<'a>),
    Comment(&'a str),
}

/// The target of an assignment as read.
#[derive(Clone, Debug, PartialEq)]
pub enum AssignTarget<'a> {
    Name(Identifier),
    Attribute {
        value: ExprRef<'a>,
        attr: &'a Identifier,
        range: TextRange,
    },
    Subscript {
        value: ExprRef<'a>,
        indices: Exprs<'a>,
        range: TextRange,
    },
    /// `a, b = e` / `(a, b) = e`: plain names only.
    Unpack {
        names: Names<'a>,
        range: TextRange,
    },
}

impl AssignTarget<'_> {
    pub fn range(&self) -> TextRange {
        match self {
            AssignTarget::Name(id) => id.range,
            AssignTarget::Attribute { range, .. }
            | AssignTarget::Subscript { range, .. }
            | AssignTarget::Unpack { range, .. } => *range,
        }
    }
}

/// `x: T`, `x: T = e`, `var x = e`... as read.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDef<'a> {
    /// `None` for `x: T = e` (no keyword).
    pub kind: Option<VarKind>,
    pub name: &'a Identifier,
    pub annotation: Option<ExprRef<'a>>,
    pub value: Option<ExprRef<'a>>,
}

/// A `def` as read.
#[derive(Clone, Copy)]
pub struct FuncDef<'a> {
    pub module: &'a Module,
    pub id: FuncId,
    pub name: &'a Identifier,
    pub color: FuncColor,
    pub kind: FuncKind,
    pub decorators: Exprs<'a>,
    pub type_params: Option<Idents<'a>>,
    pub params: Params<'a>,
    pub return_type: Option<ExprRef<'a>>,
    pub body: Stmts<'a>,
    pub proto_range: TextRange,
}

impl FuncDef<'_> {
    /// Index of the `*args` parameter, if any.
    pub fn vararg_index(&self) -> Option<usize> {
        self.params.iter().position(|p| p.kind == ParamKind::Star)
    }
}

/// A parameter as read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param<'a> {
    pub name: &'a Identifier,
    pub kind: ParamKind,
    pub annotation: Option<ExprRef<'a>>,
    pub default: Option<ExprRef<'a>>,
    pub range: TextRange,
}

/// A `class` as read.
#[derive(Clone, Copy)]
pub struct ClassDef<'a> {
    pub module: &'a Module,
    pub id: ClassId,
    pub name: &'a Identifier,
    pub is_struct: bool,
    pub decorators: Exprs<'a>,
    pub type_params: Option<Idents<'a>>,
    pub body: Stmts<'a>,
}

/// One name of a `from m import ...` as read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImportName<'a> {
    pub name: &'a Identifier,
    pub alias: Option<&'a Identifier>,
    pub range: TextRange,
}

// ---------------------------------------------------------------- reading

impl Module {
    #[inline(always)]
    pub fn expr(&self, id: ExprId) -> ExprRef<'_> {
        ExprRef {
            module: self,
            id,
            stored: self.expr_node(id),
        }
    }

    #[inline(always)]
    pub fn stmt(&self, id: StmtId) -> StmtRef<'_> {
        StmtRef {
            module: self,
            id,
            stored: self.stmt_node(id),
        }
    }

    /// The top-level statements.
    #[inline]
    pub fn body(&self) -> Stmts<'_> {
        self.block(self.body)
    }

    #[inline]
    pub fn block(&self, block: Block) -> Stmts<'_> {
        Stmts {
            module: self,
            items: self.block_items(block),
        }
    }

    #[inline]
    pub fn exprs(&self, list: ExprList) -> Exprs<'_> {
        Exprs {
            module: self,
            items: self.expr_items(list),
        }
    }

    #[inline]
    pub fn func(&self, id: FuncId) -> FuncDef<'_> {
        let f = self.func_node(id);
        FuncDef {
            module: self,
            id,
            name: self.ident(f.name),
            color: f.color,
            kind: f.kind,
            decorators: self.exprs(f.decorators),
            type_params: f.type_params.map(|l| self.idents(l)),
            params: self.params(f.params),
            return_type: f.return_type.map(|e| self.expr(e)),
            body: self.block(f.body),
            proto_range: f.proto_range,
        }
    }

    #[inline]
    pub fn class(&self, id: ClassId) -> ClassDef<'_> {
        let c = self.class_node(id);
        ClassDef {
            module: self,
            id,
            name: self.ident(c.name),
            is_struct: c.is_struct,
            decorators: self.exprs(c.decorators),
            type_params: c.type_params.map(|l| self.idents(l)),
            body: self.block(c.body),
        }
    }

    #[inline]
    pub fn import_names(&self, list: ImportNameList) -> ImportNames<'_> {
        ImportNames {
            module: self,
            items: self.import_name_nodes(list),
        }
    }

    /// A dict display's keys and values.
    #[inline]
    pub fn pairs(&self, list: ExprList) -> Pairs<'_> {
        Pairs {
            module: self,
            items: self.expr_items(list),
        }
    }

    #[inline]
    pub fn params(&self, list: ParamList) -> Params<'_> {
        Params {
            module: self,
            items: self.param_nodes(list),
        }
    }

    fn idents(&self, list: IdentList) -> Idents<'_> {
        Idents {
            module: self,
            items: self.ident_items(list),
        }
    }
}

impl<'a> ExprRef<'a> {
    /// The stored node and its range.
    #[inline]
    pub fn node(&self) -> &Expr {
        &self.stored
    }

    /// Expression `id` of the same module (a child of this one).
    #[inline]
    pub fn at(self, id: ExprId) -> ExprRef<'a> {
        self.module.expr(id)
    }

    /// The expression with its children as views.
    #[inline]
    pub fn kind(&self) -> ExprKind<'a> {
        let m = self.module;
        let e = self.node();
        let x = |id: ExprId| self.at(id);
        match &e.node {
            ExprNode::Int(v) => ExprKind::Int(v.u64()),
            ExprNode::Float(v) => ExprKind::Float(v.f64()),
            ExprNode::Str(s) => ExprKind::Str(m.str(*s)),
            ExprNode::Bytes(b) => ExprKind::Bytes(m.bytes(*b)),
            ExprNode::Bool(b) => ExprKind::Bool(*b),
            ExprNode::None => ExprKind::None,
            ExprNode::Name { .. } | ExprNode::NameIn(_) => ExprKind::Name(self.name_ident().expect("a name")),
            ExprNode::Attribute { value, attr } => ExprKind::Attribute {
                value: x(*value),
                attr: m.ident(*attr),
            },
            ExprNode::Call(items) => {
                let (func, args) = m.first_and_rest(*items);
                ExprKind::Call {
                    func: x(func),
                    args: m.exprs(args),
                }
            }
            ExprNode::Subscript(items) => {
                let (value, indices) = m.first_and_rest(*items);
                ExprKind::Subscript {
                    value: x(value),
                    indices: m.exprs(indices),
                }
            }
            ExprNode::Slice(s) => {
                let SliceNode { lower, upper, step } = *m.slice_node(*s);
                ExprKind::Slice {
                    lower: lower.map(x),
                    upper: upper.map(x),
                    step: step.map(x),
                }
            }
            ExprNode::UnaryOp { op, operand } => ExprKind::UnaryOp {
                op: *op,
                operand: x(*operand),
            },
            ExprNode::BinOp { left, op, right } => ExprKind::BinOp {
                left: x(*left),
                op: *op,
                right: x(*right),
            },
            ExprNode::Compare { left, op, right } => ExprKind::Compare {
                left: x(*left),
                op: *op,
                right: x(*right),
            },
            ExprNode::BoolOp { op, left, right } => ExprKind::BoolOp {
                op: *op,
                left: x(*left),
                right: x(*right),
            },
            ExprNode::IfExp(i) => {
                let IfExpNode { test, body, orelse } = *m.if_exp_node(*i);
                ExprKind::IfExp {
                    test: x(test),
                    body: x(body),
                    orelse: x(orelse),
                }
            }
            ExprNode::Tuple(items) => ExprKind::Tuple(m.exprs(*items)),
            ExprNode::List(items) => ExprKind::List(m.exprs(*items)),
            ExprNode::Dict(items) => ExprKind::Dict(m.pairs(*items)),
            ExprNode::GeneratorExp(g) => {
                let GeneratorExpNode { elt, target, iter } = *m.generator_exp_node(*g);
                ExprKind::GeneratorExp {
                    elt: x(elt),
                    target: m.ident(target),
                    iter: x(iter),
                }
            }
            ExprNode::Starred(inner) => ExprKind::Starred(x(*inner)),
            ExprNode::Walrus { target, value } => ExprKind::Walrus {
                target: m.ident(*target),
                value: x(*value),
            },
        }
    }

    /// The identifier of a name expression (`None` for any other).
    pub fn name_ident(&self) -> Option<Identifier> {
        let e = self.node();
        match &e.node {
            ExprNode::Name { sym, id } => Some(Identifier {
                name: self.module.name(*sym).clone(),
                range: e.range,
                id: *id,
            }),
            ExprNode::NameIn(id) => Some(self.module.ident(*id).clone()),
            _ => None,
        }
    }

    /// The id of a name expression's identifier (`None` for any other).
    #[inline]
    pub fn name_id(&self) -> Option<NameId> {
        match &self.node().node {
            ExprNode::Name { id, .. } => Some(*id),
            ExprNode::NameIn(i) => Some(self.module.ident(*i).id),
            _ => None,
        }
    }

    /// Whether this is a name expression.
    #[inline]
    pub fn is_name(&self) -> bool {
        matches!(self.node().node, ExprNode::Name { .. } | ExprNode::NameIn(_))
    }
}

impl Deref for ExprRef<'_> {
    type Target = Expr;
    #[inline]
    fn deref(&self) -> &Expr {
        &self.stored
    }
}

impl<'a> StmtRef<'a> {
    #[inline]
    pub fn node(&self) -> &Stmt {
        &self.stored
    }

    /// The statement with its children as views.
    #[inline]
    pub fn kind(&self) -> StmtKind<'a> {
        let m = self.module;
        let x = |id: ExprId| m.expr(id);
        match &self.node().node {
            StmtNode::FuncDef(f) => StmtKind::FuncDef(m.func(*f)),
            StmtNode::ClassDef(c) => StmtKind::ClassDef(m.class(*c)),
            StmtNode::Import { module, alias } => StmtKind::Import {
                module: m.ident(*module),
                alias: alias.map(|a| m.ident(a)),
            },
            StmtNode::ImportFrom { module, names } => StmtKind::ImportFrom {
                module: m.ident(*module),
                names: m.import_names(*names),
            },
            StmtNode::Assign { target, value } => StmtKind::Assign {
                target: assign_target(x(*target)),
                value: x(*value),
            },
            StmtNode::AugAssign { target, op, value } => StmtKind::AugAssign {
                target: m.ident(*target),
                op: *op,
                value: x(*value),
            },
            StmtNode::VarDef {
                kind,
                name,
                annotation,
                value,
            } => StmtKind::VarDef(VarDef {
                kind: *kind,
                name: m.ident(*name),
                annotation: annotation.map(x),
                value: value.map(x),
            }),
            StmtNode::If { test, body, orelse } => StmtKind::If {
                test: x(*test),
                body: m.block(*body),
                orelse: m.block(*orelse),
            },
            StmtNode::While { test, body } => StmtKind::While {
                test: x(*test),
                body: m.block(*body),
            },
            StmtNode::For { target, iter, body } => StmtKind::For {
                target: m.ident(*target),
                iter: x(*iter),
                body: m.block(*body),
            },
            StmtNode::Break => StmtKind::Break,
            StmtNode::Continue => StmtKind::Continue,
            StmtNode::Pass => StmtKind::Pass,
            StmtNode::Return(e) => StmtKind::Return(e.map(x)),
            StmtNode::Raise(e) => StmtKind::Raise(x(*e)),
            StmtNode::Assert { test, msg } => StmtKind::Assert {
                test: x(*test),
                msg: msg.map(x),
            },
            StmtNode::Expr(e) => StmtKind::Expr(x(*e)),
            StmtNode::Comment(text) => StmtKind::Comment(m.str(*text)),
        }
    }
}

impl Deref for StmtRef<'_> {
    type Target = Stmt;
    #[inline]
    fn deref(&self) -> &Stmt {
        &self.stored
    }
}

impl<'a> ExprRef<'a> {
    /// This expression read as the target of an assignment.
    pub fn as_target(self) -> AssignTarget<'a> {
        assign_target(self)
    }
}

/// An assignment's target expression read as a target.
fn assign_target(t: ExprRef<'_>) -> AssignTarget<'_> {
    let range = t.range;
    // (most targets are names: no view of the whole kind for them)
    if let Some(id) = t.name_ident() {
        return AssignTarget::Name(id);
    }
    match t.kind() {
        ExprKind::Name(id) => AssignTarget::Name(id),
        ExprKind::Attribute { value, attr } => AssignTarget::Attribute { value, attr, range },
        ExprKind::Subscript { value, indices } => AssignTarget::Subscript {
            value,
            indices,
            range,
        },
        ExprKind::Tuple(items) => AssignTarget::Unpack {
            names: Names(items),
            range,
        },
        // (what else the parser accepts as a target is a deferred error:
        // such a tree is never read)
        _ => AssignTarget::Unpack {
            names: Names(Exprs {
                module: t.module,
                items: &[],
            }),
            range,
        },
    }
}

// ------------------------------------------------------------------ lists

macro_rules! list_view {
    ($(#[$doc:meta])* $name:ident, $item:ty, $stored:ty, $iter:ident, |$m:ident, $x:ident| $make:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'a> {
            module: &'a Module,
            items: &'a [$stored],
        }

        impl<'a> $name<'a> {
            #[inline]
            pub fn len(&self) -> usize {
                self.items.len()
            }

            #[inline]
            pub fn is_empty(&self) -> bool {
                self.items.is_empty()
            }

            #[inline]
            pub fn get(&self, i: usize) -> Option<$item> {
                let $m = self.module;
                self.items.get(i).map(|$x| $make)
            }

            #[inline]
            pub fn first(&self) -> Option<$item> {
                self.get(0)
            }

            #[inline]
            pub fn last(&self) -> Option<$item> {
                self.len().checked_sub(1).and_then(|i| self.get(i))
            }

            #[inline]
            pub fn iter(&self) -> $iter<'a> {
                $iter {
                    module: self.module,
                    items: self.items.iter(),
                }
            }

        }

        /// Iterator over a list's items.
        #[derive(Clone)]
        pub struct $iter<'a> {
            module: &'a Module,
            items: std::slice::Iter<'a, $stored>,
        }

        impl<'a> Iterator for $iter<'a> {
            type Item = $item;
            #[inline(always)]
            fn next(&mut self) -> Option<$item> {
                let $m = self.module;
                self.items.next().map(|$x| $make)
            }
            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.items.size_hint()
            }
            /// O(1), so `skip(i)` does not build the `i` skipped views (the
            /// printer's top level skips to each chunk: quadratic without it).
            #[inline]
            fn nth(&mut self, n: usize) -> Option<$item> {
                let $m = self.module;
                self.items.nth(n).map(|$x| $make)
            }
        }

        impl DoubleEndedIterator for $iter<'_> {
            #[inline]
            fn next_back(&mut self) -> Option<Self::Item> {
                let $m = self.module;
                self.items.next_back().map(|$x| $make)
            }
        }

        impl ExactSizeIterator for $iter<'_> {}

        impl<'a> IntoIterator for $name<'a> {
            type Item = $item;
            type IntoIter = $iter<'a>;
            fn into_iter(self) -> $iter<'a> {
                self.iter()
            }
        }

        impl<'a> IntoIterator for &$name<'a> {
            type Item = $item;
            type IntoIter = $iter<'a>;
            fn into_iter(self) -> $iter<'a> {
                self.iter()
            }
        }

        impl PartialEq for $name<'_> {
            fn eq(&self, other: &Self) -> bool {
                self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
            }
        }

        impl fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.iter()).finish()
            }
        }
    };
}

list_view!(
    /// A body's statements.
    Stmts, StmtRef<'a>, StmtId, StmtIter, |m, s| m.stmt(*s)
);
list_view!(
    /// Expressions in a row.
    Exprs, ExprRef<'a>, ExprId, ExprIter, |m, e| m.expr(*e)
);
list_view!(
    /// Identifiers in a row (type parameters).
    Idents, &'a Identifier, IdentId, IdentIter, |m, i| m.ident(*i)
);
list_view!(
    /// A `def`'s parameters.
    Params, Param<'a>, ParamRecord, ParamIter, |m, p| Param {
        name: m.ident(p.name),
        kind: p.kind,
        annotation: p.annotation.map(|e| m.expr(e)),
        default: p.default.map(|e| m.expr(e)),
        range: m.param_range(p),
    }
);
list_view!(
    /// The names of a `from m import ...`.
    ImportNames, ImportName<'a>, ImportNameNode, ImportNameIter, |m, n| ImportName {
        name: m.ident(n.name),
        alias: n.alias.map(|a| m.ident(a)),
        range: n.range,
    }
);

impl<'a> Exprs<'a> {
    /// The items from `from` on.
    #[inline]
    pub fn skip_to(&self, from: usize) -> Exprs<'a> {
        Exprs {
            module: self.module,
            items: self.items.get(from..).unwrap_or(&[]),
        }
    }

    /// The items before `to`.
    #[inline]
    pub fn take_to(&self, to: usize) -> Exprs<'a> {
        Exprs {
            module: self.module,
            items: &self.items[..to.min(self.items.len())],
        }
    }

    /// The stored indices.
    #[inline]
    pub fn ids(&self) -> &'a [ExprId] {
        self.items
    }

    /// The items, when there are exactly `N` of them.
    #[inline]
    pub fn as_array<const N: usize>(&self) -> Option<[ExprRef<'a>; N]> {
        let items: &[ExprId; N] = self.items.try_into().ok()?;
        Some(items.map(|id| self.module.expr(id)))
    }
}

impl<'a> Stmts<'a> {
    /// The stored indices.
    #[inline]
    pub fn ids(&self) -> &'a [StmtId] {
        self.items
    }
}

/// A dict display's key/value pairs (stored alternating).
#[derive(Clone, Copy)]
pub struct Pairs<'a> {
    module: &'a Module,
    items: &'a [ExprId],
}

impl<'a> Pairs<'a> {
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len() / 2
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    #[inline]
    pub fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = (ExprRef<'a>, ExprRef<'a>)> + ExactSizeIterator + 'a {
        let m = self.module;
        self.items
            .chunks_exact(2)
            .map(move |kv| (m.expr(kv[0]), m.expr(kv[1])))
    }
}

impl PartialEq for Pairs<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

impl fmt::Debug for Pairs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The names of an unpacking assignment `a, b = e` (name expressions).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Names<'a>(Exprs<'a>);

impl<'a> Names<'a> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Identifier> + 'a {
        self.0.iter().filter_map(|e| e.name_ident())
    }
}

impl<'a> IntoIterator for &Names<'a> {
    type Item = Identifier;
    type IntoIter = std::iter::FilterMap<ExprIter<'a>, fn(ExprRef<'a>) -> Option<Identifier>>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().filter_map(|e| e.name_ident())
    }
}

// --------------------------------------------------------------- equality

impl PartialEq for ExprRef<'_> {
    /// The same tree (kinds, ranges and children), wherever it is stored.
    fn eq(&self, other: &Self) -> bool {
        self.range == other.range && self.kind() == other.kind()
    }
}

impl PartialEq for StmtRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.range == other.range && self.kind() == other.kind()
    }
}

impl PartialEq for FuncDef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.color == other.color
            && self.kind == other.kind
            && self.decorators == other.decorators
            && self.type_params == other.type_params
            && self.params == other.params
            && self.return_type == other.return_type
            && self.body == other.body
            && self.proto_range == other.proto_range
    }
}

impl PartialEq for ClassDef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.is_struct == other.is_struct
            && self.decorators == other.decorators
            && self.type_params == other.type_params
            && self.body == other.body
    }
}

impl PartialEq for Module {
    /// The same tree and the same number of name ids.
    fn eq(&self, other: &Self) -> bool {
        self.name_count == other.name_count && self.body() == other.body()
    }
}

impl fmt::Debug for ExprRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} {:?}", self.kind(), self.range)
    }
}

impl fmt::Debug for StmtRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} {:?}", self.kind(), self.range)
    }
}

impl fmt::Debug for FuncDef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FuncDef")
            .field("name", self.name)
            .field("color", &self.color)
            .field("kind", &self.kind)
            .field("decorators", &self.decorators)
            .field("type_params", &self.type_params)
            .field("params", &self.params)
            .field("return_type", &self.return_type)
            .field("body", &self.body)
            .field("proto_range", &self.proto_range)
            .finish()
    }
}

impl fmt::Debug for ClassDef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassDef")
            .field("name", self.name)
            .field("is_struct", &self.is_struct)
            .field("decorators", &self.decorators)
            .field("type_params", &self.type_params)
            .field("body", &self.body)
            .finish()
    }
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("name_count", &self.name_count)
            .field("body", &self.body())
            .finish()
    }
}
