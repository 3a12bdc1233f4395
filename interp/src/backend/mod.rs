//! Backends: what turns a (residual) `ast::Module` back into something
//! outside the interpreter.
//!
//! - `spy_printer`: SPy source text. Redshift's residual modules are printed
//!   with it; the printed source parses back (backquoted names included) to
//!   the same tree, up to ranges and name ids.

pub mod spy_printer;

pub use spy_printer::{
    format_name, is_plain_identifier, print_expr, print_module, print_module_marked, print_module_width,
    Mark, Marked,
};
