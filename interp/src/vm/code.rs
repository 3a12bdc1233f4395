//! `FuncCode`: the code of a user function — its definition, the scope the
//! resolver computed for it, and the module it belongs to. Shared by every
//! `Function` value made from the same `def`.

use std::rc::Rc;

use crate::resolve::{Resolution, Scope};
use crate::source::SourceFile;
use crate::syntax::ast::FuncDef;
use crate::vm::value::ModuleId;

pub struct FuncCode {
    pub def: Rc<FuncDef>,
    pub scope: Rc<Scope>,
    pub module: ModuleId,
    pub file: Rc<SourceFile>,
    pub res: Rc<Resolution>,
}
