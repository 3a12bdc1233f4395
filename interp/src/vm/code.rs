//! `FuncCode`: the code of a user function — its definition (a `def` of its
//! module's tree), the scope the resolver computed for it, and the module
//! it belongs to. Shared by every `Function` value made from the same
//! `def`.
//!
//! What the functions of one module have in common (the tree, its
//! resolution, the file) is one `CodeUnit` they share; a function's own
//! part is the `def`'s id, so a `FuncCode` is two words kept inline in its
//! `Function` (not a record of its own per `def`, issue 14 item 5).

use std::ops::Deref;
use std::rc::Rc;

use crate::resolve::{Resolution, Scope, ScopeRef};
use crate::source::{SourceFile, TextRange};
use crate::syntax::ast::{ExprRef, FuncDef, FuncId, FuncRecord, Module, Params, Stmts};
use crate::vm::value::ModuleId;

/// The tree the `def`s of a module are in, with its resolution: what every
/// `FuncCode` of that tree shares.
pub struct CodeUnit {
    pub ast: Rc<Module>,
    pub module: ModuleId,
    pub file: Rc<SourceFile>,
    pub res: Rc<Resolution>,
}

impl CodeUnit {
    /// Whether this unit is the tree `ast` resolved as `res` in `module`.
    pub fn is(
        &self,
        ast: &Rc<Module>,
        res: &Rc<Resolution>,
        file: &Rc<SourceFile>,
        module: ModuleId,
    ) -> bool {
        self.module == module
            && Rc::ptr_eq(&self.ast, ast)
            && Rc::ptr_eq(&self.res, res)
            && Rc::ptr_eq(&self.file, file)
    }
}

/// One `def` of a [`CodeUnit`] (its fields read through `Deref`).
#[derive(Clone)]
pub struct FuncCode {
    unit: Rc<CodeUnit>,
    pub func: FuncId,
}

impl Deref for FuncCode {
    type Target = CodeUnit;
    fn deref(&self) -> &CodeUnit {
        &self.unit
    }
}

impl FuncCode {
    /// `def` `func` of `unit`; `None` if the resolver gave it no scope.
    pub fn new(unit: Rc<CodeUnit>, func: FuncId) -> Option<FuncCode> {
        unit.res.func_scope(func)?;
        Some(FuncCode { unit, func })
    }

    /// The `def`.
    pub fn def(&self) -> FuncDef<'_> {
        self.ast.func(self.func)
    }

    /// The scope of the `def`'s body.
    pub fn scope(&self) -> &Scope {
        // (`new` checked it is there, and a resolution does not change.)
        self.res
            .func_scope(self.func)
            .expect("a FuncCode's def has a scope (checked by FuncCode::new)")
    }

    /// [`Self::scope`] as a frame keeps it.
    pub fn scope_ref(&self) -> ScopeRef {
        ScopeRef::func(&self.res, self.func).expect("a FuncCode's def has a scope (checked by FuncCode::new)")
    }

    // (One part of the `def`, without reading the others: a call reads
    // these on every activation.)

    fn node(&self) -> &FuncRecord {
        self.ast.func_record(self.func)
    }

    /// The `def name(...) -> T` prototype.
    pub fn proto_range(&self) -> TextRange {
        self.ast.proto_range(self.func)
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
