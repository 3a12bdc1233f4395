//! AST-level test-case reduction (Perses-style: every candidate is a
//! syntactically valid tree, printed by `backend::print_module`), to a
//! fixpoint, while the finding's signature is preserved:
//!
//! 1. delete statements (chunks of halving size, ddmin-like) in every
//!    block: module level (whole functions, imports), bodies, branches;
//! 2. flatten compound statements (`if` → its body or `else`, loops → body)
//!    and drop decorators (`@force_inline`) and single import names;
//! 3. simplify expressions: replace a node by one of its children, drop a
//!    call argument or tuple item, inline a call of a one-`return`
//!    function, shrink literals (`n` → 0, 1, n/2; floats → 0.0, 1.0; strs
//!    → `""`).
//!
//! Candidates are re-parsed from their printed text, so name ids stay
//! consistent. `write_case` turns the result into a conformance case.

use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use crate::oracle::{check, OracleConfig, Signature, Verdict};
use spy_interp::backend::print_module;
use spy_interp::engine::{run_program, Engine, Limits};
use spy_interp::source::TextRange;
use spy_interp::syntax::ast::{Expr, ExprKind, Module, Stmt, StmtKind};
use spy_interp::syntax::parse_str;
use spy_interp::syntax::walk::{self, NodeMut};

/// Limits of one reduction, in steps, never in time: a reduction that
/// stops at a wall-clock budget ends wherever the machine's load left it,
/// so the same finding would give different reproducers on a busy and an
/// idle machine. Each step is one candidate run on every engine, and each
/// run is bounded by the oracle's fuel. (The campaign's `--seconds` is
/// still a hard end: `Stop::deadline`, and the result says `cut`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReduceBudget {
    /// Candidates tried (each checked on every engine).
    pub max_tries: usize,
}

impl Default for ReduceBudget {
    fn default() -> Self {
        ReduceBudget { max_tries: 20_000 }
    }
}

/// The result of a reduction.
#[derive(Clone, Debug)]
pub struct Reduced {
    pub source: String,
    /// Candidates tried / accepted.
    pub tries: usize,
    pub accepted: usize,
    /// The reduction stopped at the campaign's deadline before its fixpoint.
    pub cut: bool,
    /// The reduction was given up: the program fell into a class of
    /// findings already known (`Stop::abandon`).
    pub abandoned: bool,
    /// Every program the reduction went through (its accepted candidates,
    /// the starting one first): a later finding that reaches one of their
    /// classes would reduce the same way (`campaign` merges it there).
    pub trail: Vec<String>,
}

/// When a reduction stops early, besides its budget.
pub struct Stop<'a> {
    /// A hard end (the campaign's `--seconds`).
    pub deadline: Option<Instant>,
    /// Called with each accepted candidate: `true` gives the reduction up.
    pub abandon: &'a (dyn Fn(&str) -> bool + Sync),
}

impl Stop<'_> {
    /// No deadline, never abandoned.
    pub const NEVER: Stop<'static> = Stop {
        deadline: None,
        abandon: &|_| false,
    };
}

impl Reduced {
    /// Non-blank lines of the reduced program.
    pub fn lines(&self) -> usize {
        self.source.lines().filter(|l| !l.trim().is_empty()).count()
    }
}

struct Reducer<'c> {
    stop: &'c Stop<'c>,
    cut: bool,
    abandoned: bool,
    sig: &'c Signature,
    cfg: &'c OracleConfig,
    budget: ReduceBudget,
    tries: usize,
    accepted: usize,
    best: Module,
    best_text: String,
    /// The original program ended with a static error already.
    rejected_ok: bool,
    trail: Vec<String>,
}

/// Minimize `source` while `check` still reports a finding of the class
/// of signature `sig` (same engines and kind, same line class).
pub fn reduce(source: &str, sig: &Signature, cfg: &OracleConfig, budget: ReduceBudget) -> Reduced {
    reduce_until(source, sig, cfg, budget, &Stop::NEVER)
}

/// [`reduce`] that also ends at `stop`'s deadline or when `stop` abandons
/// the program (see `Reduced::cut` and `Reduced::abandoned`).
pub fn reduce_until(
    source: &str,
    sig: &Signature,
    cfg: &OracleConfig,
    budget: ReduceBudget,
    stop: &Stop<'_>,
) -> Reduced {
    let Ok(module) = parse_str(source) else {
        return Reduced {
            source: source.to_string(),
            tries: 0,
            accepted: 0,
            cut: false,
            abandoned: false,
            trail: vec![source.to_string()],
        };
    };
    let mut r = Reducer {
        stop,
        cut: false,
        abandoned: false,
        sig,
        cfg,
        budget,
        tries: 0,
        accepted: 0,
        best_text: source.to_string(),
        best: module,
        rejected_ok: check(source, cfg).rejected,
        trail: vec![],
    };
    // The printed form must itself still show the finding.
    let printed = print_module(&r.best);
    if r.interesting(&printed) {
        r.best_text = printed;
    }
    r.trail.push(r.best_text.clone());
    // A program already in a known class is not reduced at all.
    if (r.stop.abandon)(&r.best_text) {
        r.abandoned = true;
    }
    loop {
        let mut changed = r.pass_blocks();
        changed |= r.pass_stmts();
        changed |= r.pass_exprs();
        if !changed || r.exhausted() {
            break;
        }
    }
    Reduced {
        source: r.best_text,
        tries: r.tries,
        accepted: r.accepted,
        cut: r.cut,
        abandoned: r.abandoned,
        trail: r.trail,
    }
}

impl Reducer<'_> {
    fn exhausted(&mut self) -> bool {
        if self.stop.deadline.is_some_and(|d| Instant::now() >= d) {
            self.cut = true;
        }
        self.cut || self.abandoned || self.tries >= self.budget.max_tries
    }

    fn interesting(&mut self, text: &str) -> bool {
        self.tries += 1;
        let c = check(text, self.cfg);
        // A valid program stays valid (no reduction to a static error).
        if c.rejected && !self.rejected_ok {
            return false;
        }
        match c.verdict {
            // The same class of finding (`dedup::line_class`: the numbers
            // of the differing line may change while reducing).
            Verdict::Finding(f) => {
                f.signature.engines == self.sig.engines
                    && f.signature.kind == self.sig.kind
                    && crate::dedup::line_class(&f.signature.line) == crate::dedup::line_class(&self.sig.line)
            }
            _ => false,
        }
    }

    /// Try a candidate tree; keep it if it is smaller and still interesting.
    fn attempt(&mut self, cand: Module) -> bool {
        if self.exhausted() {
            return false;
        }
        let text = print_module(&cand);
        // Only strictly smaller programs, by (length, text): a well-founded
        // order, so the reduction reaches a fixpoint.
        let smaller = (text.len(), &text) < (self.best_text.len(), &self.best_text);
        if !smaller || !self.interesting(&text) {
            return false;
        }
        let Ok(m) = parse_str(&text) else { return false };
        self.best = m;
        self.accepted += 1;
        self.trail.push(text.clone());
        if (self.stop.abandon)(&text) {
            self.abandoned = true;
        }
        self.best_text = text;
        true
    }

    /// Delete chunks of statements, block by block.
    fn pass_blocks(&mut self) -> bool {
        let mut changed = false;
        let mut b = 0;
        while b < count_blocks(&mut self.best.clone()) && !self.exhausted() {
            let len = block_len(&mut self.best.clone(), b);
            let mut size = len.max(1);
            while size >= 1 {
                let mut start = 0;
                while start < block_len(&mut self.best.clone(), b) {
                    let mut cand = self.best.clone();
                    let Some(block) = nth_block(&mut cand.body, &mut b.clone()) else {
                        break;
                    };
                    let end = (start + size).min(block.len());
                    block.drain(start..end);
                    if self.attempt(cand) {
                        changed = true;
                    } else {
                        start += size;
                    }
                }
                size /= 2;
            }
            b += 1;
        }
        changed
    }

    /// Flatten compound statements, drop decorators and import names.
    fn pass_stmts(&mut self) -> bool {
        let mut changed = false;
        let mut b = 0;
        while b < count_blocks(&mut self.best.clone()) && !self.exhausted() {
            let mut i = 0;
            while i < block_len(&mut self.best.clone(), b) {
                let mut accepted = false;
                for variant in 0..4 {
                    let mut cand = self.best.clone();
                    let Some(block) = nth_block(&mut cand.body, &mut b.clone()) else {
                        break;
                    };
                    if !stmt_variant(block, i, variant) {
                        continue;
                    }
                    if self.attempt(cand) {
                        accepted = true;
                        changed = true;
                        break;
                    }
                }
                if !accepted {
                    i += 1;
                }
            }
            b += 1;
        }
        changed
    }

    /// Simplify expressions, node by node (pre-order).
    fn pass_exprs(&mut self) -> bool {
        let mut changed = false;
        let mut k = 0;
        while k < count_exprs(&self.best) && !self.exhausted() {
            let Some(e) = nth_expr(&mut self.best.clone().body, &mut k.clone()).cloned() else {
                break;
            };
            let mut accepted = false;
            for replacement in expr_variants(&e, &self.best) {
                let mut cand = self.best.clone();
                if let Some(slot) = nth_expr(&mut cand.body, &mut k.clone()) {
                    *slot = replacement;
                }
                if self.attempt(cand) {
                    accepted = true;
                    changed = true;
                    break;
                }
            }
            if !accepted {
                k += 1;
            }
        }
        changed
    }
}

// ------------------------------------------------------------ tree access

/// The expressions directly in a statement (also those of its assignment
/// target and parameters), and its nested blocks, in source order.
fn stmt_parts(s: &mut Stmt) -> (Vec<&mut Expr>, Vec<&mut Vec<Stmt>>) {
    fn collect<'a>(node: NodeMut<'a>, exprs: &mut Vec<&'a mut Expr>, blocks: &mut Vec<&'a mut Vec<Stmt>>) {
        walk::children_mut(node, &mut |child| match child {
            NodeMut::Expr(e) => exprs.push(e),
            NodeMut::Block(b) => blocks.push(b),
            part @ (NodeMut::Target(_) | NodeMut::Param(_)) => collect(part, exprs, blocks),
            NodeMut::Stmt(_) | NodeMut::ImportName(_) | NodeMut::Ident(_) => {}
        });
    }
    let (mut exprs, mut blocks) = (Vec::new(), Vec::new());
    collect(NodeMut::Stmt(s), &mut exprs, &mut blocks);
    (exprs, blocks)
}

fn expr_children(e: &mut Expr) -> Vec<&mut Expr> {
    let mut children = Vec::new();
    walk::for_each_child_expr_mut(e, &mut |c| children.push(c));
    children
}

/// The `n`-th block (pre-order; the module body is block 0).
fn nth_block<'a>(stmts: &'a mut Vec<Stmt>, n: &mut usize) -> Option<&'a mut Vec<Stmt>> {
    if *n == 0 {
        return Some(stmts);
    }
    *n -= 1;
    for s in stmts.iter_mut() {
        for b in stmt_parts(s).1 {
            if let Some(found) = nth_block(b, n) {
                return Some(found);
            }
        }
    }
    None
}

fn count_blocks(m: &mut Module) -> usize {
    let mut n = usize::MAX;
    let _ = nth_block(&mut m.body, &mut n);
    usize::MAX - n
}

fn block_len(m: &mut Module, b: usize) -> usize {
    nth_block(&mut m.body, &mut b.clone()).map_or(0, |b| b.len())
}

fn nth_in_expr<'a>(e: &'a mut Expr, n: &mut usize) -> Option<&'a mut Expr> {
    if *n == 0 {
        return Some(e);
    }
    *n -= 1;
    for c in expr_children(e) {
        if let Some(found) = nth_in_expr(c, n) {
            return Some(found);
        }
    }
    None
}

/// The `n`-th expression node of the module (pre-order).
fn nth_expr<'a>(stmts: &'a mut [Stmt], n: &mut usize) -> Option<&'a mut Expr> {
    for s in stmts.iter_mut() {
        let (es, bs) = stmt_parts(s);
        for e in es {
            if let Some(found) = nth_in_expr(e, n) {
                return Some(found);
            }
        }
        for b in bs {
            if let Some(found) = nth_expr(b, n) {
                return Some(found);
            }
        }
    }
    None
}

fn count_exprs(m: &Module) -> usize {
    let mut n = usize::MAX;
    let _ = nth_expr(&mut m.clone().body, &mut n);
    usize::MAX - n
}

// ------------------------------------------------------------ candidates

/// Apply statement variant `v` to `block[i]`; false if it does not apply.
fn stmt_variant(block: &mut Vec<Stmt>, i: usize, v: usize) -> bool {
    let Some(s) = block.get_mut(i) else { return false };
    let replacement: Option<Vec<Stmt>> = match (&mut s.kind, v) {
        (StmtKind::If { body, .. }, 0) => Some(body.clone()),
        (StmtKind::If { orelse, .. }, 1) if !orelse.is_empty() => Some(orelse.clone()),
        (StmtKind::If { orelse, .. }, 2) if !orelse.is_empty() => {
            orelse.clear();
            return true;
        }
        (StmtKind::While { body, .. } | StmtKind::For { body, .. }, 0) => Some(body.clone()),
        (StmtKind::FuncDef(d), 0) if !d.decorators.is_empty() => {
            Rc::make_mut(d).decorators.clear();
            return true;
        }
        (StmtKind::ImportFrom { names, .. }, k) if names.len() > 1 && k < names.len() => {
            names.remove(k);
            return true;
        }
        _ => None,
    };
    match replacement {
        Some(stmts) => {
            block.splice(i..=i, stmts);
            true
        }
        None => false,
    }
}

fn lit(kind: ExprKind, range: TextRange) -> Expr {
    Expr::new(kind, range)
}

/// Smaller replacements for `e`, most promising first.
fn expr_variants(e: &Expr, module: &Module) -> Vec<Expr> {
    let r = e.range;
    let mut out = Vec::new();
    match &e.kind {
        ExprKind::Int(v) => {
            for c in [0, 1, v / 2] {
                if c != *v {
                    out.push(lit(ExprKind::Int(c), r));
                }
            }
            return out;
        }
        ExprKind::Float(v) => {
            for c in [0.0, 1.0] {
                if c != *v {
                    out.push(lit(ExprKind::Float(c), r));
                }
            }
            return out;
        }
        ExprKind::Str(s) if !s.is_empty() => return vec![lit(ExprKind::Str(String::new()), r)],
        ExprKind::Name(_) => return vec![lit(ExprKind::Int(0), r)],
        ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::None => return out,
        _ => {}
    }
    if let Some(inlined) = inline_call(e, module) {
        out.push(inlined);
    }
    let hoistable = |c: &Expr| {
        !matches!(
            c.kind,
            ExprKind::Starred(_) | ExprKind::Slice { .. } | ExprKind::GeneratorExp { .. }
        )
    };
    let mut copy = e.clone();
    let children = expr_children(&mut copy);
    for c in &children {
        if hoistable(c) {
            out.push((*c).clone());
        }
    }
    // then the constants deeper inside: `S[T](a, -0.0).get()` becomes
    // `-0.0` in one step (a child alone, `S[T](a, -0.0)`, changes what is
    // printed, so a path of single steps down to the constant is closed)
    let mut constants = Vec::new();
    for c in children {
        deep_constants(c, &mut constants);
    }
    out.extend(constants.into_iter().take(8));
    match &e.kind {
        ExprKind::Call { func, args } => {
            for k in 0..args.len() {
                let mut a = args.to_vec();
                a.remove(k);
                out.push(lit(
                    ExprKind::Call {
                        func: func.clone(),
                        args: a.into(),
                    },
                    r,
                ));
            }
        }
        ExprKind::Tuple(items) if items.len() > 1 => {
            for k in 0..items.len() {
                let mut a = items.clone();
                a.remove(k);
                out.push(lit(ExprKind::Tuple(a), r));
            }
        }
        _ => {}
    }
    out.push(lit(ExprKind::Int(0), r));
    out
}

/// The constants (a literal, or a negated one) strictly inside `e`'s
/// children, in source order.
fn deep_constants(e: &mut Expr, out: &mut Vec<Expr>) {
    for c in expr_children(e) {
        let literal = |k: &ExprKind| {
            matches!(
                k,
                ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::Bool(_)
            )
        };
        match &c.kind {
            k if literal(k) => out.push(c.clone()),
            ExprKind::UnaryOp { operand, .. } if literal(&operand.kind) => out.push(c.clone()),
            _ => deep_constants(c, out),
        }
    }
}

/// `f(a, b)` of a module-level `def f(x, y) -> T: return e` becomes `e`
/// with `x, y` replaced by `(a), (b)`.
fn inline_call(e: &Expr, module: &Module) -> Option<Expr> {
    let ExprKind::Call { func, args } = &e.kind else {
        return None;
    };
    let ExprKind::Name(fname) = &func.kind else {
        return None;
    };
    let def = module.body.iter().find_map(|s| match &s.kind {
        StmtKind::FuncDef(d) if d.name.name == fname.name => Some(d.clone()),
        _ => None,
    })?;
    if def.type_params.is_some()
        || def.params.len() != args.len()
        || args.iter().any(|a| matches!(a.kind, ExprKind::Starred(_)))
    {
        return None;
    }
    let [Stmt {
        kind: StmtKind::Return(Some(body)),
        ..
    }] = def.body.as_slice()
    else {
        return None;
    };
    let mut body = body.clone();
    substitute(
        &mut body,
        &def.params
            .iter()
            .map(|p| p.name.name.to_string())
            .collect::<Vec<_>>(),
        args,
    );
    Some(body)
}

fn substitute(e: &mut Expr, names: &[String], args: &[Expr]) {
    if let ExprKind::Name(id) = &e.kind {
        if let Some(k) = names.iter().position(|n| *n == id.name) {
            *e = args[k].clone();
        }
        return;
    }
    for c in expr_children(e) {
        substitute(c, names, args);
    }
}

// ------------------------------------------------------------ output

/// A reduced finding written as a conformance case.
#[derive(Clone, Debug)]
pub struct CaseFiles {
    pub spy: PathBuf,
    pub snap: PathBuf,
}

/// Write `<dir>/<name>.spy` (a `#` comment line, then the program) and
/// `<dir>/<name>.snap` (the reference engine's outcome, run as a
/// conformance case would be: module name = file stem, default limits).
pub fn write_case(dir: &Path, name: &str, comment: &str, source: &str) -> std::io::Result<CaseFiles> {
    std::fs::create_dir_all(dir)?;
    let spy = dir.join(format!("{name}.spy"));
    let snap = dir.join(format!("{name}.snap"));
    let mut text = String::new();
    for line in comment.lines() {
        text.push_str(&format!("# {line}\n"));
    }
    text.push_str(source);
    std::fs::write(&spy, &text)?;
    let reference = Engine::ALL[0];
    let limits = Limits {
        max_steps: Some(10_000_000),
        ..Limits::default()
    };
    let outcome = run_program(reference, &spy.to_string_lossy(), text.as_bytes(), limits.into());
    std::fs::write(&snap, spy_conformance::snapshot_file(&outcome))?;
    Ok(CaseFiles { spy, snap })
}

#[cfg(test)]
mod tests {
    use super::*;
    use spy_interp::frames::{Mutation, Mutations};

    #[test]
    fn reduces_a_planted_floor_division_bug() {
        let src = "def noise(x: i32) -> i32:\n    print(\"noise\", x)\n    return x * 2\n\ndef main() -> None:\n    a = 5\n    print(noise(a), \"x\")\n    b = -7\n    print(b // 2, noise(3))\n    print(\"tail\")\n";
        let cfg = OracleConfig {
            mutations: Mutations::from(Mutation::FloorDivRoundsTowardZero),
            ..OracleConfig::default()
        };
        let Verdict::Finding(f) = check(src, &cfg).verdict else {
            panic!("no finding")
        };
        let r = reduce(src, &f.signature, &cfg, ReduceBudget::default());
        assert!(r.lines() <= 4, "{}", r.source);
        assert!(r.source.contains("//"), "{}", r.source);
    }
}
