//! `UNROLL_RANGE`, in its two roles (design Tracks A and B):
//!
//! - `for i in UNROLL_RANGE(n): body` means `body` repeated `n` times with
//!   `i` bound to the blue constants `0..n-1`; declarations in the body are
//!   fresh in every repetition.
//! - `*(elt for i in UNROLL_RANGE(n))` (SpliceUnroll) splices `n` copies of
//!   `elt` with `i` bound to `0..n-1`.
//!
//! UNROLL_RANGE is recognized by value (aliases work): the callee of the
//! `for`/generator iterator is evaluated, and must be the `__spy__` builtin.

use crate::error::{ExcKind, SpyError};
use crate::frames::{Eval, Flow, Frame, Interp, Mutation};
use crate::source::TextRange;
use crate::syntax::ast::{self, ExprKind, StmtKind};
use crate::syntax::ast::{ExprRef, Stmts};
use crate::vm::builtins::Builtin;
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Typed, Value};

/// What one residual statement costs while redshift builds the module (its
/// AST node, its expressions, and its share of the printed text and of the
/// AST parsed back), measured on unrolled loops; an estimate that errs high.
pub(crate) const RESIDUAL_STMT_BYTES: u64 = 1024;

/// What one spliced residual expression costs.
pub(crate) const RESIDUAL_EXPR_BYTES: u64 = 256;

impl Interp<'_> {
    /// If `iter` is `UNROLL_RANGE(n)`, its argument expression.
    pub(crate) fn unroll_range_arg<'e>(
        &mut self,
        f: &mut Frame,
        iter: &ExprRef<'e>,
    ) -> Eval<Option<ExprRef<'e>>> {
        let ExprKind::Call { func, args } = iter.kind() else {
            return Ok(None);
        };
        if !matches!(func.kind(), ExprKind::Name(_) | ExprKind::Attribute { .. }) {
            return Ok(None);
        }
        let Some([arg]) = args.as_array() else {
            return Ok(None);
        };
        if matches!(arg.kind(), ExprKind::Starred(_)) {
            return Ok(None);
        }
        let callee = self.eval_expr(f, &func)?;
        Ok(matches!(callee.value, Value::Builtin(Builtin::UnrollRange)).then_some(arg))
    }

    /// The trip count of an unrolled loop: a blue i32.
    fn unroll_count(&mut self, f: &mut Frame, n_expr: &ExprRef<'_>) -> Eval<i32> {
        let n = self.eval_expr(f, n_expr)?;
        if !n.is_blue() {
            return Err(
                SpyError::new(ExcKind::TypeError, "the argument of UNROLL_RANGE must be blue")
                    .with_error(&f.file, n_expr.range, "this is red")
                    .into(),
            );
        }
        let n = self.convert_to(f, n, TypeId::I32, n_expr.range, None)?;
        Ok(n.value.checked_i32()?.max(0))
    }

    /// Bind the loop variable of repetition `k` (a blue constant).
    fn bind_unroll_var(&mut self, f: &mut Frame, target: &ast::Identifier, k: i32) -> Eval<()> {
        self.store_slot(f, target, TypeId::I32, Color::Blue, Value::i32(k))
    }

    pub(crate) fn exec_unrolled_for(
        &mut self,
        f: &mut Frame,
        target: &ast::Identifier,
        n_expr: &ExprRef<'_>,
        body: &Stmts<'_>,
    ) -> Eval<Flow> {
        if let Some((stmt, what)) = find_loop_jump(body) {
            return Err(SpyError::new(
                ExcKind::TypeError,
                format!("`{what}` is not supported inside an UNROLL_RANGE loop"),
            )
            .with_error(&f.file, stmt, "this would jump out of an unrolled body")
            .into());
        }
        let n = self.unroll_count(f, n_expr)?;
        if f.is_shifting() {
            let (file, at) = (f.file.clone(), target.range);
            self.note(
                f,
                || {
                    format!(
                        "`for {} in UNROLL_RANGE(...)` at {}: unrolled {n} times",
                        target.name,
                        file.location(at.start)
                    )
                },
                at,
            )?;
        }
        // Planted bug (test-only): redshift drops the last copy of the body.
        let n = if f.is_shifting() && self.mutations.has(Mutation::UnrollOffByOne) {
            (n - 1).max(0)
        } else {
            n
        };
        for k in 0..n {
            self.bind_unroll_var(f, target, k)?;
            if f.is_shifting() {
                self.note(f, || format!("{} = {k}", target.name), target.range)?;
            }
            if let ret @ Flow::Return(_) = self.exec_block(f, body)? {
                return Ok(ret);
            }
            if f.is_shifting() {
                self.check_residual_size(f, n_expr.range, "this UNROLL_RANGE loop")?;
            }
        }
        // The loop variable does not outlive the loop.
        self.unbind(f, target);
        Ok(Flow::Normal)
    }

    /// `*(elt for target in UNROLL_RANGE(n))`: `n` copies of `elt`.
    pub(crate) fn splice_unroll(
        &mut self,
        f: &mut Frame,
        elt: &ExprRef<'_>,
        target: &ast::Identifier,
        n_expr: &ExprRef<'_>,
        out: &mut Vec<(Typed, TextRange)>,
    ) -> Eval<()> {
        let n = self.unroll_count(f, n_expr)?;
        if f.is_shifting() {
            let (file, at) = (f.file.clone(), elt.range);
            let text = file.slice(elt.range).to_string();
            self.note(
                f,
                || {
                    format!(
                        "`*({text} for {} in UNROLL_RANGE(...))` at {}: spliced {n} items",
                        target.name,
                        file.location(at.start)
                    )
                },
                at,
            )?;
        }
        for k in 0..n {
            self.bind_unroll_var(f, target, k)?;
            let v = self.eval_expr(f, elt)?;
            out.push((v, elt.range));
            if f.is_shifting() {
                let items = out.len() as u64 * RESIDUAL_EXPR_BYTES;
                self.check_memory(f, items, n_expr.range)?;
            }
        }
        self.unbind(f, target);
        Ok(())
    }

    /// The residual module built so far (estimated at
    /// [`RESIDUAL_STMT_BYTES`] a statement) fits in the memory budget; else
    /// MemoryError naming the construct that grows it (spec §16.5).
    fn check_residual_size(&mut self, f: &Frame, at: TextRange, what: &str) -> Eval<()> {
        let stmts = f.shift.as_ref().map_or(0, |sh| sh.read().emitted);
        let bytes = stmts.saturating_mul(RESIDUAL_STMT_BYTES);
        if bytes <= self.limits.max_memory {
            return Ok(());
        }
        Err(SpyError::from(crate::vm::rt_error::RuntimeError::MemoryLimit {
            limit: self.limits.max_memory,
        })
        .with_error(
            &f.file,
            at,
            format!("{what} makes the residual module too large ({stmts} statements)"),
        )
        .into())
    }

    fn unbind(&mut self, f: &mut Frame, target: &ast::Identifier) {
        match f.res.name(target.id) {
            crate::resolve::NameRef::Local(slot) => f.locals.borrow_mut()[slot as usize] = None,
            crate::resolve::NameRef::Global(slot) => {
                self.vm.module_mut(f.module).set_global(slot as usize, None)
            }
            _ => {}
        }
    }
}

/// A `break`/`continue` that would leave an unrolled body (not one of a
/// nested loop).
fn find_loop_jump(body: &Stmts<'_>) -> Option<(TextRange, &'static str)> {
    body.iter().find_map(|s| match &s.kind() {
        StmtKind::Break => Some((s.range, "break")),
        StmtKind::Continue => Some((s.range, "continue")),
        StmtKind::If { body, orelse, .. } => find_loop_jump(body).or_else(|| find_loop_jump(orelse)),
        _ => None,
    })
}
