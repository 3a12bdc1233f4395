//! `FuncCode`: the code of a user function — its definition (a `def` of its
//! module's tree), the scope the resolver computed for it, and the module
//! it belongs to. Shared by every `Function` value made from the same
//! `def`.

use std::rc::Rc;

use crate::resolve::{Resolution, Scope};
use crate::source::{SourceFile, TextRange};
use crate::syntax::ast::{ExprRef, FuncDef, FuncId, FuncNode, Module, Params, Stmts};
use crate::vm::value::ModuleId;

pub struct FuncCode {
    /// The tree the `def` is in.
    pub ast: Rc<Module>,
    pub func: FuncId,
    pub scope: Rc<Scope>,
    pub module: ModuleId,
    pub file: Rc<SourceFile>,
    pub res: Rc<Resolution>,
}

impl FuncCode {
    /// The `def`.
    pub fn def(&self) -> FuncDef<'_> {
        self.ast.func(self.func)
    }

    // (One part of the `def`, without reading the others: a call reads
    // these on every activation.)

    fn node(&self) -> &FuncNode {
        self.ast.func_node(self.func)
    }

    /// The `def name(...) -> T` prototype.
    pub fn proto_range(&self) -> TextRange {
        self.node().proto_range
    }

    pub fn body(&self) -> Stmts<'_> {
        self.ast.block(self.node().body)
    }

    pub fn params(&self) -> Params<'_> {
        self.ast.params(self.node().params)
    }

    pub fn return_type(&self) -> Option<ExprRef<'_>> {
        self.node().return_type.map(|t| self.ast.expr(t))
    }
}
