//! The jit engine's one list of programs it does not run natively yet: the
//! table of `spec/17-jit.md` §"Not yet native" (conformance cases by name,
//! spec examples as `<chapter>:<line>`), each with the construct the
//! lowering reports (`NotNative::what`). A jit outcome is checked against
//! it both ways: a program that is not native must be listed with that
//! reason, and a listed one must still not be native, so the list is
//! exactly the gap and shrinks as the JIT grows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use spy_interp::engine::Outcome;

/// The first line of the table; rows follow until the first non-row line.
const TABLE_HEADER: &str = "| program | what the JIT cannot compile yet |";

/// The chapter with the list.
pub fn spec_chapter() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/17-jit.md")
}

/// The listed programs and their reasons.
#[derive(Clone, Debug, Default)]
pub struct NotYetNative {
    pub entries: BTreeMap<String, String>,
}

impl NotYetNative {
    /// Parse the table out of the chapter's text.
    pub fn parse(text: &str) -> Result<NotYetNative, String> {
        let mut lines = text.lines().skip_while(|l| l.trim() != TABLE_HEADER);
        if lines.next().is_none() {
            return Err(format!("spec/17-jit.md has no table starting `{TABLE_HEADER}`"));
        }
        let mut entries = BTreeMap::new();
        for line in lines.skip(1) {
            let Some(row) = line.trim().strip_prefix('|').and_then(|r| r.strip_suffix('|')) else {
                break;
            };
            let Some((program, reason)) = row.split_once(" | ") else {
                return Err(format!("spec/17-jit.md: a row needs two cells: {line}"));
            };
            let program = program.trim().trim_matches('`').to_string();
            let reason = unescape(reason.trim());
            if entries.insert(program.clone(), reason).is_some() {
                return Err(format!("spec/17-jit.md lists `{program}` twice"));
            }
        }
        Ok(NotYetNative { entries })
    }

    /// The bundled list (read once).
    pub fn bundled() -> Result<&'static NotYetNative, String> {
        static LIST: OnceLock<Result<NotYetNative, String>> = OnceLock::new();
        LIST.get_or_init(|| {
            let path = spec_chapter();
            let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            NotYetNative::parse(&text)
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// Check a jit outcome of `program` against the list: `Ok(true)` if it
    /// ran natively (compare it as usual), `Ok(false)` if it is listed and
    /// still not native, `Err` otherwise.
    pub fn check(&self, program: &str, outcome: &Outcome) -> Result<bool, String> {
        match (&outcome.not_native, self.entries.get(program)) {
            (None, None) => Ok(true),
            (Some(why), Some(reason)) if why.what() == reason => Ok(false),
            (Some(why), Some(reason)) => Err(format!(
                "spec/17-jit.md lists `{program}` as not native because of `{reason}`, but now: {why}"
            )),
            (Some(why), None) => Err(format!(
                "the jit engine cannot run `{program}` natively and spec/17-jit.md does not list it: {why}"
            )),
            (None, Some(_)) => Err(format!(
                "`{program}` runs natively now: remove it from spec/17-jit.md §\"Not yet native\""
            )),
        }
    }
}

/// Table cells escape `|` as `\|`.
fn unescape(cell: &str) -> String {
    cell.replace("\\|", "|")
}

/// A table cell for `text`.
pub fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_read_until_its_last_row() {
        let text = format!(
            "# 17\n\n{TABLE_HEADER}\n|---|---|\n| `int/pow` | a value of type `list[i32]` |\n| `spec/03:12` | a \\| b |\n\nafter\n| `x` | y |\n"
        );
        let l = NotYetNative::parse(&text).unwrap();
        assert_eq!(l.entries.len(), 2);
        assert_eq!(l.entries["int/pow"], "a value of type `list[i32]`");
        assert_eq!(l.entries["spec/03:12"], "a | b");
        assert!(NotYetNative::parse("no table").is_err());
    }

    #[test]
    fn the_bundled_list_parses() {
        NotYetNative::bundled().unwrap();
    }
}
