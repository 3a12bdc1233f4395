//! The runtime helpers of `_file::file` values: a file `Handle` is the
//! interpreter's `FileId`, in the file table (`host::Files`) the run
//! borrows from the interpreter for its duration (`run::run_module` moves
//! it in and back), so files opened, read and written by the machine code
//! are the interpreter's own, with its checks and `RuntimeError`s. A read
//! is capped as ASTFrame's `read_cap` caps it (the str limit and what the
//! memory budget leaves); past the cap, ASTFrame's `check_str_len` error.

use crate::lower::helpers::declare_helper;
use spy_jit::ir::{HelperId, ModuleBuilder, Word};
use spy_jit::runtime::{CtxPtr, HelperCtx};

use super::helpers::{with, RunState};
use crate::host::FileError;
use crate::vm::ops::OpError;
use crate::vm::rt_error::RuntimeError;
use crate::vm::value::FileId;

fn id(h: u64) -> FileId {
    FileId(h as u32)
}

impl RunState {
    /// The most bytes a read may keep now (ASTFrame's `read_cap`).
    fn read_cap(&self) -> usize {
        let left = self.max_memory.saturating_sub(self.live());
        usize::try_from(left)
            .unwrap_or(usize::MAX)
            .min(self.max_str_bytes)
    }

    /// A str handle of what a read gave, or its error raised (0).
    fn read_result(&mut self, c: &mut HelperCtx, r: Result<String, FileError>) -> Word {
        match r {
            Ok(s) => self.handle(s),
            Err(FileError::Runtime(e)) => {
                self.raise(c, OpError::Runtime(e));
                0
            }
            Err(FileError::TooLong(n)) => {
                if self.check_len(c, n) {
                    // (past the cap, so past a limit: `check_len` raised)
                    self.memory_error(c);
                }
                0
            }
        }
    }

    /// Nothing, or the error of a file operation raised.
    fn done(&mut self, c: &mut HelperCtx, r: Result<(), RuntimeError>) {
        if let Err(e) = r {
            self.raise(c, OpError::Runtime(e));
        }
    }
}

/// `open(path, mode)`.
extern "C" fn file_open(ctx: CtxPtr<'_>, path: u64, mode: u64) -> u64 {
    with(ctx, |st, c| {
        let (p, m) = (st.str(path), st.str(mode));
        match st.files.open(&p, &m) {
            Ok(id) => u64::from(id.0),
            Err(e) => {
                st.raise(c, OpError::Runtime(e));
                0
            }
        }
    })
}

/// `f.read(n)` (`n` an `i32`; -1 when not given: everything).
extern "C" fn file_read(ctx: CtxPtr<'_>, f: u64, n: u64) -> u64 {
    with(ctx, |st, c| {
        let cap = st.read_cap();
        let r = st.files.read(id(f), i64::from(n as i32), cap);
        st.read_result(c, r)
    })
}

/// `f.readline()`, also the step of `for line in f` (`""` at the end).
extern "C" fn file_readline(ctx: CtxPtr<'_>, f: u64) -> u64 {
    with(ctx, |st, c| {
        let cap = st.read_cap();
        let r = st.files.readline(id(f), cap);
        st.read_result(c, r)
    })
}

extern "C" fn file_write(ctx: CtxPtr<'_>, f: u64, s: u64) {
    with(ctx, |st, c| {
        let data = st.str(s);
        let r = st.files.write(id(f), &data);
        st.done(c, r)
    })
}

/// `f.writelines(lines)` (a list of strs): the file is checked first,
/// then each line written in order (ASTFrame's `Writelines`).
extern "C" fn file_writelines(ctx: CtxPtr<'_>, f: u64, l: u64) {
    with(ctx, |st, c| {
        let r = st.files.check_open(id(f));
        if r.is_err() {
            return st.done(c, r);
        }
        let lines = st.lists.get(l as usize).cloned().unwrap_or_default();
        for h in lines {
            let data = st.str(h);
            let r = st.files.write(id(f), &data);
            if r.is_err() {
                return st.done(c, r);
            }
        }
    })
}

extern "C" fn file_tell(ctx: CtxPtr<'_>, f: u64) -> u64 {
    with(ctx, |st, c| match st.files.tell(id(f)) {
        Ok(p) => p as i64 as u64,
        Err(e) => {
            st.raise(c, OpError::Runtime(e));
            0
        }
    })
}

/// `f.seek(offset, whence)` (both `i32`).
extern "C" fn file_seek(ctx: CtxPtr<'_>, f: u64, offset: u64, whence: u64) {
    with(ctx, |st, c| {
        let r = st.files.seek(id(f), offset as i32, whence as i32);
        st.done(c, r)
    })
}

extern "C" fn file_flush(ctx: CtxPtr<'_>, f: u64) {
    with(ctx, |st, c| {
        let r = st.files.flush(id(f));
        st.done(c, r)
    })
}

extern "C" fn file_close(ctx: CtxPtr<'_>, f: u64) {
    with(ctx, |st, _| st.files.close(id(f)))
}

/// `repr(f)` / `str(f)`, as ASTFrame's `file_repr` (upstream's
/// `file.__repr__`).
extern "C" fn file_repr(ctx: CtxPtr<'_>, f: u64) -> u64 {
    with(ctx, |st, _| {
        let (filename, mode, open) = st.files.describe(id(f)).expect("a file of the run's table");
        let status = if open { "open" } else { "closed" };
        st.handle(format!("<spy {status} file '{filename}', mode '{mode}'>"))
    })
}

/// The file helpers of one module, declared once.
#[derive(Clone, Copy, Debug)]
pub struct FileHelpers {
    pub open: HelperId,
    pub read: HelperId,
    pub readline: HelperId,
    pub write: HelperId,
    pub writelines: HelperId,
    pub tell: HelperId,
    pub seek: HelperId,
    pub flush: HelperId,
    pub close: HelperId,
    pub repr: HelperId,
}

impl FileHelpers {
    pub fn declare(m: &mut ModuleBuilder) -> FileHelpers {
        FileHelpers {
            open: declare_helper!(m, file_open(Handle, Handle) -> Handle),
            read: declare_helper!(m, file_read(Handle, I32) -> Handle),
            readline: declare_helper!(m, file_readline(Handle) -> Handle),
            write: declare_helper!(m, file_write(Handle, Handle) -> ()),
            writelines: declare_helper!(m, file_writelines(Handle, Handle) -> ()),
            tell: declare_helper!(m, file_tell(Handle) -> I32),
            seek: declare_helper!(m, file_seek(Handle, I32, I32) -> ()),
            flush: declare_helper!(m, file_flush(Handle) -> ()),
            close: declare_helper!(m, file_close(Handle) -> ()),
            repr: declare_helper!(m, file_repr(Handle) -> Handle),
        }
    }
}
