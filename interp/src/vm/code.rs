//! `FuncCode`: the code of a user function — its definition (a `def` of its
//! module's tree), the scope the resolver computed for it, and the module
//! it belongs to. Shared by every `Function` value made from the same
//! `def`.

use std::rc::Rc;

use crate::resolve::{Resolution, Scope};
use crate::source::SourceFile;
use crate::syntax::ast::{FuncDef, FuncId, Module};
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
}
