//! The `spy-interp` binary: a thin wrapper over `spy_interp::cli`, with
//! mimalloc as its allocator (the library leaves that choice to its users).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(spy_interp::cli::main());
}
