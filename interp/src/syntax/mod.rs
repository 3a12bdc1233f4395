//! Syntax: source text → `ast::Module`.
//!
//! Pipeline: `lexer` (tokens, layout) → `grammar` (lalrpop LR parser, one
//! entry point, actions in `helpers`) → `validate` (module-level rules,
//! loops, depth) → a dense renumbering of name ids. The first error wins and
//! becomes a `SpyError` (`ParseError`, `IndentationError` or `TabError`).
//! `input` reads a source file within the size limit. `walk` is the one AST walker (children of every node, shared and
//! mutable) that the later phases and the tools use.
//!
//! Parsing is panic-free, hang-free and memory-bounded for any input:
//! brackets nest at most 200 deep, indentation at most 100 levels,
//! expressions at most 1000, and a finished tree at most 1000 statement and
//! expression levels.

pub mod ast;
pub mod dump;
pub mod error;
mod helpers;
pub mod input;
pub mod lexer;
pub mod token;
mod validate;
pub mod walk;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    grammar,
    "/syntax/grammar.rs"
);

use std::rc::Rc;

use crate::error::SpyError;
use crate::source::{SourceFile, TextRange};

use error::{ParseError, ParseErrorKind};
use helpers::ParseCtx;

pub use validate::{renumber_within, MAX_TOTAL_DEPTH};

/// Parse a whole module.
pub fn parse_module(file: &Rc<SourceFile>) -> Result<ast::Module, SpyError> {
    parse_str(file.text()).map_err(|e| e.into_spy_error(file))
}

/// Parse raw bytes: invalid UTF-8 is a ParseError at the first bad byte.
pub fn parse_bytes(path: &str, bytes: &[u8]) -> Result<(Rc<SourceFile>, ast::Module), SpyError> {
    parse_owned(path, bytes.to_vec())
}

/// [`parse_bytes`] of bytes the caller gives away: valid UTF-8 becomes the
/// `SourceFile`'s text without a copy (a large program's source is then
/// held once, not twice; issue 14 item 5).
pub fn parse_owned(path: &str, bytes: Vec<u8>) -> Result<(Rc<SourceFile>, ast::Module), SpyError> {
    match String::from_utf8(bytes) {
        Ok(text) => {
            let file = SourceFile::new(path, text);
            let module = parse_module(&file)?;
            // (parsed: from now on its text is read only to show where an
            // error is; a large one is kept compressed)
            Ok((SourceFile::packed(file), module))
        }
        Err(e) => {
            // The lossy text keeps the valid prefix, so `at` still points at
            // the (now replaced) first bad byte; U+FFFD is 3 bytes long.
            let at = e.utf8_error().valid_up_to();
            let file = SourceFile::new(path, String::from_utf8_lossy(e.as_bytes()).into_owned());
            let err = ParseError::at(ParseErrorKind::InvalidUtf8, at, at + 3);
            Err(err.into_spy_error(&file))
        }
    }
}

/// What `spy-interp parse` prints: the AST dump.
pub fn parse_command_output(path: &str, bytes: &[u8]) -> Result<String, SpyError> {
    let (_, module) = parse_bytes(path, bytes)?;
    Ok(dump::dump_module(&module))
}

/// What `spy-interp parse -f json` prints: the AST dump as JSON.
pub fn parse_command_json(path: &str, bytes: &[u8]) -> Result<String, SpyError> {
    let (_, module) = parse_bytes(path, bytes)?;
    Ok(dump::dump_module_json(&module))
}

/// Parse source text; errors keep their byte range (no file attached).
pub fn parse_str(text: &str) -> Result<ast::Module, ParseError> {
    if u32::try_from(text.len()).is_err() {
        // Ranges are u32 byte offsets.
        return Err(ParseError::at(
            ParseErrorKind::Syntax("source file too large (4 GiB at most)".into()),
            0,
            0,
        ));
    }
    let ctx = ParseCtx::for_source(text.len());
    let lexer = lexer::Lexer::new(text);
    grammar::ModuleParser::new()
        .parse(&ctx, lexer)
        .map_err(|e| soft_keyword_statement(text, from_lalrpop(e)))?;
    let (max_expr_depth, deferred, needs_renumber, ids) = (
        ctx.max_expr_depth(),
        ctx.take_deferred(),
        ctx.needs_renumber(),
        ctx.ids_handed_out(),
    );
    let mut module = ctx.into_module();
    let checked = validate::check_module(&module);
    // The exact depth walk is needed only when the bound allows too deep a
    // tree (an expression of depth e under s statements is s + e deep).
    if checked.stmt_depth + max_expr_depth > MAX_TOTAL_DEPTH {
        validate::check_depth(&module)?;
    }
    let first = match (checked.violation, deferred) {
        (Some(v), Some(d)) => Some(if v.range.start <= d.range.start { v } else { d }),
        (v, d) => v.or(d),
    };
    if let Some(err) = first {
        return Err(err);
    }
    module.name_count = if needs_renumber {
        validate::renumber(&mut module)
    } else {
        ids
    };
    module.shrink_to_fit();
    Ok(module)
}

/// `match` and `type` are soft keywords our grammar does not know: a
/// syntax error on a line that is a `match x:` header or a `type X = ...`
/// alias is upstream's `not implemented yet: Match` / `TypeAlias`, on that
/// line.
fn soft_keyword_statement(text: &str, err: ParseError) -> ParseError {
    if !matches!(err.kind, ParseErrorKind::InvalidSyntax { .. }) {
        return err;
    }
    let at = (err.range.start as usize).min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[line_start..line_end];
    let indent = line.len() - line.trim_start().len();
    let stmt = line.trim_start();
    let code = stmt.split('#').next().unwrap_or("").trim_end();
    let word_then = |word: &str| {
        stmt.strip_prefix(word)
            .filter(|rest| rest.starts_with([' ', '\t', '(', '[', '-', '"', '\'']))
    };
    let what = if word_then("match").is_some() && code.ends_with(':') {
        "Match"
    } else if let Some(rest) = word_then("type") {
        let rest = rest.trim_start();
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[name_len..].trim_start();
        let is_alias =
            name_len > 0 && (after.starts_with('[') || (after.starts_with('=') && !after.starts_with("==")));
        if !is_alias {
            return err;
        }
        "TypeAlias"
    } else {
        return err;
    };
    ParseError::at(
        ParseErrorKind::NotImplemented(what.into()),
        line_start + indent,
        line_start + indent + code.len(),
    )
}

/// Map lalrpop's errors to ours, with CPython's wording.
fn from_lalrpop(e: lalrpop_util::ParseError<usize, token::Tok<'_>, ParseError>) -> ParseError {
    use lalrpop_util::ParseError as E;
    let at = |l: usize, r: usize| TextRange::from_usize(l, r);
    match e {
        E::User { error } => error,
        E::InvalidToken { location } => ParseError::new(
            ParseErrorKind::InvalidSyntax { expected: None },
            at(location, location),
        ),
        E::UnrecognizedEof { location, expected } => {
            let kind = if only_indent(&expected) {
                ParseErrorKind::ExpectedIndentedBlock
            } else {
                ParseErrorKind::UnexpectedEof
            };
            ParseError::new(kind, at(location, location))
        }
        E::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            if tok == token::Tok::Indent {
                // Point at the first token of the over-indented line.
                ParseError::new(ParseErrorKind::UnexpectedIndent, at(r, r))
            } else if only_indent(&expected) {
                ParseError::new(ParseErrorKind::ExpectedIndentedBlock, at(l, r))
            } else {
                let expected = match expected.as_slice() {
                    [one] => Some(pretty_expected(one)),
                    _ => None,
                };
                ParseError::new(ParseErrorKind::InvalidSyntax { expected }, at(l, r))
            }
        }
        E::ExtraToken { token: (l, _, r) } => {
            ParseError::new(ParseErrorKind::InvalidSyntax { expected: None }, at(l, r))
        }
    }
}

fn only_indent(expected: &[String]) -> bool {
    matches!(expected, [one] if one == "Indent")
}

/// lalrpop names terminals as the grammar spells them (`"\":\""`, `name`).
fn pretty_expected(terminal: &str) -> String {
    if let Some(inner) = terminal.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        return format!("'{}'", inner.replace("\\\"", "\""));
    }
    match terminal {
        "Newline" => "a newline".to_owned(),
        "Indent" => "an indented block".to_owned(),
        "Dedent" => "a dedent".to_owned(),
        "name" => "a name".to_owned(),
        "int" | "float" => "a number".to_owned(),
        "string" | "bytes" | "fstring" => "a string".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests;
