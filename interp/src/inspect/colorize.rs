//! `spy-interp colorize`: the source with every expression's color after
//! redshift (upstream's `spy colorize`). Three renderings of one
//! [`Inspection`]:
//! - ANSI: each character in the color of the innermost expression around
//!   it (blue, red; magenta for an expression blue in one specialization
//!   and red in another);
//! - plain (not a terminal, or `NO_COLOR`): each source line, and under it
//!   a marker line with `b`, `r` or `m` under each non-blank character of
//!   an expression (the innermost one);
//! - JSON, for tools: one record per expression (span, color, static type;
//!   schema in `spec/schemas/colorize.schema.json`).

use std::fmt::Write as _;

use super::text::json_str;
use super::{innermost, Inspection, Shade};

/// How `colorize` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Ansi,
    Plain,
}

fn ansi(shade: Shade) -> &'static str {
    match shade {
        Shade::Blue => "\x1b[34m",
        Shade::Red => "\x1b[31m",
        Shade::Mixed => "\x1b[35m",
    }
}

fn marker(shade: Shade) -> char {
    match shade {
        Shade::Blue => 'b',
        Shade::Red => 'r',
        Shade::Mixed => 'm',
    }
}

/// The source in colors (`Style::Ansi`) or with marker lines.
pub fn render_text(ins: &Inspection, style: Style) -> String {
    let text = ins.file.text();
    let at = innermost(text, &ins.colored);
    let mut out = String::with_capacity(text.len() * 2);
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        match style {
            Style::Ansi => {
                let mut current: Option<Shade> = None;
                for (i, c) in body.char_indices() {
                    let shade = at.get(offset + i).map(|k| ins.colored[k].shade);
                    if shade != current {
                        out.push_str(shade.map_or("\x1b[0m", ansi));
                        current = shade;
                    }
                    out.push(c);
                }
                if current.is_some() {
                    out.push_str("\x1b[0m");
                }
                out.push('\n');
            }
            Style::Plain => {
                out.push_str(body);
                out.push('\n');
                let mut marks = String::new();
                for (i, c) in body.char_indices() {
                    // whitespace (inside a multi-line expression too) is not marked
                    marks.push(match at.get(offset + i) {
                        _ if c == '\t' => '\t',
                        _ if c.is_whitespace() => ' ',
                        Some(k) => marker(ins.colored[k].shade),
                        None => ' ',
                    });
                }
                let marks = marks.trim_end();
                if !marks.is_empty() {
                    out.push_str(marks);
                    out.push('\n');
                }
            }
        }
        offset += line.len();
    }
    if style == Style::Plain {
        out.push_str("(b: blue, r: red, m: blue in one specialization and red in another)\n");
    }
    out
}

/// The colors as JSON: `{"file": ..., "expressions": [{"start": {...},
/// "end": {...}, "text": ..., "color": ..., "type": ...}, ...]}`, one
/// expression a line.
pub fn render_json(ins: &Inspection) -> String {
    let file = &ins.file;
    let mut out = String::new();
    let _ = write!(out, "{{\"file\": {}, \"expressions\": [", json_str(&file.path));
    for (k, c) in ins.colored.iter().enumerate() {
        out.push_str(if k == 0 { "\n  " } else { ",\n  " });
        let pos = |offset: u32| {
            let lc = file.line_col(offset);
            format!(
                "{{\"line\": {}, \"col\": {}, \"offset\": {offset}}}",
                lc.line, lc.col
            )
        };
        let _ = write!(
            out,
            "{{\"start\": {}, \"end\": {}, \"text\": {}, \"color\": \"{}\", \"type\": {}}}",
            pos(c.range.start),
            pos(c.range.end),
            json_str(file.slice(c.range)),
            c.shade.name(),
            json_str(&c.types.join(" | "))
        );
    }
    out.push_str(if ins.colored.is_empty() { "]}\n" } else { "\n]}\n" });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frames::Limits;

    const SRC: &str = "def f(x: i32) -> i32:\n    return x + 1\n\ndef main() -> None:\n    print(f(2))\n";

    #[test]
    fn ansi_colors_the_innermost_expression() {
        let ins = super::super::inspect("t.spy", SRC.as_bytes(), Limits::default(), false).unwrap();
        let shown = render_text(&ins, Style::Ansi);
        // `x + 1`: `x` red, ` + ` red (the BinOp), `1` blue, then reset
        assert!(
            shown.contains("    return \x1b[31mx + \x1b[34m1\x1b[0m\n"),
            "{shown:?}"
        );
        assert!(!shown.contains("(b: blue"), "no legend in colors");
    }

    #[test]
    fn plain_markers_and_json_agree() {
        let ins = super::super::inspect("t.spy", SRC.as_bytes(), Limits::default(), false).unwrap();
        let plain = render_text(&ins, Style::Plain);
        assert!(plain.contains("    return x + 1\n           r r b\n"), "{plain}");
        let json = render_json(&ins);
        assert!(
            json.contains("\"text\": \"x + 1\", \"color\": \"red\", \"type\": \"i32\""),
            "{json}"
        );
        assert!(
            json.contains("\"text\": \"1\", \"color\": \"blue\", \"type\": \"i32\""),
            "{json}"
        );
    }
}
