//! Parse errors: what went wrong (`ParseErrorKind`) and where (`range`).
//! One `Display` holds every message's wording (CPython's for Python syntax
//! errors, upstream SPy's for unsupported constructs); `into_spy_error`
//! turns a parse error into the `SpyError` every engine reports.

use std::fmt;
use std::rc::Rc;

use crate::error::{ExcKind, SpyError};
use crate::source::{SourceFile, TextRange};

/// Annotation upstream puts on "not implemented yet" errors.
const NOT_SUPPORTED: &str = "this is not supported";

#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub kind: ParseErrorKind,
    pub range: TextRange,
}

impl ParseError {
    pub fn new(kind: ParseErrorKind, range: TextRange) -> ParseError {
        ParseError { kind, range }
    }

    pub fn at(kind: ParseErrorKind, start: usize, end: usize) -> ParseError {
        ParseError::new(kind, TextRange::from_usize(start, end))
    }

    /// Build the SPy exception: kind, message and one annotation on `range`.
    pub fn into_spy_error(self, file: &Rc<SourceFile>) -> SpyError {
        let range = visible_range(file, self.range);
        SpyError::new(self.kind.exc_kind(), self.kind.to_string()).with_error(
            file,
            range,
            self.kind.annotation(),
        )
    }
}

/// Widen an empty range to one character so the excerpt shows an underline
/// (an empty range at EOF points at the last character).
fn visible_range(file: &SourceFile, range: TextRange) -> TextRange {
    if !range.is_empty() {
        return range;
    }
    let text = file.text();
    let at = (range.start as usize).min(text.len());
    if let Some(c) = text[at..].chars().next() {
        TextRange::from_usize(at, at + c.len_utf8())
    } else if let Some(c) = text[..at].chars().next_back() {
        TextRange::from_usize(at - c.len_utf8(), at)
    } else {
        range
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for ParseError {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseErrorKind {
    // ------------------------------------------------------------ lexical
    /// A non-ASCII character that cannot start a token.
    InvalidCharacter(char),
    /// A control character (CPython: "invalid non-printable character").
    NonPrintableCharacter(char),
    NullByte,
    InvalidUtf8,
    /// Unterminated `'...'`; the line where it was detected (1-based).
    UnterminatedString {
        line: u32,
    },
    UnterminatedTripleQuotedString {
        line: u32,
    },
    /// An opening bracket never closed (`'(' was never closed`).
    UnclosedBracket(char),
    /// `)` with no opening bracket.
    UnmatchedBracket(char),
    MismatchedBracket {
        open: char,
        close: char,
    },
    TooManyNestedParens,
    /// `\` followed by something other than a newline.
    LineContinuation,
    /// A malformed number; the text is CPython's ("invalid decimal literal").
    InvalidNumber(&'static str),
    /// `0123`
    LeadingZeros,
    /// An int literal above `u64::MAX`.
    IntegerTooLarge,
    /// A malformed escape in a string literal (CPython's wording).
    InvalidEscape(String),
    BytesNonAscii,
    MixedBytesAndStr,

    // ------------------------------------------------------- indentation
    UnexpectedIndent,
    ExpectedIndentedBlock,
    UnindentMismatch,
    TooManyIndentLevels,
    /// TabError
    InconsistentTabs,

    // ------------------------------------------------------------ syntax
    /// `invalid syntax`, with the one token expected when there is one.
    InvalidSyntax {
        expected: Option<String>,
    },
    UnexpectedEof,
    /// A Python syntax rule with CPython's message (e.g. "cannot assign to
    /// function call").
    Syntax(String),
    BreakOutsideLoop,
    ContinueOutsideLoop,
    /// Nesting deeper than the parser accepts (protects recursive phases).
    TooDeeplyNested,

    // ------------------------------------------- SPy: unsupported Python
    /// `not implemented yet: <what>`
    NotImplemented(String),
    /// `...`
    EllipsisLiteral,
    KwargsParam,
    PositionalOnlyParams,
    KeywordOnlyParams,
    BaseClasses,
    ClassKeywords,
    TypeParamsWithDecorators,
    BoundedTypeVar,
    NonPlainTypeParam,
    ParenthesizedAnnTarget,
    /// Anything but def/class/import/variables at module level.
    NotAllowedAtGlobalScope,
    /// `x: T` at module level without a value (our decision).
    GlobalWithoutValue,
}

impl ParseErrorKind {
    /// The SPy exception class of this error.
    pub fn exc_kind(&self) -> ExcKind {
        use ParseErrorKind as K;
        match self {
            K::UnexpectedIndent | K::ExpectedIndentedBlock | K::UnindentMismatch | K::TooManyIndentLevels => {
                ExcKind::IndentationError
            }
            K::InconsistentTabs => ExcKind::TabError,
            _ => ExcKind::ParseError,
        }
    }

    /// The annotation under the error range: upstream's where it has one,
    /// otherwise a short pointer (an empty label would not be drawn).
    pub fn annotation(&self) -> &'static str {
        use ParseErrorKind as K;
        match self {
            K::NotImplemented(_)
            | K::KwargsParam
            | K::PositionalOnlyParams
            | K::KeywordOnlyParams
            | K::BaseClasses
            | K::ClassKeywords
            | K::ParenthesizedAnnTarget => NOT_SUPPORTED,
            K::EllipsisLiteral => "this is not supported yet",
            K::TypeParamsWithDecorators => "remove the decorators or the type parameters",
            K::BoundedTypeVar => "remove the bound",
            K::NonPlainTypeParam => "ParamSpec and TypeVarTuple are not supported yet",
            K::NotAllowedAtGlobalScope => "this is not allowed here",
            K::GlobalWithoutValue => "this needs a value",
            K::IntegerTooLarge => "integer literal out of range",
            K::TooDeeplyNested => "this is nested too deeply",
            K::InvalidCharacter(_) | K::NonPrintableCharacter(_) | K::NullByte => "this character",
            K::InvalidUtf8 => "this byte",
            K::UnterminatedString { .. } | K::UnterminatedTripleQuotedString { .. } => {
                "this string is never closed"
            }
            K::UnclosedBracket(_) => "this is never closed",
            K::UnmatchedBracket(_) | K::MismatchedBracket { .. } => "this closing bracket",
            K::TooManyNestedParens => "one bracket too many",
            K::LineContinuation => "after this backslash",
            K::InvalidNumber(_) | K::LeadingZeros => "this number",
            K::InvalidEscape(_) => "this escape",
            K::BytesNonAscii => "this is not ASCII",
            K::MixedBytesAndStr => "these literals",
            K::UnexpectedIndent => "this line is indented too much",
            K::ExpectedIndentedBlock => "this should be indented",
            K::UnindentMismatch | K::InconsistentTabs | K::TooManyIndentLevels => "this indentation",
            K::InvalidSyntax { .. } => "unexpected token",
            K::UnexpectedEof => "the file ends here",
            K::Syntax(_) => "here",
            K::BreakOutsideLoop | K::ContinueOutsideLoop => "not in a loop",
        }
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ParseErrorKind as K;
        match self {
            K::InvalidCharacter(c) => write!(f, "invalid character '{c}' (U+{:04X})", *c as u32),
            K::NonPrintableCharacter(c) => {
                write!(f, "invalid non-printable character U+{:04X}", *c as u32)
            }
            K::NullByte => f.write_str("source code cannot contain null bytes"),
            K::InvalidUtf8 => f.write_str("invalid utf-8 in source"),
            K::UnterminatedString { line } => {
                write!(f, "unterminated string literal (detected at line {line})")
            }
            K::UnterminatedTripleQuotedString { line } => write!(
                f,
                "unterminated triple-quoted string literal (detected at line {line})"
            ),
            K::UnclosedBracket(c) => write!(f, "'{c}' was never closed"),
            K::UnmatchedBracket(c) => write!(f, "unmatched '{c}'"),
            K::MismatchedBracket { open, close } => write!(
                f,
                "closing parenthesis '{close}' does not match opening parenthesis '{open}'"
            ),
            K::TooManyNestedParens => f.write_str("too many nested parentheses"),
            K::LineContinuation => f.write_str("unexpected character after line continuation character"),
            K::InvalidNumber(what) => f.write_str(what),
            K::LeadingZeros => f.write_str(
                "leading zeros in decimal integer literals are not permitted; \
                 use an 0o prefix for octal integers",
            ),
            K::IntegerTooLarge => f.write_str("integer literal too large"),
            K::InvalidEscape(msg) => f.write_str(msg),
            K::BytesNonAscii => f.write_str("bytes can only contain ASCII literal characters"),
            K::MixedBytesAndStr => f.write_str("cannot mix bytes and nonbytes literals"),
            K::UnexpectedIndent => f.write_str("unexpected indent"),
            K::ExpectedIndentedBlock => f.write_str("expected an indented block"),
            K::UnindentMismatch => f.write_str("unindent does not match any outer indentation level"),
            K::TooManyIndentLevels => f.write_str("too many levels of indentation"),
            K::InconsistentTabs => f.write_str("inconsistent use of tabs and spaces in indentation"),
            K::InvalidSyntax { expected: None } => f.write_str("invalid syntax"),
            K::InvalidSyntax { expected: Some(tok) } => write!(f, "invalid syntax: expected {tok}"),
            K::UnexpectedEof => f.write_str("unexpected EOF while parsing"),
            K::Syntax(msg) => f.write_str(msg),
            K::BreakOutsideLoop => f.write_str("'break' outside loop"),
            K::ContinueOutsideLoop => f.write_str("'continue' not properly in loop"),
            K::TooDeeplyNested => f.write_str("expression is too deeply nested"),
            K::NotImplemented(what) => write!(f, "not implemented yet: {what}"),
            K::EllipsisLiteral => f.write_str("unsupported literal: Ellipsis"),
            K::KwargsParam => f.write_str("**kwargs is not supported yet"),
            K::PositionalOnlyParams => f.write_str("positional-only arguments are not supported yet"),
            K::KeywordOnlyParams => f.write_str("keyword-only arguments are not supported yet"),
            K::BaseClasses => f.write_str("base classes not supported yet"),
            K::ClassKeywords => f.write_str("keywords in classes not supported yet"),
            K::TypeParamsWithDecorators => f.write_str("cannot use type parameters with decorators"),
            K::BoundedTypeVar => f.write_str("bounded TypeVars are not supported yet"),
            K::NonPlainTypeParam => f.write_str("only plain TypeVar type parameters are supported"),
            K::ParenthesizedAnnTarget => f.write_str("not supported: assignments targets with parentheses"),
            K::NotAllowedAtGlobalScope => {
                f.write_str("only function and variable definitions are allowed at global scope")
            }
            K::GlobalWithoutValue => f.write_str("global variables must have a value"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wording_and_classes() {
        let k = ParseErrorKind::InvalidCharacter('€');
        assert_eq!(k.to_string(), "invalid character '€' (U+20AC)");
        assert_eq!(
            ParseErrorKind::NotImplemented("Try".into()).to_string(),
            "not implemented yet: Try"
        );
        assert_eq!(ParseErrorKind::InconsistentTabs.exc_kind(), ExcKind::TabError);
        assert_eq!(
            ParseErrorKind::UnexpectedIndent.exc_kind(),
            ExcKind::IndentationError
        );
    }

    #[test]
    fn spy_error_has_one_annotation_with_a_visible_range() {
        let f = SourceFile::new("t.spy", "x = (\n");
        let e = ParseError::at(ParseErrorKind::UnexpectedEof, 6, 6).into_spy_error(&f);
        assert_eq!(e.headline(), "ParseError: unexpected EOF while parsing");
        assert_eq!(e.annotations.len(), 1);
        assert_eq!(e.annotations[0].range, TextRange::new(5, 6));
    }
}
