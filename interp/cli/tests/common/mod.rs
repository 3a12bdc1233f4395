//! Set-up shared by the tests that run the real benchmark programs of
//! `bench/jit/` through the `spy-interp` binary cargo built.

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The stdout of `spy-interp ARGS FILE`, which must exit with 0 (the
/// failure shows the arguments, stderr and stdout). Not every test binary
/// that includes this module runs the binary this way.
#[allow(dead_code)]
pub fn run(args: &[&str], file: &Path) -> String {
    let out = Command::new(binary())
        .args(args)
        .arg(file)
        .output()
        .expect("spawn spy-interp");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}
