//! The `spy-interp` binary: the command line (`cli`) over the libraries
//! spy-interp, spy-conformance and spy-fuzz, with mimalloc as its
//! allocator (the libraries leave that choice to their users): built with
//! its `override` feature, mimalloc is the process's `malloc`, which std's
//! `System` allocator calls (mimalloc's plain entry points, where
//! `mimalloc::MiMalloc` always takes its aligned ones).

mod cli;
mod output;

// Links mimalloc, whose `malloc`, `realloc` and `free` replace libc's.
use mimalloc as _;

#[global_allocator]
static ALLOCATOR: std::alloc::System = std::alloc::System;

fn main() {
    std::process::exit(cli::main());
}
