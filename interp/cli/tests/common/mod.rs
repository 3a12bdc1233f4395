//! Set-up shared by the tests that run the real benchmark programs of
//! `bench/jit/` through the `spy-interp` binary cargo built.

use std::path::PathBuf;

pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_spy-interp"))
}

/// `bench/jit/<name>.spy` with `SIZE` replaced by `size`, written to a
/// scratch directory of this test process; the path of the copy.
pub fn bench_program(name: &str, size: u32) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../bench/jit/{name}.spy"));
    let src = std::fs::read_to_string(&root).unwrap_or_else(|e| panic!("read {name}.spy: {e}"));
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-bench-{name}-{}-{size}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{name}.spy"));
    std::fs::write(&path, src.replace("SIZE", &size.to_string())).expect("write");
    path
}
