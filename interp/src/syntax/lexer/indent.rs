//! The indentation stack: turns the leading whitespace of each logical line
//! into INDENT / DEDENT decisions, with CPython's tab rules (a tab advances
//! to the next multiple of 8; the same line measured with tabs of width 1
//! must order the same way, otherwise it is a TabError).

use crate::syntax::error::ParseErrorKind;

/// CPython's MAXINDENT: at most 100 levels, the outermost one included.
pub const MAX_INDENT_LEVELS: usize = 100;

/// Leading whitespace of a line, measured twice (tab = 8 and tab = 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Column {
    pub col: u32,
    pub alt: u32,
}

impl Column {
    pub fn advance(&mut self, byte: u8) {
        match byte {
            b' ' => {
                self.col = self.col.saturating_add(1);
                self.alt = self.alt.saturating_add(1);
            }
            b'\t' => {
                self.col = (self.col / 8).saturating_add(1).saturating_mul(8);
                self.alt = self.alt.saturating_add(1);
            }
            // A form feed resets the column, as in CPython.
            _ => *self = Column::default(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Same,
    Indent,
    /// Pop this many levels.
    Dedent(u32),
}

/// The stack of open indentation levels; the bottom level (column 0) is
/// never popped.
#[derive(Debug)]
pub struct IndentStack {
    levels: Vec<Column>,
}

impl Default for IndentStack {
    fn default() -> Self {
        IndentStack {
            levels: vec![Column::default()],
        }
    }
}

impl IndentStack {
    /// Number of open levels above the bottom one.
    pub fn depth(&self) -> usize {
        self.levels.len() - 1
    }

    /// Close the innermost level (at EOF).
    pub fn pop(&mut self) {
        if self.levels.len() > 1 {
            self.levels.pop();
        }
    }

    /// Compare a new line's indentation with the stack and update it.
    pub fn change(&mut self, at: Column) -> Result<Change, ParseErrorKind> {
        let top = self.levels.last().copied().unwrap_or_default();
        if at.col == top.col {
            if at.alt != top.alt {
                return Err(ParseErrorKind::InconsistentTabs);
            }
            Ok(Change::Same)
        } else if at.col > top.col {
            if self.levels.len() >= MAX_INDENT_LEVELS {
                return Err(ParseErrorKind::TooManyIndentLevels);
            }
            if at.alt <= top.alt {
                return Err(ParseErrorKind::InconsistentTabs);
            }
            self.levels.push(at);
            Ok(Change::Indent)
        } else {
            let mut popped = 0u32;
            while self.levels.len() > 1 && at.col < self.levels[self.levels.len() - 1].col {
                self.levels.pop();
                popped += 1;
            }
            let top = self.levels[self.levels.len() - 1];
            if at.col != top.col {
                return Err(ParseErrorKind::UnindentMismatch);
            }
            if at.alt != top.alt {
                return Err(ParseErrorKind::InconsistentTabs);
            }
            Ok(Change::Dedent(popped))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(ws: &str) -> Column {
        let mut c = Column::default();
        for b in ws.bytes() {
            c.advance(b);
        }
        c
    }

    #[test]
    fn indent_dedent_and_mismatch() {
        let mut s = IndentStack::default();
        assert_eq!(s.change(col("    ")), Ok(Change::Indent));
        assert_eq!(s.change(col("        ")), Ok(Change::Indent));
        assert_eq!(s.change(col("")), Ok(Change::Dedent(2)));
        assert_eq!(s.change(col("    ")), Ok(Change::Indent));
        assert_eq!(s.change(col("  ")), Err(ParseErrorKind::UnindentMismatch));
    }

    #[test]
    fn tabs_must_agree_with_spaces() {
        let mut s = IndentStack::default();
        assert_eq!(s.change(col("\t")), Ok(Change::Indent));
        assert_eq!(s.change(col("        ")), Err(ParseErrorKind::InconsistentTabs));
    }

    #[test]
    fn too_many_levels() {
        let mut s = IndentStack::default();
        for i in 1..MAX_INDENT_LEVELS {
            assert_eq!(s.change(col(&" ".repeat(i))), Ok(Change::Indent));
        }
        assert_eq!(
            s.change(col(&" ".repeat(MAX_INDENT_LEVELS))),
            Err(ParseErrorKind::TooManyIndentLevels)
        );
    }
}
