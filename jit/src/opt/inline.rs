//! Inlining: a direct call of a small function is replaced by a copy of the
//! callee's body, so the load helpers, kernels, `$convert[A, B]` and struct
//! methods a residual module calls in its loops cost no call, and the
//! callee's code is simplified and allocated together with the caller's.
//!
//! The copy sits between `InlineEnter(site)` and `InlineExit` (see
//! [`Stmt::InlineEnter`]): the enter counts one activation against the depth
//! limit exactly as the callee's entry would (so the recursion error comes at
//! the same depth), and an error raised inside appends the call's `site` to
//! the traceback, as unwinding through the call does. The front end's error
//! codes and sites are the callee's own, so the traceback it rebuilds is the
//! same statement for statement.
//!
//! What is inlined: a `Call` whose callee has at most
//! [`InlineOptions::max_callee_stmts`] statements (nested ones counted,
//! markers not) and whose every `Return` is in tail position once an `if`
//! whose arm always leaves has the statements after it moved into its other
//! arm (so no `Return` inside a loop), while the caller has at most
//! [`InlineOptions::max_caller_stmts`]. Functions are processed callees
//! first (post-order of the call graph), so a callee arrives with its own
//! calls already inlined; a call back into a function still being processed
//! (recursion) gets that function's original body, whose own calls are
//! inlined the same way up to [`InlineOptions::recursion_levels`] levels
//! (and while the copies of recursive bodies stay within
//! [`InlineOptions::max_recursion_stmts`]); the calls of the last level
//! stay calls, so the expansion is finite (for `fib`, three levels: 14
//! copies of the body and 16 calls, one activation of the machine code
//! for every 15 of the interpreter's; after [`super::fold`], whose range
//! test makes each copy larger, the statement budget leaves 12 calls).
//!
//! The callee's registers are renamed to fresh registers of the caller; a
//! parameter the callee never assigns becomes a temporary (so copy
//! propagation sees through it). With a single `Return` at the end of the
//! body, its values are copied straight into the call's result registers;
//! otherwise each tail `Return` assigns fresh result locals, which the call's
//! results copy after the `InlineExit`.

use crate::ir::{Block, FuncId, Function, Module, Op, SiteId, Stmt, VOp, VReg, VRegInfo, VRegKind};

/// The size limits of [`inline_module`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineOptions {
    /// Largest callee inlined (statements, nested ones counted, markers not).
    pub max_callee_stmts: usize,
    /// No more inlining into a function once it is this large.
    pub max_caller_stmts: usize,
    /// Levels of a recursion unrolled into each function on it (1: the
    /// recursive calls of a function are inlined once, their copies' calls
    /// stay calls).
    pub recursion_levels: u32,
    /// No more recursion unrolled into a function once the copies of
    /// recursive bodies in it have this many statements.
    pub max_recursion_stmts: usize,
}

impl Default for InlineOptions {
    fn default() -> Self {
        InlineOptions {
            max_callee_stmts: 48,
            max_caller_stmts: 4000,
            recursion_levels: 3,
            max_recursion_stmts: 256,
        }
    }
}

/// Inline small callees everywhere in `m` (a verified module; the result
/// verifies too). Returns the number of calls inlined.
pub fn inline_module(m: &mut Module, opts: &InlineOptions) -> usize {
    // Only a call of a function on the DFS path reads an original body, and
    // only a call graph with a cycle has such a call: inlining puts into
    // `f` only calls `f` reaches.
    let originals = has_cycle(m).then(|| m.functions.clone());
    let n = m.functions.len();
    // 0 = not seen, 1 = being processed (on the DFS path), 2 = done.
    let mut state = vec![0u8; n];
    let mut count = 0;
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        // Iterative post-order DFS: (function, callees still to visit).
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(root, callees(&m.functions[root].body))];
        state[root] = 1;
        while let Some((f, todo)) = stack.last_mut() {
            let f = *f;
            if let Some(g) = todo.pop() {
                if state[g] == 0 {
                    state[g] = 1;
                    stack.push((g, callees(&m.functions[g].body)));
                }
                continue;
            }
            stack.pop();
            // `f` is on the DFS path while its calls are inlined: a call of
            // it (recursion) reads `originals`, never this slot.
            let empty = Function {
                name: String::new(),
                params: vec![],
                results: vec![],
                vregs: vec![],
                body: Block::default(),
            };
            let mut func = std::mem::replace(&mut m.functions[f], empty);
            let mut body = std::mem::take(&mut func.body);
            let mut cx = Cx {
                m,
                originals: originals.as_deref(),
                state: &state,
                opts,
                caller_stmts: size(&body),
                caller: &mut func,
                count: 0,
                level: 0,
                recursion_stmts: 0,
            };
            cx.block(&mut body);
            count += cx.count;
            func.body = body;
            m.functions[f] = func;
            state[f] = 2;
        }
    }
    count
}

/// Whether some function of `m` calls itself, directly or not.
fn has_cycle(m: &Module) -> bool {
    let n = m.functions.len();
    // 0 = not seen, 1 = on the DFS path, 2 = done.
    let mut state = vec![0u8; n];
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>)> = vec![(root, callees(&m.functions[root].body))];
        state[root] = 1;
        while let Some((f, todo)) = stack.last_mut() {
            let f = *f;
            match todo.pop() {
                Some(g) if state[g] == 1 => return true,
                Some(g) if state[g] == 0 => {
                    state[g] = 1;
                    stack.push((g, callees(&m.functions[g].body)));
                }
                Some(_) => {}
                None => {
                    state[f] = 2;
                    stack.pop();
                }
            }
        }
    }
    false
}

/// The distinct functions a block calls.
fn callees(b: &Block) -> Vec<usize> {
    let mut out = vec![];
    walk(b, &mut |s| {
        if let Stmt::Call { func, .. } = s {
            let g = func.0 as usize;
            if !out.contains(&g) {
                out.push(g);
            }
        }
    });
    out
}

/// Every statement, nested ones included.
fn walk(b: &Block, f: &mut impl FnMut(&Stmt)) {
    for s in &b.0 {
        f(s);
        match s {
            Stmt::If { then_, else_, .. } => {
                walk(then_, f);
                walk(else_, f);
            }
            Stmt::Loop { body } => walk(body, f),
            _ => {}
        }
    }
}

/// Whether `size(b) > limit`, counting at most `limit + 1` statements (a
/// call of a large function is refused without walking all of its body).
fn size_exceeds(b: &Block, limit: usize) -> bool {
    fn count(b: &Block, n: &mut usize, limit: usize) -> bool {
        for s in &b.0 {
            if !matches!(s, Stmt::Mark(_) | Stmt::InlineEnter(_) | Stmt::InlineExit) {
                *n += 1;
                if *n > limit {
                    return true;
                }
            }
            let over = match s {
                Stmt::If { then_, else_, .. } => count(then_, n, limit) || count(else_, n, limit),
                Stmt::Loop { body } => count(body, n, limit),
                _ => false,
            };
            if over {
                return true;
            }
        }
        false
    }
    count(b, &mut 0, limit)
}

/// Statements that emit code, nested ones included (markers do not count).
pub fn size(b: &Block) -> usize {
    let mut n = 0;
    walk(b, &mut |s| {
        if !matches!(s, Stmt::Mark(_) | Stmt::InlineEnter(_) | Stmt::InlineExit) {
            n += 1;
        }
    });
    n
}

struct Cx<'a> {
    m: &'a Module,
    /// Every function before inlining (`None`: no recursion, never read).
    originals: Option<&'a [Function]>,
    state: &'a [u8],
    opts: &'a InlineOptions,
    caller: &'a mut Function,
    count: usize,
    /// Statements of the caller as it grows: its own, plus every copy
    /// spliced in so far (its body is out of `caller` while it is rebuilt).
    caller_stmts: usize,
    /// Copies of recursive bodies the statements being processed are in.
    level: u32,
    /// Statements of the recursive bodies inlined into this function.
    recursion_stmts: usize,
}

impl<'a> Cx<'a> {
    /// The body of `g` before any inlining (`g` is on the DFS path: the
    /// call graph has a cycle).
    fn original(&self, g: usize) -> &'a Function {
        match self.originals {
            Some(o) => &o[g],
            None => panic!("a call of a function on the inlining path in a module without recursion"),
        }
    }

    fn block(&mut self, b: &mut Block) {
        if !b.0.iter().any(|s| matches!(s, Stmt::Call { .. })) {
            // No call here: the list stays as it is (nested blocks in place).
            for s in &mut b.0 {
                match s {
                    Stmt::If { then_, else_, .. } => {
                        self.block(then_);
                        self.block(else_);
                    }
                    Stmt::Loop { body } => self.block(body),
                    _ => {}
                }
            }
            return;
        }
        let old = std::mem::take(&mut b.0);
        let mut out = Vec::with_capacity(old.len());
        for s in old {
            match s {
                Stmt::Call {
                    func,
                    args,
                    results,
                    site,
                } => match self.callee_body(func) {
                    Some(callee) => {
                        let callee_stmts = size(&callee.body);
                        if self.state[func.0 as usize] == 2 {
                            // Not recursive: the body goes straight into
                            // this list (no copy of it in a list of its own).
                            self.splice(callee, &args, &results, site, &mut out);
                            self.count += 1;
                            self.caller_stmts += callee_stmts;
                            continue;
                        }
                        let mut copy = vec![];
                        self.splice(callee, &args, &results, site, &mut copy);
                        self.count += 1;
                        self.caller_stmts += callee_stmts;
                        // A recursive body's own calls: the next level of
                        // the recursion, inlined again while the levels and
                        // the budget allow; past that, their base cases
                        // are peeled.
                        self.recursion_stmts += callee_stmts;
                        let mut b = Block(copy);
                        if self.level + 1 < self.opts.recursion_levels
                            && self.recursion_stmts <= self.opts.max_recursion_stmts
                        {
                            self.level += 1;
                            self.block(&mut b);
                            self.level -= 1;
                        } else {
                            self.peel_block(&mut b);
                        }
                        out.extend(b.0);
                    }
                    None => out.push(Stmt::Call {
                        func,
                        args,
                        results,
                        site,
                    }),
                },
                Stmt::If {
                    cond,
                    mut then_,
                    mut else_,
                } => {
                    self.block(&mut then_);
                    self.block(&mut else_);
                    out.push(Stmt::If { cond, then_, else_ });
                }
                Stmt::Loop { mut body } => {
                    self.block(&mut body);
                    out.push(Stmt::Loop { body });
                }
                other => out.push(other),
            }
        }
        // Every function's inlined body is alive until the module is
        // compiled: without the room the splices' doubling left (a fifth
        // of a program's peak memory when every function runs, issue 14
        // item 5).
        out.shrink_to_fit();
        b.0 = out;
    }

    /// The body to inline for a call of `g`, already in tail form, if the
    /// call is inlined.
    fn callee_body(&self, g: FuncId) -> Option<Function> {
        let gi = g.0 as usize;
        // Done: with its own calls inlined. On the DFS path: recursion, the original body.
        let source = if self.state[gi] == 2 {
            &self.m.functions[gi]
        } else {
            self.original(gi)
        };
        if self.caller_stmts > self.opts.max_caller_stmts
            || size_exceeds(&source.body, self.opts.max_callee_stmts)
        {
            return None;
        }
        let mut callee = source.clone();
        callee.body = Block(tail_form(std::mem::take(&mut callee.body.0)));
        if !returns_in_tail(&callee.body.0, true) {
            return None;
        }
        Some(callee)
    }

    /// Every call in `b` of a function on the path being processed
    /// (recursion) whose original body starts with a base case (see
    /// [`base_case`]) becomes `if <base test> { InlineEnter(site); <base
    /// case>; InlineExit } else { <the call> }`: the test is pure and
    /// cannot raise, so running it first is unobservable, and the base case
    /// counts its activation against the depth limit and carries the
    /// call's site as the call would.
    fn peel_block(&mut self, b: &mut Block) {
        let old = std::mem::take(&mut b.0);
        let mut out = Vec::with_capacity(old.len());
        for s in old {
            match s {
                Stmt::Call {
                    func,
                    args,
                    results,
                    site,
                } if self.state[func.0 as usize] == 1 => {
                    let call = Stmt::Call {
                        func,
                        args,
                        results,
                        site,
                    };
                    self.peel_call(call, &mut out);
                }
                Stmt::If {
                    cond,
                    mut then_,
                    mut else_,
                } => {
                    self.peel_block(&mut then_);
                    self.peel_block(&mut else_);
                    out.push(Stmt::If { cond, then_, else_ });
                }
                Stmt::Loop { mut body } => {
                    self.peel_block(&mut body);
                    out.push(Stmt::Loop { body });
                }
                s => out.push(s),
            }
        }
        b.0 = out;
    }

    /// `call` (of a function on the path), its base case peeled when its
    /// original body has one, into `out`: the two arms assign fresh result
    /// locals, which the call's results copy after the `if`.
    fn peel_call(&mut self, call: Stmt, out: &mut Vec<Stmt>) {
        let Stmt::Call {
            func,
            args,
            results,
            site,
        } = call
        else {
            unreachable!("a call")
        };
        let g = self.original(func.0 as usize);
        let body = tail_form(g.body.0.clone());
        let Some(base) = base_case(g, &body) else {
            out.push(Stmt::Call {
                func,
                args,
                results,
                site,
            });
            return;
        };
        let mut map: Vec<Option<VReg>> = vec![None; g.vregs.len()];
        for (&p, &a) in g.params.iter().zip(args.iter()) {
            map[p.index()] = Some(a);
        }
        for st in base.prefix {
            let st = self.rename_fresh(g, st, &mut map);
            out.push(st);
        }
        let locals: Vec<VReg> = g
            .results
            .iter()
            .map(|&ty| {
                self.fresh(VRegInfo {
                    ty,
                    kind: VRegKind::Local,
                })
            })
            .collect();
        let mut peeled = vec![Stmt::InlineEnter(site)];
        for st in base.arm {
            let st = self.rename_fresh(g, st, &mut map);
            peeled.push(st);
        }
        peeled.push(Stmt::InlineExit);
        for (&l, &v) in locals.iter().zip(base.vals.iter()) {
            let v = map[v.index()].expect("the base case defines what it returns");
            peeled.push(Stmt::Assign {
                dst: l,
                op: Op::Copy(v),
            });
        }
        let temps: Vec<VReg> = results
            .iter()
            .map(|&r| self.fresh(self.caller.vregs[r.index()]))
            .collect();
        let mut called = vec![Stmt::Call {
            func,
            args,
            results: temps.clone(),
            site,
        }];
        for (&l, &t) in locals.iter().zip(&temps) {
            called.push(Stmt::Assign {
                dst: l,
                op: Op::Copy(t),
            });
        }
        let cond = map[base.cond.index()].expect("the prefix defines the test");
        let (then_, else_) = if base.in_then {
            (peeled, called)
        } else {
            (called, peeled)
        };
        out.push(Stmt::If {
            cond,
            then_: Block(then_),
            else_: Block(else_),
        });
        for (&r, &l) in results.iter().zip(&locals) {
            out.push(Stmt::Assign {
                dst: r,
                op: Op::Copy(l),
            });
        }
        self.count += 1;
    }

    /// `st` (a statement of `g`) with `g`'s registers renamed to fresh
    /// registers of the caller (parameters already mapped to arguments).
    fn rename_fresh(&mut self, g: &Function, st: &Stmt, map: &mut [Option<VReg>]) -> Stmt {
        let mut st = st.clone();
        let mut regs = vec![];
        each_def(&st, |v| regs.push(v));
        crate::ir::visit::each_use(&st, |v| regs.push(v));
        for v in regs {
            if map[v.index()].is_none() {
                map[v.index()] = Some(self.fresh(g.vregs[v.index()]));
            }
        }
        rename_stmt(&mut st, &|v| map[v.index()].expect("mapped"));
        st
    }

    fn fresh(&mut self, info: VRegInfo) -> VReg {
        self.caller.vregs.push(info);
        VReg(self.caller.vregs.len() as u32 - 1)
    }

    /// Emit the inlined call into `out`.
    fn splice(
        &mut self,
        mut g: Function,
        args: &[VReg],
        results: &[VReg],
        site: SiteId,
        out: &mut Vec<Stmt>,
    ) {
        let mut assigned = vec![false; g.vregs.len()];
        walk(&g.body, &mut |s| each_def(s, |v| assigned[v.index()] = true));
        let map: Vec<VReg> = (0..g.vregs.len())
            .map(|i| {
                let mut info = g.vregs[i];
                if g.params.contains(&VReg(i as u32)) && !assigned[i] {
                    info.kind = VRegKind::Temp;
                }
                self.fresh(info)
            })
            .collect();
        let rename = |v: VReg| map[v.index()];
        // The enter, the parameters' copies, the body, the exit, the results.
        out.reserve(g.params.len() + g.body.0.len() + results.len() + 2);
        out.push(Stmt::InlineEnter(site));
        for (&p, &a) in g.params.iter().zip(args) {
            out.push(Stmt::Assign {
                dst: rename(p),
                op: Op::Copy(a),
            });
        }
        let mut body = std::mem::take(&mut g.body.0);
        for s in &mut body {
            rename_stmt(s, &rename);
        }
        let single = matches!(body.last(), Some(Stmt::Return(_))) && count_returns(&body) == 1;
        if single {
            let Some(Stmt::Return(vals)) = body.pop() else {
                unreachable!("checked")
            };
            out.extend(body);
            out.push(Stmt::InlineExit);
            for (&r, &v) in results.iter().zip(&vals) {
                out.push(Stmt::Assign {
                    dst: r,
                    op: Op::Copy(v),
                });
            }
            return;
        }
        let locals: Vec<VReg> = g
            .results
            .iter()
            .map(|&ty| {
                self.fresh(VRegInfo {
                    ty,
                    kind: VRegKind::Local,
                })
            })
            .collect();
        returns_to_copies(&mut body, &locals);
        out.extend(body);
        out.push(Stmt::InlineExit);
        for (&r, &l) in results.iter().zip(&locals) {
            out.push(Stmt::Assign {
                dst: r,
                op: Op::Copy(l),
            });
        }
    }
}

/// A function body (in tail form) that starts with a base case: `prefix`
/// (assignments of operations that cannot raise or touch memory, reading
/// no parameter it writes), then `if cond` whose arm `arm` (such
/// assignments too) ends in `return vals`, the other arm being the rest.
struct BaseCase<'b> {
    prefix: Vec<&'b Stmt>,
    cond: VReg,
    in_then: bool,
    arm: Vec<&'b Stmt>,
    vals: Vec<VReg>,
}

fn base_case<'b>(g: &Function, body: &'b [Stmt]) -> Option<BaseCase<'b>> {
    let pure = |s: &Stmt| match s {
        Stmt::Mark(_) => true,
        Stmt::Assign { dst, op } => {
            !g.params.contains(dst)
                && matches!(
                    op,
                    Op::Const(_)
                        | Op::Copy(_)
                        | Op::Unary(..)
                        | Op::Binary(..)
                        | Op::Cmp(..)
                        | Op::Convert(_)
                )
        }
        _ => false,
    };
    let (last, prefix) = body.split_last()?;
    let Stmt::If { cond, then_, else_ } = last else {
        return None;
    };
    if !prefix.iter().all(pure) {
        return None;
    }
    let leaf = |b: &'b Block| -> Option<(Vec<&'b Stmt>, Vec<VReg>)> {
        let (ret, arm) = b.0.split_last()?;
        match ret {
            Stmt::Return(vals) if arm.iter().all(pure) => Some((arm.iter().collect(), vals.clone())),
            _ => None,
        }
    };
    let (in_then, (arm, vals)) = match (leaf(then_), leaf(else_)) {
        (Some(l), _) => (true, l),
        (None, Some(l)) => (false, l),
        _ => return None,
    };
    Some(BaseCase {
        prefix: prefix.iter().collect(),
        cond: *cond,
        in_then,
        arm,
        vals,
    })
}

/// Whether the block always leaves (ends in `Return`, `Raise`, `Break` or
/// `Continue`, or in an `if` both of whose arms always leave).
fn always_leaves(b: &[Stmt]) -> bool {
    match b.last() {
        Some(Stmt::Return(_) | Stmt::Raise { .. } | Stmt::Break | Stmt::Continue) => true,
        Some(Stmt::If { then_, else_, .. }) => always_leaves(&then_.0) && always_leaves(&else_.0),
        _ => false,
    }
}

/// `if c: A (leaves); B` becomes `if c: A else: (else-arm; B)` (and the
/// mirror case), recursively, wherever no inlined call is open, and the
/// unreachable statements after a `return`, `raise`, `break` or `continue`
/// go: the same statements run in the same order on every path.
fn tail_form(b: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(b.len());
    let mut open = 0usize;
    let mut it = b.into_iter();
    while let Some(s) = it.next() {
        match s {
            Stmt::InlineEnter(_) => {
                open += 1;
                out.push(s);
            }
            Stmt::InlineExit => {
                open -= 1;
                out.push(s);
            }
            Stmt::If {
                cond,
                mut then_,
                mut else_,
            } if open == 0 => {
                let (t, e) = (always_leaves(&then_.0), always_leaves(&else_.0));
                if t != e {
                    let rest: Vec<Stmt> = it.by_ref().collect();
                    if t {
                        else_.0.extend(rest);
                    } else {
                        then_.0.extend(rest);
                    }
                }
                out.push(Stmt::If {
                    cond,
                    then_: Block(tail_form(then_.0)),
                    else_: Block(tail_form(else_.0)),
                });
            }
            Stmt::Return(_) | Stmt::Raise { .. } | Stmt::Break | Stmt::Continue if open == 0 => {
                // What follows is unreachable (a lowering's guard after the
                // last `return`, for example).
                out.push(s);
                break;
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether every `Return` in `b` is in tail position (`tail`: `b` itself is).
fn returns_in_tail(b: &[Stmt], tail: bool) -> bool {
    let last = b.len().saturating_sub(1);
    b.iter().enumerate().all(|(i, s)| {
        let here = tail && i == last;
        match s {
            Stmt::Return(_) => here,
            Stmt::If { then_, else_, .. } => {
                returns_in_tail(&then_.0, here) && returns_in_tail(&else_.0, here)
            }
            Stmt::Loop { body } => count_returns(&body.0) == 0,
            _ => true,
        }
    })
}

fn count_returns(b: &[Stmt]) -> usize {
    let mut n = 0;
    crate::ir::visit::walk_stmts(b, &mut |s| n += matches!(s, Stmt::Return(_)) as usize);
    n
}

/// Replace every (tail) `Return(vals)` by `locals[i] = vals[i]`.
fn returns_to_copies(b: &mut Vec<Stmt>, locals: &[VReg]) {
    if let Some(Stmt::Return(vals)) = b.last() {
        let vals = vals.clone();
        b.pop();
        for (&l, &v) in locals.iter().zip(&vals) {
            b.push(Stmt::Assign {
                dst: l,
                op: Op::Copy(v),
            });
        }
        return;
    }
    if let Some(Stmt::If { then_, else_, .. }) = b.last_mut() {
        returns_to_copies(&mut then_.0, locals);
        returns_to_copies(&mut else_.0, locals);
    }
}

/// Call `f` on every register a statement writes (not in nested blocks).
fn each_def(s: &Stmt, mut f: impl FnMut(VReg)) {
    match s {
        Stmt::Assign { dst, .. } => f(*dst),
        Stmt::Call { results, .. } | Stmt::CallHelper { results, .. } => results.iter().for_each(|&v| f(v)),
        _ => {}
    }
}

/// Rename every register of `s` (nested blocks included).
pub(crate) fn rename_stmt(s: &mut Stmt, m: &impl Fn(VReg) -> VReg) {
    let r = |v: &mut VReg| *v = m(*v);
    match s {
        Stmt::Assign { dst, op } => {
            r(dst);
            rename_op(op, m);
        }
        Stmt::Store {
            ptr,
            len,
            index,
            value,
            ..
        } => [ptr, len, index, value].into_iter().for_each(r),
        Stmt::Call { args, results, .. } | Stmt::CallHelper { args, results, .. } => {
            args.iter_mut().chain(results.iter_mut()).for_each(r)
        }
        Stmt::Raise { operands, .. } => operands.iter_mut().flatten().for_each(r),
        Stmt::If { cond, then_, else_ } => {
            r(cond);
            then_
                .0
                .iter_mut()
                .chain(else_.0.iter_mut())
                .for_each(|s| rename_stmt(s, m));
        }
        Stmt::Loop { body } => body.0.iter_mut().for_each(|s| rename_stmt(s, m)),
        Stmt::Return(vals) => vals.iter_mut().for_each(r),
        Stmt::Break | Stmt::Continue | Stmt::Mark(_) | Stmt::InlineEnter(_) | Stmt::InlineExit => {}
    }
}

fn rename_op(op: &mut Op, m: &impl Fn(VReg) -> VReg) {
    let r = |v: &mut VReg| *v = m(*v);
    match op {
        Op::Const(_) => {}
        Op::Copy(a) | Op::Unary(_, a) | Op::Convert(a) => r(a),
        Op::Binary(_, a, b)
        | Op::Cmp(_, a, b)
        | Op::FloorDiv { a, b, .. }
        | Op::FloorMod { a, b, .. }
        | Op::FDiv { a, b, .. }
        | Op::Shift { a, b, .. } => {
            r(a);
            r(b);
        }
        Op::Load { ptr, len, index, .. } => [ptr, len, index].into_iter().for_each(r),
        Op::Vector(v) => match v {
            VOp::Splat(a) | VOp::Lane(a, _) | VOp::Convert(a) => r(a),
            VOp::Build(lanes) => lanes.iter_mut().for_each(r),
            VOp::Binary(_, a, b) | VOp::FDiv { a, b, .. } | VOp::Cmp(_, a, b) => {
                r(a);
                r(b);
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy() -> Stmt {
        Stmt::Assign {
            dst: VReg(0),
            op: Op::Copy(VReg(1)),
        }
    }

    /// `size_exceeds(b, limit)` is `size(b) > limit` at every limit, with
    /// markers (not counted) and statements nested in `if`s and loops.
    #[test]
    fn size_exceeds_is_size_above_the_limit() {
        let inner = Block(vec![
            Stmt::Mark(1),
            copy(),
            Stmt::InlineEnter(SiteId(0)),
            copy(),
            Stmt::InlineExit,
        ]);
        let b = Block(vec![
            copy(),
            Stmt::If {
                cond: VReg(2),
                then_: inner.clone(),
                else_: Block(vec![Stmt::Loop { body: inner.clone() }, copy()]),
            },
            Stmt::Mark(2),
            Stmt::Loop {
                body: Block(vec![copy(), Stmt::Break]),
            },
            copy(),
        ]);
        let n = size(&b);
        assert_eq!(n, 12);
        for limit in 0..n + 3 {
            assert_eq!(size_exceeds(&b, limit), n > limit, "limit {limit}");
        }
        assert!(!size_exceeds(&Block(vec![]), 0));
    }
}
