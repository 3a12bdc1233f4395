//! Rendering of SPy errors for humans: the SPy traceback (one entry per
//! active frame, outermost first) followed by an ariadne report whose header
//! is exactly the stable `Kind: message` line, with `file:line:col`, the
//! source excerpt and an underline for every annotation.
//!
//! Output is plain ASCII without colors, so it is byte-stable in snapshots.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind};

use crate::error::{Level, SpyError};

/// Render `err` as the full text written to stderr.
pub fn render(err: &SpyError) -> String {
    let mut out = String::new();
    if !err.traceback.is_empty() {
        out.push_str("Traceback (most recent call last):\n");
        for entry in &err.traceback {
            let lc = entry.file.line_col(entry.range.start);
            let _ = writeln!(
                out,
                "  * {} at {}:{}:{}",
                entry.name, entry.file.path, lc.line, lc.col
            );
            let line = entry.file.line_index(entry.range.start);
            let _ = writeln!(out, "  |     {}", entry.file.line_text(line).trim_start());
        }
    }
    if err.annotations.is_empty() {
        let _ = writeln!(out, "{}", err.headline());
        return out;
    }
    out.push_str(&render_report(err));
    out
}

fn render_report(err: &SpyError) -> String {
    let config = Config::default()
        .with_color(false)
        .with_char_set(CharSet::Ascii)
        .with_index_type(IndexType::Byte)
        .with_compact(false);
    let primary = &err.annotations[0];
    let span = |a: &crate::error::Annotation| {
        let len = a.file.text.len();
        let start = (a.range.start as usize).min(len);
        let end = (a.range.end as usize).clamp(start, len);
        (a.file.path.clone(), start..end)
    };
    let mut report = Report::build(
        ReportKind::Custom(err.kind.name(), ariadne::Color::Red),
        span(primary),
    )
    .with_config(config)
    .with_message(&err.message);
    for (order, a) in err.annotations.iter().enumerate() {
        let mut label = Label::new(span(a)).with_order(order as i32);
        if !a.message.is_empty() {
            label = label.with_message(&a.message);
        }
        if a.level == Level::Note {
            label = label.with_priority(-1);
        }
        report = report.with_label(label);
    }
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    for a in &err.annotations {
        files
            .entry(a.file.path.clone())
            .or_insert_with(|| a.file.text.clone());
    }
    let mut buf = Vec::new();
    let written = report.finish().write(ariadne::sources(files), &mut buf);
    match written {
        Ok(()) => strip_ansi(&String::from_utf8_lossy(&buf)),
        // ariadne only fails on I/O errors of the writer, which a Vec never
        // produces; keep the stable line anyway.
        Err(_) => format!("{}\n", err.headline()),
    }
}

/// ariadne colors the report kind even when colors are off; drop every
/// `ESC [ ... m` sequence so the output is plain text.
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{ExcKind, SpyError};
    use crate::source::{SourceFile, TextRange};

    #[test]
    fn report_header_is_the_stable_line() {
        let f = SourceFile::new("t.spy", "def main() -> None:\n    x = 1 + \"a\"\n");
        let err = SpyError::new(ExcKind::TypeError, "cannot do `i32` + `str`")
            .with_error(&f, TextRange::new(28, 29), "this is `i32`")
            .with_error(&f, TextRange::new(32, 35), "this is `str`");
        let text = render(&err);
        assert!(
            text.lines().any(|l| l == "TypeError: cannot do `i32` + `str`"),
            "{text}"
        );
        assert!(text.contains("t.spy:2:9"), "{text}");
        assert!(text.contains("x = 1 + \"a\""), "{text}");
    }
}
