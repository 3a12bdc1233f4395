//! A readable text form of the IR, one statement a line (for people:
//! `spy-interp explain` shows it). Not parsed back.
//!
//! ```text
//! fn mod::square(v0: i32) -> (i32)
//!   v1: i32 = mul v0, v0
//!   call mod::f(v1) -> (v2)  [site 0]
//!   if v3 {
//!     return v2
//!   }
//! ```

use std::fmt::Write as _;

use super::{Block, Function, Module, Op, Stmt, VOp, VReg, VRegKind};

/// The text of function `f` of module `m` (callee and helper names from `m`).
pub fn print_function(m: &Module, f: &Function) -> String {
    print_function_marked(m, f, &|k| format!("mark {k}"))
}

/// [`print_function`], with `mark` giving the text of each `Stmt::Mark`
/// (printed as a `# text` line).
pub fn print_function_marked(m: &Module, f: &Function, mark: &dyn Fn(u32) -> String) -> String {
    let mut out = String::new();
    let params: Vec<String> = f.params.iter().map(|&p| format!("{p}: {}", f.ty(p))).collect();
    let results: Vec<String> = f.results.iter().map(|t| t.to_string()).collect();
    let _ = writeln!(
        out,
        "fn {}({}) -> ({})",
        f.name,
        params.join(", "),
        results.join(", ")
    );
    let locals: Vec<String> = (0..f.vregs.len())
        .filter(|&i| f.vregs[i].kind == VRegKind::Local && !f.params.contains(&VReg(i as u32)))
        .map(|i| format!("v{i}: {}", f.vregs[i].ty))
        .collect();
    if !locals.is_empty() {
        let _ = writeln!(out, "  locals {}", locals.join(", "));
    }
    block(m, f, &f.body, 1, mark, &mut out);
    out
}

fn list(vs: &[VReg]) -> String {
    vs.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", ")
}

fn lower(name: impl std::fmt::Debug) -> String {
    format!("{name:?}").to_lowercase()
}

fn op(o: &Op) -> String {
    match o {
        Op::Const(w) => format!("const {w}"),
        Op::Copy(v) => format!("copy {v}"),
        Op::Unary(u, v) => format!("{} {v}", lower(u)),
        Op::Binary(b, x, y) => format!("{} {x}, {y}", lower(b)),
        Op::FloorDiv { a, b, on_zero } => format!("floordiv {a}, {b}  [on zero: error {}]", on_zero.get()),
        Op::FloorMod { a, b, on_zero } => format!("floormod {a}, {b}  [on zero: error {}]", on_zero.get()),
        Op::FDiv { a, b, on_zero } => format!("fdiv {a}, {b}  [on zero: error {}]", on_zero.get()),
        Op::Shift {
            op,
            a,
            b,
            on_negative,
        } => format!(
            "{} {a}, {b}  [on negative: error {}]",
            lower(op),
            on_negative.get()
        ),
        Op::Cmp(c, x, y) => format!("{} {x}, {y}", lower(c)),
        Op::Convert(v) => format!("convert {v}"),
        Op::Load {
            ptr,
            len,
            index,
            on_null,
            on_oob,
            checked: true,
        } => format!(
            "load {ptr}[{index}] (len {len})  [on null: error {}, out of bounds: error {}]",
            on_null.get(),
            on_oob.get()
        ),
        Op::Load {
            ptr,
            len,
            index,
            checked: false,
            ..
        } => format!("load {ptr}[{index}] (len {len})  [unchecked: proved in bounds]"),
        Op::Vector(v) => match v {
            VOp::Splat(a) => format!("vsplat {a}"),
            VOp::Build(lanes) => format!("vbuild {}", list(lanes)),
            VOp::Lane(a, k) => format!("vlane {a}[{k}]"),
            VOp::Binary(b, x, y) => format!("v{} {x}, {y}", lower(b)),
            VOp::FDiv { a, b, on_zero } => format!("vfdiv {a}, {b}  [on zero: error {}]", on_zero.get()),
            VOp::Cmp(c, x, y) => format!("v{} {x}, {y}", lower(c)),
            VOp::Convert(a) => format!("vconvert {a}"),
        },
    }
}

fn block(m: &Module, f: &Function, b: &Block, depth: usize, mark: &dyn Fn(u32) -> String, out: &mut String) {
    let pad = "  ".repeat(depth);
    for s in &b.0 {
        match s {
            Stmt::Assign { dst, op: o } => {
                let _ = writeln!(out, "{pad}{dst}: {} = {}", f.ty(*dst), op(o));
            }
            Stmt::Store {
                ptr,
                len,
                index,
                value,
                on_null,
                on_oob,
                checked,
            } => {
                let checks = if *checked {
                    format!(
                        "on null: error {}, out of bounds: error {}",
                        on_null.get(),
                        on_oob.get()
                    )
                } else {
                    "unchecked: proved in bounds".to_string()
                };
                let _ = writeln!(out, "{pad}store {ptr}[{index}] (len {len}) = {value}  [{checks}]");
            }
            Stmt::Call {
                func,
                args,
                results,
                site,
            } => {
                let name = m.functions.get(func.0 as usize).map_or("?", |g| g.name.as_str());
                let _ = writeln!(
                    out,
                    "{pad}call {name}({}) -> ({})  [site {}]",
                    list(args),
                    list(results),
                    site.0
                );
            }
            Stmt::CallHelper {
                helper,
                args,
                results,
                site,
            } => {
                let name = m.helpers.get(helper.0 as usize).map_or("?", |h| h.name.as_str());
                let _ = writeln!(
                    out,
                    "{pad}helper {name}({}) -> ({})  [site {}]",
                    list(args),
                    list(results),
                    site.0
                );
            }
            Stmt::Raise { code, operands } => {
                let ops: Vec<VReg> = operands.iter().flatten().copied().collect();
                let _ = writeln!(out, "{pad}raise error {}({})", code.get(), list(&ops));
            }
            Stmt::If { cond, then_, else_ } => {
                let _ = writeln!(out, "{pad}if {cond} {{");
                block(m, f, then_, depth + 1, mark, out);
                if !else_.0.is_empty() {
                    let _ = writeln!(out, "{pad}}} else {{");
                    block(m, f, else_, depth + 1, mark, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Loop { body } => {
                let _ = writeln!(out, "{pad}loop {{");
                block(m, f, body, depth + 1, mark, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Mark(k) => {
                let _ = writeln!(out, "{pad}# {}", mark(*k));
            }
            Stmt::InlineEnter(site) => {
                let _ = writeln!(out, "{pad}inline enter  [site {}]", site.0);
            }
            Stmt::InlineExit => {
                let _ = writeln!(out, "{pad}inline exit");
            }
            Stmt::Break => {
                let _ = writeln!(out, "{pad}break");
            }
            Stmt::Continue => {
                let _ = writeln!(out, "{pad}continue");
            }
            Stmt::Return(vs) if vs.is_empty() => {
                let _ = writeln!(out, "{pad}return");
            }
            Stmt::Return(vs) => {
                let _ = writeln!(out, "{pad}return {}", list(vs));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, Block, Function, Module, Ty, VRegInfo};

    #[test]
    fn prints_one_statement_a_line() {
        let f = Function {
            name: "m::sq".into(),
            params: vec![VReg(0)],
            results: vec![Ty::I32],
            vregs: vec![
                VRegInfo {
                    ty: Ty::I32,
                    kind: VRegKind::Local,
                },
                VRegInfo {
                    ty: Ty::I32,
                    kind: VRegKind::Temp,
                },
            ],
            body: Block(vec![
                Stmt::Assign {
                    dst: VReg(1),
                    op: Op::Binary(BinOp::Mul, VReg(0), VReg(0)),
                },
                Stmt::Return(vec![VReg(1)]),
            ]),
        };
        let m = Module {
            functions: vec![f.clone()],
            helpers: vec![],
        };
        assert_eq!(
            print_function(&m, &f),
            "fn m::sq(v0: i32) -> (i32)\n  v1: i32 = mul v0, v0\n  return v1\n"
        );
    }
}
