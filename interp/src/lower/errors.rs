//! The one mapping between SPy run-time errors and the JIT's `ErrCode`s, and
//! the site table that turns a `RunError` back into the `SpyError` ASTFrame
//! would have raised (kind, exact message, traceback frames, annotation).
//!
//! Every fallible operation the lowering emits gets its own code, so the
//! code alone says what was raised *and where* (function, statement and
//! expression spans). Helpers raise the `vm::ops` error they got, interned
//! at run time into the same table (their location is their call site, the
//! innermost entry of the traceback). Codes 1 and 2 are the two the JIT
//! raises itself (`CompileOptions`). When `vm::rt_error::RuntimeError`
//! lands, `ErrorInfo::kind/message` become one of its values: this module
//! is the only place to change.

use std::rc::Rc;

use spy_jit::ir::{ErrCode, RunError, SiteId, Word};

use crate::error::{ExcKind, SpyError, TraceEntry};
use crate::source::{SourceFile, TextRange};

/// `RecursionError` at function entry past the depth limit.
pub const RECURSION: u32 = 1;
/// A helper panicked: a bug of spy-interp.
pub const INTERNAL: u32 = 2;

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

/// The message of an error.
#[derive(Clone, Debug)]
pub enum Message {
    Fixed(String),
    /// Operand 0 is a str handle holding the message (`assert c, msg`).
    FromHandle,
}

/// One error code's meaning.
#[derive(Clone, Debug)]
pub struct ErrorInfo {
    pub kind: ExcKind,
    pub message: Message,
    /// The frame and annotation of an error raised by an operation; `None`
    /// for errors raised inside a helper or at function entry (their site
    /// is the innermost call site of the traceback).
    pub at: Option<(FrameAt, Label)>,
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
    pub fn new() -> ErrorTable {
        let fixed = |kind, message: &str| ErrorInfo {
            kind,
            message: Message::Fixed(message.to_string()),
            at: None,
        };
        ErrorTable {
            infos: vec![
                fixed(ExcKind::RecursionError, "maximum recursion depth exceeded"),
                fixed(ExcKind::Exception, "internal error: a JIT helper panicked"),
            ],
            sites: Vec::new(),
        }
    }

    /// A new code for `info`.
    pub fn code(&mut self, info: ErrorInfo) -> ErrCode {
        self.infos.push(info);
        ErrCode::new(self.infos.len() as u32).expect("codes start at 1")
    }

    /// The code of an error raised inside a helper (located by its call
    /// site); equal errors share a code.
    pub fn helper_code(&mut self, kind: ExcKind, message: &str) -> ErrCode {
        let found = self.infos.iter().position(|i| {
            i.at.is_none() && i.kind == kind && matches!(&i.message, Message::Fixed(m) if m == message)
        });
        match found {
            Some(i) => ErrCode::new(i as u32 + 1).expect("codes start at 1"),
            None => self.code(ErrorInfo {
                kind,
                message: Message::Fixed(message.to_string()),
                at: None,
            }),
        }
    }

    pub fn site(&mut self, site: Site) -> SiteId {
        self.sites.push(site);
        SiteId(self.sites.len() as u32 - 1)
    }

    pub fn info(&self, code: ErrCode) -> Option<&ErrorInfo> {
        self.infos.get(code.get() as usize - 1)
    }

    /// Whether `code` is the internal error (a helper panicked).
    pub fn is_internal(code: ErrCode) -> bool {
        code.get() == INTERNAL
    }

    /// The `SpyError` of a failed run; `text_of` reads a str handle.
    pub fn rebuild(&self, err: &RunError, text_of: &dyn Fn(Word) -> String) -> Option<SpyError> {
        let info = self.info(err.code)?;
        let message = match &info.message {
            Message::Fixed(m) => m.clone(),
            Message::FromHandle => text_of(err.operands[0]),
        };
        let mut e = SpyError::new(info.kind, message);
        // The traceback is innermost first; ASTFrame's is outermost first.
        for site in err.traceback.iter().rev() {
            let s = self.sites.get(site.0 as usize)?;
            e.traceback.push(entry(&s.frame));
        }
        match &info.at {
            Some((frame, label)) => {
                e.traceback.push(entry(frame));
                e = e.with_error(&frame.file, label.range, label.text.clone());
            }
            None => {
                let innermost = err.traceback.first().and_then(|s| self.sites.get(s.0 as usize));
                if let Some(Site {
                    frame,
                    label: Some(label),
                }) = innermost
                {
                    e = e.with_error(&frame.file, label.range, label.text.clone());
                }
            }
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
