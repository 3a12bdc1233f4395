//! The one mapping between SPy errors and the JIT's `ErrCode`s, and the
//! site table that turns a `RunError` back into the `SpyError` ASTFrame
//! would have raised (kind, exact message, traceback frames, annotation).
//!
//! An `ErrCode` is `(entry << 12) | rt`: `rt` is the stable code of a
//! `vm::rt_error::RuntimeError` (below 4096, 0 for an error that is not a
//! run-time error: a user `raise`, the missing `return`), and `entry` is an
//! index into this table saying *where* the operation is (function,
//! statement and expression spans) — so the JIT raises by the typed code
//! and the rebuilt error is `RuntimeError::from_code(rt, operands)`. Entry
//! 0 is "no site of its own": errors raised inside a helper (their location
//! is their call site, the innermost entry of the traceback) and the call
//! depth at function entry. A text operand (`RuntimeError::has_text`) is a
//! str handle in operand word 1.

use std::rc::Rc;

use spy_jit::ir::{ErrCode, RunError, SiteId, Word};

use crate::error::{ExcKind, SpyError, TraceEntry};
use crate::source::{SourceFile, TextRange};
use crate::vm::rt_error::{Operands, RuntimeError};

/// `RecursionError` at function entry past the depth limit (entry 0).
pub const RECURSION: u32 = 801;
/// A helper panicked: a bug of spy-interp (entry 1, not a run-time error).
pub const INTERNAL: u32 = 1 << ENTRY_SHIFT;
/// Where the entry index starts in an `ErrCode`.
const ENTRY_SHIFT: u32 = 12;
const RT_MASK: u32 = (1 << ENTRY_SHIFT) - 1;

/// Where a traceback entry points: a function's frame at a range.
#[derive(Clone, Debug)]
pub struct FrameAt {
    /// The traceback name (the function's FQN).
    pub name: Rc<str>,
    pub file: Rc<SourceFile>,
    /// What the frame was evaluating (the statement, or the call).
    pub range: TextRange,
}

/// The annotation an error carries at its site.
#[derive(Clone, Debug)]
pub struct Label {
    pub range: TextRange,
    pub text: String,
}

/// What an error code raises.
#[derive(Clone, Debug)]
pub enum Raised {
    /// The `RuntimeError` named by the code's low bits.
    Runtime,
    /// An error that is not a run-time error (`raise E("m")`, a missing
    /// `return`, a static error a helper met).
    Fixed { kind: ExcKind, message: String },
}

/// One error entry: what, and where.
#[derive(Clone, Debug)]
pub struct ErrorInfo {
    pub raised: Raised,
    /// The frame and annotation of an error raised by an operation; `None`
    /// for errors raised inside a helper or at function entry (their site
    /// is the innermost call site of the traceback).
    pub at: Option<(FrameAt, Label)>,
    /// Further annotations after `at`'s (an operator's type error labels
    /// both operands, as ASTFrame does).
    pub more_labels: Vec<Label>,
}

/// A call site: the caller's frame at the call, and for helper calls the
/// annotation of the operation the helper implements.
#[derive(Clone, Debug)]
pub struct Site {
    pub frame: FrameAt,
    pub label: Option<Label>,
}

/// Every error code of one lowered program (grows at run time when a
/// helper raises), and every call site.
#[derive(Clone, Debug, Default)]
pub struct ErrorTable {
    infos: Vec<ErrorInfo>,
    pub sites: Vec<Site>,
}

impl ErrorTable {
    /// Give back the room the table's growth left (it lives as long as the
    /// compiled program runs).
    pub fn shrink_to_fit(&mut self) {
        self.infos.shrink_to_fit();
        self.sites.shrink_to_fit();
    }

    pub fn new() -> ErrorTable {
        let nowhere = ErrorInfo {
            raised: Raised::Runtime,
            at: None,
            more_labels: Vec::new(),
        };
        let internal = ErrorInfo {
            raised: Raised::Fixed {
                kind: ExcKind::Exception,
                message: "internal error: a JIT helper panicked".into(),
            },
            at: None,
            more_labels: Vec::new(),
        };
        ErrorTable {
            infos: vec![nowhere, internal],
            sites: Vec::new(),
        }
    }

    fn push(&mut self, info: ErrorInfo, rt: u32) -> ErrCode {
        debug_assert!(rt <= RT_MASK);
        self.infos.push(info);
        let entry = self.infos.len() as u32 - 1;
        ErrCode::new((entry << ENTRY_SHIFT) | rt).expect("entries start at 2")
    }

    /// The code of run-time error `e` raised by the operation at `at`.
    pub fn runtime(&mut self, e: &RuntimeError, at: (FrameAt, Label)) -> ErrCode {
        let info = ErrorInfo {
            raised: Raised::Runtime,
            at: Some(at),
            more_labels: Vec::new(),
        };
        self.push(info, e.code())
    }

    /// The code of an error that is not a run-time error, raised at `at`.
    pub fn fixed(&mut self, kind: ExcKind, message: String, at: (FrameAt, Label)) -> ErrCode {
        self.fixed_labeled(kind, message, at, Vec::new())
    }

    /// [`Self::fixed`] with annotations after `at`'s.
    pub fn fixed_labeled(
        &mut self,
        kind: ExcKind,
        message: String,
        at: (FrameAt, Label),
        more_labels: Vec<Label>,
    ) -> ErrCode {
        let info = ErrorInfo {
            raised: Raised::Fixed { kind, message },
            at: Some(at),
            more_labels,
        };
        self.push(info, 0)
    }

    /// The code of a run-time error raised inside a helper (located by its
    /// call site): its own code, entry 0.
    pub fn helper_runtime(e: &RuntimeError) -> ErrCode {
        ErrCode::new(e.code()).expect("run-time error codes are not 0")
    }

    /// The code of a static error a helper met (a bug of typed residual
    /// code, reported as ASTFrame words it); equal errors share a code.
    pub fn helper_fixed(&mut self, kind: ExcKind, message: &str) -> ErrCode {
        let found = self.infos.iter().position(|i| {
            i.at.is_none()
                && matches!(&i.raised, Raised::Fixed { kind: k, message: m } if *k == kind && m == message)
        });
        match found {
            Some(i) => ErrCode::new((i as u32) << ENTRY_SHIFT).expect("entries start at 1"),
            None => self.push(
                ErrorInfo {
                    raised: Raised::Fixed {
                        kind,
                        message: message.to_string(),
                    },
                    at: None,
                    more_labels: Vec::new(),
                },
                0,
            ),
        }
    }

    pub fn site(&mut self, site: Site) -> SiteId {
        self.sites.push(site);
        SiteId(self.sites.len() as u32 - 1)
    }

    /// The entry of a code, and the run-time error code in it (0: none).
    pub fn info(&self, code: ErrCode) -> Option<(&ErrorInfo, u32)> {
        let c = code.get();
        let info = self.infos.get((c >> ENTRY_SHIFT) as usize)?;
        Some((info, c & RT_MASK))
    }

    /// Whether `code` is the internal error (a helper panicked).
    pub fn is_internal(code: ErrCode) -> bool {
        code.get() == INTERNAL
    }

    /// The `SpyError` of a failed run; `text_of` reads a str handle;
    /// `made_label` is the annotation text a helper made for the error it raised
    /// (it replaces its call site's fixed text).
    pub fn rebuild(
        &self,
        err: &RunError,
        text_of: &dyn Fn(Word) -> String,
        made_label: Option<&str>,
    ) -> Option<SpyError> {
        let (info, rt) = self.info(err.code)?;
        let mut e = match &info.raised {
            Raised::Fixed { kind, message } => SpyError::new(*kind, message.clone()),
            Raised::Runtime => {
                let [w0, w1] = err.operands;
                let (words, text) = if RuntimeError::has_text(rt) {
                    ([w0, 0], text_of(w1))
                } else {
                    ([w0, w1], String::new())
                };
                SpyError::from(RuntimeError::from_code(rt, Operands { words, text: &text })?)
            }
        };
        // Both tracebacks are innermost first: the operation's own frame,
        // then the call sites it unwound through.
        match &info.at {
            Some((frame, label)) => {
                e.traceback.push(entry(frame));
                e = e.with_error(&frame.file, label.range, label.text.clone());
                for more in &info.more_labels {
                    e = e.with_error(&frame.file, more.range, more.text.clone());
                }
            }
            None => {
                let innermost = err.traceback.first().and_then(|s| self.sites.get(s.0 as usize));
                if let Some(Site {
                    frame,
                    label: Some(label),
                }) = innermost
                {
                    let text = made_label.map_or_else(|| label.text.clone(), str::to_string);
                    e = e.with_error(&frame.file, label.range, text);
                }
            }
        }
        for site in &err.traceback {
            let s = self.sites.get(site.0 as usize)?;
            e.traceback.push(entry(&s.frame));
        }
        Some(e)
    }
}

fn entry(f: &FrameAt) -> TraceEntry {
    TraceEntry {
        name: f.name.to_string(),
        file: f.file.clone(),
        range: f.range,
    }
}

#[cfg(test)]
mod tests {
    /// Every run-time error's code fits below the entry bits (a code that
    /// did not would read as another entry: `OSError` 11xx once read as the
    /// internal error).
    #[test]
    fn every_runtime_code_fits_below_the_entry() {
        for e in crate::vm::rt_error::RuntimeError::samples() {
            assert!(e.code() <= super::RT_MASK, "{e:?}");
        }
    }
}
