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
    pub text: String,
    /// Byte offset of the first character of every line, built the first
    /// time a position is shown (only diagnostics and tools need it: a run
    /// that reports nothing does not pay 4 bytes a line, issue 14 item 5).
    line_starts: std::cell::OnceCell<Vec<u32>>,
}

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
            text: text.into(),
            line_starts: std::cell::OnceCell::new(),
        })
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0u32];
            for (i, b) in self.text.bytes().enumerate() {
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
        let offset = offset.min(self.text.len() as u32);
        let line = self.line_index(offset);
        let start = self.line_starts()[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() as u32 + 1;
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
        let end = starts
            .get(line + 1)
            .map(|&e| e as usize)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// `path:line:col` of a byte offset.
    pub fn location(&self, offset: u32) -> String {
        let lc = self.line_col(offset);
        format!("{}:{}:{}", self.path, lc.line, lc.col)
    }

    pub fn slice(&self, range: TextRange) -> &str {
        let end = (range.end as usize).min(self.text.len());
        let start = (range.start as usize).min(end);
        self.text.get(start..end).unwrap_or("")
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
}
