//! The snapshot format: how an [`Outcome`] is written in a case's `.snap`
//! file and read back for comparison.

use spy_interp::engine::Outcome;

/// The snapshot body of an outcome (see the crate doc).
pub fn snapshot(outcome: &Outcome) -> String {
    let mut s = format!("exit: {}\n", outcome.exit);
    if let Some(e) = &outcome.error {
        s.push_str(&format!("error: {e}\n"));
    }
    if let Some(b) = &outcome.bug {
        s.push_str(&format!("bug: {}\n", b.message));
    }
    s.push_str("stdout:\n");
    s.push_str(&outcome.stdout);
    s
}

/// A whole `.snap` file for `outcome`, with the header insta writes (for
/// cases written outside insta, such as the fuzzer's reproducers).
pub fn snapshot_file(outcome: &Outcome) -> String {
    format!(
        "---\nsource: conformance/tests/suite.rs\nexpression: outcome\n---\n{}\n",
        snapshot(outcome).trim_end()
    )
}

/// The body of an insta snapshot file (after its `---` header).
pub fn snapshot_body(text: &str) -> String {
    let mut lines = text.lines();
    let body: Vec<&str> = if text.starts_with("---") {
        lines.next();
        for l in lines.by_ref() {
            if l == "---" {
                break;
            }
        }
        lines.collect()
    } else {
        text.lines().collect()
    };
    normalize(&body.join("\n"))
}

/// Comparison ignores trailing whitespace at the end (as insta does).
pub fn normalize(s: &str) -> String {
    s.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use spy_interp::engine::ErrorLine;
    use spy_interp::error::ExcKind;

    #[test]
    fn file_round_trips_to_body() {
        let outcome = Outcome {
            exit: 1,
            error: Some(ErrorLine {
                kind: ExcKind::ZeroDivisionError,
                message: "integer division or modulo by zero".into(),
            }),
            report: None,
            bug: None,
            host: None,
            not_native: None,
            stdout: "a\n".into(),
        };
        let body = snapshot_body(&snapshot_file(&outcome));
        assert_eq!(
            body,
            "exit: 1\nerror: ZeroDivisionError: integer division or modulo by zero\nstdout:\na"
        );
    }
}
