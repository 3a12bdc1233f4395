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
use crate::backend::PlantedPrinterBug;
use crate::error::{ExcKind, Failure, SpyError};
use crate::redshift::Residual;
use crate::source::SourceFile;
use crate::syntax::ast;
use crate::syntax::error::ParseErrorKind;

/// A residual module printed and parsed back (one redshift can feed two
/// engines, see `engine::run_doppler_and_jit`).
#[derive(Clone)]
pub struct PrintedResidual {
    pub modname: String,
    /// The printed text, under the path its locations are shown with
    /// (the user's source on `ResidualRoute::Built`).
    pub file: Rc<SourceFile>,
    /// `file` parsed back (what runs; redshift's own tree on
    /// `ResidualRoute::Built`).
    pub module: ast::Module,
    /// The way from `file` back to the user's source (and from the other
    /// modules' residual files to theirs).
    pub map: ResidualMap,
    /// The other modules of the program, printed and parsed back, in load
    /// order (spec §16.8); their maps are in `map.others`.
    pub deps: Vec<PrintedResidual>,
}

impl PrintedResidual {
    /// The residual program as one text: the main module's, then each
    /// other module's in load order after its `# file: NAME.spy` line
    /// (spec §16.8; the layout of a multi-file conformance case).
    pub fn text(&self) -> String {
        let mut out = self.file.text().to_string();
        for m in &self.deps {
            out.push_str(&format!("{}{}.spy\n", FILE_SEPARATOR, m.modname));
            out.push_str(m.file.text());
        }
        out
    }

    /// Make the other residual modules what `import` loads in `interp`,
    /// and give back the main one.
    pub fn preload(
        self,
        interp: &mut crate::frames::Interp<'_>,
    ) -> (Rc<SourceFile>, ast::Module, String, ResidualMap) {
        for d in self.deps {
            interp.preload_module(d.modname, d.file, d.module);
        }
        (self.file, self.module, self.modname, self.map)
    }
}

/// The line that starts each module of a multi-module residual program
/// (and of a multi-file conformance case): `# file: m.spy`.
pub const FILE_SEPARATOR: &str = "# file: ";

/// Split a multi-module text at its `# file: NAME.spy` lines: the text
/// before the first one (the main module's), then each `(file name, text)`.
pub fn split_files(text: &str) -> (&str, Vec<(&str, &str)>) {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix(FILE_SEPARATOR) {
            starts.push((at, at + line.len(), rest.trim()));
        }
        at += line.len();
    }
    let head_end = starts.first().map(|s| s.0).unwrap_or(text.len());
    let mut files = Vec::new();
    for (k, (_, body_start, name)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map(|s| s.0).unwrap_or(text.len());
        files.push((*name, &text[*body_start..end]));
    }
    (&text[..head_end], files)
}

/// Print `residual` (its locations shown under `printed_path`) and parse it
/// back.
pub fn print_checked(residual: Residual, printed_path: &str) -> Result<PrintedResidual, Failure> {
    print_checked_planted(residual, printed_path, None)
}

/// [`print_checked`] with a planted printer bug (`None`: the printer; see
/// `backend::PlantedPrinterBug`).
pub fn print_checked_planted(
    residual: Residual,
    printed_path: &str,
    planted: Option<PlantedPrinterBug>,
) -> Result<PrintedResidual, Failure> {
    let Residual {
        modname,
        file: source,
        module,
        body,
        folded,
        deps,
        printed,
        ..
    } = residual;
    let mut printed_deps = Vec::with_capacity(deps.len());
    for d in deps {
        let path = crate::redshift::residual_display_path(&d.file.path);
        printed_deps.push(print_checked_planted(d, &path, planted)?);
    }
    let others = printed_deps.iter().map(|d| d.map.clone()).collect();
    let (text, origins) = crate::backend::print_module_with_defs(module.block(body), printed, planted);
    drop(module);
    let map = ResidualMap {
        printed_path: printed_path.to_string(),
        source,
        origins,
        folded,
        others,
    };
    let file = SourceFile::new(printed_path, text);
    match crate::syntax::parse_str(file.text()) {
        Ok(module) => Ok(PrintedResidual {
            modname,
            // (parsed back: a large residual text is kept compressed, read
            // again only to show an error's place in it)
            file: SourceFile::packed(file),
            module,
            map,
            deps: printed_deps,
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

/// How the doppler and jit engines get the residual module they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResidualRoute {
    /// Printed and parsed back ([`print_checked`]): what every command
    /// runs, and the fuzzer's check of the printer.
    Printed,
    /// Redshift's own tree, its name ids renumbered, run without a print
    /// and a parse (the fuzzer's worker, on the cases it does not sample
    /// for the printed route: `spy-fuzz`'s `oracle`). Its locations are
    /// already the user's source (no map from printed text is needed).
    /// A program of several modules, or a tree deeper than half the
    /// parser's nesting limits (whose printed text might not parse back,
    /// a located `WIP`), takes the printed route anyway.
    Built,
}

/// Statement and expression levels below which a residual tree's printed
/// text certainly parses back: half of the parser's limits (one printed
/// bracket per expression level at most, and the depth the parser counts).
fn built_depth_limit() -> u32 {
    let brackets = u32::try_from(crate::syntax::lexer::MAX_BRACKET_DEPTH).unwrap_or(u32::MAX);
    brackets.min(crate::syntax::MAX_TOTAL_DEPTH) / 2
}

/// The residual module `residual` as `route` says, to be run
/// (`printed_path`: where the printed route's locations are shown).
pub fn residual_for_run(
    mut residual: Residual,
    printed_path: &str,
    route: ResidualRoute,
    planted: Option<PlantedPrinterBug>,
) -> Result<PrintedResidual, Failure> {
    let body = residual.body;
    let limit = built_depth_limit();
    // The tree is this redshift's alone (the module's only reference);
    // its body becomes the module's, and its names get dense ids (redshift
    // gives them placeholders) in the walk that checks its depth.
    let renumbered = match Rc::get_mut(&mut residual.module) {
        Some(m)
            if route == ResidualRoute::Built && residual.deps.is_empty() && residual.printed.is_empty() =>
        {
            let root = std::mem::replace(&mut m.body, body);
            let count = crate::syntax::renumber_within(m, limit);
            if count.is_none() {
                m.body = root;
            }
            count
        }
        _ => None,
    };
    let Some(name_count) = renumbered else {
        return print_checked_planted(residual, printed_path, planted);
    };
    let Residual {
        modname,
        file,
        module,
        folded,
        ..
    } = residual;
    let Ok(mut module) = Rc::try_unwrap(module) else {
        return Err(crate::bug!("the residual tree is shared after redshift"));
    };
    module.name_count = name_count;
    let map = ResidualMap {
        printed_path: printed_path.to_string(),
        source: file.clone(),
        origins: Default::default(),
        folded,
        others: Vec::new(),
    };
    Ok(PrintedResidual {
        modname,
        file,
        module,
        map,
        deps: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::{Interp, RunConfig};
    use crate::redshift::ErrorMode;

    fn residual(source: &str) -> Residual {
        let mut out = Vec::new();
        let mut interp = Interp::new(&mut out, RunConfig::default());
        match interp.redshift_file("t.spy", source.as_bytes(), ErrorMode::Lazy) {
            Ok(r) => r,
            Err(_) => panic!("redshift failed"),
        }
    }

    /// The built route runs redshift's own tree (located in the user's
    /// file, its names numbered densely), the printed route the text.
    #[test]
    fn the_built_route_keeps_redshifts_tree() {
        let source = "def add(x: i32, y: i32) -> i32:\n    return x + y\n\ndef main() -> None:\n    a = add(1, 2)\n    print(a)\n";
        let built = residual_for_run(
            residual(source),
            "t.spy (residual code)",
            ResidualRoute::Built,
            None,
        )
        .unwrap_or_else(|_| panic!("built"));
        assert_eq!(built.file.path, "t.spy");
        assert!(built.module.name_count >= 6, "{}", built.module.name_count);
        let mut ids: Vec<u32> = Vec::new();
        crate::syntax::walk::for_each_ident(&built.module, &mut |i| ids.push(i.ident.id.0));
        assert_eq!(ids, (0..built.module.name_count).collect::<Vec<_>>());
        let printed = residual_for_run(
            residual(source),
            "t.spy (residual code)",
            ResidualRoute::Printed,
            None,
        )
        .unwrap_or_else(|_| panic!("printed"));
        assert_eq!(printed.file.path, "t.spy (residual code)");
        assert_eq!(
            crate::backend::print_module(built.module.body()),
            printed.file.text()
        );
    }
}
