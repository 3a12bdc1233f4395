//! Tests of `str.rs`: upstream's `test_str.py` cases plus Python ground truth.

use super::*;

#[test]
fn len_counts_utf8_bytes() {
    assert_eq!(len(""), 0);
    assert_eq!(len("abc"), 3);
    assert_eq!(len("hello world"), 11);
    assert_eq!(len("café"), 5);
    assert_eq!(len("😀"), 4);
}

#[test]
fn index_positive_and_negative() {
    assert_eq!(index("ABCDE", 0).unwrap(), "A");
    assert_eq!(index("ABCDE", 1).unwrap(), "B");
    assert_eq!(index("ABCDE", -1).unwrap(), "E");
    assert_eq!(index("ABCDE", -5).unwrap(), "A");
    for i in [5, -6, 100, i64::MIN, i64::MAX] {
        assert_eq!(
            index("ABCDE", i).unwrap_err().headline(),
            "IndexError: string index out of bound"
        );
    }
    assert!(index("", 0).is_err());
}

#[test]
fn index_into_multibyte_char_is_lossy() {
    // 'é' is C3 A9: each byte alone is invalid UTF-8.
    assert_eq!(index("é", 0).unwrap(), "\u{fffd}");
    assert_eq!(index("é", 1).unwrap(), "\u{fffd}");
}

#[test]
fn upstream_slice_cases() {
    let sl = |a, b, c| slice("abc", a, b, c).unwrap();
    assert_eq!(sl(Some(0), Some(1000), None), "abc");
    assert_eq!(sl(Some(0), Some(3), None), "abc");
    assert_eq!(sl(Some(0), Some(1), None), "a");
    assert_eq!(sl(Some(0), Some(0), None), "");
    assert_eq!(sl(Some(0), Some(2), None), "ab");
    assert_eq!(sl(Some(1), Some(3), None), "bc");
    assert_eq!(sl(Some(1), Some(2), None), "b");
    assert_eq!(sl(Some(2), Some(2), None), "");
    assert_eq!(sl(Some(1000), Some(1000), None), "");
    assert_eq!(sl(Some(2000), Some(1000), None), "");
    assert_eq!(sl(Some(2), Some(1), None), "");
    assert_eq!(sl(None, None, Some(-1)), "cba");
    assert_eq!(sl(Some(1), None, Some(-1)), "ba");
    assert_eq!(sl(None, Some(-1), Some(-1)), "");
}

#[test]
fn slice_drops_last_byte_with_stop_minus_one() {
    // Upstream's fast path returns "hello" here (a bug); Python gives "hell".
    assert_eq!(slice("hello", None, Some(-1), None).unwrap(), "hell");
    assert_eq!(slice("hello", Some(0), Some(-1), Some(1)).unwrap(), "hell");
}

#[test]
fn slice_matches_python_on_a_grid() {
    for &(a, b, c, expected) in SLICES {
        assert_eq!(slice("abcdef", a, b, c).unwrap(), expected, "[{a:?}:{b:?}:{c:?}]");
    }
}

#[test]
fn slice_errors_and_extremes() {
    assert_eq!(
        slice("abc", None, None, Some(0)).unwrap_err().headline(),
        "ValueError: slice step cannot be zero"
    );
    assert_eq!(
        slice("abc", Some(i64::MIN), Some(i64::MAX), Some(i64::MAX)).unwrap(),
        "a"
    );
    assert_eq!(
        slice("abc", Some(i64::MAX), Some(i64::MIN), Some(i64::MIN)).unwrap(),
        "c"
    );
    assert_eq!(slice("", None, None, Some(-1)).unwrap(), "");
    // Cutting 'é' (C3 A9) in half leaves a lone byte: lossy.
    assert_eq!(slice("aé", Some(0), Some(2), None).unwrap(), "a\u{fffd}");
    assert_eq!(slice("aéb", Some(1), Some(3), None).unwrap(), "é");
    assert_eq!(slice_indices(3, None, None, Some(-1)), Ok((2, -1, -1)));
}

#[test]
fn concat_and_repeat() {
    assert_eq!(concat("Hello", ", world!"), "Hello, world!");
    assert_eq!(concat("", ""), "");
    assert_eq!(repeat("Hello", 3).unwrap(), "HelloHelloHello");
    assert_eq!(repeat("ab", 0).unwrap(), "");
    assert_eq!(repeat("ab", -5).unwrap(), "");
    assert_eq!(repeat("", 1_000_000_000).unwrap(), "");
    assert_eq!(
        repeat("ab", 1 << 30).unwrap_err().headline(),
        "OverflowError: repeated string is too long"
    );
}

#[test]
fn contains_and_eq() {
    assert!(contains("hello", "ell"));
    assert!(contains("hello", ""));
    assert!(contains("", ""));
    assert!(!contains("hello", "hello!"));
    assert!(!contains("", "a"));
    assert!(eq("aaa", "aaa"));
    assert!(!eq("aaa", "bbb"));
}

#[test]
fn upstream_find_cases() {
    assert_eq!(find("hello world", "world"), 6);
    assert_eq!(find("hello world", "o"), 4);
    assert_eq!(find("hello world", "xyz"), -1);
    assert_eq!(find("hello", "hello"), 0);
    assert_eq!(find("abcabc", "bc"), 1);
    assert_eq!(find("abc", ""), 0);
    assert_eq!(find("", ""), 0);
    assert_eq!(find("", "a"), -1);
    let n = |s: &str| len(s);
    assert_eq!(find_range("abcabc", "bc", 2, n("abcabc")), 4);
    assert_eq!(find_range("hello", "l", 3, 5), 3);
    assert_eq!(find_range("hello", "h", 1, 5), -1);
    assert_eq!(find_range("abc", "", 1, 3), 1);
    assert_eq!(find_range("abc", "", 5, 3), -1);
    assert_eq!(find_range("hello world", "world", 0, 11), 6);
    assert_eq!(find_range("hello world", "world", 0, 10), -1);
    assert_eq!(find_range("aXaXa", "X", 2, 5), 3);
    assert_eq!(find_range("aaaa", "a", 1, 3), 1);
    assert_eq!(find_range("hello world", "world", -5, 11), 6);
    assert_eq!(find_range("hello", "h", -100, 5), 0);
    assert_eq!(find_range("hello world", "o", 0, -3), 4);
    assert_eq!(find("aXbXcXqzx", "qzx"), 6);
    assert_eq!(find("qaqbqcqzx", "qzx"), 6);
    assert_eq!(find("café!", "!"), 5);
    assert_eq!(find_range("abc", "c", 0, i32::MAX), 2);
    assert_eq!(find_range("abc", "a", i32::MIN, i32::MIN), -1);
}

#[test]
fn upstream_count_cases() {
    assert_eq!(count("hello world", "o"), 2);
    assert_eq!(count("hello world", "l"), 3);
    assert_eq!(count("abcabc", "bc"), 2);
    assert_eq!(count("hello", "xyz"), 0);
    assert_eq!(count("aaaa", "aa"), 2);
    assert_eq!(count("aaaaa", "aa"), 2);
    assert_eq!(count("abc", ""), 4);
    assert_eq!(count("", ""), 1);
    assert_eq!(count("", "a"), 0);
    assert_eq!(count_range("abc", "", 1, 3), 3);
    assert_eq!(count_range("abcabc", "", 0, 4), 5);
    assert_eq!(count_range("abc", "", 2, 1), 0);
    assert_eq!(count_range("abcabc", "bc", 2, 6), 1);
    assert_eq!(count_range("abcabc", "bc", 0, 4), 1);
    assert_eq!(count_range("aaaa", "a", 1, 3), 2);
}

#[test]
fn upstream_replace_cases() {
    let cases: &[(&str, &str, &str, &str)] = &[
        ("hello world", "world", "spy", "hello spy"),
        ("Hello", "l", "r", "Herro"),
        ("", "", "", ""),
        ("", "", "A", "A"),
        ("", "A", "", ""),
        ("", "A", "A", ""),
        ("A", "", "", "A"),
        ("A", "", "*", "*A*"),
        ("A", "", "*1", "*1A*1"),
        ("A", "", "*-#", "*-#A*-#"),
        ("AA", "", "*-", "*-A*-A*-"),
        ("A", "A", "", ""),
        ("AAA", "A", "", ""),
        ("AAAAAAAAAA", "A", "", ""),
        ("ABACADA", "A", "", "BCD"),
        ("ABCAD", "A", "", "BCD"),
        ("ABCADAA", "A", "", "BCD"),
        ("BCD", "A", "", "BCD"),
        ("aaaa", "aa", "b", "bb"),
        ("aaa", "aa", "b", "ba"),
        ("é", "", "-", "-é-"),
    ];
    for &(s, old, new, expected) in cases {
        assert_eq!(replace(s, old, new), expected, "{s:?}.replace({old:?}, {new:?})");
    }
}

#[test]
fn upper_is_ascii_only() {
    assert_eq!(upper("hello"), "HELLO");
    assert_eq!(upper("Hello World"), "HELLO WORLD");
    assert_eq!(upper("ABC123"), "ABC123");
    assert_eq!(upper(""), "");
    assert_eq!(upper("àb"), "àB");
}

#[test]
fn upstream_split_cases() {
    let sp = |s: &str, sep: &str| split(s, Some(sep)).unwrap();
    assert_eq!(sp("a|b|c|d", "|"), ["a", "b", "c", "d"]);
    assert_eq!(sp("a||b|c||d", "||"), ["a", "b|c", "d"]);
    assert_eq!(sp("abc|||", "|"), ["abc", "", "", ""]);
    assert_eq!(sp("|abc", "|"), ["", "abc"]);
    assert_eq!(sp("abcd", "|"), ["abcd"]);
    assert_eq!(sp("", "|"), [""]);
    assert_eq!(sp("aaa", "aa"), ["", "a"]);
    assert_eq!(sp("", ""), [""]);
    let ws = |s: &str| split(s, None).unwrap();
    assert_eq!(ws("a b c d "), ["a", "b", "c", "d"]);
    assert_eq!(ws(" a b c d"), ["a", "b", "c", "d"]);
    assert_eq!(ws(" a b c d "), ["a", "b", "c", "d"]);
    assert_eq!(ws("         "), Vec::<String>::new());
    assert_eq!(ws("  a    "), ["a"]);
    assert_eq!(ws("  a    b   "), ["a", "b"]);
    assert_eq!(ws("  a    b   c   "), ["a", "b", "c"]);
    assert_eq!(ws("\n\ta \t\r b \x0b "), ["a", "b"]);
    assert_eq!(ws("a\x1cb\x0cc"), ["a", "b", "c"]);
    assert_eq!(ws("a\x0eb"), ["a\x0eb"]);
    assert_eq!(ws("à b"), ["à", "b"]);
    assert_eq!(ws(""), Vec::<String>::new());
    assert_eq!(
        split("abc", Some("")).unwrap_err().headline(),
        "ValueError: empty separator"
    );
}

#[test]
fn predicates() {
    assert!(isascii("hello"));
    assert!(isascii(""));
    assert!(!isascii("àèìòù"));
    assert!(!isspace(""));
    assert!(!isspace("a"));
    assert!(isspace(" "));
    assert!(isspace("\t"));
    assert!(isspace("\r"));
    assert!(isspace("\n"));
    assert!(isspace(" \t\r\n"));
    assert!(isspace("\x0b\x0c\x1c\x1f"));
    assert!(!isspace(" \t\r\na"));
    assert!(!isspace("\x0e"));
    assert!(!isspace("\u{a0}"));
    assert!(startswith("hello", "he"));
    assert!(startswith("hello", ""));
    assert!(!startswith("he", "hello"));
    assert!(endswith("hello", "llo"));
    assert!(!endswith("hello", "he"));
}

#[test]
fn conversions() {
    assert_eq!(str_to_int("42", PrimTy::I32), Ok(Scalar::I32(42)));
    assert_eq!(
        str_to_int("hello", PrimTy::I32).unwrap_err().headline(),
        "ValueError: invalid literal for int() with base 10: 'hello'"
    );
    assert_eq!(ord("A"), Ok(65));
    assert_eq!(ord("é"), Ok(0xc3));
    assert_eq!(
        ord("").unwrap_err().headline(),
        "TypeError: ord() expected a character, but string of length 0 found"
    );
}

/// (start, stop, step, "abcdef"[start:stop:step]) from python3.
type SliceCase = (Option<i64>, Option<i64>, Option<i64>, &'static str);

#[rustfmt::skip]
const SLICES: &[SliceCase] = &[
    (None, None, None, "abcdef"), (None, None, Some(-3), "fc"),
    (None, None, Some(-1), "fedcba"), (None, None, Some(1), "abcdef"),
    (None, None, Some(2), "ace"), (None, Some(-8), None, ""), (None, Some(-8), Some(-3), "fc"),
    (None, Some(-8), Some(-1), "fedcba"), (None, Some(-8), Some(1), ""),
    (None, Some(-8), Some(2), ""), (None, Some(-3), None, "abc"),
    (None, Some(-3), Some(-3), "f"), (None, Some(-3), Some(-1), "fe"),
    (None, Some(-3), Some(1), "abc"), (None, Some(-3), Some(2), "ac"),
    (None, Some(-1), None, "abcde"), (None, Some(-1), Some(-3), ""),
    (None, Some(-1), Some(-1), ""), (None, Some(-1), Some(1), "abcde"),
    (None, Some(-1), Some(2), "ace"), (None, Some(0), None, ""),
    (None, Some(0), Some(-3), "fc"), (None, Some(0), Some(-1), "fedcb"),
    (None, Some(0), Some(1), ""), (None, Some(0), Some(2), ""), (None, Some(2), None, "ab"),
    (None, Some(2), Some(-3), "f"), (None, Some(2), Some(-1), "fed"),
    (None, Some(2), Some(1), "ab"), (None, Some(2), Some(2), "a"),
    (None, Some(5), None, "abcde"), (None, Some(5), Some(-3), ""),
    (None, Some(5), Some(-1), ""), (None, Some(5), Some(1), "abcde"),
    (None, Some(5), Some(2), "ace"), (None, Some(8), None, "abcdef"),
    (None, Some(8), Some(-3), ""), (None, Some(8), Some(-1), ""),
    (None, Some(8), Some(1), "abcdef"), (None, Some(8), Some(2), "ace"),
    (Some(-8), None, None, "abcdef"), (Some(-8), None, Some(-3), ""),
    (Some(-8), None, Some(-1), ""), (Some(-8), None, Some(1), "abcdef"),
    (Some(-8), None, Some(2), "ace"), (Some(-8), Some(-8), None, ""),
    (Some(-8), Some(-8), Some(-3), ""), (Some(-8), Some(-8), Some(-1), ""),
    (Some(-8), Some(-8), Some(1), ""), (Some(-8), Some(-8), Some(2), ""),
    (Some(-8), Some(-3), None, "abc"), (Some(-8), Some(-3), Some(-3), ""),
    (Some(-8), Some(-3), Some(-1), ""), (Some(-8), Some(-3), Some(1), "abc"),
    (Some(-8), Some(-3), Some(2), "ac"), (Some(-8), Some(-1), None, "abcde"),
    (Some(-8), Some(-1), Some(-3), ""), (Some(-8), Some(-1), Some(-1), ""),
    (Some(-8), Some(-1), Some(1), "abcde"), (Some(-8), Some(-1), Some(2), "ace"),
    (Some(-8), Some(0), None, ""), (Some(-8), Some(0), Some(-3), ""),
    (Some(-8), Some(0), Some(-1), ""), (Some(-8), Some(0), Some(1), ""),
    (Some(-8), Some(0), Some(2), ""), (Some(-8), Some(2), None, "ab"),
    (Some(-8), Some(2), Some(-3), ""), (Some(-8), Some(2), Some(-1), ""),
    (Some(-8), Some(2), Some(1), "ab"), (Some(-8), Some(2), Some(2), "a"),
    (Some(-8), Some(5), None, "abcde"), (Some(-8), Some(5), Some(-3), ""),
    (Some(-8), Some(5), Some(-1), ""), (Some(-8), Some(5), Some(1), "abcde"),
    (Some(-8), Some(5), Some(2), "ace"), (Some(-8), Some(8), None, "abcdef"),
    (Some(-8), Some(8), Some(-3), ""), (Some(-8), Some(8), Some(-1), ""),
    (Some(-8), Some(8), Some(1), "abcdef"), (Some(-8), Some(8), Some(2), "ace"),
    (Some(-3), None, None, "def"), (Some(-3), None, Some(-3), "da"),
    (Some(-3), None, Some(-1), "dcba"), (Some(-3), None, Some(1), "def"),
    (Some(-3), None, Some(2), "df"), (Some(-3), Some(-8), None, ""),
    (Some(-3), Some(-8), Some(-3), "da"), (Some(-3), Some(-8), Some(-1), "dcba"),
    (Some(-3), Some(-8), Some(1), ""), (Some(-3), Some(-8), Some(2), ""),
    (Some(-3), Some(-3), None, ""), (Some(-3), Some(-3), Some(-3), ""),
    (Some(-3), Some(-3), Some(-1), ""), (Some(-3), Some(-3), Some(1), ""),
    (Some(-3), Some(-3), Some(2), ""), (Some(-3), Some(-1), None, "de"),
    (Some(-3), Some(-1), Some(-3), ""), (Some(-3), Some(-1), Some(-1), ""),
    (Some(-3), Some(-1), Some(1), "de"), (Some(-3), Some(-1), Some(2), "d"),
    (Some(-3), Some(0), None, ""), (Some(-3), Some(0), Some(-3), "d"),
    (Some(-3), Some(0), Some(-1), "dcb"), (Some(-3), Some(0), Some(1), ""),
    (Some(-3), Some(0), Some(2), ""), (Some(-3), Some(2), None, ""),
    (Some(-3), Some(2), Some(-3), "d"), (Some(-3), Some(2), Some(-1), "d"),
    (Some(-3), Some(2), Some(1), ""), (Some(-3), Some(2), Some(2), ""),
    (Some(-3), Some(5), None, "de"), (Some(-3), Some(5), Some(-3), ""),
    (Some(-3), Some(5), Some(-1), ""), (Some(-3), Some(5), Some(1), "de"),
    (Some(-3), Some(5), Some(2), "d"), (Some(-3), Some(8), None, "def"),
    (Some(-3), Some(8), Some(-3), ""), (Some(-3), Some(8), Some(-1), ""),
    (Some(-3), Some(8), Some(1), "def"), (Some(-3), Some(8), Some(2), "df"),
    (Some(-1), None, None, "f"), (Some(-1), None, Some(-3), "fc"),
    (Some(-1), None, Some(-1), "fedcba"), (Some(-1), None, Some(1), "f"),
    (Some(-1), None, Some(2), "f"), (Some(-1), Some(-8), None, ""),
    (Some(-1), Some(-8), Some(-3), "fc"), (Some(-1), Some(-8), Some(-1), "fedcba"),
    (Some(-1), Some(-8), Some(1), ""), (Some(-1), Some(-8), Some(2), ""),
    (Some(-1), Some(-3), None, ""), (Some(-1), Some(-3), Some(-3), "f"),
    (Some(-1), Some(-3), Some(-1), "fe"), (Some(-1), Some(-3), Some(1), ""),
    (Some(-1), Some(-3), Some(2), ""), (Some(-1), Some(-1), None, ""),
    (Some(-1), Some(-1), Some(-3), ""), (Some(-1), Some(-1), Some(-1), ""),
    (Some(-1), Some(-1), Some(1), ""), (Some(-1), Some(-1), Some(2), ""),
    (Some(-1), Some(0), None, ""), (Some(-1), Some(0), Some(-3), "fc"),
    (Some(-1), Some(0), Some(-1), "fedcb"), (Some(-1), Some(0), Some(1), ""),
    (Some(-1), Some(0), Some(2), ""), (Some(-1), Some(2), None, ""),
    (Some(-1), Some(2), Some(-3), "f"), (Some(-1), Some(2), Some(-1), "fed"),
    (Some(-1), Some(2), Some(1), ""), (Some(-1), Some(2), Some(2), ""),
    (Some(-1), Some(5), None, ""), (Some(-1), Some(5), Some(-3), ""),
    (Some(-1), Some(5), Some(-1), ""), (Some(-1), Some(5), Some(1), ""),
    (Some(-1), Some(5), Some(2), ""), (Some(-1), Some(8), None, "f"),
    (Some(-1), Some(8), Some(-3), ""), (Some(-1), Some(8), Some(-1), ""),
    (Some(-1), Some(8), Some(1), "f"), (Some(-1), Some(8), Some(2), "f"),
    (Some(0), None, None, "abcdef"), (Some(0), None, Some(-3), "a"),
    (Some(0), None, Some(-1), "a"), (Some(0), None, Some(1), "abcdef"),
    (Some(0), None, Some(2), "ace"), (Some(0), Some(-8), None, ""),
    (Some(0), Some(-8), Some(-3), "a"), (Some(0), Some(-8), Some(-1), "a"),
    (Some(0), Some(-8), Some(1), ""), (Some(0), Some(-8), Some(2), ""),
    (Some(0), Some(-3), None, "abc"), (Some(0), Some(-3), Some(-3), ""),
    (Some(0), Some(-3), Some(-1), ""), (Some(0), Some(-3), Some(1), "abc"),
    (Some(0), Some(-3), Some(2), "ac"), (Some(0), Some(-1), None, "abcde"),
    (Some(0), Some(-1), Some(-3), ""), (Some(0), Some(-1), Some(-1), ""),
    (Some(0), Some(-1), Some(1), "abcde"), (Some(0), Some(-1), Some(2), "ace"),
    (Some(0), Some(0), None, ""), (Some(0), Some(0), Some(-3), ""),
    (Some(0), Some(0), Some(-1), ""), (Some(0), Some(0), Some(1), ""),
    (Some(0), Some(0), Some(2), ""), (Some(0), Some(2), None, "ab"),
    (Some(0), Some(2), Some(-3), ""), (Some(0), Some(2), Some(-1), ""),
    (Some(0), Some(2), Some(1), "ab"), (Some(0), Some(2), Some(2), "a"),
    (Some(0), Some(5), None, "abcde"), (Some(0), Some(5), Some(-3), ""),
    (Some(0), Some(5), Some(-1), ""), (Some(0), Some(5), Some(1), "abcde"),
    (Some(0), Some(5), Some(2), "ace"), (Some(0), Some(8), None, "abcdef"),
    (Some(0), Some(8), Some(-3), ""), (Some(0), Some(8), Some(-1), ""),
    (Some(0), Some(8), Some(1), "abcdef"), (Some(0), Some(8), Some(2), "ace"),
    (Some(2), None, None, "cdef"), (Some(2), None, Some(-3), "c"),
    (Some(2), None, Some(-1), "cba"), (Some(2), None, Some(1), "cdef"),
    (Some(2), None, Some(2), "ce"), (Some(2), Some(-8), None, ""),
    (Some(2), Some(-8), Some(-3), "c"), (Some(2), Some(-8), Some(-1), "cba"),
    (Some(2), Some(-8), Some(1), ""), (Some(2), Some(-8), Some(2), ""),
    (Some(2), Some(-3), None, "c"), (Some(2), Some(-3), Some(-3), ""),
    (Some(2), Some(-3), Some(-1), ""), (Some(2), Some(-3), Some(1), "c"),
    (Some(2), Some(-3), Some(2), "c"), (Some(2), Some(-1), None, "cde"),
    (Some(2), Some(-1), Some(-3), ""), (Some(2), Some(-1), Some(-1), ""),
    (Some(2), Some(-1), Some(1), "cde"), (Some(2), Some(-1), Some(2), "ce"),
    (Some(2), Some(0), None, ""), (Some(2), Some(0), Some(-3), "c"),
    (Some(2), Some(0), Some(-1), "cb"), (Some(2), Some(0), Some(1), ""),
    (Some(2), Some(0), Some(2), ""), (Some(2), Some(2), None, ""),
    (Some(2), Some(2), Some(-3), ""), (Some(2), Some(2), Some(-1), ""),
    (Some(2), Some(2), Some(1), ""), (Some(2), Some(2), Some(2), ""),
    (Some(2), Some(5), None, "cde"), (Some(2), Some(5), Some(-3), ""),
    (Some(2), Some(5), Some(-1), ""), (Some(2), Some(5), Some(1), "cde"),
    (Some(2), Some(5), Some(2), "ce"), (Some(2), Some(8), None, "cdef"),
    (Some(2), Some(8), Some(-3), ""), (Some(2), Some(8), Some(-1), ""),
    (Some(2), Some(8), Some(1), "cdef"), (Some(2), Some(8), Some(2), "ce"),
    (Some(5), None, None, "f"), (Some(5), None, Some(-3), "fc"),
    (Some(5), None, Some(-1), "fedcba"), (Some(5), None, Some(1), "f"),
    (Some(5), None, Some(2), "f"), (Some(5), Some(-8), None, ""),
    (Some(5), Some(-8), Some(-3), "fc"), (Some(5), Some(-8), Some(-1), "fedcba"),
    (Some(5), Some(-8), Some(1), ""), (Some(5), Some(-8), Some(2), ""),
    (Some(5), Some(-3), None, ""), (Some(5), Some(-3), Some(-3), "f"),
    (Some(5), Some(-3), Some(-1), "fe"), (Some(5), Some(-3), Some(1), ""),
    (Some(5), Some(-3), Some(2), ""), (Some(5), Some(-1), None, ""),
    (Some(5), Some(-1), Some(-3), ""), (Some(5), Some(-1), Some(-1), ""),
    (Some(5), Some(-1), Some(1), ""), (Some(5), Some(-1), Some(2), ""),
    (Some(5), Some(0), None, ""), (Some(5), Some(0), Some(-3), "fc"),
    (Some(5), Some(0), Some(-1), "fedcb"), (Some(5), Some(0), Some(1), ""),
    (Some(5), Some(0), Some(2), ""), (Some(5), Some(2), None, ""),
    (Some(5), Some(2), Some(-3), "f"), (Some(5), Some(2), Some(-1), "fed"),
    (Some(5), Some(2), Some(1), ""), (Some(5), Some(2), Some(2), ""),
    (Some(5), Some(5), None, ""), (Some(5), Some(5), Some(-3), ""),
    (Some(5), Some(5), Some(-1), ""), (Some(5), Some(5), Some(1), ""),
    (Some(5), Some(5), Some(2), ""), (Some(5), Some(8), None, "f"),
    (Some(5), Some(8), Some(-3), ""), (Some(5), Some(8), Some(-1), ""),
    (Some(5), Some(8), Some(1), "f"), (Some(5), Some(8), Some(2), "f"),
    (Some(8), None, None, ""), (Some(8), None, Some(-3), "fc"),
    (Some(8), None, Some(-1), "fedcba"), (Some(8), None, Some(1), ""),
    (Some(8), None, Some(2), ""), (Some(8), Some(-8), None, ""),
    (Some(8), Some(-8), Some(-3), "fc"), (Some(8), Some(-8), Some(-1), "fedcba"),
    (Some(8), Some(-8), Some(1), ""), (Some(8), Some(-8), Some(2), ""),
    (Some(8), Some(-3), None, ""), (Some(8), Some(-3), Some(-3), "f"),
    (Some(8), Some(-3), Some(-1), "fe"), (Some(8), Some(-3), Some(1), ""),
    (Some(8), Some(-3), Some(2), ""), (Some(8), Some(-1), None, ""),
    (Some(8), Some(-1), Some(-3), ""), (Some(8), Some(-1), Some(-1), ""),
    (Some(8), Some(-1), Some(1), ""), (Some(8), Some(-1), Some(2), ""),
    (Some(8), Some(0), None, ""), (Some(8), Some(0), Some(-3), "fc"),
    (Some(8), Some(0), Some(-1), "fedcb"), (Some(8), Some(0), Some(1), ""),
    (Some(8), Some(0), Some(2), ""), (Some(8), Some(2), None, ""),
    (Some(8), Some(2), Some(-3), "f"), (Some(8), Some(2), Some(-1), "fed"),
    (Some(8), Some(2), Some(1), ""), (Some(8), Some(2), Some(2), ""),
    (Some(8), Some(5), None, ""), (Some(8), Some(5), Some(-3), ""),
    (Some(8), Some(5), Some(-1), ""), (Some(8), Some(5), Some(1), ""),
    (Some(8), Some(5), Some(2), ""), (Some(8), Some(8), None, ""),
    (Some(8), Some(8), Some(-3), ""), (Some(8), Some(8), Some(-1), ""),
    (Some(8), Some(8), Some(1), ""), (Some(8), Some(8), Some(2), ""),
];
