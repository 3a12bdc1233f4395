//! Function records made on first use (the engines' interpreters and
//! their streaming redshift).
//!
//! Executing a module-level `def` makes a `Function` record (64 bytes and
//! its FQN's text), and module init executes every `def` of a program, most
//! of which a run may never reach. The engines defer the record of a
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
//! A streaming redshift (the doppler and jit engines') defers them too: the
//! `def` takes its place on the worklist as `RedFunction::Pending`, its
//! record is made when its turn comes (or when first read), and between
//! two top-level shifts [`Interp::release_made_defs`] puts back to pending
//! the records nothing but their slot holds: shifting the whole program
//! then never holds the records of all its functions at once.
//!
//! The jit engine's interpreter defers them as well: its lowering makes the
//! record of each `def` it reaches (`lower::expr`, `lower::globals`).
//!
//! Every reader of a global slot either goes through
//! [`Interp::make_pending_def`] first or runs only where nothing is deferred
//! (the inspectors run on an interpreter that never defers:
//! [`Interp::defer_defs`] is set by the engines alone, and the tools'
//! redshifts do not stream). Issue 14 item 5: a program's memory per
//! source byte.

use std::rc::Rc;

use crate::frames::doppler::RedFunction;
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
        // (a redshift defers only when it streams: the tools' redshifts
        // read the records of the whole module)
        let redshift_streams = self.redshift.as_ref().map(|r| r.read().stream);
        if !self.defer_defs
            || f.kind != FrameKind::Module
            || f.is_shifting()
            || redshift_streams == Some(false)
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
        if let Some(r) = &self.redshift {
            // Its place on the worklist: where executing it would have
            // put its record.
            r.state()
                .red_functions
                .push(RedFunction::Pending(f.module, slot as u32));
        }
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
        // when a blue call is what reads it first. A redshift has it on
        // its worklist already (`RedFunction::Pending`): it is not added
        // again (nor given the blue calls under way as its provenance).
        let sites = std::mem::take(&mut self.blue_sites);
        let redshift = self.redshift.take();
        let func = self.build_function(&mut frame, &def, spec);
        self.redshift = redshift;
        self.blue_sites = sites;
        let func = func?;
        if let Some(r) = &self.redshift {
            r.state().made_defs.push((module, slot as u32, id));
        }
        let local = Local {
            ty: func.ty,
            color: Color::Blue,
            value: Some(Value::Func(func)),
        };
        self.vm.module_mut(module).set_global(slot, Some(local));
        Ok(())
    }

    /// A streaming redshift, between two top-level shifts: put back to
    /// pending the `def`s whose records were made since the last call and
    /// that nothing but their global slot holds, so that a record lives
    /// while it is used and not for the rest of the redshift (issue 14
    /// item 5). Nothing can tell: no one holds the record, and the next
    /// read makes the same one again (same FQN, type and closure; the
    /// redshift knows a shifted function by its FQN).
    pub(crate) fn release_made_defs(&mut self) {
        let Some(r) = self.redshift.clone() else {
            return;
        };
        let made = std::mem::take(&mut r.state().made_defs);
        for (module, slot, def) in made {
            let m = self.vm.module_mut(module);
            let Some(Some(global)) = m.globals.get(slot as usize) else {
                continue;
            };
            let Some(Value::Func(func)) = &global.value else {
                continue;
            };
            if Rc::strong_count(func) != 1 {
                continue;
            }
            let pending = Local {
                ty: global.ty,
                color: Color::Blue,
                value: None,
            };
            m.set_global(slot as usize, Some(pending));
            m.pending_defs[slot as usize] = Some(def);
        }
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
