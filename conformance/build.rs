//! Bundles the conformance suite into the crate: every file under
//! `cases/` becomes an entry of a table (`include_bytes!` of its absolute
//! path at build time), so `spy-interp conformance` finds the suite
//! wherever its binary is installed, not only in this checkout.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("conformance/cases is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "spy" || e == "snap") {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("cases");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    // Sorted as strings: the crate looks entries up by binary search.
    let mut entries: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).expect("under cases/");
            (rel.to_string_lossy().replace('\\', "/"), p.display().to_string())
        })
        .collect();
    entries.sort();
    let mut table = String::from("&[\n");
    for (rel, path) in &entries {
        let _ = writeln!(table, "    ({rel:?}, include_bytes!({path:?})),");
    }
    table.push(']');
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("bundled_cases.rs");
    std::fs::write(out, table).expect("write the bundled-case table");
}
