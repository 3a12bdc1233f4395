//! `open(path, mode)` and the methods of `file` in ASTFrame (spec §8.5):
//! each call goes to the run's file table (`host::Files`), its typed error
//! located at the call. A read is capped by what the string limits and
//! the memory budget leave, so a huge file is a `MemoryError` (or the
//! string limit's `OverflowError`), never a huge allocation.

use crate::error::{Failure, SpyError};
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::host::FileError;
use crate::source::TextRange;
use crate::vm::ops::signatures::FileMethod;
use crate::vm::rt_error::RuntimeError;
use crate::vm::types::TypeId;
use crate::vm::value::{FileId, Typed, Value};

impl Interp<'_> {
    fn file_failure(&self, f: &Frame, e: RuntimeError, range: TextRange) -> Failure {
        SpyError::from(e).with_error(&f.file, range, "").into()
    }

    /// The most bytes a read may keep now: within `max_str_bytes` and what
    /// the memory budget has left.
    fn read_cap(&self) -> usize {
        let live = self
            .meter
            .used()
            .saturating_add(crate::vm::memory::live_heap_bytes());
        let left = self.limits.max_memory.saturating_sub(live);
        usize::try_from(left)
            .unwrap_or(usize::MAX)
            .min(self.limits.max_str_bytes)
    }

    fn read_result(&self, f: &Frame, r: Result<String, FileError>, range: TextRange) -> Eval<String> {
        match r {
            Ok(s) => Ok(s),
            Err(FileError::Runtime(e)) => Err(self.file_failure(f, e, range)),
            Err(FileError::TooLong(n)) => {
                self.check_str_len(f, n, range)?;
                Err(crate::bug!("a read of {n} bytes past the cap fits the limits"))
            }
        }
    }

    /// `open(path, mode)`, the arguments checked by its signature.
    pub(crate) fn exec_open(&mut self, f: &Frame, args: &Args, call_range: TextRange) -> Eval<Typed> {
        let text = |k: usize| -> Eval<String> {
            match args.get(k) {
                Some((a, _)) => Ok(a.value.checked_str()?.to_string()),
                None => Ok("r".to_string()),
            }
        };
        let (path, mode) = (text(0)?, text(1)?);
        let id = self
            .files
            .open(&path, &mode)
            .map_err(|e| self.file_failure(f, e, call_range))?;
        Ok(Typed::red(TypeId::FILE, Value::File(id)))
    }

    /// `f.m(args)`, the arguments checked by the method's signature.
    pub(crate) fn call_file_method(
        &mut self,
        f: &mut Frame,
        obj: Typed,
        m: FileMethod,
        name_range: TextRange,
        args: Args,
    ) -> Eval<Typed> {
        let Value::File(id) = obj.value else {
            return Err(crate::bug!("a file method on {:?}", obj.value));
        };
        let int = |k: usize, default: i32| -> Eval<i32> {
            match args.get(k) {
                Some((a, _)) => Ok(a.value.checked_i32()?),
                None => Ok(default),
            }
        };
        let done = |r: Result<(), RuntimeError>, me: &Self| {
            r.map(|_| Typed::red(TypeId::NONE, Value::None))
                .map_err(|e| me.file_failure(f, e, name_range))
        };
        match m {
            FileMethod::Read => {
                let n = int(0, -1)?;
                let r = self.files.read(id, n.into(), self.read_cap());
                let s = self.read_result(f, r, name_range)?;
                Ok(Typed::red(TypeId::STR, Value::str(&s)))
            }
            FileMethod::Readline => {
                let s = self.readline(f, id, name_range)?;
                Ok(Typed::red(TypeId::STR, Value::str(&s)))
            }
            FileMethod::Write => {
                let data = args[0].0.value.checked_str()?.to_string();
                done(self.files.write(id, &data), self)
            }
            FileMethod::Writelines => {
                self.files
                    .check_open(id)
                    .map_err(|e| self.file_failure(f, e, name_range))?;
                let Value::List(l) = &args[0].0.value else {
                    return Err(crate::bug!("writelines of a non-list"));
                };
                let lines: Vec<Value> = l.items.borrow().clone();
                for line in lines {
                    let line = line.checked_str()?.to_string();
                    done(self.files.write(id, &line), self)?;
                }
                Ok(Typed::red(TypeId::NONE, Value::None))
            }
            FileMethod::Tell => {
                let pos = self
                    .files
                    .tell(id)
                    .map_err(|e| self.file_failure(f, e, name_range))?;
                Ok(Typed::red(TypeId::I32, Value::i32(pos)))
            }
            FileMethod::Seek => {
                let (offset, whence) = (int(0, 0)?, int(1, 0)?);
                done(self.files.seek(id, offset, whence), self)
            }
            FileMethod::Flush => done(self.files.flush(id), self),
            FileMethod::Close => {
                self.files.close(id);
                Ok(Typed::red(TypeId::NONE, Value::None))
            }
        }
    }

    /// The next line of `id` (`""` at the end): `readline()`, also the
    /// step of a `for` over a file.
    pub(crate) fn readline(&mut self, f: &Frame, id: FileId, range: TextRange) -> Eval<String> {
        let r = self.files.readline(id, self.read_cap());
        self.read_result(f, r, range)
    }

    /// `repr(f)` (and `str(f)`), as upstream's `file.__repr__`.
    pub(crate) fn file_repr(&self, id: FileId) -> Eval<String> {
        let (filename, mode, open) = self
            .files
            .describe(id)
            .ok_or_else(|| crate::bug!("file #{} is not in the table", id.0))?;
        let status = if open { "open" } else { "closed" };
        Ok(format!("<spy {status} file '{filename}', mode '{mode}'>"))
    }
}
