//! Source text and positions: byte ranges (`TextRange`) on every token and
//! AST node, and the line index that turns them into `line:col` only when a
//! diagnostic is rendered.

use std::fmt;
use std::rc::Rc;

/// A half-open byte range `[start, end)` into one source file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

impl TextRange {
    pub fn new(start: u32, end: u32) -> Self {
        debug_assert!(start <= end, "inverted range {start}..{end}");
        TextRange { start, end }
    }

    /// Build a range from `usize` offsets (as produced by the lexer).
    pub fn from_usize(start: usize, end: usize) -> Self {
        TextRange::new(start as u32, end as u32)
    }

    /// The smallest range covering both `self` and `other`.
    pub fn cover(self, other: TextRange) -> TextRange {
        TextRange::new(self.start.min(other.start), self.end.max(other.end))
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    pub fn contains_range(self, other: TextRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }
}

impl fmt::Debug for TextRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A loaded source file: its display path, its text and a line index.
#[derive(Debug)]
pub struct SourceFile {
    pub path: String,
    text: Text,
    /// Byte offset of the first character of every line, built the first
    /// time a position is shown (only diagnostics and tools need it: a run
    /// that reports nothing does not pay 4 bytes a line, issue 14 item 5).
    line_starts: std::cell::OnceCell<Vec<u32>>,
}

/// How a [`SourceFile`] holds its text.
enum Text {
    Plain(String),
    /// Compressed once the file is parsed ([`SourceFile::packed`]).
    Packed(PackedText),
}

/// The text of a parsed file that only diagnostics and tools read again:
/// LZ4 blocks of [`PACK_CHUNK`] bytes each, unpacked (once, then kept) the
/// first time something reads the text. A large program's source is held
/// while it runs, for the excerpts of its errors, and so is the residual
/// text of the doppler and jit engines: packed, they take a fraction of
/// their size (issue 14 item 5). Compressed debug sections in object files
/// are the same trade.
struct PackedText {
    chunks: Vec<Box<[u8]>>,
    len: usize,
    unpacked: std::cell::OnceCell<String>,
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Text::Plain(s) => write!(f, "{} bytes", s.len()),
            Text::Packed(p) => write!(
                f,
                "{} bytes packed in {}",
                p.len,
                p.chunks.iter().map(|c| c.len()).sum::<usize>()
            ),
        }
    }
}

/// The smallest text [`SourceFile::packed`] packs: below it the saving
/// is small and every small program (the fuzzer runs thousands a second)
/// would pay the compression.
pub const PACK_MIN_BYTES: usize = 64 << 10;

/// The size of a packed block (a block is compressed on its own: the
/// buffer it is compressed into stays small).
const PACK_CHUNK: usize = 1 << 20;

/// 1-based line and column (column counted in characters, as editors do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Rc<SourceFile> {
        Rc::new(SourceFile {
            path: path.into(),
            text: Text::Plain(text.into()),
            line_starts: std::cell::OnceCell::new(),
        })
    }

    /// `file` with its text compressed, once it is parsed and only read
    /// again to show a location or an excerpt ([`PackedText`]); `file`
    /// itself when its text is shorter than [`PACK_MIN_BYTES`] or someone
    /// else holds it too.
    pub fn packed(file: Rc<SourceFile>) -> Rc<SourceFile> {
        if file.len() < PACK_MIN_BYTES {
            return file;
        }
        let file = match Rc::try_unwrap(file) {
            Ok(file) => file,
            Err(shared) => return shared,
        };
        let text = match file.text {
            Text::Plain(text) => text,
            packed => return Rc::new(SourceFile { text: packed, ..file }),
        };
        let chunks = text
            .as_bytes()
            .chunks(PACK_CHUNK)
            .map(|c| lz4_flex::block::compress_prepend_size(c).into_boxed_slice())
            .collect();
        Rc::new(SourceFile {
            path: file.path,
            text: Text::Packed(PackedText {
                chunks,
                len: text.len(),
                unpacked: std::cell::OnceCell::new(),
            }),
            line_starts: file.line_starts,
        })
    }

    /// The file's text (unpacked the first time if it was packed).
    pub fn text(&self) -> &str {
        match &self.text {
            Text::Plain(s) => s,
            Text::Packed(p) => p.unpacked.get_or_init(|| {
                let mut bytes = Vec::with_capacity(p.len);
                for chunk in &p.chunks {
                    match lz4_flex::block::decompress_size_prepended(chunk) {
                        Ok(part) => bytes.extend_from_slice(&part),
                        // (only a bug could get here: the blocks are ours)
                        Err(e) => bytes.extend_from_slice(format!("<source text lost: {e}>").as_bytes()),
                    }
                }
                String::from_utf8(bytes)
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            }),
        }
    }

    /// The length of the text in bytes (without unpacking it).
    pub fn len(&self) -> usize {
        match &self.text {
            Text::Plain(s) => s.len(),
            Text::Packed(p) => p.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text is held packed ([`SourceFile::packed`]).
    pub fn is_packed(&self) -> bool {
        matches!(self.text, Text::Packed(_))
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0u32];
            for (i, b) in self.text().bytes().enumerate() {
                if b == b'\n' {
                    starts.push(i as u32 + 1);
                }
            }
            starts
        })
    }

    /// 0-based index of the line that contains byte `offset`.
    pub fn line_index(&self, offset: u32) -> usize {
        match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.len() as u32);
        let line = self.line_index(offset);
        let start = self.line_starts()[line] as usize;
        let mut end = offset as usize;
        while !self.text().is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text()[start..end].chars().count() as u32 + 1;
        LineCol {
            line: line as u32 + 1,
            col,
        }
    }

    /// Number of lines (a final line without a newline counts).
    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }

    /// Byte offset where the (0-based) line `line` starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts()[line] as usize
    }

    /// The text of the (0-based) line `line`, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        let starts = self.line_starts();
        let start = starts[line] as usize;
        let end = starts.get(line + 1).map(|&e| e as usize).unwrap_or(self.len());
        self.text()[start..end].trim_end_matches(['\n', '\r'])
    }

    /// `path:line:col` of a byte offset.
    pub fn location(&self, offset: u32) -> String {
        let lc = self.line_col(offset);
        format!("{}:{}:{}", self.path, lc.line, lc.col)
    }

    pub fn slice(&self, range: TextRange) -> &str {
        let end = (range.end as usize).min(self.len());
        let start = (range.start as usize).min(end);
        self.text().get(start..end).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_is_one_based_and_counts_chars() {
        let f = SourceFile::new("t.spy", "ab\nçd\n");
        assert_eq!(f.line_col(0), LineCol { line: 1, col: 1 });
        assert_eq!(f.line_col(3), LineCol { line: 2, col: 1 });
        // 'd' is after the two-byte 'ç'
        assert_eq!(f.line_col(5), LineCol { line: 2, col: 2 });
        assert_eq!(f.line_text(1), "çd");
        assert_eq!(f.location(6), "t.spy:2:3");
    }

    #[test]
    fn a_packed_file_reads_as_its_text() {
        // (more than one block, a character across a block boundary)
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 2 * PACK_CHUNK + 1000 {
            text.push_str(&format!("def f{i}(a: i32) -> i32:\n    return a + {i} # ç\n\n"));
            i += 1;
        }
        let plain = SourceFile::new("t.spy", text.clone());
        let packed = SourceFile::packed(SourceFile::new("t.spy", text.clone()));
        assert!(packed.is_packed());
        assert_eq!(packed.len(), text.len());
        assert_eq!(packed.text(), text);
        for offset in [
            0,
            17,
            PACK_CHUNK as u32 - 1,
            PACK_CHUNK as u32 + 5,
            text.len() as u32,
        ] {
            assert_eq!(packed.location(offset), plain.location(offset));
        }
        let last = plain.line_count() - 2;
        assert_eq!(packed.line_text(last), plain.line_text(last));
    }

    #[test]
    fn small_or_shared_files_stay_plain() {
        let small = SourceFile::packed(SourceFile::new("t.spy", "x = 1\n"));
        assert!(!small.is_packed());
        let big = SourceFile::new("t.spy", "#".repeat(PACK_MIN_BYTES));
        let other = big.clone();
        assert!(!SourceFile::packed(big).is_packed());
        assert!(!other.is_packed());
    }
}
