//! Showing what a program means, for a person or a tool: the color and
//! static type of every expression after redshift (`colorize`), one HTML
//! page with the source, the residual module and the provenance links
//! between them, plus what the JIT makes of it (`explain`), and the scopes'
//! symbols (`symtable`).
//!
//! Nothing here evaluates anything a second way: the colors and types are
//! the ones redshift's own evaluation produced (`frames::doppler::record`),
//! the provenance is redshift's (`RedshiftOptions::provenance`), the IR and
//! machine code are the jit engine's (`lower::run::dump_module`).
//!
//! | file          | owns                                                    |
//! |---------------|---------------------------------------------------------|
//! | `mod.rs`      | running redshift with recording: [`Inspection`]         |
//! | `colorize.rs` | the source with colors: ANSI, plain markers, JSON       |
//! | `explain.rs`  | the self-contained HTML page                            |
//! | `symtable.rs` | each scope's names with kind, color and type            |
//! | `text.rs`     | JSON and HTML escaping                                  |

pub mod colorize;
pub mod explain;
pub mod symtable;
mod text;

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::backend::{print_module_marked, Mark};
use crate::error::Failure;
use crate::frames::{Interp, Limits};
use crate::lower::run::{dump_module, FunctionDump};
use crate::redshift::{ErrorMode, RedshiftOptions};
use crate::source::{SourceFile, TextRange};
use crate::vm::value::Color;

/// The color of an expression over every time redshift evaluated it (a
/// generic's body is shifted once per specialization).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shade {
    Blue,
    Red,
    /// Blue in one evaluation, red in another.
    Mixed,
}

impl Shade {
    pub fn name(self) -> &'static str {
        match self {
            Shade::Blue => "blue",
            Shade::Red => "red",
            Shade::Mixed => "mixed",
        }
    }
}

/// One expression of the source with its color and static type(s).
#[derive(Clone, Debug)]
pub struct Colored {
    pub range: TextRange,
    pub shade: Shade,
    /// The static types it had, sorted, without repeats.
    pub types: Vec<String>,
}

/// Where one residual function comes from (`redshift::ResidualFunc`).
#[derive(Clone, Debug)]
pub struct FuncProv {
    pub fqn: String,
    /// Its name in the residual module, and the struct it is a method of.
    pub name: String,
    pub class: Option<String>,
    pub def_path: String,
    pub def_range: TextRange,
    /// The blue calls that made it, innermost first.
    pub made_by: Vec<Site>,
    pub force_inline: bool,
}

/// A blue call: the provenance text, and where the call is.
#[derive(Clone, Debug)]
pub struct Site {
    pub text: String,
    pub path: String,
    pub range: TextRange,
}

/// What `colorize` and `explain` show about one program.
pub struct Inspection {
    pub file: Rc<SourceFile>,
    /// Every colored expression, outer before inner (by start, then the
    /// longer first).
    pub colored: Vec<Colored>,
    /// The residual module printed with provenance comments, and where its
    /// comments and `def`s start.
    pub residual: String,
    pub marks: Vec<Mark>,
    pub functions: Vec<FuncProv>,
    /// Ranges of residual comments that are not places of the main file.
    pub foreign_notes: std::collections::HashSet<TextRange>,
    /// What blue code printed during redshift.
    pub blue_stdout: String,
    /// The JIT's view of the residual module (`explain` only), or why it
    /// has none.
    pub jit: Option<Result<Vec<FunctionDump>, String>>,
}

/// Redshift `source` (lazy errors: a static error becomes a `raise` in the
/// residual code, as for the doppler and jit engines), recording every
/// expression's color; with `jit`, also lower and compile the residual
/// module. Runs on an evaluator thread with a deep stack. `Err`: the
/// rendered error report.
pub fn inspect(path: &str, source: &[u8], limits: Limits, jit: bool) -> Result<Inspection, String> {
    let (path, source) = (path.to_string(), source.to_vec());
    let run = move || -> Result<SendInspection, String> {
        let mut blue = Vec::new();
        let mut interp = Interp::new(&mut blue, limits.into());
        let options = RedshiftOptions {
            error_mode: ErrorMode::Lazy,
            provenance: true,
            full_fqn: false,
            record: true,
            width: 100,
            stream: false,
        };
        let mut residual = interp.redshift_with(&path, &source, options).map_err(render)?;
        drop(interp);
        let text = String::from_utf8_lossy(&source).into_owned();
        let record = residual.record.take().unwrap_or_default();
        // (start, longer first) -> (seen blue, seen red, type names)
        let mut by_range: BTreeMap<(u32, std::cmp::Reverse<u32>), Seen> = BTreeMap::new();
        for c in &record.colors {
            if c.range.start >= c.range.end || c.range.end as usize > text.len() {
                continue;
            }
            let e = by_range
                .entry((c.range.start, std::cmp::Reverse(c.range.end)))
                .or_default();
            match c.color {
                Color::Blue => e.0 = true,
                Color::Red => e.1 = true,
            }
            let name = residual.type_names.get(&c.ty).cloned().unwrap_or_default();
            if !e.2.contains(&name) {
                e.2.push(name);
            }
        }
        let colored = by_range
            .into_iter()
            .map(|((start, end), (blue, red, mut types))| {
                types.sort();
                Colored {
                    range: TextRange { start, end: end.0 },
                    shade: match (blue, red) {
                        (true, true) => Shade::Mixed,
                        (false, true) => Shade::Red,
                        _ => Shade::Blue,
                    },
                    types,
                }
            })
            .collect();
        let (printed, marks) = print_module_marked(residual.body(), 100);
        let jit_dump = jit.then(|| {
            let mut sink = Vec::new();
            let mut interp = Interp::new(&mut sink, limits.into());
            let shown = crate::engine::residual_display_path(&path);
            let module = interp
                .load_residual_module_as(&shown, &residual.modname, printed.as_bytes())
                .map_err(render)?;
            dump_module(&mut interp, module).map_err(|why| why.to_string())
        });
        Ok(SendInspection {
            path,
            text,
            colored,
            residual: printed,
            marks,
            functions: residual
                .functions
                .into_iter()
                .map(|f| FuncProv {
                    fqn: f.fqn,
                    name: f.name,
                    class: f.class,
                    def_path: f.def_path,
                    def_range: f.def_range,
                    made_by: f
                        .made_by
                        .into_iter()
                        .map(|c| Site {
                            text: c.text(),
                            path: c.file.path.clone(),
                            range: c.range,
                        })
                        .collect(),
                    force_inline: f.force_inline,
                })
                .collect(),
            foreign_notes: record.foreign_notes,
            blue_stdout: String::from_utf8_lossy(&blue).into_owned(),
            jit: jit_dump,
        })
    };
    let sent = crate::native_stack::run(limits.max_depth, run)
        .map_err(|_| "internal error (a bug in spy-interp): redshift panicked\n".to_string())??;
    Ok(Inspection {
        file: SourceFile::new(sent.path, sent.text),
        colored: sent.colored,
        residual: sent.residual,
        marks: sent.marks,
        functions: sent.functions,
        foreign_notes: sent.foreign_notes,
        blue_stdout: sent.blue_stdout,
        jit: sent.jit,
    })
}

/// What redshift recorded of one expression: blue seen, red seen, types.
type Seen = (bool, bool, Vec<String>);

/// An [`Inspection`] without its `Rc`, to cross back from the evaluator
/// thread.
struct SendInspection {
    path: String,
    text: String,
    colored: Vec<Colored>,
    residual: String,
    marks: Vec<Mark>,
    functions: Vec<FuncProv>,
    foreign_notes: std::collections::HashSet<TextRange>,
    blue_stdout: String,
    jit: Option<Result<Vec<FunctionDump>, String>>,
}

fn render(f: Failure) -> String {
    match f {
        Failure::Raise(e) => crate::diag::render(&e),
        Failure::Bug(b) => format!("{b}\n"),
        Failure::Host(h) => format!("{h}\n"),
    }
}

/// The innermost colored expression at every byte of `text` (None where
/// no expression is). Painting costs the sum of the expressions' lengths:
/// at most the source size times the parser's nesting limit.
pub(crate) fn innermost(text: &str, colored: &[Colored]) -> Innermost {
    // 4 bytes a source byte (the source is at most 4 GiB: ranges are u32)
    let mut at = vec![Innermost::NONE; text.len()];
    // outer before inner: a later (inner) expression paints over
    for (k, c) in colored.iter().enumerate() {
        at[c.range.start as usize..c.range.end as usize].fill(k as u32);
    }
    Innermost(at)
}

/// Per byte of a source, the index of the innermost colored expression.
pub(crate) struct Innermost(Vec<u32>);

impl Innermost {
    const NONE: u32 = u32::MAX;

    pub(crate) fn get(&self, byte: usize) -> Option<usize> {
        self.0
            .get(byte)
            .copied()
            .filter(|&k| k != Self::NONE)
            .map(|k| k as usize)
    }
}
