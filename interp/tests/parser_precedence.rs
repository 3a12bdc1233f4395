//! Operator precedence and associativity match Python's: each source below
//! was parsed by CPython 3.11's `ast` module (a random sample of nested
//! binary, unary, boolean, comparison, conditional and call expressions)
//! and its tree written as an s-expression; the parser must build the same
//! tree. `and`/`or` chains are binary and left-nested, as upstream SPy
//! builds them.

use spy_interp::syntax::ast::{ExprKind, ExprRef, StmtKind};
use spy_interp::syntax::parse_str;

fn sexpr(e: ExprRef<'_>) -> String {
    match e.kind() {
        ExprKind::Name(id) => id.name.to_string(),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::BinOp { left, op, right } => {
            format!("({} {} {})", op.symbol(), sexpr(left), sexpr(right))
        }
        ExprKind::UnaryOp { op, operand } => format!("({} {})", op.symbol(), sexpr(operand)),
        ExprKind::BoolOp { op, left, right } => {
            format!("({} {} {})", op.symbol(), sexpr(left), sexpr(right))
        }
        ExprKind::Compare { left, op, right } => {
            format!("({} {} {})", op.symbol(), sexpr(left), sexpr(right))
        }
        ExprKind::IfExp { test, body, orelse } => {
            format!("(if {} {} {})", sexpr(test), sexpr(body), sexpr(orelse))
        }
        ExprKind::Call { func, args } => {
            let mut parts = vec![sexpr(func)];
            parts.extend(args.iter().map(sexpr));
            format!("(call {})", parts.join(" "))
        }
        other => panic!("unexpected node {other:?}"),
    }
}

const CASES: &[(&str, &str)] = &[
    ("c >> c and 1 ^ a", "(and (>> c c) (^ 1 a))"),
    ("+b ^ b if c else 2 not in c", "(if c (^ (+ b) b) (not in 2 c))"),
    ("d", "d"),
    ("(1) ** 2 % 1 << -~a", "(<< (% (** 1 2) 1) (- (~ a)))"),
    ("d or 2 @ d % b", "(or d (% (@ 2 d) b))"),
    ("(d) @ -d", "(@ d (- d))"),
    ("b * b if 1 * c else 1 % 1 & f(2, 2) ^ 2 is 2 @ a if 1 + 1 else a", "(if (* 1 c) (* b b) (if (+ 1 1) (is (^ (& (% 1 1) (call f 2 2)) 2) (@ 2 a)) a))"),
    ("d * f(-f(d, d), c ^ b is a)", "(* d (call f (- (call f d d)) (is (^ c b) a)))"),
    ("-2 - 2 if -c else ~c", "(if (- c) (- (- 2) 2) (~ c))"),
    ("(d ^ d % 2)", "(^ d (% d 2))"),
    ("(1 % d)", "(% 1 d)"),
    ("b << b", "(<< b b)"),
    ("not d if c else 1", "(if c (not d) 1)"),
    ("~-c is b", "(is (~ (- c)) b)"),
    ("a", "a"),
    ("a / (b or a @ 2 @ 1 @ c - 2)", "(/ a (or b (- (@ (@ (@ a 2) 1) c) 2)))"),
    ("1", "1"),
    ("(c // a) ** b or +2 % a and c and 1 / a << 1", "(or (** (// c a) b) (and (and (% (+ 2) a) c) (<< (/ 1 a) 1)))"),
    ("1 ^ a", "(^ 1 a)"),
    ("d is c ^ b % 2", "(is d (^ c (% b 2)))"),
    ("b + 2", "(+ b 2)"),
    ("f(a or b, d) + f(-a, c * a) % ~a * d & a", "(& (+ (call f (or a b) d) (* (% (call f (- a) (* c a)) (~ a)) d)) a)"),
    ("-c ^ d and not b + ~1 & 2 is not 2 and a", "(and (and (^ (- c) d) (not (is not (& (+ b (~ 1)) 2) 2))) a)"),
    ("f(-2 and d, -~a)", "(call f (and (- 2) d) (- (~ a)))"),
    ("-b / 2", "(/ (- b) 2)"),
    ("not c | 1 * a or c | b", "(or (not (| c (* 1 a))) (| c b))"),
    ("+(+d if 1 else c @ b)", "(+ (if 1 (+ d) (@ c b)))"),
    ("not a ^ c / d | d in c @ c", "(not (in (| (^ a (/ c d)) d) (@ c c)))"),
    ("a != 2 + c - d", "(!= a (- (+ 2 c) d))"),
    ("not 2 // c / c ** 2 if d else 1 >> a", "(if d (not (/ (// 2 c) (** c 2))) (>> 1 a))"),
    ("c << a >> d", "(>> (<< c a) d)"),
    ("f(not b - b or +b >> b, b) % a in (c) % ~b and c / d or a", "(or (and (in (% (call f (or (not (- b b)) (>> (+ b) b)) b) a) (% c (~ b))) (/ c d)) a)"),
    ("2", "2"),
    ("-b * 2 or a is 1 + b | c if f(b, d) // 1 + c else 1 != d ^ 2 // b", "(if (+ (// (call f b d) 1) c) (or (* (- b) 2) (is a (| (+ 1 b) c))) (!= 1 (^ d (// 2 b))))"),
    ("b or c ^ c and b", "(or b (and (^ c c) b))"),
    ("not b << 1 and d + 1 * d or f(b | 1, 2 ^ d)", "(or (and (not (<< b 1)) (+ d (* 1 d))) (call f (| b 1) (^ 2 d)))"),
    ("a // d", "(// a d)"),
    ("((c))", "c"),
    ("c", "c"),
    ("(a)", "a"),
    ("2 ** 1 and b - f(c @ d, d) * 2", "(and (** 2 1) (- b (* (call f (@ c d) d) 2)))"),
    ("(b @ b / d or b @ f(a @ d, f(b, b)))", "(or (/ (@ b b) d) (@ b (call f (@ a d) (call f b b))))"),
    ("(a or c) or b * b / 1", "(or (or a c) (/ (* b b) 1))"),
    ("-d + a + a if c else b > 1", "(if c (+ (+ (- d) a) a) (> b 1))"),
    ("(a) - c and a % 2 | b + c * 1", "(and (- a c) (| (% a 2) (+ b (* c 1))))"),
    ("d | b or 1 % d @ c | 2", "(or (| d b) (| (@ (% 1 d) c) 2))"),
    ("-a >> d - a - (b) // a if -2 and 1 in 1 else b < +2 / a", "(if (and (- 2) (in 1 1)) (>> (- a) (- (- d a) (// b a))) (< b (/ (+ 2) a)))"),
    ("b", "b"),
    ("1 @ 2 ** a", "(@ 1 (** 2 a))"),
    ("c ** b * f(+f(c and 2, b), d / a + 1 or ~1)", "(* (** c b) (call f (+ (call f (and c 2) b)) (or (+ (/ d a) 1) (~ 1))))"),
    ("-b ^ a", "(^ (- b) a)"),
    ("c + a is not 1", "(is not (+ c a) 1)"),
    ("+a", "(+ a)"),
    ("b and d / 2 or 1", "(or (and b (/ d 2)) 1)"),
    ("f(~a, d - 2) | b | c", "(| (| (call f (~ a) (- d 2)) b) c)"),
    ("+b if a else 1 + b ^ b", "(if a (+ b) (^ (+ 1 b) b))"),
    ("~2 < 2 / 1 if (not 1) else a & b ^ a + 2", "(if (not 1) (< (~ 2) (/ 2 1)) (^ (& a b) (+ a 2)))"),
    ("(1)", "1"),
    ("(b / b)", "(/ b b)"),
    ("a ** 2 and c + c", "(and (** a 2) (+ c c))"),
    ("not 2 + d if 1 else -2 - d + 1 / (c)", "(if 1 (not (+ 2 d)) (+ (- (- 2) d) (/ 1 c)))"),
    ("not ~b ^ b", "(not (^ (~ b) b))"),
    ("f(c % a, 2 - d)", "(call f (% c a) (- 2 d))"),
    ("-d | d", "(| (- d) d)"),
    ("(b << 2 or d)", "(or (<< b 2) d)"),
    ("b if (not 2) else b ^ -b", "(if (not 2) b (^ b (- b)))"),
    ("(2)", "2"),
    ("(b @ d + d)", "(+ (@ b d) d)"),
    ("2 / d ^ (d) and 1 and 2 and +c", "(and (and (and (^ (/ 2 d) d) 1) 2) (+ c))"),
    ("b or d << d and 2", "(or b (and (<< d d) 2))"),
    ("f(1, 2) ** d >> a >= d / 2 * (1)", "(>= (>> (** (call f 1 2) d) a) (* (/ d 2) 1))"),
    ("d | 2 @ 1 / f(d, b) * a", "(| d (* (/ (@ 2 1) (call f d b)) a))"),
    ("not b", "(not b)"),
    ("((d)) % d and d + (c) != c and a > 1 % a and b - a & b", "(and (and (and (% d d) (!= (+ d c) c)) (> a (% 1 a))) (& (- b a) b))"),
    ("b >> 1 if c << 2 else d or d", "(if (<< c 2) (>> b 1) (or d d))"),
    ("c and a", "(and c a)"),
    ("(b) ^ 2 % (c if d else c)", "(^ b (% 2 (if d c c)))"),
    ("d ** a >= 2 // 2 - c - a if d else 1 or 1 * b and 2 or 2 * a @ (c * d) + a if d else 1 >> a if 2 @ f(2, b) << -b | a else f(a * d, 2) & 2", "(if d (>= (** d a) (- (- (// 2 2) c) a)) (if d (or (or 1 (and (* 1 b) 2)) (+ (@ (* 2 a) (* c d)) a)) (if (| (<< (@ 2 (call f 2 b)) (- b)) a) (>> 1 a) (& (call f (* a d) 2) 2))))"),
    ("a or d or a ^ a", "(or (or a d) (^ a a))"),
    ("c ^ 1 and 1 < c", "(and (^ c 1) (< 1 c))"),
    ("(d << d ** f(1, c) // 1 >= 1 and not c)", "(and (>= (<< d (// (** d (call f 1 c)) 1)) 1) (not c))"),
    ("b & a or 1 == c ** a >> 1 or 2 / c & d << ~(b) @ +1 if b - b else 1 & c if -d else (1) + -b", "(if (- b b) (or (or (& b a) (== 1 (>> (** c a) 1))) (& (/ 2 c) (<< d (@ (~ b) (+ 1))))) (if (- d) (& 1 c) (+ 1 (- b))))"),
    ("f(a, 1) in a or c", "(or (in (call f a 1) a) c)"),
    ("f(b ^ b * c, a // 1 ^ (d))", "(call f (^ b (* b c)) (^ (// a 1) d))"),
    ("not 2 and d - c", "(and (not 2) (- d c))"),
    ("-1 % 2 * f(d, a) if +c * (b) else not b // 1 // 1 + 2 ** d // a // f(b / a, b + 2)", "(if (* (+ c) b) (* (% (- 1) 2) (call f d a)) (not (+ (// (// b 1) 1) (// (// (** 2 d) a) (call f (/ b a) (+ b 2))))))"),
    ("~a", "(~ a)"),
    ("b >> b ^ 1", "(^ (>> b b) 1)"),
    ("(b) if 1 else b or b", "(if 1 b (or b b))"),
    ("-2 + b", "(+ (- 2) b)"),
    ("-a if a else 2 & -1 and +b", "(if a (- a) (and (& 2 (- 1)) (+ b)))"),
    ("1 >> c - -d", "(>> 1 (- c (- d)))"),
    ("not c if a else d & 2", "(if a (not c) (& d 2))"),
    ("~+a / f(d, a) % b", "(% (/ (~ (+ a)) (call f d a)) b)"),
    ("2 ^ 1 // ~2 ** 2 and d - 1", "(and (^ 2 (// 1 (~ (** 2 2)))) (- d 1))"),
    ("f(c & 1, d)", "(call f (& c 1) d)"),
    ("not c | -1", "(not (| c (- 1)))"),
    ("1 - a", "(- 1 a)"),
    ("+a is not c or b", "(or (is not (+ a) c) b)"),
    ("not c / a / d", "(not (/ (/ c a) d))"),
    ("a and c < d", "(and a (< c d))"),
    ("f(2, c or -a) * d", "(* (call f 2 (or c (- a))) d)"),
    ("c >> b << 2 + c >> b >> b == c % d", "(== (>> (>> (<< (>> c b) (+ 2 c)) b) b) (% c d))"),
    ("not -d", "(not (- d))"),
    ("b % a", "(% b a)"),
    ("a ^ c - b", "(^ a (- c b))"),
    ("c and a @ 2", "(and c (@ a 2))"),
    ("not 1", "(not 1)"),
    ("f(1 ^ 2, d and 2)", "(call f (^ 1 2) (and d 2))"),
    ("-1 <= b >> 2", "(<= (- 1) (>> b 2))"),
    ("c % 2 << 2 << b", "(<< (<< (% c 2) 2) b)"),
    ("c * 2 * 2 - 1", "(- (* (* c 2) 2) 1)"),
    ("not d", "(not d)"),
    ("(c | (2 and d))", "(| c (and 2 d))"),
    ("2 // 2 is not c % b % c", "(is not (// 2 2) (% (% c b) c))"),
    ("a and d or c & 1", "(or (and a d) (& c 1))"),
    ("not 1 ^ 1", "(not (^ 1 1))"),
    ("1 >> 1 and f(1, a)", "(and (>> 1 1) (call f 1 a))"),
    ("not f(+a ** 1 | 2 & -b & 1, c)", "(not (call f (| (+ (** a 1)) (& (& 2 (- b)) 1)) c))"),
    ("(c) & c if a else c & 1 + (b)", "(if a (& c c) (& c (+ 1 b)))"),
    ("not 2 + b if 2 and c else (b) ** (~b) or 2 or d or c == b", "(if (and 2 c) (not (+ 2 b)) (or (or (or (** b (~ b)) 2) d) (== c b)))"),
    ("c and c ^ d", "(and c (^ c d))"),
    ("d < 1", "(< d 1)"),
    ("f(f(c and d & b > a, b), 1 and 2 & 1 // 2 not in ((2)))", "(call f (call f (and c (> (& d b) a)) b) (and 1 (not in (& 2 (// 1 2)) 2)))"),
    ("not c * b - 1 / b * 2 ** a % ~a - 2 if 2 @ 2 else 1 @ d @ c and b % c or b", "(if (@ 2 2) (not (- (- (* c b) (% (* (/ 1 b) (** 2 a)) (~ a))) 2)) (or (and (@ (@ 1 d) c) (% b c)) b))"),
    ("f(c, d / b) if not a ** b else (d)", "(if (not (** a b)) (call f c (/ d b)) d)"),
    ("a * c and b << 2 @ c", "(and (* a c) (<< b (@ 2 c)))"),
    ("f(b, 2)", "(call f b 2)"),
    ("a - d * b | 1 and -a >= b", "(and (| (- a (* d b)) 1) (>= (- a) b))"),
    ("c // a", "(// c a)"),
    ("2 + ~c ^ f(d % 1, f(d, d))", "(^ (+ 2 (~ c)) (call f (% d 1) (call f d d)))"),
    ("d * 2 // 2 ** 1", "(// (* d 2) (** 2 1))"),
    ("f(not c, 1 * 1) / b % a > 1 @ d and 1", "(and (> (% (/ (call f (not c) (* 1 1)) b) a) (@ 1 d)) 1)"),
    ("a * c | c >> 2 if a else c // d ** +a", "(if a (| (* a c) (>> c 2)) (// c (** d (+ a))))"),
    ("~c / (a) and not c", "(and (/ (~ c) a) (not c))"),
    ("(1 or d)", "(or 1 d)"),
    ("b * 1 and d and a", "(and (and (* b 1) d) a)"),
    ("2 if d else b and b << c", "(if d 2 (and b (<< b c)))"),
    ("(1 / b and d * 2)", "(and (/ 1 b) (* d 2))"),
    ("c and -c << (d)", "(and c (<< (- c) d))"),
    ("-d", "(- d)"),
    ("(not not a)", "(not (not a))"),
    ("d >> b", "(>> d b)"),
    ("-~1 / b * c", "(* (/ (- (~ 1)) b) c)"),
    ("1 and 1", "(and 1 1)"),
    ("b & 2 * d & b", "(& (& b (* 2 d)) b)"),
    ("b * 2 if c ** b else b", "(if (** c b) (* b 2) b)"),
    ("d + ((2 + c))", "(+ d (+ 2 c))"),
    ("-(c)", "(- c)"),
    ("f(2, b) // 1 @ 2", "(@ (// (call f 2 b) 1) 2)"),
];

#[test]
fn trees_match_cpython() {
    let mut failures = Vec::new();
    for (src, expected) in CASES {
        let module = parse_str(&format!("def f():\n    v = {src}\n"))
            .unwrap_or_else(|e| panic!("{src:?} should parse: {e}"));
        let StmtKind::FuncDef(f) = module.body().first().expect("a def").kind() else {
            panic!("not a def")
        };
        let StmtKind::Assign { value, .. } = f.body.first().expect("a statement").kind() else {
            panic!("not an assignment")
        };
        let got = sexpr(value);
        if got != *expected {
            failures.push(format!("{src}\n  expected {expected}\n  got      {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn chained_comparisons_are_rejected_unless_parenthesized() {
    assert!(parse_str("def f():\n    v = a < b < c\n").is_err());
    assert!(parse_str("def f():\n    v = a < b == c\n").is_err());
    assert!(parse_str("def f():\n    v = (a < b) < c\n").is_ok());
    assert!(parse_str("def f():\n    v = a < (b < c)\n").is_ok());
}

#[test]
fn not_cannot_follow_a_comparison_operator() {
    assert!(parse_str("def f():\n    v = a == not b\n").is_err());
    assert!(parse_str("def f():\n    v = a + not b\n").is_err());
    assert!(parse_str("def f():\n    v = a is not b\n").is_ok());
    assert!(parse_str("def f():\n    v = a not in b\n").is_ok());
}
