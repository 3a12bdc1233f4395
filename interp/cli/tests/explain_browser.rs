//! `spy-interp explain` in a real browser: headless Chromium (Debian's
//! package; `.ci/run` installs it) loads the page of a design example
//! (`conformance/cases/examples/partial.spy`) with its scripts running;
//! the test reads the DOM Chromium dumps after they ran and checks that the
//! colored spans and the provenance links exist and point where they
//! should, then takes a screenshot (kept under `target/tmp/explain/`, a CI
//! artifact, not in git).
//!
//! Without Chromium the test says so loudly and passes, except under
//! `CI=true`, where a missing browser is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLE: &str = "partial";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        for name in ["chromium", "chromium-browser"] {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// Chromium headless, offline, with a fresh profile.
fn headless(browser: &Path, profile: &Path) -> Command {
    let mut c = Command::new(browser);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// The element with `id` in `dom`: its opening tag and its text content.
fn element<'a>(dom: &'a str, id: &str) -> Option<(&'a str, String)> {
    let at = dom.find(&format!(" id=\"{id}\""))?;
    let start = dom[..at].rfind('<')?;
    let tag_end = start + dom[start..].find('>')?;
    let name: String = dom[start + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    // the matching close tag, counting nested elements of the same name
    let (open, close) = (format!("<{name}"), format!("</{name}>"));
    let mut depth = 0usize;
    let mut i = start;
    let end = loop {
        let next_open = dom[i + 1..].find(&open).map(|k| k + i + 1);
        let next_close = dom[i + 1..].find(&close).map(|k| k + i + 1)?;
        match next_open {
            Some(o) if o < next_close => {
                depth += 1;
                i = o;
            }
            _ if depth == 0 => break next_close,
            _ => {
                depth -= 1;
                i = next_close;
            }
        }
    };
    let inner = &dom[tag_end + 1..end];
    let mut text = String::new();
    let mut in_tag = false;
    for c in inner.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    Some((&dom[start..=tag_end], text))
}

/// Every `href="#..."` of an `a.prov` link, with the link's text.
fn prov_links(dom: &str) -> Vec<(String, String)> {
    let mut links = Vec::new();
    let mut rest = dom;
    while let Some(at) = rest.find("<a class=\"prov") {
        rest = &rest[at..];
        let tag_end = rest.find('>').unwrap();
        let tag = &rest[..tag_end];
        let href = tag
            .split("href=\"#")
            .nth(1)
            .and_then(|h| h.split('"').next())
            .unwrap_or("");
        let label_end = rest.find("</a>").unwrap();
        links.push((href.to_string(), rest[tag_end + 1..label_end].to_string()));
        rest = &rest[label_end..];
    }
    links
}

#[test]
fn explain_page_renders_in_chromium_with_colors_and_provenance_links() {
    let Some(browser) = chromium() else {
        let msg = "Chromium is not installed: the explain page was NOT tested in a browser \
                   (apt-get install chromium, or set CHROMIUM=/path/to/chromium)";
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("{msg} — required under CI=true");
        }
        eprintln!("\n!!!!!!!! SKIPPED: {msg} !!!!!!!!\n");
        return;
    };
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("explain");
    std::fs::create_dir_all(&out_dir).unwrap();
    let source_path = repo_root()
        .join(format!("conformance/cases/examples/{EXAMPLE}.spy"))
        .canonicalize()
        .unwrap();
    let source = std::fs::read_to_string(&source_path).unwrap();
    let page = out_dir.join(format!("{EXAMPLE}.html"));
    let made = Command::new(env!("CARGO_BIN_EXE_spy-interp"))
        .arg("explain")
        .arg(&source_path)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    assert_eq!(
        made.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let url = format!("file://{}", page.canonicalize().unwrap().display());

    // The DOM after the page's scripts ran.
    let profile = tempdir("dom");
    let dumped = headless(&browser, &profile)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        dumped.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&dumped.stderr)
    );
    let dom = String::from_utf8_lossy(&dumped.stdout).into_owned();
    assert!(
        dom.contains("data-ready=\"yes\""),
        "the page's script did not run:\n{dom}"
    );

    // Colored spans: blue and red expressions, each span's id its source range.
    let blue = dom.matches("class=\"expr blue").count();
    let red = dom.matches("class=\"expr red").count();
    assert!(blue > 10 && red > 10, "blue spans: {blue}, red spans: {red}");
    let (tag, text) = element(&dom, "src-E488-510").expect("the span of the first partial call");
    assert_eq!(&source[488..510], "partial[add3, 1](2, 3)");
    assert_eq!(text, "partial[add3, 1](2, 3)");
    assert!(tag.contains("expr red"), "{tag}");
    assert!(
        tag.contains("prov-target"),
        "the script marks link targets: {tag}"
    );

    // Every provenance link points at an element of the page.
    let links = prov_links(&dom);
    assert!(links.len() >= 15, "{links:?}");
    for (href, label) in &links {
        assert!(
            element(&dom, href).is_some(),
            "link `{label}` points at #{href}, which is not on the page"
        );
    }
    assert!(!dom.contains("class=\"prov broken"));

    // The specialization `partial[add3, 4, 5]`: its residual `def` links to
    // `def impl` (line 8) and to the blue call that made it, whose span
    // holds that call's text (and so its arguments).
    let def_line = (1..)
        .map_while(|n| element(&dom, &format!("res-L{n}")))
        .find(|(_, text)| text.contains("def `partial[partial::add3, 4, 5]::meta::impl`("))
        .expect("the residual def of the specialization");
    let line_id = def_line
        .0
        .split("id=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .to_string();
    let line_html = {
        let at = dom.find(&format!("id=\"{line_id}\"")).unwrap();
        &dom[at..at + dom[at..].find("</div>").unwrap()]
    };
    let here = prov_links(line_html);
    assert!(
        here.contains(&("src-L8".to_string(), "def".to_string())),
        "{here:?}"
    );
    let made_by = &here
        .iter()
        .find(|(_, l)| l == "made by call 1")
        .expect("made-by link")
        .0;
    let (_, call) = element(&dom, made_by).unwrap();
    assert_eq!(call, "partial[add3, 4, 5](6)");
    // the resolved call in `main` links back to the same call
    assert!(links.iter().filter(|(h, _)| h == made_by).count() >= 2);

    // Collapsible sections, the legend and the search box.
    for id in ["legend", "provenance", "jit", "search"] {
        assert!(
            element(&dom, id).is_some() || dom.contains(&format!("id=\"{id}\"")),
            "#{id}"
        );
    }

    // A screenshot, kept as an artifact.
    let shot = out_dir.join(format!("{EXAMPLE}.png"));
    let _ = std::fs::remove_file(&shot);
    let profile = tempdir("shot");
    let taken = headless(&browser, &profile)
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output()
        .expect("run chromium");
    assert!(
        taken.status.success(),
        "{}",
        String::from_utf8_lossy(&taken.stderr)
    );
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "{} bytes",
        png.len()
    );
    eprintln!("screenshot: {}", shot.display());
}

fn tempdir(what: &str) -> PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("spy-explain-chromium-{}-{what}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
