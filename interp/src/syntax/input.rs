//! Reading source input within the size limit: the size is checked from
//! the file's metadata before anything is read, and reading is bounded for
//! devices and pipes whose size is unknown.

use std::io::Read;
use std::path::Path;

use crate::error::{ExcKind, SpyError};

/// The largest source file accepted, in bytes. Checked before a file is
/// read (from its metadata), and again while reading, for devices and
/// pipes whose size is not known (`/dev/zero` ends at the limit).
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// Why a source file was not read.
#[derive(Debug)]
pub enum ReadSourceError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// It is larger than [`MAX_SOURCE_BYTES`]: a `ParseError` of the file.
    TooLarge(Box<SpyError>),
}

/// The `ParseError` of a source file over the size limit.
pub fn too_large() -> SpyError {
    SpyError::new(
        ExcKind::ParseError,
        format!("source file too large ({} MiB at most)", MAX_SOURCE_BYTES >> 20),
    )
}

/// Read the source file at `path`, refusing one over [`MAX_SOURCE_BYTES`]
/// before reading it whole.
pub fn read_source(path: &Path) -> Result<Vec<u8>, ReadSourceError> {
    let file = std::fs::File::open(path).map_err(ReadSourceError::Io)?;
    let meta = file.metadata().map_err(ReadSourceError::Io)?;
    if meta.is_file() && meta.len() > MAX_SOURCE_BYTES {
        return Err(ReadSourceError::TooLarge(Box::new(too_large())));
    }
    let mut bytes = Vec::with_capacity(if meta.is_file() { meta.len() as usize } else { 0 });
    file.take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadSourceError::Io)?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(ReadSourceError::TooLarge(Box::new(too_large())));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_source_stops_at_the_limit() {
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            assert!(matches!(read_source(zero), Err(ReadSourceError::TooLarge(_))));
        }
    }
}
