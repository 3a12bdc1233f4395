//! Wrapping a printed line longer than the width, as a formatter would.
//! A line breaks only inside brackets (implicit line joining), so the
//! wrapped text parses to the same tree: the top-level bracket pair with
//! the most content is opened, its top-level comma-separated items go one
//! a line, one level deeper, and the closing bracket returns to the line's
//! level; an item (or the text after the closing bracket) still too long
//! is wrapped the same way. No trailing comma is added (`(x,)` would be a
//! tuple). A line with no bracket to open stays long.

use crate::syntax::lexer::Lexer;
use crate::syntax::token::Tok;

/// The lines of `text` (printed at `indent` columns) within `width`
/// columns where brackets allow: `(extra levels, text)` pairs.
pub(super) fn wrap(text: &str, indent: usize, width: usize) -> Vec<(usize, String)> {
    let mut toks = Vec::new();
    for t in Lexer::new(text) {
        match t {
            Ok((s, tok, e)) => toks.push((s, tok, e)),
            // not a line the lexer reads alone: leave it as it is
            Err(_) => return vec![(0, text.to_string())],
        }
    }
    let mut out = Vec::new();
    split(text, &toks, (0, text.len()), 0, indent, width, &mut out);
    out
}

fn opens(t: &Tok<'_>) -> bool {
    matches!(t, Tok::Lpar | Tok::Lsqb | Tok::Lbrace)
}

fn closes(t: &Tok<'_>) -> bool {
    matches!(t, Tok::Rpar | Tok::Rsqb | Tok::Rbrace)
}

/// Wrap `text[range]` at `level` levels deeper than `indent`.
fn split(
    text: &str,
    toks: &[(usize, Tok<'_>, usize)],
    range: (usize, usize),
    level: usize,
    indent: usize,
    width: usize,
    out: &mut Vec<(usize, String)>,
) {
    let seg = text[range.0..range.1].trim();
    if indent + 4 * level + seg.chars().count() <= width {
        out.push((level, seg.to_string()));
        return;
    }
    // The top-level bracket pairs of the segment: (index of the opening
    // token, index of the closing one).
    let inside: Vec<usize> = (0..toks.len())
        .filter(|&i| toks[i].0 >= range.0 && toks[i].2 <= range.1)
        .collect();
    let mut depth = 0usize;
    let mut open_at = None;
    let mut best: Option<(usize, usize)> = None;
    for &i in &inside {
        let t = &toks[i].1;
        if opens(t) {
            if depth == 0 {
                open_at = Some(i);
            }
            depth += 1;
        } else if closes(t) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                if let Some(o) = open_at.take() {
                    let content = toks[i].0 - toks[o].2;
                    let better = best.is_none_or(|(bo, bc)| content > toks[bc].0 - toks[bo].2);
                    if content > 0 && i > o + 1 && better {
                        best = Some((o, i));
                    }
                }
            }
        }
    }
    let Some((o, c)) = best else {
        out.push((level, seg.to_string()));
        return;
    };
    let head = text[range.0..toks[o].2].trim_start();
    out.push((level, head.to_string()));
    // the items: split at the commas at depth 0 inside the pair
    let mut items = Vec::new();
    let mut start = toks[o].2;
    let mut depth = 0usize;
    for (s, t, e) in &toks[o + 1..c] {
        if opens(t) {
            depth += 1;
        } else if closes(t) {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && matches!(t, Tok::Comma) {
            items.push((start, *s));
            start = *e;
        }
    }
    items.push((start, toks[c].0));
    let n = items.len();
    for (k, item) in items.into_iter().enumerate() {
        let first = out.len();
        split(text, toks, item, level + 1, indent, width, out);
        if k + 1 < n {
            if let Some(last) = out[first..].last_mut() {
                last.1.push(',');
            }
        }
    }
    split(text, toks, (toks[c].0, range.1), level, indent, width, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str, width: usize) -> String {
        wrap(text, 0, width)
            .into_iter()
            .map(|(l, t)| format!("{}{t}\n", "    ".repeat(l)))
            .collect()
    }

    #[test]
    fn short_lines_stay() {
        assert_eq!(lines("print(f(1, 2))", 100), "print(f(1, 2))\n");
    }

    #[test]
    fn the_widest_bracket_opens_and_items_nest() {
        assert_eq!(
            lines(
                "x: gc_ptr[f64] = `add[i32, i32]`(alpha + beta, g(gamma, delta), epsilon)",
                30
            ),
            "x: gc_ptr[f64] = `add[i32, i32]`(\n    alpha + beta,\n    g(gamma, delta),\n    epsilon\n)\n"
        );
        assert_eq!(
            lines("return f(aaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb(ccccccccc, dddddddd))", 40),
            "return f(\n    aaaaaaaaaa,\n    bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb(\n        ccccccccc,\n        dddddddd\n    )\n)\n"
        );
    }

    #[test]
    fn no_bracket_no_break() {
        let long = "x = aaaaaaaaaaaaaaaaaaaa + bbbbbbbbbbbbbbbbbbbbbbbbbb";
        assert_eq!(lines(long, 20), format!("{long}\n"));
    }
}
