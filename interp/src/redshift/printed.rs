//! The residual module as SPy source that is valid input: printed with the
//! origin of every node (`backend::origins`) and parsed back by our own
//! parser before anything uses the text.
//!
//! The printer has no nesting limit and the parser has two (1,000 open
//! brackets, the lexer's `MAX_BRACKET_DEPTH`; 1,000
//! statement/expression levels, `syntax::MAX_TOTAL_DEPTH`). A blue value or
//! type built by blue code can be nested deeper than either (a tuple type
//! 300 levels deep), and the residual code must spell it. Rather than print
//! a module the parser rejects, redshift parses what it printed: past a
//! nesting limit it is a located `WIP` error at the user's code the deep
//! residual code came from (spec §16.5, §16.6 item 10), in every command
//! that redshifts (`redshift`, the doppler and jit engines, the fuzzer's
//! round-trip property); any other parse failure of printed code is a bug
//! of the printer. The parsed tree is what the doppler and jit engines run,
//! so the check costs no second parse.

use std::rc::Rc;

use crate::backend::origins::ResidualMap;
use crate::error::{ExcKind, Failure, SpyError};
use crate::redshift::Residual;
use crate::source::SourceFile;
use crate::syntax::ast;
use crate::syntax::error::ParseErrorKind;

/// A residual module printed and parsed back.
pub struct PrintedResidual {
    pub modname: String,
    /// The printed text, under the path its locations are shown with.
    pub file: Rc<SourceFile>,
    /// `file` parsed back (what runs).
    pub module: ast::Module,
    /// The way from `file` back to the user's source.
    pub map: ResidualMap,
}

/// Print `residual` (its locations shown under `printed_path`) and parse it
/// back.
pub fn print_checked(residual: Residual, printed_path: &str) -> Result<PrintedResidual, Failure> {
    let Residual {
        modname,
        file: source,
        module,
        folded,
        ..
    } = residual;
    let (text, origins) = crate::backend::print_module_with_origins(&module);
    drop(module);
    let map = ResidualMap {
        printed_path: printed_path.to_string(),
        source,
        origins,
        folded,
    };
    let file = SourceFile::new(printed_path, text);
    match crate::syntax::parse_str(&file.text) {
        Ok(module) => Ok(PrintedResidual {
            modname,
            file,
            module,
            map,
        }),
        Err(e)
            if matches!(
                e.kind,
                ParseErrorKind::TooManyNestedParens | ParseErrorKind::TooDeeplyNested
            ) =>
        {
            let limit = match e.kind {
                ParseErrorKind::TooManyNestedParens => format!(
                    "more than {} nested brackets",
                    crate::syntax::lexer::MAX_BRACKET_DEPTH
                ),
                _ => format!("more than {} nested levels", crate::syntax::MAX_TOTAL_DEPTH),
            };
            let mut err = SpyError::new(
                ExcKind::Wip,
                format!("the residual code is nested too deeply to be SPy source ({limit})"),
            )
            .with_error(&file, e.range, "its residual spelling is nested too deeply");
            map.map_error(&mut err);
            Err(err.into())
        }
        Err(e) => Err(crate::bug!(
            "the printed residual module does not parse back: {} at {}",
            e.kind,
            file.location(e.range.start)
        )),
    }
}
