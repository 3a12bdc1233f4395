//! `spy-interp explain`: one self-contained HTML page (no network needed)
//! showing what a program means: the source colored blue/red by redshift,
//! the residual module beside it, the provenance links between them (each
//! specialization to its `def` and to the blue calls that made it, with
//! their arguments; each inlined call, resolved metafunc call, unrolled
//! loop and splice to its source), and the JIT's IR and machine code per
//! function. A legend, collapsible sections and a search box make it
//! readable without knowing the CLI.
//!
//! Element ids the page guarantees (tests rely on them): `src-L<n>` (a
//! source line), `src-E<start>-<end>` (a colored expression, byte range),
//! `res-L<n>` (a residual line); every provenance link is an `a.prov`
//! whose `href` is one of those ids. The page's script marks each link's
//! target with the class `prov-target` when it loads.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::text::html;
use super::{Inspection, Site};
use crate::backend::Marked;
use crate::source::TextRange;

const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 0 1em 2em; color: #222; }
header { position: sticky; top: 0; background: #fff; padding: .5em 0; border-bottom: 1px solid #ccc; z-index: 2; }
h1 { font-size: 1.3em; margin: .2em 0; }
#search { width: 24em; font-size: 1em; }
.panes { display: flex; gap: 1em; align-items: flex-start; }
.panes > section { flex: 1; min-width: 0; }
pre.code { background: #fafafa; border: 1px solid #ddd; padding: .5em; overflow-x: auto; font-size: 13px; line-height: 1.45; }
.line { display: flex; }
.tx { white-space: pre-wrap; flex: 1; min-width: 0; }
.ln { flex: none; width: 3.5em; color: #999; user-select: none; }
.expr.blue { color: #1a56db; }
.expr.red { color: #c81e1e; }
.expr.mixed { color: #9333ea; }
.line.comment { color: #666; font-style: italic; }
a.prov, span.prov { font-size: 11px; margin-left: .6em; color: #047857; text-decoration: none; border: 1px solid #a7f3d0; border-radius: 3px; padding: 0 .3em; }
.prov-target { outline: 1px dashed #047857; }
.hit { background: #fde68a; }
:target, .flash { background: #d1fae5; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #ddd; padding: .2em .5em; vertical-align: top; text-align: left; }
.legend span { margin-right: 1.5em; }
details { margin: .6em 0; }
summary { cursor: pointer; font-weight: 600; }
"#;

const SCRIPT: &str = r#"
(function () {
  // Mark every provenance link's target, and let a click on a target list
  // the residual lines that point at it.
  var back = {};
  document.querySelectorAll('a.prov').forEach(function (a) {
    var id = a.getAttribute('href').slice(1);
    var t = document.getElementById(id);
    if (!t) { a.classList.add('broken'); return; }
    t.classList.add('prov-target');
    (back[id] = back[id] || []).push(a);
  });
  Object.keys(back).forEach(function (id) {
    var t = document.getElementById(id);
    t.title = (t.title ? t.title + '\n' : '') + back[id].length + ' provenance link(s) point here';
  });
  // Search: highlight the lines of both panes that contain the text.
  var box = document.getElementById('search'), count = document.getElementById('search-count');
  box.addEventListener('input', function () {
    var q = box.value.toLowerCase(), n = 0;
    document.querySelectorAll('.line').forEach(function (l) {
      var hit = q.length > 0 && l.textContent.toLowerCase().indexOf(q) >= 0;
      l.classList.toggle('hit', hit);
      if (hit) n++;
    });
    count.textContent = q ? n + ' line(s)' : '';
  });
  document.body.setAttribute('data-ready', 'yes');
})();
"#;

/// The page for `ins` (its JIT section from `ins.jit`).
pub fn render_page(ins: &Inspection) -> String {
    let file = &ins.file;
    let exprs: HashSet<(u32, u32)> = ins.colored.iter().map(|c| (c.range.start, c.range.end)).collect();
    // Where a source range links: its expression if it is one, else its line.
    let anchor = |path: &str, range: TextRange| -> Option<String> {
        if path != file.path || range.end as usize > file.len() || range.start > range.end {
            return None;
        }
        Some(if exprs.contains(&(range.start, range.end)) {
            format!("src-E{}-{}", range.start, range.end)
        } else {
            format!("src-L{}", file.line_col(range.start).line)
        })
    };
    let link = |path: &str, range: TextRange, label: &str| -> String {
        match anchor(path, range) {
            Some(id) => format!("<a class=\"prov\" href=\"#{id}\">{}</a>", html(label)),
            None => format!("<span class=\"prov-elsewhere\">({})</span>", html(label)),
        }
    };
    let mut out = String::new();
    let title = format!("explain: {}", file.path);
    let _ = writeln!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>",
        html(&title)
    );
    let _ = writeln!(
        out,
        "<header><h1>What <code>{}</code> means</h1><input id=\"search\" type=\"search\" placeholder=\"Search the source and the residual module\"> <span id=\"search-count\"></span></header>",
        html(&file.path)
    );
    out.push_str(concat!(
        "<details open class=\"legend\" id=\"legend\"><summary>Legend</summary><p>",
        "<span class=\"expr blue\">blue</span> computed while redshifting (a constant in the residual code) ",
        "<span class=\"expr red\">red</span> computed when the program runs ",
        "<span class=\"expr mixed\">mixed</span> blue in one specialization, red in another ",
        "<span class=\"prov\">source</span> a provenance link: where a residual line comes from</p>",
        "<p>Hover an expression for its static type. The residual module is what the doppler and jit engines run; ",
        "every <code>#</code> comment in it is provenance recorded by redshift.</p></details>\n"
    ));

    // The source, each expression in its color (nested spans).
    out.push_str("<main class=\"panes\"><section id=\"source-pane\"><h2>Source</h2><pre class=\"code\">");
    let mut opens: Vec<usize> = Vec::new();
    let mut next = 0usize;
    let text = file.text();
    let mut line_no = 1u32;
    let line_open = |out: &mut String, n: u32| {
        let _ = write!(
            out,
            "<div class=\"line\" id=\"src-L{n}\"><span class=\"ln\">{n}</span><span class=\"tx\">"
        );
    };
    line_open(&mut out, line_no);
    for (i, ch) in text.char_indices() {
        let i = i as u32;
        while let Some(&k) = opens.last() {
            if ins.colored[k].range.end <= i {
                out.push_str("</span>");
                opens.pop();
            } else {
                break;
            }
        }
        if ch == '\n' {
            // spans do not cross lines: close and reopen them around it
            for _ in &opens {
                out.push_str("</span>");
            }
            out.push_str("</span></div>");
            line_no += 1;
            line_open(&mut out, line_no);
            for &k in &opens {
                out.push_str(&span_open(ins, k, false));
            }
            continue;
        }
        while next < ins.colored.len() && ins.colored[next].range.start <= i {
            let c = &ins.colored[next];
            // an expression that would cross its parent's end is not nested: skip
            let nested = opens
                .last()
                .is_none_or(|&p| c.range.end <= ins.colored[p].range.end);
            if c.range.start == i && nested {
                out.push_str(&span_open(ins, next, true));
                opens.push(next);
            }
            next += 1;
        }
        if ch != '\r' {
            out.push_str(&html(ch.encode_utf8(&mut [0; 4])));
        }
    }
    for _ in &opens {
        out.push_str("</span>");
    }
    out.push_str("</span></div></pre></section>\n");

    // The residual module, with a link on every line that has provenance.
    out.push_str("<section id=\"residual-pane\"><h2>Residual module</h2><pre class=\"code\">");
    let mut marks = ins.marks.iter().peekable();
    for (n, line) in ins.residual.lines().enumerate() {
        let mut links = String::new();
        while let Some(m) = marks.next_if(|m| m.line == n) {
            match &m.what {
                Marked::Comment(range)
                    if !ins.foreign_notes.contains(range) && *range != TextRange::default() =>
                {
                    links.push_str(&link(&file.path, *range, "source"));
                }
                Marked::Comment(_) => {}
                Marked::Def { name, class } => {
                    if let Some(f) = ins
                        .functions
                        .iter()
                        .find(|f| &f.name == name && &f.class == class)
                    {
                        links.push_str(&link(&f.def_path, f.def_range, "def"));
                        for (k, site) in f.made_by.iter().enumerate() {
                            links.push_str(&link(&site.path, site.range, &format!("made by call {}", k + 1)));
                        }
                    }
                }
            }
        }
        let class = if line.trim_start().starts_with('#') {
            "line comment"
        } else {
            "line"
        };
        let _ = write!(
            out,
            "<div class=\"{class}\" id=\"res-L{}\"><span class=\"ln\">{}</span><span class=\"tx\">{}{links}</span></div>",
            n + 1,
            n + 1,
            html(line)
        );
    }
    out.push_str("</pre></section></main>\n");

    // Provenance, function by function.
    out.push_str("<details open id=\"provenance\"><summary>Where each residual function comes from</summary><table><tr><th>residual function</th><th>shifted from</th><th>made by blue calls (innermost first)</th></tr>\n");
    for f in &ins.functions {
        let res_line = ins.marks.iter().find_map(|m| match &m.what {
            Marked::Def { name, class } if name == &f.name && class == &f.class => Some(m.line + 1),
            _ => None,
        });
        let name = match &f.class {
            Some(c) => format!("{c}.{}", f.name),
            None => f.name.clone(),
        };
        let res = match res_line {
            Some(l) => format!("<a class=\"prov\" href=\"#res-L{l}\">{}</a>", html(&name)),
            None => html(&name),
        };
        let mut sites = String::new();
        for s in &f.made_by {
            sites.push_str(&site_item(s, &link));
        }
        let inline = if f.force_inline { " (@force_inline)" } else { "" };
        let _ = writeln!(
            out,
            "<tr><td>{res}<br><code>{}</code>{inline}</td><td>{}</td><td><ul>{sites}</ul></td></tr>",
            html(&f.fqn),
            link(&f.def_path, f.def_range, &location(ins, &f.def_path, f.def_range)),
        );
    }
    out.push_str("</table></details>\n");

    // The JIT's view.
    out.push_str(
        "<details id=\"jit\"><summary>What the JIT makes of it: IR and x86-64 machine code</summary>\n",
    );
    match &ins.jit {
        None => out.push_str("<p>(not asked for)</p>\n"),
        Some(Err(why)) => {
            let _ = writeln!(out, "<p class=\"not-native\">Not native: {}</p>", html(why));
        }
        Some(Ok(dumps)) => {
            for d in dumps {
                let _ = writeln!(
                    out,
                    "<details class=\"jit-function\"><summary><code>{}</code></summary><h4>typed IR</h4><pre>{}</pre><h4>machine code</h4><pre>{}</pre></details>",
                    html(&d.name),
                    html(&d.ir),
                    html(d.machine_code.as_deref().unwrap_or("(no x86-64 backend on this host)"))
                );
            }
        }
    }
    out.push_str("</details>\n");
    if !ins.blue_stdout.is_empty() {
        let _ = writeln!(
            out,
            "<details id=\"blue-output\"><summary>What blue code printed while redshifting</summary><pre>{}</pre></details>",
            html(&ins.blue_stdout)
        );
    }
    let _ = writeln!(out, "<script>{SCRIPT}</script></body></html>");
    out
}

fn span_open(ins: &Inspection, k: usize, with_id: bool) -> String {
    let c = &ins.colored[k];
    let types = c.types.join(" | ");
    let id = if with_id {
        format!(" id=\"src-E{}-{}\"", c.range.start, c.range.end)
    } else {
        String::new()
    };
    format!(
        "<span class=\"expr {}\"{id} data-type=\"{}\" title=\"{} · {}\">",
        c.shade.name(),
        html(&types),
        c.shade.name(),
        html(&types)
    )
}

fn site_item(s: &Site, link: &dyn Fn(&str, TextRange, &str) -> String) -> String {
    format!("<li>{} {}</li>", html(&s.text), link(&s.path, s.range, "call"))
}

fn location(ins: &Inspection, path: &str, range: TextRange) -> String {
    if path == ins.file.path && range.start as usize <= ins.file.len() {
        ins.file.location(range.start)
    } else {
        path.to_string()
    }
}
