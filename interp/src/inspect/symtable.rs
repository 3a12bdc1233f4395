//! `spy-interp symtable`: each scope's names (the resolver's scopes, in
//! source order) with their kind (`var`/`const`, and why), color and static
//! type. A module-level name shows its value's color and type after module
//! initialization; a name of a function shows the colors and types redshift
//! recorded where it is read (`frames::doppler::record`), `-` when it was
//! never read while redshifting (a blue function's body runs, it is not
//! shifted; a parameter never read).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::rc::Rc;

use crate::frames::Interp;
use crate::frames::Limits;
use crate::redshift::{ErrorMode, RedshiftOptions};
use crate::resolve::{NameRef, Resolution, ScopeRef, VarKind};
use crate::syntax::ast::{ExprKind, FuncColor, Module, StmtKind};
use crate::syntax::walk::{children, NodeRef};
use crate::vm::value::{Color, ModuleId};

/// The symbol tables of `source`, as text (`Err`: the rendered error).
pub fn symtable(path: &str, source: &[u8], limits: Limits) -> Result<String, String> {
    let (path, source) = (path.to_string(), source.to_vec());
    let run = move || -> Result<String, String> {
        let mut blue = Vec::new();
        let mut interp = Interp::new(&mut blue, limits.into());
        let options = RedshiftOptions {
            error_mode: ErrorMode::Lazy,
            record: true,
            ..RedshiftOptions::default()
        };
        let residual = interp
            .redshift_with(&path, &source, options)
            .map_err(super::render)?;
        let Some(id) = (0..interp.vm.modules.len())
            .map(|i| ModuleId(i as u32))
            .find(|id| interp.vm.module(*id).name == residual.modname)
        else {
            return Err(format!(
                "internal error (a bug in spy-interp): module `{}` is not loaded\n",
                residual.modname
            ));
        };
        // colors and types recorded per expression range
        let mut seen: Seen = HashMap::new();
        if let Some(rec) = &residual.record {
            for c in &rec.colors {
                let e = seen.entry((c.range.start, c.range.end)).or_default();
                e.0.insert(color_name(c.color));
                e.1.insert(residual.type_names.get(&c.ty).cloned().unwrap_or_default());
            }
        }
        Ok(render(&interp, id, &seen))
    };
    crate::native_stack::run(limits.max_depth, run)
        .map_err(|_| "internal error (a bug in spy-interp): symtable panicked\n".to_string())?
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Blue => "blue",
        Color::Red => "red",
    }
}

/// The colors and type names seen, by expression range.
type Seen = HashMap<(u32, u32), Uses>;
/// Colors and type names (sorted, without repeats).
type Uses = (BTreeSet<&'static str>, BTreeSet<String>);

/// One scope: its header and, per slot, the colors and types seen.
struct ScopeUse {
    /// `mod::f`, `mod::C::m`: the names of the definitions around it.
    qualname: String,
    header: String,
    scope: ScopeRef,
    uses: BTreeMap<u32, Uses>,
}

fn render(interp: &Interp<'_>, id: ModuleId, seen: &Seen) -> String {
    let m = interp.vm.module(id);
    let res = m.resolution.clone();
    let mut out = String::new();
    let _ = writeln!(out, "module `{}` ({}):", m.name, m.file.path);
    let scope = &res.module_scope;
    let width = scope.symbols.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for (slot, sym) in scope.symbols.iter().enumerate() {
        let (color, ty) = match m.globals.get(slot).and_then(|g| g.as_ref()) {
            Some(g) => (
                color_name(g.color).to_string(),
                interp.vm.types.name(g.ty).to_string(),
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        let _ = writeln!(
            out,
            "  {:<width$}  {:<5}  {:<5}  {ty}  ({})",
            sym.name,
            kind_name(sym.kind),
            color,
            sym.origin.name()
        );
    }
    let mut scopes = Vec::new();
    collect(&m.ast, &m.name, &res, seen, &mut scopes);
    for s in scopes {
        let _ = writeln!(out, "\n{}:", s.header);
        if s.scope.symbols.is_empty() {
            let _ = writeln!(out, "  (no names)");
        }
        let width = s.scope.symbols.iter().map(|x| x.name.len()).max().unwrap_or(0);
        for (slot, sym) in s.scope.symbols.iter().enumerate() {
            let (colors, types) = match s.uses.get(&(slot as u32)) {
                Some((c, t)) => (
                    c.iter().copied().collect::<Vec<_>>().join("|"),
                    t.iter().cloned().collect::<Vec<_>>().join(" | "),
                ),
                None => ("-".to_string(), "-".to_string()),
            };
            let _ = writeln!(
                out,
                "  {:<width$}  {:<5}  {:<5}  {types}  ({})",
                sym.name,
                kind_name(sym.kind),
                colors,
                sym.origin.name()
            );
        }
    }
    out.push_str("\n(-: not read while redshifting: a blue function's body runs and is not shifted)\n");
    out
}

fn kind_name(k: VarKind) -> &'static str {
    match k {
        VarKind::Var => "var",
        VarKind::Const => "const",
    }
}

/// Every `def`/`class` scope in source order, with the uses of its slots.
fn collect(module: &Module, modname: &str, res: &Rc<Resolution>, seen: &Seen, out: &mut Vec<ScopeUse>) {
    let qualname = |out: &[ScopeUse], current: Option<usize>, name: &str| match current {
        Some(k) => format!("{}::{name}", out[k].qualname),
        None => format!("{modname}::{name}"),
    };
    let mut stack: Vec<(NodeRef<'_>, Option<usize>)> = module
        .body()
        .iter()
        .rev()
        .map(|s| (NodeRef::Stmt(s), None))
        .collect();
    while let Some((node, current)) = stack.pop() {
        match node {
            NodeRef::Stmt(s) => match &s.kind() {
                StmtKind::FuncDef(def) => {
                    if let Some(scope) = ScopeRef::func(res, def.id) {
                        let color = match def.color {
                            FuncColor::Red => "red",
                            FuncColor::Blue => "blue",
                        };
                        let qualname = qualname(out, current, &def.name.name);
                        out.push(ScopeUse {
                            header: format!("function `{qualname}` ({color})"),
                            qualname,
                            scope,
                            uses: BTreeMap::new(),
                        });
                        // only the body reads the function's own slots
                        let k = out.len() - 1;
                        for st in def.body.iter().rev() {
                            stack.push((NodeRef::Stmt(st), Some(k)));
                        }
                        continue;
                    }
                }
                StmtKind::ClassDef(class) => {
                    if let Some(scope) = ScopeRef::class(res, class.id) {
                        let qualname = qualname(out, current, &class.name.name);
                        out.push(ScopeUse {
                            header: format!("class `{qualname}`"),
                            qualname,
                            scope,
                            uses: BTreeMap::new(),
                        });
                        let k = out.len() - 1;
                        for st in class.body.iter().rev() {
                            stack.push((NodeRef::Stmt(st), Some(k)));
                        }
                        continue;
                    }
                }
                _ => {}
            },
            NodeRef::Expr(e) => {
                if let (ExprKind::Name(id), Some(k)) = (&e.kind(), current) {
                    if let NameRef::Local(slot) = res.name(id.id) {
                        if let Some((c, t)) = seen.get(&(e.range.start, e.range.end)) {
                            let u = out[k].uses.entry(slot).or_default();
                            u.0.extend(c.iter().copied());
                            u.1.extend(t.iter().cloned());
                        }
                    }
                }
            }
            _ => {}
        }
        let mut kids = Vec::new();
        children(node, &mut |n| kids.push(n));
        for n in kids.into_iter().rev() {
            stack.push((n, current));
        }
    }
}
