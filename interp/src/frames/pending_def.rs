//! Function records made on first use (the interp engine only).
//!
//! Executing a module-level `def` makes a `Function` record (80 bytes and
//! its FQN's text), and module init executes every `def` of a program, most
//! of which a run may never reach. The interp engine defers the record of a
//! `def` whose execution cannot be observed: a red function of the module
//! body, without decorators, type parameters, defaults or `*args`, whose
//! every annotation is a builtin type (`i32`, `str`...) or `None`, and whose
//! name is free as its FQN. Its global slot gets the function's type and no
//! value, and [`Interp::make_pending_def`] makes the record the first time
//! the slot is read, exactly as executing the `def` would have: same FQN (it
//! was claimed when the `def` ran), same type, no provenance (module init
//! runs no blue call). Nothing the program can see changes: evaluating such
//! annotations has no effect and cannot fail, and a function's identity is
//! its one record, kept in the slot once made.
//!
//! Every reader of a global slot either goes through
//! [`Interp::make_pending_def`] first or runs only where nothing is deferred
//! (redshift, the jit's lowering and the inspectors run on an interpreter
//! that never defers: [`Interp::defer_defs`] is set by the interp engine
//! alone). Issue 14 item 5: a program's memory per source byte.

use crate::frames::function::{kind_prefix, FunctionSpec};
use crate::frames::{Eval, Frame, FrameKind, Interp};
use crate::resolve::{NameRef, VarKind};
use crate::syntax::ast::{self, ExprKind, ExprRef, FuncColor, FuncKind, ParamKind};
use crate::vm::builtins;
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Local, ModuleId, Value};

impl Interp<'_> {
    /// Execute module-level `def` `def` in frame `f` without making its
    /// record, when that cannot be observed (module comment); `false` when
    /// it must be executed as usual.
    pub(crate) fn try_defer_def(&mut self, f: &Frame, def: &ast::FuncDef<'_>) -> Eval<bool> {
        if !self.defer_defs
            || f.kind != FrameKind::Module
            || f.is_shifting()
            || self.redshift.is_some()
            || !self.blue_sites.is_empty()
            || def.color != FuncColor::Red
            || def.kind != FuncKind::Plain
            || !def.decorators.is_empty()
            || def.type_params.is_some()
        {
            return Ok(false);
        }
        let NameRef::Global(slot) = f.res.name(def.name.id) else {
            return Ok(false);
        };
        let slot = slot as usize;
        if f.scope.symbols[slot].kind != VarKind::Const {
            return Ok(false);
        }
        let mut params = Vec::with_capacity(def.params.len());
        for p in def.params.iter() {
            if p.kind != ParamKind::Positional || p.default.is_some() {
                return Ok(false);
            }
            let Some(ty) = builtin_type(f, p.annotation) else {
                return Ok(false);
            };
            params.push(ty);
        }
        let Some(ret) = builtin_type(f, def.return_type) else {
            return Ok(false);
        };
        if !self.claim_module_fqn(f, &def.name.name) {
            return Ok(false);
        }
        let ty = self.vm.types.func(params, ret, kind_prefix(def.color, def.kind));
        let module = self.vm.module_mut(f.module);
        if module.pending_defs.is_empty() {
            module.pending_defs = vec![None; module.globals.len()];
        }
        module.set_global(
            slot,
            Some(Local {
                ty,
                color: Color::Blue,
                value: None,
            }),
        );
        module.pending_defs[slot] = Some(def.id);
        Ok(true)
    }

    /// Make the record of the `def` pending in global `slot` of `module`,
    /// if one is: what executing the `def` at module init would have made.
    pub(crate) fn make_pending_def(&mut self, module: ModuleId, slot: usize) -> Eval<()> {
        let Some(id) = self.vm.module(module).pending_def(slot) else {
            return Ok(());
        };
        let mut frame = self.module_frame(module);
        let tree = frame.ast.clone();
        let def = tree.func(id);
        let mut fqn = String::with_capacity(frame.ns.len() + 2 + def.name.name.len());
        fqn.push_str(&frame.ns);
        fqn.push_str("::");
        fqn.push_str(&def.name.name);
        let spec = FunctionSpec {
            fqn: fqn.into(),
            self_type: None,
            closure: frame.closure.clone(),
            presets: crate::vm::value::no_presets(),
            in_blue_code: false,
        };
        // Module init ran no blue call: the record has no provenance, even
        // when a blue call is what reads it first.
        let sites = std::mem::take(&mut self.blue_sites);
        let func = self.build_function(&mut frame, &def, spec);
        self.blue_sites = sites;
        let func = func?;
        let local = Local {
            ty: func.ty,
            color: Color::Blue,
            value: Some(Value::Func(func)),
        };
        self.vm.module_mut(module).set_global(slot, Some(local));
        Ok(())
    }

    /// [`Self::make_pending_def`] of global `name` of module `id`; its slot,
    /// if the module declares the name.
    pub(crate) fn make_pending_global(&mut self, id: ModuleId, name: &str) -> Eval<Option<usize>> {
        let Some(slot) = self.vm.module(id).resolution.module_scope.find(name) else {
            return Ok(None);
        };
        self.make_pending_def(id, slot)?;
        Ok(Some(slot))
    }

    /// [`Self::make_pending_global`] in the user module named `modname`, if
    /// there is one.
    pub(crate) fn make_pending_def_named(&mut self, modname: &str, name: &str) -> Eval<()> {
        if let Some(id) = self.vm.module_named(modname) {
            self.make_pending_global(id, name)?;
        }
        Ok(())
    }
}

/// The type an annotation names when it is a builtin type or `None` (whose
/// evaluation has no effect and cannot fail); `None` otherwise.
fn builtin_type(f: &Frame, annotation: Option<ExprRef<'_>>) -> Option<TypeId> {
    let e = annotation?;
    match e.kind() {
        ExprKind::None => Some(TypeId::NONE),
        ExprKind::Name(id) => match f.res.name(id.id) {
            NameRef::Builtin(i) => match builtins::value(i).value {
                Value::Type(t) => Some(t),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::frames::{Interp, Limits};
    use crate::vm::value::Value;

    const PROGRAM: &str = "\
def used(a: i32) -> i32:
    return a

def unused(a: i32, b: f64) -> None:
    pass

def with_default(a: i32 = 1) -> i32:
    return a

@blue
def blue(x):
    return x

def main() -> None:
    print(used(1))
";

    /// Run [`PROGRAM`] and say, for each name, whether its `def` is still
    /// pending and whether its slot holds a function record.
    fn run(defer: bool) -> Vec<(&'static str, bool, bool)> {
        let mut out = Vec::new();
        let mut interp = Interp::new(&mut out, Limits::default().into());
        interp.defer_defs = defer;
        let (file, module) = crate::syntax::parse_bytes("t.spy", PROGRAM.as_bytes()).expect("parses");
        assert_eq!(interp.run_parsed_module_as(file, module, "t").ok(), Some(0));
        let m = interp.vm.module(interp.vm.module_named("t").expect("loaded"));
        ["used", "unused", "with_default", "blue", "main"]
            .into_iter()
            .map(|name| {
                let slot = m.resolution.module_scope.find(name).expect("declared");
                let made = matches!(&m.globals[slot], Some(g) if matches!(g.value, Some(Value::Func(_))));
                (name, m.pending_def(slot).is_some(), made)
            })
            .collect()
    }

    #[test]
    fn simple_defs_are_made_when_first_read_and_the_others_at_once() {
        assert_eq!(
            run(true),
            vec![
                ("used", false, true),
                ("unused", true, false),
                ("with_default", false, true),
                ("blue", false, true),
                ("main", false, true),
            ]
        );
    }

    #[test]
    fn an_interpreter_that_does_not_defer_makes_every_record() {
        assert!(run(false).iter().all(|&(_, pending, made)| !pending && made));
    }
}
