//! The VM: values, types, the pure operator layer, the typed run-time errors,
//! builtins, and the loaded modules with their globals.
//!
//! | file          | owns                                                     |
//! |---------------|----------------------------------------------------------|
//! | `value.rs`    | runtime values, colors, `Typed`                          |
//! | `code.rs`     | `FuncCode`: a `def` of a module's shared `CodeUnit` (tree, resolution, file) |
//! | `types.rs`    | the type table                                           |
//! | `dict.rs`     | the values of `dict[K, V]` / `interp_dict[K, V]`: the entry table |
//! | `builtins.rs` | the values of the `builtins` scope (names: `resolve::builtin_names`) |
//! | `modules.rs`  | builtin modules (`__spy__`, `operator`, `unsafe`, `simd`, `time`) |
//! | `memo.rs`     | memoization keys of blue calls                           |
//! | `op_select.rs` | operator selection on static types (`OpImpl`), value equality and display dunders |
//! | `ops/`        | pure operator semantics, formatting, conversions         |
//! | `rt_error.rs` | `RuntimeError`: the errors residual code raises at run time, with stable codes |
//!
//! The VM uses `syntax` and `resolve`, never `frames` or later modules.

pub mod builtins;
pub mod code;
pub mod dict;
pub mod memo;
pub mod memory;
pub mod modules;
pub mod op_select;
pub mod ops;
pub mod rt_error;
pub mod types;
pub mod value;

use foldhash::HashMap;
use std::rc::Rc;

use crate::resolve::Resolution;
use crate::source::SourceFile;
use crate::syntax::ast;
use types::TypeId;
use types::TypeTable;
use value::{Function, Local, ModuleId, Value};

/// A loaded SPy module.
pub struct ModuleData {
    pub name: String,
    pub file: Rc<SourceFile>,
    pub ast: Rc<ast::Module>,
    pub resolution: Rc<Resolution>,
    /// One slot per module-level symbol (`resolution.module_scope`).
    pub globals: Vec<Option<Local>>,
    /// The `def`s whose function record is still to be made, by global
    /// slot (empty unless the interp engine deferred one, see
    /// `frames::pending_def`). A pending slot holds its function's type
    /// and no value until then.
    pub pending_defs: Vec<Option<ast::FuncId>>,
}

impl ModuleData {
    /// The pending `def` of global `slot`, if its record is still to be
    /// made.
    #[inline]
    pub fn pending_def(&self, slot: usize) -> Option<ast::FuncId> {
        self.pending_defs.get(slot).copied().flatten()
    }

    /// Write global `slot`; a `def` pending there is no longer pending.
    pub fn set_global(&mut self, slot: usize, value: Option<Local>) {
        if let Some(p) = self.pending_defs.get_mut(slot) {
            *p = None;
        }
        self.globals[slot] = value;
    }
}

/// What a `@struct` class defines besides its fields.
pub struct StructInfo {
    /// Methods and other class-body bindings, by name.
    pub members: HashMap<String, Value>,
    /// Names of `@staticmethod` members.
    pub static_methods: Vec<String>,
    /// Names of `@classmethod` members: `T.m(args)` calls `m(T, args)`
    /// (upstream `W_Type.w_CALL_METHOD`).
    pub class_methods: Vec<String>,
    /// Names of `@property` members: reading `o.name` calls the method
    /// with `o` (upstream `W_Property.__get__`).
    pub properties: Vec<String>,
    pub file: Rc<SourceFile>,
    /// The `class C:` line, for "class defined here".
    pub def_range: crate::source::TextRange,
}

/// Everything that outlives a single call: types and modules.
pub struct Vm {
    pub types: TypeTable,
    pub modules: Vec<ModuleData>,
    pub structs: HashMap<TypeId, StructInfo>,
    /// Methods, by function identity: (struct, member name).
    pub method_owner: HashMap<usize, (TypeId, String)>,
    /// The FQNs of the functions some struct has as a member (redshift
    /// puts their residual `def`s in the struct's class body).
    pub method_fqns: foldhash::HashSet<Rc<str>>,
}

impl Default for Vm {
    fn default() -> Self {
        Self::new()
    }
}

impl Vm {
    pub fn new() -> Vm {
        Vm {
            types: TypeTable::new(),
            modules: Vec::new(),
            structs: HashMap::default(),
            method_owner: HashMap::default(),
            method_fqns: Default::default(),
        }
    }

    pub fn module(&self, id: ModuleId) -> &ModuleData {
        &self.modules[id.0 as usize]
    }

    pub fn module_mut(&mut self, id: ModuleId) -> &mut ModuleData {
        &mut self.modules[id.0 as usize]
    }

    /// The loaded module named `name` (user modules have unique names).
    pub fn module_named(&self, name: &str) -> Option<ModuleId> {
        self.modules
            .iter()
            .position(|m| m.name == name)
            .map(|i| ModuleId(i as u32))
    }

    pub fn add_module(&mut self, data: ModuleData) -> ModuleId {
        self.modules.push(data);
        ModuleId(self.modules.len() as u32 - 1)
    }
}

impl Vm {
    /// The user-defined members of type `ty`: a struct's own, a reference's
    /// those of the struct it refers to (`TypeTable::method_owner`).
    pub fn struct_info(&self, ty: TypeId) -> Option<&StructInfo> {
        self.structs.get(&self.types.method_owner(ty))
    }

    /// Whether `name` is a `@property` of struct type `ty`.
    pub fn is_property(&self, ty: TypeId, name: &str) -> bool {
        self.struct_info(ty)
            .is_some_and(|s| s.properties.iter().any(|p| p == name))
    }

    pub fn is_class_method(&self, ty: TypeId, name: &str) -> bool {
        self.struct_info(ty)
            .is_some_and(|s| s.class_methods.iter().any(|p| p == name))
    }

    /// A user function defined in the body of struct type `ty` (for a
    /// reference, of the struct it refers to).
    pub fn struct_method(&self, ty: TypeId, name: &str) -> Option<Rc<Function>> {
        match self.struct_info(ty)?.members.get(name)? {
            Value::Func(f) => Some(f.clone()),
            _ => None,
        }
    }
}
