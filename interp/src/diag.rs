//! Rendering of SPy errors for humans: the SPy traceback (one entry per
//! active frame, outermost first; a run of identical entries, as deep
//! recursion makes, is shown three times and then counted, as CPython
//! does) followed by an ariadne report whose header is exactly the stable
//! `Kind: message` line, with `file:line:col`, the source excerpt and an
//! underline for every annotation. Source lines longer than
//! [`MAX_LINE_CHARS`] are cut around the annotated span (`...` marks a
//! cut), so a huge line is never echoed whole. The error's notes (the
//! blue calls it came out of) follow the report, one `note:` line each.
//!
//! Output is plain ASCII without colors, so it is byte-stable in snapshots.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::rc::Rc;

use ariadne::{CharSet, Config, IndexType, Label, Report, ReportKind};

use crate::error::{Level, SpyError, TraceEntry};
use crate::source::SourceFile;

/// Longest source line echoed whole, in bytes.
pub const MAX_LINE_CHARS: usize = 160;

/// Bytes of a long line kept before the span it shows.
const CONTEXT_BEFORE: usize = 60;

/// Identical traceback entries shown before the rest are counted.
const REPEATS_SHOWN: usize = 3;

/// Render `err` as the full text written to stderr.
pub fn render(err: &SpyError) -> String {
    let mut out = String::new();
    if !err.traceback.is_empty() {
        out.push_str("Traceback (most recent call last):\n");
        // Stored innermost first; printed outermost first.
        let entries: Vec<&TraceEntry> = err.traceback.iter().rev().collect();
        let mut i = 0;
        while i < entries.len() {
            let same = entries[i..]
                .iter()
                .take_while(|e| same_entry(e, entries[i]))
                .count();
            for e in &entries[i..i + same.min(REPEATS_SHOWN)] {
                trace_entry(&mut out, e);
            }
            if same > REPEATS_SHOWN {
                let more = same - REPEATS_SHOWN;
                let s = if more == 1 { "" } else { "s" };
                let _ = writeln!(out, "  [Previous line repeated {more} more time{s}]");
            }
            i += same;
        }
    }
    if err.annotations.is_empty() {
        let _ = writeln!(out, "{}", err.headline());
    } else {
        out.push_str(&render_report(err));
    }
    for note in &err.notes {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

/// Two traceback entries print the same.
fn same_entry(a: &TraceEntry, b: &TraceEntry) -> bool {
    a.name == b.name && a.range == b.range && Rc::ptr_eq(&a.file, &b.file)
}

fn trace_entry(out: &mut String, entry: &TraceEntry) {
    let lc = entry.file.line_col(entry.range.start);
    let _ = writeln!(
        out,
        "  * {} at {}:{}:{}",
        entry.name, entry.file.path, lc.line, lc.col
    );
    let line = entry.file.line_index(entry.range.start);
    let text = entry.file.line_text(line);
    let at = (entry.range.start as usize).saturating_sub(entry.file.line_start(line));
    let shown = Window::around(text, at, at).cut(text);
    let _ = writeln!(out, "  |     {}", shown.trim_start());
}

/// The part of one long line that is shown: bytes `start..end` of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Window {
    start: usize,
    end: usize,
}

impl Window {
    /// The window of `line` showing bytes `from..to` (clamped to at most
    /// `MAX_LINE_CHARS`), or the whole line when it is short.
    fn around(line: &str, from: usize, to: usize) -> Window {
        if line.len() <= MAX_LINE_CHARS {
            return Window {
                start: 0,
                end: line.len(),
            };
        }
        let mut start = from.min(line.len()).saturating_sub(CONTEXT_BEFORE);
        while !line.is_char_boundary(start) {
            start -= 1;
        }
        let want = to.max(from).min(line.len()) + CONTEXT_BEFORE;
        let mut end = want.min(start + MAX_LINE_CHARS).min(line.len());
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        Window { start, end }
    }

    /// The shown text, with `...` where something was cut.
    fn cut(self, line: &str) -> String {
        let mut s = String::new();
        if self.start > 0 {
            s.push_str("...");
        }
        s.push_str(&line[self.start..self.end]);
        if self.end < line.len() {
            s.push_str("...");
        }
        s
    }

    /// Where byte `at` of the line is in `cut`'s text (clamped).
    fn map(self, at: usize) -> usize {
        let marker = if self.start > 0 { 3 } else { 0 };
        marker + at.clamp(self.start, self.end) - self.start
    }
}

/// A file as the excerpt shows it: every long line cut to a window (around
/// the spans on it); byte offsets map from the file into it.
struct Excerpt {
    text: String,
    /// Per line: its start in the file, its start in `text`, its window.
    lines: Vec<(usize, usize, Window)>,
    file: Rc<SourceFile>,
}

impl Excerpt {
    /// `None` when no line of `file` is long (the file is shown as is).
    fn of(file: &Rc<SourceFile>, spans: &[(usize, usize)]) -> Option<Excerpt> {
        let count = file.line_count();
        if (0..count).all(|l| file.line_text(l).len() <= MAX_LINE_CHARS) {
            return None;
        }
        let mut text = String::with_capacity(file.len().min(1 << 16));
        let mut lines = Vec::with_capacity(count);
        for l in 0..count {
            let start = file.line_start(l);
            let line = file.line_text(l);
            let end = start + line.len();
            let on_line = spans.iter().filter(|(s, _)| (start..=end).contains(s));
            let (from, to) = on_line
                .fold(None, |acc: Option<(usize, usize)>, &(s, e)| {
                    Some(acc.map_or((s, e), |(a, b)| (a.min(s), b.max(e))))
                })
                .map_or((0, 0), |(s, e)| (s - start, e.min(end) - start));
            let window = Window::around(line, from, to);
            lines.push((start, text.len(), window));
            text.push_str(&window.cut(line));
            text.push('\n');
        }
        Some(Excerpt {
            text,
            lines,
            file: file.clone(),
        })
    }

    /// Where byte `offset` of the file is in the excerpt.
    fn map(&self, offset: usize) -> usize {
        let line = self.file.line_index(offset as u32);
        let (start, new_start, window) = self.lines[line];
        new_start + window.map(offset - start)
    }

    /// `path:line:col` of excerpt offset `at` (as ariadne prints it).
    fn excerpt_location(&self, at: usize) -> String {
        let line = self.lines.partition_point(|&(_, s, _)| s <= at) - 1;
        let col = self.text[self.lines[line].1..at].chars().count() + 1;
        format!("{}:{}:{}", self.file.path, line + 1, col)
    }
}

fn render_report(err: &SpyError) -> String {
    let config = Config::default()
        .with_color(false)
        .with_char_set(CharSet::Ascii)
        .with_index_type(IndexType::Byte)
        .with_compact(false);
    let clamp = |a: &crate::error::Annotation| {
        let len = a.file.len();
        let start = (a.range.start as usize).min(len);
        let end = (a.range.end as usize).clamp(start, len);
        (start, end)
    };
    // Files with long lines are shown cut; spans and locations follow.
    let mut excerpts: BTreeMap<String, Option<Excerpt>> = BTreeMap::new();
    for a in &err.annotations {
        if !excerpts.contains_key(&a.file.path) {
            let spans: Vec<(usize, usize)> = err
                .annotations
                .iter()
                .filter(|b| b.file.path == a.file.path)
                .map(clamp)
                .collect();
            excerpts.insert(a.file.path.clone(), Excerpt::of(&a.file, &spans));
        }
    }
    let span = |a: &crate::error::Annotation| {
        let (start, end) = clamp(a);
        match &excerpts[&a.file.path] {
            Some(x) => (a.file.path.clone(), x.map(start)..x.map(end)),
            None => (a.file.path.clone(), start..end),
        }
    };
    let primary = &err.annotations[0];
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
            .or_insert_with(|| match &excerpts[&a.file.path] {
                Some(x) => x.text.clone(),
                None => a.file.text().to_string(),
            });
    }
    let mut buf = Vec::new();
    let written = report.finish().write(ariadne::sources(files), &mut buf);
    let mut text = match written {
        Ok(()) => strip_ansi(&String::from_utf8_lossy(&buf)),
        // ariadne only fails on I/O errors of the writer, which a Vec never
        // produces; keep the stable line anyway.
        Err(_) => return format!("{}\n", err.headline()),
    };
    // The header is `Kind: message`; ariadne writes `Kind: ` for an empty
    // message.
    if let Some(end) = text.find('\n') {
        text.replace_range(..end, &err.headline());
    }
    // ariadne's locations are in the cut text: print the file's own.
    for a in &err.annotations {
        if let Some(x) = &excerpts[&a.file.path] {
            let (start, _) = clamp(a);
            let shown = format!("[ {} ]", x.excerpt_location(x.map(start)));
            let real = format!("[ {} ]", a.file.location(start as u32));
            text = text.replace(&shown, &real);
        }
    }
    text
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
    use crate::error::{ExcKind, SpyError, TraceEntry};
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

    #[test]
    fn an_empty_message_is_the_kind_alone() {
        let f = SourceFile::new("t.spy", "def main() -> None:\n    raise ValueError\n");
        let err =
            SpyError::new(ExcKind::ValueError, "").with_error(&f, TextRange::new(24, 40), "raised here");
        let text = render(&err);
        assert_eq!(text.lines().next(), Some("ValueError"), "{text}");
    }

    #[test]
    fn a_long_line_is_cut_around_the_span() {
        let pad = "x".repeat(400_000);
        let src = format!("def main() -> None:\n    s = \"{pad}\" + 1 + \"{pad}\"\n");
        let at = src.find(" + 1").expect("the operator") as u32 + 1;
        let f = SourceFile::new("t.spy", src.clone());
        let err = SpyError::new(ExcKind::TypeError, "cannot do `str` + `i32`").with_error(
            &f,
            TextRange::new(at, at + 1),
            "here",
        );
        let mut err = err;
        err.traceback.push(TraceEntry {
            name: "t::main".into(),
            file: f.clone(),
            range: TextRange::new(at, at + 1),
        });
        let text = render(&err);
        assert!(
            text.len() < 2_000,
            "{} bytes:\n{}",
            text.len(),
            &text[..2_000.min(text.len())]
        );
        assert!(text.contains("...xxx"), "{text}");
        assert!(text.contains("\" + 1 + \"xxx"), "{text}");
        // The location is the file's, not the cut text's.
        assert!(text.contains(&f.location(at)), "{text}");
    }

    #[test]
    fn repeated_traceback_entries_are_counted() {
        let f = SourceFile::new("t.spy", "def f() -> None:\n    f()\n");
        let mut err = SpyError::new(ExcKind::RecursionError, "maximum recursion depth exceeded");
        for _ in 0..1000 {
            err.traceback.push(TraceEntry {
                name: "t::f".into(),
                file: f.clone(),
                range: TextRange::new(21, 24),
            });
        }
        let text = render(&err);
        assert_eq!(text.matches("* t::f at").count(), 3, "{text}");
        assert!(
            text.contains("  [Previous line repeated 997 more times]\n"),
            "{text}"
        );
    }
}
