//! The `spy-interp` binary: the command line (`cli`) over the libraries
//! spy-interp, spy-conformance and spy-fuzz, with mimalloc as its
//! allocator (the libraries leave that choice to their users).

mod cli;
mod output;

#[global_allocator]
static ALLOCATOR: spy_jit::runtime::alloc::MiMallocPlain = spy_jit::runtime::alloc::MiMallocPlain;

fn main() {
    std::process::exit(cli::main());
}
