//! Escaping text for the formats the inspect tools write: JSON strings and
//! HTML text/attributes.

/// `s` as a JSON string literal (with its quotes): the AST dump's escaping.
pub(crate) fn json_str(s: &str) -> String {
    crate::syntax::dump::json_string(s)
}

/// `s` as HTML text or a double-quoted attribute value.
pub(crate) fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(json_str("a\"b\\\n\u{1}"), r#""a\"b\\\n\u0001""#);
        assert_eq!(html("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }
}
