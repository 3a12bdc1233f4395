//! What a redshift records for tools that show a program's meaning
//! (`spy-interp colorize`, `explain`): the color and static type of every
//! expression shifted in the main module, and the blue calls (with their
//! source ranges) that made each red function. Off unless asked
//! (`RedshiftOptions::record`); the colors are the ones the evaluation
//! itself produced, never recomputed.

use std::collections::HashSet;
use std::rc::Rc;

use crate::source::{SourceFile, TextRange};
use crate::vm::types::TypeId;
use crate::vm::value::Color;

/// One evaluation of an expression of the main module while shifting.
#[derive(Clone, Copy, Debug)]
pub struct ExprColor {
    pub range: TextRange,
    pub color: Color,
    pub ty: TypeId,
}

/// A blue call being evaluated (or one that made a red function): the
/// call's source file and range, the callee and what it resolved to. Its
/// provenance text ([`BlueCall::text`]) is built only when a tool or a
/// `--provenance` comment shows it, not at every blue call of a redshift.
#[derive(Clone, Debug)]
pub struct BlueCall {
    pub file: Rc<SourceFile>,
    pub range: TextRange,
    pub callee: Rc<str>,
    pub resolved: Rc<str>,
}

impl BlueCall {
    /// `` `make(i32)` at m.spy:3:5 calls `m::make` (`m::make[i32]`) ``.
    pub fn text(&self) -> String {
        crate::frames::meta::describe_call(&self.file, &self.callee, self.range, &self.resolved)
    }
}

/// The recording of one redshift.
#[derive(Debug, Default)]
pub struct Record {
    /// The path of the main module's file (only its expressions are kept).
    pub main_path: String,
    /// Every expression evaluation, in evaluation order (an expression of
    /// an unrolled body or of a generic shifted several times appears once
    /// per evaluation).
    pub colors: Vec<ExprColor>,
    /// Ranges of provenance notes made in another file than the main one
    /// (a residual comment's range is then not a place of the main file).
    pub foreign_notes: HashSet<TextRange>,
}

impl Record {
    pub fn new(main_path: &str) -> Record {
        Record {
            main_path: main_path.to_string(),
            ..Record::default()
        }
    }
}
