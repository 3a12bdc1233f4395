//! The `spy-interp` binary: a thin wrapper over `spy_interp::cli`.
fn main() {
    std::process::exit(spy_interp::cli::main());
}
