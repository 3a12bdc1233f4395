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
use std::time::Instant;

use crate::oracle::{check, OracleConfig, Signature, Verdict};
use spy_interp::backend::print_module;
use spy_interp::engine::{run_program, Engine, Limits};
use spy_interp::syntax::ast::{
    Block, Expr, ExprId, ExprKind, ExprNode, ExprRef, Lit64, Module, StmtId, StmtKind, StmtNode,
};
use spy_interp::syntax::parse_str;
use spy_interp::syntax::walk::{self, NodeRef};

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
    let printed = print_module(r.best.body());
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
        let text = print_module(cand.body());
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
        while b < blocks(&self.best).len() && !self.exhausted() {
            let len = block_len(&self.best, b);
            let mut size = len.max(1);
            while size >= 1 {
                let mut start = 0;
                while start < block_len(&self.best, b) {
                    let mut cand = self.best.clone();
                    let Some(&block) = blocks(&cand).get(b) else {
                        break;
                    };
                    let mut items = cand.block_items(block).to_vec();
                    let end = (start + size).min(items.len());
                    items.drain(start..end);
                    set_block(&mut cand, block, items);
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
        while b < blocks(&self.best).len() && !self.exhausted() {
            let mut i = 0;
            while i < block_len(&self.best, b) {
                let mut accepted = false;
                for variant in 0..4 {
                    let mut cand = self.best.clone();
                    let Some(&block) = blocks(&cand).get(b) else {
                        break;
                    };
                    if !stmt_variant(&mut cand, block, i, variant) {
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
        while k < expr_ids(&self.best).len() && !self.exhausted() {
            let Some(&e) = expr_ids(&self.best).get(k) else {
                break;
            };
            let mut accepted = false;
            for edit in expr_variants(self.best.expr(e)) {
                let mut cand = self.best.clone();
                edit.apply(&mut cand, e);
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

/// Every block of the module, pre-order (the module body is block 0; a
/// statement's blocks in source order).
fn blocks(m: &Module) -> Vec<Block> {
    fn visit(m: &Module, b: Block, out: &mut Vec<Block>) {
        out.push(b);
        for &s in m.block_items(b) {
            for inner in stmt_blocks(m, s) {
                visit(m, inner, out);
            }
        }
    }
    let mut out = Vec::new();
    visit(m, m.body, &mut out);
    out
}

/// The blocks directly in statement `s`.
fn stmt_blocks(m: &Module, s: StmtId) -> Vec<Block> {
    match &m.stmt_node(s).node {
        StmtNode::FuncDef(f) => vec![m.func_node(*f).body],
        StmtNode::ClassDef(c) => vec![m.class_node(*c).body],
        StmtNode::If { body, orelse, .. } => vec![*body, *orelse],
        StmtNode::While { body, .. } | StmtNode::For { body, .. } => vec![*body],
        _ => Vec::new(),
    }
}

fn block_len(m: &Module, b: usize) -> usize {
    blocks(m).get(b).map_or(0, |&b| m.block_items(b).len())
}

/// Give `block` the statements `items` (the module body and the empty
/// body are blocks of their own).
fn set_block(m: &mut Module, block: Block, items: Vec<StmtId>) {
    if block == m.body {
        m.body = m.add_block(items);
    } else {
        m.set_block(block, items);
    }
}

/// Every expression of the module, pre-order (also those of assignment
/// targets and parameters).
fn expr_ids(m: &Module) -> Vec<ExprId> {
    fn visit(n: NodeRef<'_>, out: &mut Vec<ExprId>) {
        if let NodeRef::Expr(e) = &n {
            out.push(e.id);
        }
        walk::children(n, &mut |c| visit(c, out));
    }
    let mut out = Vec::new();
    walk::module_children(m, &mut |n| visit(n, &mut out));
    out
}

// ------------------------------------------------------------ candidates

/// Apply statement variant `v` to statement `i` of `block`; false if it
/// does not apply.
fn stmt_variant(m: &mut Module, block: Block, i: usize, v: usize) -> bool {
    let mut items = m.block_items(block).to_vec();
    let Some(&s) = items.get(i) else { return false };
    let node = m.stmt_node(s).node;
    let replacement: Option<Block> = match (node, v) {
        (StmtNode::If { body, .. }, 0) => Some(body),
        (StmtNode::If { orelse, .. }, 1) if orelse != Block::EMPTY => Some(orelse),
        (StmtNode::If { test, body, orelse }, 2) if orelse != Block::EMPTY => {
            m.set_stmt_node(
                s,
                StmtNode::If {
                    test,
                    body,
                    orelse: Block::EMPTY,
                },
            );
            return true;
        }
        (StmtNode::While { body, .. } | StmtNode::For { body, .. }, 0) => Some(body),
        (StmtNode::FuncDef(d), 0) if !m.func_node(d).decorators.is_empty() => {
            let mut node = m.func_node(d);
            node.decorators = m.add_exprs([]);
            m.set_func(d, node);
            return true;
        }
        (StmtNode::ImportFrom { module, names }, k) if names.len() > 1 && k < names.len() => {
            let mut kept = m.import_name_nodes(names).to_vec();
            kept.remove(k);
            let names = m.add_import_names(kept);
            m.set_stmt_node(s, StmtNode::ImportFrom { module, names });
            return true;
        }
        _ => None,
    };
    match replacement {
        Some(inner) => {
            let inner = m.block_items(inner).to_vec();
            items.splice(i..=i, inner);
            set_block(m, block, items);
            true
        }
        None => false,
    }
}

/// A smaller replacement for an expression.
enum Edit {
    Int(u64),
    Float(f64),
    EmptyStr,
    /// The expression `e` (a child, or a constant deeper inside).
    Hoist(ExprId),
    /// The call without argument `k`.
    DropArg(usize),
    /// The tuple without item `k`.
    DropItem(usize),
    /// The body (its `return`'s expression) of the one-`return` function
    /// called, its parameters replaced by the arguments.
    Inline(ExprId, Vec<String>),
}

impl Edit {
    /// Make expression `e` of `m` this replacement.
    fn apply(&self, m: &mut Module, e: ExprId) {
        let range = m.expr_node(e).range;
        let node = match self {
            Edit::Int(v) => ExprNode::Int(Lit64::from_u64(*v)),
            Edit::Float(v) => ExprNode::Float(Lit64::from_f64(*v)),
            Edit::EmptyStr => ExprNode::Str(m.add_str("")),
            Edit::Hoist(c) => {
                let c = m.expr_node(*c);
                m.set_expr(e, c);
                return;
            }
            Edit::DropArg(k) => {
                let ExprNode::Call(items) = m.expr_node(e).node else {
                    return;
                };
                let (func, args) = m.first_and_rest(items);
                let mut a = m.expr_items(args).to_vec();
                a.remove(*k);
                ExprNode::Call(m.add_exprs(std::iter::once(func).chain(a)))
            }
            Edit::DropItem(k) => {
                let ExprNode::Tuple(items) = m.expr_node(e).node else {
                    return;
                };
                let mut a = m.expr_items(items).to_vec();
                a.remove(*k);
                ExprNode::Tuple(m.add_exprs(a))
            }
            Edit::Inline(body, names) => {
                let ExprNode::Call(items) = m.expr_node(e).node else {
                    return;
                };
                let (_, args) = m.first_and_rest(items);
                let args = m.expr_items(args).to_vec();
                let inlined = substitute(m, *body, names, &args);
                m.set_expr(e, inlined);
                return;
            }
        };
        m.set_expr(e, Expr { node, range });
    }
}

/// Smaller replacements for `e`, most promising first.
fn expr_variants(e: ExprRef<'_>) -> Vec<Edit> {
    let mut out = Vec::new();
    match e.kind() {
        ExprKind::Int(v) => {
            for c in [0, 1, v / 2] {
                if c != v {
                    out.push(Edit::Int(c));
                }
            }
            return out;
        }
        ExprKind::Float(v) => {
            for c in [0.0, 1.0] {
                if c != v {
                    out.push(Edit::Float(c));
                }
            }
            return out;
        }
        ExprKind::Str(s) if !s.is_empty() => return vec![Edit::EmptyStr],
        ExprKind::Name(_) => return vec![Edit::Int(0)],
        ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::None => return out,
        _ => {}
    }
    if let Some(inlined) = inline_call(e) {
        out.push(inlined);
    }
    let hoistable = |c: &ExprRef<'_>| {
        !matches!(
            c.kind(),
            ExprKind::Starred(_) | ExprKind::Slice { .. } | ExprKind::GeneratorExp { .. }
        )
    };
    let mut children = Vec::new();
    walk::for_each_child_expr(e, &mut |c| children.push(c));
    for c in &children {
        if hoistable(c) {
            out.push(Edit::Hoist(c.id));
        }
    }
    // then the constants deeper inside: `S[T](a, -0.0).get()` becomes
    // `-0.0` in one step (a child alone, `S[T](a, -0.0)`, changes what is
    // printed, so a path of single steps down to the constant is closed)
    let mut constants = Vec::new();
    for c in children {
        deep_constants(c, &mut constants);
    }
    out.extend(constants.into_iter().take(8).map(Edit::Hoist));
    match e.kind() {
        ExprKind::Call { args, .. } => out.extend((0..args.len()).map(Edit::DropArg)),
        ExprKind::Tuple(items) if items.len() > 1 => out.extend((0..items.len()).map(Edit::DropItem)),
        _ => {}
    }
    out.push(Edit::Int(0));
    out
}

/// The constants (a literal, or a negated one) strictly inside `e`'s
/// children, in source order.
fn deep_constants(e: ExprRef<'_>, out: &mut Vec<ExprId>) {
    walk::for_each_child_expr(e, &mut |c| {
        let literal = |k: &ExprKind<'_>| {
            matches!(
                k,
                ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Str(_) | ExprKind::Bool(_)
            )
        };
        match c.kind() {
            k if literal(&k) => out.push(c.id),
            ExprKind::UnaryOp { operand, .. } if literal(&operand.kind()) => out.push(c.id),
            _ => deep_constants(c, out),
        }
    });
}

/// `f(a, b)` of a module-level `def f(x, y) -> T: return e` becomes `e`
/// with `x, y` replaced by `(a), (b)`.
fn inline_call(e: ExprRef<'_>) -> Option<Edit> {
    let ExprKind::Call { func, args } = e.kind() else {
        return None;
    };
    let ExprKind::Name(fname) = func.kind() else {
        return None;
    };
    let def = e.module.body().iter().find_map(|s| match s.kind() {
        StmtKind::FuncDef(d) if d.name.name == fname.name => Some(d),
        _ => None,
    })?;
    if def.type_params.is_some()
        || def.params.len() != args.len()
        || args.iter().any(|a| matches!(a.kind(), ExprKind::Starred(_)))
    {
        return None;
    }
    let (1, Some(StmtKind::Return(Some(body)))) = (def.body.len(), def.body.first().map(|s| s.kind())) else {
        return None;
    };
    let names = def.params.iter().map(|p| p.name.name.to_string()).collect();
    Some(Edit::Inline(body.id, names))
}

/// A copy of expression `e` in which every name in `names` is the
/// matching expression of `args`.
fn substitute(m: &mut Module, e: ExprId, names: &[String], args: &[ExprId]) -> Expr {
    if let Some(id) = m.expr(e).name_ident() {
        return match names.iter().position(|n| *n == id.name) {
            Some(k) => m.expr_node(args[k]),
            None => m.expr_node(e),
        };
    }
    let mut copy = m.expr_node(e);
    let mut children = Vec::new();
    walk::for_each_child_expr(m.expr(e), &mut |c| children.push(c.id));
    for c in children {
        let sub = substitute(m, c, names, args);
        let fresh = m.add_expr(sub.node, sub.range);
        replace_child(m, &mut copy.node, c, fresh);
    }
    copy
}

/// In `node`, the child `old` (by index) replaced by `new`.
fn replace_child(m: &mut Module, node: &mut ExprNode, old: ExprId, new: ExprId) {
    let swap = |x: &mut ExprId| {
        if *x == old {
            *x = new;
        }
    };
    match node {
        ExprNode::Attribute { value, .. } | ExprNode::Starred(value) | ExprNode::Walrus { value, .. } => {
            swap(value)
        }
        ExprNode::UnaryOp { operand, .. } => swap(operand),
        ExprNode::BinOp { left, right, .. }
        | ExprNode::Compare { left, right, .. }
        | ExprNode::BoolOp { left, right, .. } => {
            swap(left);
            swap(right);
        }
        // (the side-table nodes get an entry of their own: the copied
        // node's entry is the original's)
        ExprNode::IfExp(i) => {
            let mut n = *m.if_exp_node(*i);
            swap(&mut n.test);
            swap(&mut n.body);
            swap(&mut n.orelse);
            *node = m.if_exp_entry(n);
        }
        ExprNode::GeneratorExp(g) => {
            let mut n = *m.generator_exp_node(*g);
            swap(&mut n.elt);
            swap(&mut n.iter);
            *node = m.generator_exp_entry(n);
        }
        ExprNode::Slice(sl) => {
            let mut n = *m.slice_node(*sl);
            for part in [&mut n.lower, &mut n.upper, &mut n.step].into_iter().flatten() {
                swap(part);
            }
            *node = m.slice_entry(n);
        }
        // (a call's items are its callee and arguments, a subscript's its
        // value and indices)
        ExprNode::Call(items)
        | ExprNode::Subscript(items)
        | ExprNode::Tuple(items)
        | ExprNode::List(items)
        | ExprNode::Dict(items) => {
            let list: Vec<ExprId> = m
                .expr_items(*items)
                .iter()
                .map(|&x| if x == old { new } else { x })
                .collect();
            *items = m.add_exprs(list);
        }
        ExprNode::Int(_)
        | ExprNode::Float(_)
        | ExprNode::Str(_)
        | ExprNode::Bytes(_)
        | ExprNode::Bool(_)
        | ExprNode::None
        | ExprNode::Name { .. }
        | ExprNode::NameIn(_) => {}
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
