//! The program's files: the one place spy-interp touches the file system on
//! a program's behalf (`open` and the methods of `file`, spec §8.5).
//!
//! A run's [`Files`] table holds every file the program opened, by
//! [`FileId`]; entries are never reused, so a closed file stays closed. What
//! a run may open is its [`FileAccess`]: nothing (the library's default and
//! the fuzzer's), the host's paths as given (the command line), or a fresh
//! temporary directory of its own (the conformance runner: relative paths
//! only, removed when the run ends). Failures are typed
//! [`RuntimeError`]s with upstream's texts (`stdlib/_file.spy`,
//! `libspy/src/posix.c`); reads are capped by the caller's budget
//! ([`FileError::TooLong`]) before the bytes are kept.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

use crate::vm::rt_error::RuntimeError;
use crate::vm::value::FileId;

/// What a run may open.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FileAccess {
    /// Nothing: `open` raises `OSError: file access is disabled in this
    /// run` (the library's default, and the fuzzer's runs).
    #[default]
    Denied,
    /// The host's paths as given, relative ones from the process's working
    /// directory (the command line).
    Host,
    /// A fresh temporary directory for the run: relative paths without
    /// `..` are opened in it, anything else is `cannot open file`; the
    /// directory is removed when the run ends (the conformance runner).
    TempDir,
}

/// Why a file operation failed.
#[derive(Debug, PartialEq, Eq)]
pub enum FileError {
    Runtime(RuntimeError),
    /// The result would be more than the caller's cap: at least this many
    /// bytes.
    TooLong(usize),
}

impl From<RuntimeError> for FileError {
    fn from(e: RuntimeError) -> FileError {
        FileError::Runtime(e)
    }
}

struct Entry {
    /// `None` once closed.
    file: Option<File>,
    filename: Rc<str>,
    mode: Rc<str>,
}

/// A run's open (and closed) files.
#[derive(Default)]
pub struct Files {
    access: FileAccess,
    /// The run's directory (`FileAccess::TempDir`), made on the first `open`.
    dir: Option<PathBuf>,
    entries: Vec<Entry>,
}

/// `mode` as upstream's `_parse_mode` reads it: exactly one of `r w a`,
/// at most one `+`, nothing else.
fn parse_mode(mode: &str) -> Option<OpenOptions> {
    let (mut base, mut plus) = (None, false);
    for c in mode.chars() {
        match c {
            'r' | 'w' | 'a' if base.is_none() => base = Some(c),
            '+' if !plus => plus = true,
            _ => return None,
        }
    }
    let mut o = OpenOptions::new();
    match base? {
        'r' => o.read(true).write(plus),
        'w' => o.write(true).create(true).truncate(true).read(plus),
        _ => o.append(true).create(true).read(plus),
    };
    Some(o)
}

impl Files {
    pub fn new(access: FileAccess) -> Files {
        Files {
            access,
            dir: None,
            entries: Vec::new(),
        }
    }

    /// Where `path` is for this run, or why it may not be opened.
    fn resolve(&mut self, path: &str) -> Result<PathBuf, RuntimeError> {
        match self.access {
            FileAccess::Denied => Err(RuntimeError::FileAccessDenied),
            FileAccess::Host => Ok(PathBuf::from(path)),
            FileAccess::TempDir => {
                let p = Path::new(path);
                let plain = p.components().all(|c| matches!(c, Component::Normal(_)));
                if path.is_empty() || !plain {
                    return Err(RuntimeError::FileOpen);
                }
                Ok(self.run_dir()?.join(p))
            }
        }
    }

    /// The run's temporary directory, made now if it does not exist yet.
    fn run_dir(&mut self) -> Result<&Path, RuntimeError> {
        if self.dir.is_none() {
            use std::sync::atomic::{AtomicU64, Ordering};
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let base = std::env::temp_dir();
            let dir = (0..100)
                .map(|_| {
                    let n = NEXT.fetch_add(1, Ordering::Relaxed);
                    base.join(format!("spy-interp-run-{}-{n}", std::process::id()))
                })
                .find(|d| std::fs::create_dir(d).is_ok())
                .ok_or(RuntimeError::FileOpen)?;
            self.dir = Some(dir);
        }
        Ok(self.dir.as_deref().expect("made above"))
    }

    /// `open(path, mode)`.
    pub fn open(&mut self, path: &str, mode: &str) -> Result<FileId, RuntimeError> {
        let options = parse_mode(mode).ok_or(RuntimeError::FileMode)?;
        let at = self.resolve(path)?;
        let file = options.open(at).map_err(|_| RuntimeError::FileOpen)?;
        let id = u32::try_from(self.entries.len()).map_err(|_| RuntimeError::FileOpen)?;
        self.entries.push(Entry {
            file: Some(file),
            filename: path.into(),
            mode: mode.into(),
        });
        Ok(FileId(id))
    }

    /// The path and mode `open` was given, and whether the file is open.
    pub fn describe(&self, id: FileId) -> Option<(Rc<str>, Rc<str>, bool)> {
        let e = self.entries.get(id.0 as usize)?;
        Some((e.filename.clone(), e.mode.clone(), e.file.is_some()))
    }

    fn file(&mut self, id: FileId) -> Result<&mut File, RuntimeError> {
        self.entries
            .get_mut(id.0 as usize)
            .and_then(|e| e.file.as_mut())
            .ok_or(RuntimeError::FileClosed)
    }

    /// Fails when the file is closed.
    pub fn check_open(&mut self, id: FileId) -> Result<(), RuntimeError> {
        self.file(id).map(|_| ())
    }

    /// `f.read(n)`: at most `n` bytes, every remaining byte when `n < 0`;
    /// more than `cap` bytes is `TooLong`.
    pub fn read(&mut self, id: FileId, n: i64, cap: usize) -> Result<String, FileError> {
        let file = self.file(id)?;
        let err = if n < 0 {
            RuntimeError::FileReadAll
        } else {
            RuntimeError::FileRead
        };
        let want = if n < 0 { u64::MAX } else { n as u64 };
        let limit = want.min(cap as u64 + 1);
        let mut bytes = Vec::new();
        file.take(limit).read_to_end(&mut bytes).map_err(|_| err)?;
        if bytes.len() > cap {
            return Err(FileError::TooLong(bytes.len()));
        }
        text(bytes)
    }

    /// `f.readline()`: up to and with the next `\n`, `""` at the end.
    pub fn readline(&mut self, id: FileId, cap: usize) -> Result<String, FileError> {
        let file = self.file(id)?;
        let err = RuntimeError::FileReadLine;
        let mut line = Vec::new();
        let mut chunk = [0u8; 256];
        // A seekable file is read by chunks and the bytes after the line
        // are given back; another (a pipe) one byte at a time.
        let seekable = file.stream_position().is_ok();
        let step = if seekable { chunk.len() } else { 1 };
        loop {
            let got = file.read(&mut chunk[..step]).map_err(|_| err.clone())?;
            if got == 0 {
                break;
            }
            if let Some(at) = chunk[..got].iter().position(|&b| b == b'\n') {
                line.extend_from_slice(&chunk[..=at]);
                let extra = (got - at - 1) as i64;
                if extra > 0 {
                    file.seek(SeekFrom::Current(-extra)).map_err(|_| err.clone())?;
                }
                break;
            }
            line.extend_from_slice(&chunk[..got]);
            if line.len() > cap {
                return Err(FileError::TooLong(line.len()));
            }
        }
        if line.len() > cap {
            return Err(FileError::TooLong(line.len()));
        }
        text(line)
    }

    /// `f.write(s)`.
    pub fn write(&mut self, id: FileId, data: &str) -> Result<(), RuntimeError> {
        self.file(id)?
            .write_all(data.as_bytes())
            .map_err(|_| RuntimeError::FileWrite)
    }

    /// `f.tell()`.
    pub fn tell(&mut self, id: FileId) -> Result<i32, RuntimeError> {
        let pos = self
            .file(id)?
            .stream_position()
            .map_err(|_| RuntimeError::FileTell)?;
        i32::try_from(pos).map_err(|_| RuntimeError::FileTell)
    }

    /// `f.seek(offset, whence)` (`whence`: 0 start, 1 current, 2 end).
    pub fn seek(&mut self, id: FileId, offset: i32, whence: i32) -> Result<(), RuntimeError> {
        let file = self.file(id)?;
        let to = match whence {
            0 if offset >= 0 => SeekFrom::Start(offset as u64),
            1 => SeekFrom::Current(offset.into()),
            2 => SeekFrom::End(offset.into()),
            _ => return Err(RuntimeError::FileSeek),
        };
        file.seek(to).map(|_| ()).map_err(|_| RuntimeError::FileSeek)
    }

    /// `f.flush()`: writes are not buffered here, so this only checks that
    /// the file is open (upstream ignores `fflush`'s result too).
    pub fn flush(&mut self, id: FileId) -> Result<(), RuntimeError> {
        self.file(id)?.flush().map_err(|_| RuntimeError::FileWrite)
    }

    /// `f.close()`; closing a closed file does nothing (as in Python;
    /// upstream would `fclose(NULL)`).
    pub fn close(&mut self, id: FileId) {
        if let Some(e) = self.entries.get_mut(id.0 as usize) {
            e.file = None;
        }
    }
}

fn text(bytes: Vec<u8>) -> Result<String, FileError> {
    String::from_utf8(bytes).map_err(|_| FileError::Runtime(RuntimeError::FileNotUtf8))
}

impl Drop for Files {
    fn drop(&mut self) {
        self.entries.clear();
        if let Some(dir) = self.dir.take() {
            // Best effort: a directory that cannot be removed is left in
            // the system's temporary directory.
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_upstream() {
        for ok in ["r", "w", "a", "r+", "+w", "a+"] {
            assert!(parse_mode(ok).is_some(), "{ok}");
        }
        for bad in ["", "rw", "rb", "++r", "x", "r++"] {
            assert!(parse_mode(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn denied_runs_open_nothing() {
        let mut files = Files::new(FileAccess::Denied);
        assert_eq!(files.open("x.txt", "w"), Err(RuntimeError::FileAccessDenied));
    }

    #[test]
    fn a_temp_dir_run_keeps_to_its_directory() {
        let mut files = Files::new(FileAccess::TempDir);
        for bad in ["/etc/passwd", "../x", "a/../../x", ""] {
            assert_eq!(files.open(bad, "r"), Err(RuntimeError::FileOpen), "{bad}");
        }
        let w = files.open("t.txt", "w").unwrap();
        files.write(w, "ab\ncd").unwrap();
        files.close(w);
        assert_eq!(files.write(w, "x"), Err(RuntimeError::FileClosed));
        let r = files.open("t.txt", "r").unwrap();
        assert_eq!(files.readline(r, 100).unwrap(), "ab\n");
        assert_eq!(files.tell(r), Ok(3));
        assert_eq!(files.read(r, -1, 1), Err(FileError::TooLong(2)));
        files.seek(r, 3, 0).unwrap();
        assert_eq!(files.read(r, -1, 100).unwrap(), "cd");
        assert_eq!(files.readline(r, 100).unwrap(), "");
        let dir = files.dir.clone().unwrap();
        drop(files);
        assert!(!dir.exists(), "the run's directory is removed");
    }
}

/// The stdlib modules written in SPy (`interp/stdlib/`, spec §15.4), part
/// of the binary: `import m` finds one when no `m.spy` is beside the main
/// file (upstream searches its stdlib directory first; here a program's own
/// files come first, so a residual program written out as files runs as
/// printed, its residual `array.spy` included).
const STDLIB: &[ModuleText] = &[
    ModuleText {
        file_name: "array.spy",
        source: include_bytes!("../stdlib/array.spy"),
    },
    ModuleText {
        file_name: "xxdemo.spy",
        source: include_bytes!("../stdlib/xxdemo.spy"),
    },
];

/// The display path of stdlib module file `file_name`.
fn stdlib_path(file_name: &str) -> String {
    format!("<stdlib>/{file_name}")
}

/// Where a program's user modules come from (spec §8.6): `import m` finds
/// `m.spy` beside the program's main file, else the stdlib's `m.spy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ModuleSources {
    /// The file system: the directory of the main file (the command line).
    #[default]
    Disk,
    /// The given files, as if they were beside the main file (the
    /// conformance runner's multi-file cases, `# file: NAME.spy`
    /// sections); nothing is read from disk.
    Memory(&'static [ModuleText]),
}

/// One module file given in memory: its file name (`m.spy`) and text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModuleText {
    pub file_name: &'static str,
    pub source: &'static [u8],
}

/// What looking for module `name` found.
#[derive(Debug, PartialEq, Eq)]
pub enum ModuleFile {
    /// `name.spy`: its display path and contents.
    Spy {
        path: String,
        source: Vec<u8>,
    },
    /// No `name.spy`, but `name.py` (which cannot be imported).
    Py,
    Missing,
}

impl ModuleSources {
    /// Look for module `name` beside `main_path` (the program's main file;
    /// as upstream's `find_file_on_path`, `.spy` wins over `.py`).
    pub fn find(self, main_path: &str, name: &str) -> ModuleFile {
        match self.find_beside(main_path, name) {
            ModuleFile::Spy { path, source } => ModuleFile::Spy { path, source },
            other => {
                let wanted = format!("{name}.spy");
                match STDLIB.iter().find(|m| m.file_name == wanted) {
                    Some(m) => ModuleFile::Spy {
                        path: stdlib_path(m.file_name),
                        source: m.source.to_vec(),
                    },
                    None => other,
                }
            }
        }
    }

    fn find_beside(self, main_path: &str, name: &str) -> ModuleFile {
        let dir = Path::new(main_path).parent().unwrap_or(Path::new(""));
        let spy = dir.join(format!("{name}.spy"));
        match self {
            ModuleSources::Disk => {
                if spy.is_file() {
                    // a file that exists but cannot be read is reported as
                    // missing (with the path in `ModuleFile::Spy` only on success)
                    if let Ok(source) = std::fs::read(&spy) {
                        return ModuleFile::Spy {
                            path: spy.to_string_lossy().into_owned(),
                            source,
                        };
                    }
                }
                if dir.join(format!("{name}.py")).is_file() {
                    ModuleFile::Py
                } else {
                    ModuleFile::Missing
                }
            }
            ModuleSources::Memory(files) => {
                let wanted = format!("{name}.spy");
                let wanted_py = format!("{name}.py");
                if let Some(m) = files.iter().find(|m| m.file_name == wanted) {
                    return ModuleFile::Spy {
                        path: spy.to_string_lossy().into_owned(),
                        source: m.source.to_vec(),
                    };
                }
                if files.iter().any(|m| m.file_name == wanted_py) {
                    ModuleFile::Py
                } else {
                    ModuleFile::Missing
                }
            }
        }
    }
}
