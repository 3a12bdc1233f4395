//! Tokens produced by the lexer and consumed by the lalrpop grammar: the
//! `Tok` enum, the keyword table and the display names used in diagnostics.

use std::fmt;

/// One token. Positions travel beside it as `(start, Tok, end)` byte
/// offsets. A name borrows its text from the source (`'src`): most tokens
/// of a program are names, and the parser interns each once
/// (`helpers::ParseCtx::intern`).
#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'src> {
    // ------------------------------------------------------------- layout
    Newline,
    Indent,
    Dedent,

    // ------------------------------------------------------- literals, names
    Name(&'src str),
    Int(u64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    /// An f-string: parsed only to be rejected (`JoinedStr`).
    FString,

    // ---------------------------------------------------------- keywords
    False,
    None,
    True,
    And,
    As,
    Assert,
    Async,
    Await,
    Break,
    Class,
    Continue,
    Def,
    Del,
    Elif,
    Else,
    Except,
    Finally,
    For,
    From,
    Global,
    If,
    Import,
    In,
    Is,
    Lambda,
    Nonlocal,
    Not,
    Or,
    Pass,
    Raise,
    Return,
    Try,
    While,
    With,
    Yield,
    /// Soft keywords: only when followed by a name on the same line.
    Var,
    Const,

    // --------------------------------------------------------- operators
    Plus,
    Minus,
    Star,
    DoubleStar,
    Slash,
    DoubleSlash,
    Percent,
    At,
    LeftShift,
    RightShift,
    Amper,
    Vbar,
    Circumflex,
    Tilde,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    EqEqual,
    NotEqual,
    Lpar,
    Rpar,
    Lsqb,
    Rsqb,
    Lbrace,
    Rbrace,
    Comma,
    Colon,
    Semi,
    Dot,
    Ellipsis,
    Equal,
    Arrow,
    ColonEqual,
    PlusEqual,
    MinusEqual,
    StarEqual,
    DoubleStarEqual,
    SlashEqual,
    DoubleSlashEqual,
    PercentEqual,
    AtEqual,
    LeftShiftEqual,
    RightShiftEqual,
    AmperEqual,
    VbarEqual,
    CircumflexEqual,
}

/// The hard keywords of Python 3.12 (`var`/`const` are soft, see the lexer).
pub fn keyword(word: &str) -> Option<Tok<'static>> {
    // Every keyword is 2 to 8 bytes long: most names are answered without a
    // comparison, the others are compared only with the keywords of their
    // first letter (a `match` on the word alone compares it with every
    // keyword of its length, one after the other).
    let bytes = word.as_bytes();
    if !(2..=8).contains(&bytes.len()) {
        return None;
    }
    Some(match (bytes[0], word) {
        (b'F', "False") => Tok::False,
        (b'N', "None") => Tok::None,
        (b'T', "True") => Tok::True,
        (b'a', "and") => Tok::And,
        (b'a', "as") => Tok::As,
        (b'a', "assert") => Tok::Assert,
        (b'a', "async") => Tok::Async,
        (b'a', "await") => Tok::Await,
        (b'b', "break") => Tok::Break,
        (b'c', "class") => Tok::Class,
        (b'c', "continue") => Tok::Continue,
        (b'd', "def") => Tok::Def,
        (b'd', "del") => Tok::Del,
        (b'e', "elif") => Tok::Elif,
        (b'e', "else") => Tok::Else,
        (b'e', "except") => Tok::Except,
        (b'f', "finally") => Tok::Finally,
        (b'f', "for") => Tok::For,
        (b'f', "from") => Tok::From,
        (b'g', "global") => Tok::Global,
        (b'i', "if") => Tok::If,
        (b'i', "import") => Tok::Import,
        (b'i', "in") => Tok::In,
        (b'i', "is") => Tok::Is,
        (b'l', "lambda") => Tok::Lambda,
        (b'n', "nonlocal") => Tok::Nonlocal,
        (b'n', "not") => Tok::Not,
        (b'o', "or") => Tok::Or,
        (b'p', "pass") => Tok::Pass,
        (b'r', "raise") => Tok::Raise,
        (b'r', "return") => Tok::Return,
        (b't', "try") => Tok::Try,
        (b'w', "while") => Tok::While,
        (b'w', "with") => Tok::With,
        (b'y', "yield") => Tok::Yield,
        _ => return None,
    })
}

/// Whether `word` is a hard keyword.
pub fn is_keyword(word: &str) -> bool {
    keyword(word).is_some()
}

impl Tok<'_> {
    /// The source spelling of fixed tokens; a description for the others.
    pub fn text(&self) -> &'static str {
        match self {
            Tok::Newline => "newline",
            Tok::Indent => "indent",
            Tok::Dedent => "dedent",
            Tok::Name(_) => "name",
            Tok::Int(_) | Tok::Float(_) => "number",
            Tok::Str(_) | Tok::Bytes(_) | Tok::FString => "string",
            Tok::False => "False",
            Tok::None => "None",
            Tok::True => "True",
            Tok::And => "and",
            Tok::As => "as",
            Tok::Assert => "assert",
            Tok::Async => "async",
            Tok::Await => "await",
            Tok::Break => "break",
            Tok::Class => "class",
            Tok::Continue => "continue",
            Tok::Def => "def",
            Tok::Del => "del",
            Tok::Elif => "elif",
            Tok::Else => "else",
            Tok::Except => "except",
            Tok::Finally => "finally",
            Tok::For => "for",
            Tok::From => "from",
            Tok::Global => "global",
            Tok::If => "if",
            Tok::Import => "import",
            Tok::In => "in",
            Tok::Is => "is",
            Tok::Lambda => "lambda",
            Tok::Nonlocal => "nonlocal",
            Tok::Not => "not",
            Tok::Or => "or",
            Tok::Pass => "pass",
            Tok::Raise => "raise",
            Tok::Return => "return",
            Tok::Try => "try",
            Tok::While => "while",
            Tok::With => "with",
            Tok::Yield => "yield",
            Tok::Var => "var",
            Tok::Const => "const",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::DoubleStar => "**",
            Tok::Slash => "/",
            Tok::DoubleSlash => "//",
            Tok::Percent => "%",
            Tok::At => "@",
            Tok::LeftShift => "<<",
            Tok::RightShift => ">>",
            Tok::Amper => "&",
            Tok::Vbar => "|",
            Tok::Circumflex => "^",
            Tok::Tilde => "~",
            Tok::Less => "<",
            Tok::Greater => ">",
            Tok::LessEqual => "<=",
            Tok::GreaterEqual => ">=",
            Tok::EqEqual => "==",
            Tok::NotEqual => "!=",
            Tok::Lpar => "(",
            Tok::Rpar => ")",
            Tok::Lsqb => "[",
            Tok::Rsqb => "]",
            Tok::Lbrace => "{",
            Tok::Rbrace => "}",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Dot => ".",
            Tok::Ellipsis => "...",
            Tok::Equal => "=",
            Tok::Arrow => "->",
            Tok::ColonEqual => ":=",
            Tok::PlusEqual => "+=",
            Tok::MinusEqual => "-=",
            Tok::StarEqual => "*=",
            Tok::DoubleStarEqual => "**=",
            Tok::SlashEqual => "/=",
            Tok::DoubleSlashEqual => "//=",
            Tok::PercentEqual => "%=",
            Tok::AtEqual => "@=",
            Tok::LeftShiftEqual => "<<=",
            Tok::RightShiftEqual => ">>=",
            Tok::AmperEqual => "&=",
            Tok::VbarEqual => "|=",
            Tok::CircumflexEqual => "^=",
        }
    }
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Name(n) => write!(f, "name '{n}'"),
            Tok::Int(_) | Tok::Float(_) => f.write_str("number"),
            Tok::Str(_) | Tok::Bytes(_) | Tok::FString => f.write_str("string"),
            Tok::Newline | Tok::Indent | Tok::Dedent => f.write_str(self.text()),
            other => write!(f, "'{}'", other.text()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_table_round_trips_through_text() {
        for word in [
            "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
            "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
            "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with",
            "yield",
        ] {
            assert_eq!(keyword(word).map(|t| t.text()), Some(word));
        }
        assert!(!is_keyword("var"));
        assert!(!is_keyword("const"));
        assert!(!is_keyword("match"));
    }
}
