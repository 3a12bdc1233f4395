//! Backends: what turns a (residual) `ast::Module` back into something
//! outside the interpreter.
//!
//! - `spy_printer`: SPy source text. Redshift's residual modules are printed
//!   with it; the printed source parses back (backquoted names included) to
//!   the same tree, up to ranges and name ids.
//! - `origins`: where each printed node of a residual module comes from,
//!   so errors in the printed module point back into the user's source.

pub mod origins;
pub mod spy_printer;

pub use spy_printer::{
    format_name, is_plain_identifier, print_expr, print_module, print_module_marked, print_module_width,
    print_module_with_defs, print_module_with_origins, print_module_with_origins_planted, Mark, Marked,
    PlantedPrinterBug, PrintedDefs,
};
