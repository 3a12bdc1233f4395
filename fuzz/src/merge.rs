//! `spy-interp fuzz-merge DIR... --out DIR`: the findings directories of
//! several campaigns (the shards of one, `--shard i/n`, on several
//! machines) merged into one without duplicates. A finding file's class is
//! the one the campaign deduplicates with (`dedup::class_key`: engines,
//! divergence kind, class of the first differing line, from the file's
//! `# Fuzz finding` header, and the reproducer's shape); one file is kept
//! per class, the first in the order the directories are given (files of a
//! directory by name), with its `.snap`. The `unreduced.txt` lists are
//! concatenated without repeated lines.

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

use crate::campaign::UNREDUCED_FILE;
use crate::dedup::class_key_of;

/// What a merge did.
#[derive(Debug, Default)]
pub struct Merged {
    /// Finding files written to the output directory.
    pub kept: Vec<PathBuf>,
    /// Finding files of a class already kept (not copied), with the kept one.
    pub duplicates: Vec<(PathBuf, PathBuf)>,
    /// `.spy` files without a finding header (not copied).
    pub skipped: Vec<PathBuf>,
}

/// The class of a finding file's text (`None`: no `# Fuzz finding` header).
pub fn file_class(text: &str) -> Option<String> {
    let mut header = vec![];
    let mut body = String::new();
    let mut in_header = true;
    for line in text.lines() {
        match line.strip_prefix("# ") {
            Some(h) if in_header => header.push(h),
            _ => {
                in_header = false;
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    // `Fuzz finding [ENGINES] KIND: LINE` (LINE may go on over more
    // header lines, up to `replay:` / `reduced from`).
    let first = header.first()?.strip_prefix("Fuzz finding [")?;
    let (engines, rest) = first.split_once("] ")?;
    let (kind, line) = rest.split_once(": ")?;
    let mut line = line.to_string();
    for h in &header[1..] {
        if h.starts_with("replay:") || h.starts_with("run:") || h.starts_with("reduced from") {
            break;
        }
        line.push('\n');
        line.push_str(h);
    }
    Some(class_key_of(engines, kind, &line, &body))
}

fn spy_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<io::Result<_>>()?;
    v.retain(|p| p.extension().is_some_and(|x| x == "spy"));
    v.sort();
    Ok(v)
}

/// Merge `dirs` into `out` (which may be one of them, or hold findings
/// already: those count as kept first).
pub fn merge(dirs: &[PathBuf], out: &Path) -> io::Result<Merged> {
    std::fs::create_dir_all(out)?;
    let mut m = Merged::default();
    let mut classes: std::collections::BTreeMap<String, PathBuf> = Default::default();
    for p in spy_files(out)? {
        if let Some(k) = file_class(&std::fs::read_to_string(&p)?) {
            classes.entry(k).or_insert(p);
        }
    }
    let out_canon = out.canonicalize()?;
    let mut unreduced: Vec<String> = match std::fs::read_to_string(out.join(UNREDUCED_FILE)) {
        Ok(t) => t.lines().map(str::to_string).collect(),
        Err(_) => vec![],
    };
    let mut seen_lines: BTreeSet<String> = unreduced.iter().cloned().collect();
    for dir in dirs {
        let same = dir.canonicalize()? == out_canon;
        for p in spy_files(dir)? {
            let text = std::fs::read_to_string(&p)?;
            let Some(key) = file_class(&text) else {
                m.skipped.push(p);
                continue;
            };
            if let Some(kept) = classes.get(&key) {
                if *kept != p {
                    m.duplicates.push((p, kept.clone()));
                }
                continue;
            }
            let dest = if same { p.clone() } else { free_name(out, &p)? };
            if !same {
                std::fs::write(&dest, &text)?;
                let snap = p.with_extension("snap");
                if snap.exists() {
                    std::fs::copy(&snap, dest.with_extension("snap"))?;
                }
            }
            classes.insert(key, dest.clone());
            m.kept.push(dest);
        }
        if let Ok(t) = std::fs::read_to_string(dir.join(UNREDUCED_FILE)) {
            for l in t.lines() {
                if seen_lines.insert(l.to_string()) {
                    unreduced.push(l.to_string());
                }
            }
        }
    }
    if !unreduced.is_empty() {
        std::fs::write(out.join(UNREDUCED_FILE), unreduced.join("\n") + "\n")?;
    }
    Ok(m)
}

/// `out/<name of p>`, or `out/<stem>_2.spy`, ... if that is taken (two
/// classes of one signature: same name, different reproducer shapes).
fn free_name(out: &Path, p: &Path) -> io::Result<PathBuf> {
    let name = p.file_name().ok_or_else(|| io::Error::other("no file name"))?;
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("finding");
    let mut dest = out.join(name);
    let mut n = 2;
    while dest.exists() {
        dest = out.join(format!("{stem}_{n}.spy"));
        n += 1;
    }
    Ok(dest)
}

/// `spy-interp fuzz-merge`: the exit code (0, or 2 when a directory cannot
/// be read or `out` written).
pub fn main(dirs: &[PathBuf], out_dir: &Path, out: &mut dyn io::Write) -> io::Result<i32> {
    match merge(dirs, out_dir) {
        Ok(m) => {
            for (dup, kept) in &m.duplicates {
                writeln!(
                    out,
                    "duplicate: {} (same class as {})",
                    dup.display(),
                    kept.display()
                )?;
            }
            for s in &m.skipped {
                writeln!(out, "skipped: {} (no `# Fuzz finding` header)", s.display())?;
            }
            writeln!(
                out,
                "{} finding(s) copied to {}, {} duplicate(s) left out",
                m.kept.len(),
                out_dir.display(),
                m.duplicates.len()
            )?;
            Ok(0)
        }
        Err(e) => {
            eprintln!("error: fuzz-merge into {}: {e}", out_dir.display());
            Ok(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(dir: &Path, name: &str, line: &str, body: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let text = format!(
            "# Fuzz finding [interp/jit] stdout: {line}\n# replay: spy-interp fuzz --seed 1 --case 2\n{body}"
        );
        std::fs::write(dir.join(format!("{name}.spy")), text).unwrap();
        std::fs::write(dir.join(format!("{name}.snap")), "stdout\n").unwrap();
    }

    #[test]
    fn shards_merge_without_duplicates() {
        let root = std::env::temp_dir().join(format!("spy-fuzz-merge-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let (a, b, out) = (root.join("a"), root.join("b"), root.join("out"));
        let main_of = |e: &str| format!("def main() -> None:\n    print({e})\n");
        // Same class on both shards (other names and constants).
        finding(&a, "fuzz_x", "N ≠ N", &main_of("-7 // 2"));
        finding(&b, "fuzz_y", "N ≠ N", &main_of("9 // -4"));
        // Another shape, another line class, a float sign: three more classes.
        finding(&b, "fuzz_x", "N ≠ N", &main_of("-7 % 2"));
        finding(&b, "fuzz_z", "True ≠ False", &main_of("-7 // 2"));
        finding(&a, "fuzz_w", "N ≠ N", &main_of("-0.0 * 1.0"));
        finding(&b, "fuzz_v", "N ≠ N", &main_of("0.0 * 2.0"));
        std::fs::write(a.join(UNREDUCED_FILE), "spy-interp fuzz --seed 1 --case 9\n").unwrap();
        std::fs::write(
            b.join(UNREDUCED_FILE),
            "spy-interp fuzz --seed 1 --case 9\nspy-interp fuzz --seed 1 --case 10\n",
        )
        .unwrap();
        let m = merge(&[a.clone(), b.clone()], &out).unwrap();
        assert_eq!(m.kept.len(), 5, "{m:?}");
        assert_eq!(m.duplicates.len(), 1, "{m:?}");
        assert_eq!(m.duplicates[0].0, b.join("fuzz_y.spy"));
        // Two classes of one file name: both kept, the second renamed.
        assert!(out.join("fuzz_x.spy").exists() && out.join("fuzz_x_2.spy").exists());
        assert!(out.join("fuzz_x_2.snap").exists());
        assert_eq!(
            std::fs::read_to_string(out.join(UNREDUCED_FILE))
                .unwrap()
                .lines()
                .count(),
            2
        );
        // Merging again adds nothing.
        let again = merge(&[a, b], &out).unwrap();
        assert!(again.kept.is_empty(), "{again:?}");
        assert_eq!(again.duplicates.len(), 6);
        let _ = std::fs::remove_dir_all(&root);
    }
}
