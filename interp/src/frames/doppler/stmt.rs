//! Statements in a frame being redshifted (DopplerFrame). Expressions,
//! declarations and assignments go through the ordinary rules (they build
//! residual code for red values); what differs is control flow, which is
//! abstract: a red `if` shifts both branches, a loop body is shifted once,
//! a blue `if` is pruned to the taken branch, and effects (`return`,
//! `raise`, expression statements) are emitted instead of performed.

use crate::error::{ExcKind, Failure, SpyError};
use crate::frames::doppler::is_runtime;
use crate::frames::{Eval, Flow, Frame, Interp};
use crate::resolve::NameRef;
use crate::syntax::ast::{self, ExprNode, StmtId, StmtKind, StmtNode};
use crate::syntax::ast::{ExprRef, StmtRef, Stmts};
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Local, Typed};

impl Interp<'_> {
    /// Shift `body` into a new residual block (its control-flow outcome is
    /// abstract, hence dropped).
    pub(crate) fn shift_block(&mut self, f: &mut Frame, body: &Stmts<'_>) -> Eval<Vec<StmtId>> {
        f.shift()?.push_block();
        let result = self.exec_block(f, body);
        let block = f.shift()?.pop_block()?;
        result?;
        Ok(block)
    }

    /// In lazy error mode, a statement whose redshift fails becomes a
    /// `raise` of that error (its partial residual output is dropped).
    pub(crate) fn shift_stmt_lazily(&mut self, f: &mut Frame, s: &StmtRef<'_>) -> Eval<Flow> {
        let mark = f.shift()?.block_len();
        match self.exec_stmt(f, s) {
            Err(Failure::Raise(e)) if raisable(e.kind) => {
                f.shift()?.deferred(&e);
                f.shift()?.truncate_block(mark);
                let folded = self.folded_error(&e, f, None, s.range);
                let sh = f.shift()?;
                sh.state().folded.push(folded);
                let msg = sh.str(e.message.as_str(), s.range);
                let callee = sh.name(e.kind.name(), s.range);
                let exc = sh.call(callee, vec![msg], s.range);
                sh.emit(StmtNode::Raise(exc), s.range);
                Ok(Flow::Return(Typed::none()))
            }
            other => other,
        }
    }

    /// Statements whose shifting differs from their execution; `None` for
    /// the others (declarations, assignments, imports), which run the
    /// ordinary rules.
    pub(crate) fn shift_stmt(&mut self, f: &mut Frame, s: &StmtRef<'_>) -> Option<Eval<Flow>> {
        Some(match &s.kind() {
            StmtKind::FuncDef(_) | StmtKind::ClassDef(_) => Err(SpyError::new(
                ExcKind::Wip,
                "a `def` or `class` inside a red function cannot be redshifted yet",
            )
            .with_error(&f.file, s.range, "defined here")
            .into()),
            StmtKind::If { test, body, orelse } => self.shift_if(f, s, test, body, orelse),
            StmtKind::While { test, body } => self.shift_while(f, s, test, body),
            StmtKind::For { target, iter, body } => self.shift_for(f, s, target, iter, body),
            StmtKind::Return(value) => self.shift_return(f, s, value.as_ref()),
            StmtKind::Raise(e) => self.shift_raise(f, s, e),
            StmtKind::Assert { test, msg } => self.shift_assert(f, s, test, msg.as_ref()),
            StmtKind::Expr(e) => self.eval_expr(f, e).and_then(|v| {
                if is_runtime(&v) {
                    let res = self.residual(f, &v, e.range)?;
                    f.shift()?.emit(StmtNode::Expr(res), s.range);
                }
                Ok(Flow::Normal)
            }),
            StmtKind::Break => f.shift().map(|sh| {
                sh.emit(StmtNode::Break, s.range);
                Flow::Break
            }),
            StmtKind::Continue => f.shift().map(|sh| {
                sh.emit(StmtNode::Continue, s.range);
                Flow::Continue
            }),
            _ => return None,
        })
    }

    fn shift_if(
        &mut self,
        f: &mut Frame,
        s: &StmtRef<'_>,
        test: &ExprRef<'_>,
        body: &Stmts<'_>,
        orelse: &Stmts<'_>,
    ) -> Eval<Flow> {
        let cond = self.eval_condition(f, test)?;
        if !is_runtime(&cond) {
            // A blue condition: only the taken branch exists.
            let branch = if cond.value.as_bool() == Some(true) {
                body
            } else {
                orelse
            };
            return self.exec_block(f, branch);
        }
        let test = self.residual(f, &cond, test.range)?;
        let body = self.shift_block(f, body)?;
        let orelse = self.shift_block(f, orelse)?;
        let sh = f.shift()?;
        let body = non_empty(&sh, body, s);
        let orelse = sh.block(orelse);
        sh.emit(StmtNode::If { test, body, orelse }, s.range);
        Ok(Flow::Normal)
    }

    fn shift_while(
        &mut self,
        f: &mut Frame,
        s: &StmtRef<'_>,
        test: &ExprRef<'_>,
        body: &Stmts<'_>,
    ) -> Eval<Flow> {
        // Where ASTFrame's frame is while it evaluates the test.
        f.current = test.range;
        let cond = self.eval_condition(f, test)?;
        if !is_runtime(&cond) && cond.value.as_bool() != Some(true) {
            return Ok(Flow::Normal);
        }
        let test = self.residual(f, &cond, test.range)?;
        let body = self.shift_block(f, body)?;
        let sh = f.shift()?;
        let body = non_empty(&sh, body, s);
        sh.emit(StmtNode::While { test, body }, s.range);
        Ok(Flow::Normal)
    }

    fn shift_for(
        &mut self,
        f: &mut Frame,
        s: &StmtRef<'_>,
        target: &ast::Identifier,
        iter: &ExprRef<'_>,
        body: &Stmts<'_>,
    ) -> Eval<Flow> {
        if let Some(n_expr) = self.unroll_range_arg(f, iter)? {
            return self.exec_unrolled_for(f, target, &n_expr, body);
        }
        let it = self.eval_expr(f, iter)?;
        if self.has_iteration_protocol(it.ty) {
            return self.shift_protocol_for(f, s, target, iter, it, body);
        }
        let item_ty = match &it.value {
            _ if it.ty == TypeId::RANGE => TypeId::I32,
            _ if it.ty == TypeId::FILE => TypeId::STR,
            _ => match (self.vm.types.list_item(it.ty), self.vm.types.dict_types(it.ty)) {
                (Some(t), _) | (None, Some((t, _))) => t,
                (None, None) => return Err(self.not_iterable(f, it.ty, iter.range)),
            },
        };
        let NameRef::Local(slot) = f.res.name(target.id) else {
            return Err(crate::bug!("for target `{}` is not a local", target.name));
        };
        let sh = f.shift()?;
        let name = sh.declare_residual_name(slot, &target.name)?;
        f.locals.borrow_mut()[slot as usize] = Some(Local {
            ty: item_ty,
            color: Color::Red,
            value: Some(sh.value(sh.name(&name, target.range))),
        });
        let iter_res = self.residual(f, &it, iter.range)?;
        let body = self.shift_block(f, body)?;
        let body = non_empty(&sh, body, s);
        let target = sh.ident(&name, target.range);
        sh.emit(
            StmtNode::For {
                target,
                iter: iter_res,
                body,
            },
            s.range,
        );
        Ok(Flow::Normal)
    }

    fn shift_return(&mut self, f: &mut Frame, s: &StmtRef<'_>, value: Option<&ExprRef<'_>>) -> Eval<Flow> {
        let flow = self.exec_return(f, s, value)?;
        if let Flow::Return(v) = &flow {
            let range = value.map_or(s.range, |e| e.range);
            let res = self.residual(f, v, range)?;
            f.shift()?.emit(StmtNode::Return(Some(res)), s.range);
        }
        Ok(flow)
    }

    fn shift_raise(&mut self, f: &mut Frame, s: &StmtRef<'_>, e: &ExprRef<'_>) -> Eval<Flow> {
        let v = self.eval_expr(f, e)?;
        let (kind, message) = self.raised_exception(f, &v, e)?;
        let sh = f.shift()?;
        let msg = sh.str(message, s.range);
        let callee = sh.name(kind.name(), e.range);
        let exc = sh.call(callee, vec![msg], e.range);
        sh.emit(StmtNode::Raise(exc), s.range);
        Ok(Flow::Return(Typed::none()))
    }

    fn shift_assert(
        &mut self,
        f: &mut Frame,
        s: &StmtRef<'_>,
        test: &ExprRef<'_>,
        msg: Option<&ExprRef<'_>>,
    ) -> Eval<Flow> {
        let cond = self.eval_condition(f, test)?;
        if !is_runtime(&cond) && cond.value.as_bool() == Some(true) {
            // Blue and true: nothing to check at run time.
            return Ok(Flow::Normal);
        }
        // A blue false one stays in the residual code (upstream's
        // `shift_stmt_Assert` emits every assert): it fails when it runs,
        // so a function that is never called does not fail the redshift.
        let test_res = self.residual(f, &cond, test.range)?;
        // The message is only evaluated when the assertion fails: shift it
        // in its own block, and keep its error (if any) for that case.
        let message = match msg {
            None => Ok(None),
            Some(m) => {
                f.shift()?.push_block();
                let r = self.eval_expr(f, m).and_then(|mv| {
                    if mv.ty != TypeId::STR {
                        return Err(self.mismatched(f, mv.ty, TypeId::STR, m.range, None));
                    }
                    self.residual(f, &mv, m.range)
                });
                let hoisted = f.shift()?.pop_block()?;
                match (r, hoisted.is_empty()) {
                    (Ok(e), true) => Ok(Some(e)),
                    (Ok(_), false) => Err(SpyError::new(
                        ExcKind::Wip,
                        "an assert message that needs temporaries cannot be redshifted yet",
                    )
                    .with_error(&f.file, m.range, "")
                    .into()),
                    (Err(e), _) => Err(e),
                }
            }
        };
        let sh = f.shift()?;
        match message {
            Ok(msg) => sh.emit(StmtNode::Assert { test: test_res, msg }, s.range),
            Err(Failure::Raise(e)) if raisable(e.kind) => {
                let folded = self.folded_error(&e, f, None, s.range);
                sh.state().folded.push(folded);
                let not = sh.expr(
                    ExprNode::UnaryOp {
                        op: ast::UnaryOp::Not,
                        operand: test_res,
                    },
                    test.range,
                );
                let msg = sh.str(e.message.as_str(), s.range);
                let callee = sh.name(e.kind.name(), s.range);
                let exc = sh.call(callee, vec![msg], s.range);
                let raise = sh.stmt(StmtNode::Raise(exc), s.range);
                let body = sh.block([raise]);
                sh.emit(
                    StmtNode::If {
                        test: not,
                        body,
                        orelse: ast::Block::EMPTY,
                    },
                    s.range,
                );
            }
            Err(e) => return Err(e),
        }
        Ok(Flow::Normal)
    }
}

/// Exceptions that residual code can raise by name.
fn raisable(kind: ExcKind) -> bool {
    crate::vm::builtins::lookup(kind.name()).is_some()
}

/// A residual block must have at least one statement.
fn non_empty(sh: &crate::frames::doppler::Shift, mut body: Vec<StmtId>, s: &StmtRef<'_>) -> ast::Block {
    if body.is_empty() {
        body.push(sh.stmt(StmtNode::Pass, s.range));
    }
    sh.block(body)
}
