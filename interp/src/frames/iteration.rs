//! The iteration protocol of `for x in e` over a value whose type defines
//! it (user structs): upstream's `ASTFrame._desugar_For` turns the loop into
//!
//! ```text
//! it = e.__fastiter__()
//! while it.__continue_iteration__():
//!     x = it.__item__()
//!     it = it.__next__()
//!     body
//! ```
//!
//! (the body after `__next__`, so `continue` needs nothing special). This
//! module is the one place that knows the protocol: ASTFrame runs it
//! (`exec_protocol_for`), DopplerFrame emits exactly that `while` as
//! residual code (`shift_protocol_for`), so the other engines see ordinary
//! calls and a loop. The builtin iterables (`range`, `list[T]`, the blue
//! `interp_tuple`) keep their own loops in `stmt.rs`.

use crate::error::{ExcKind, SpyError};
use crate::frames::{Eval, Flow, Frame, Interp};
use crate::resolve::NameRef;
use crate::syntax::ast::{self, StmtNode};
use crate::syntax::ast::{ExprRef, StmtRef, Stmts};
use crate::vm::types::TypeId;
use crate::vm::value::{Color, Local, Typed};

/// The four methods, in the order a loop calls them.
const FASTITER: &str = "__fastiter__";
const CONTINUE: &str = "__continue_iteration__";
const ITEM: &str = "__item__";
const NEXT: &str = "__next__";

impl Interp<'_> {
    /// Whether `for` over a value of type `ty` uses the protocol.
    pub(crate) fn has_iteration_protocol(&self, ty: TypeId) -> bool {
        self.vm.struct_method(ty, FASTITER).is_some()
    }

    /// `recv.name()` where `recv` is the value of `recv_expr` (or the
    /// iterator, which has no expression of its own: the loop's iterable
    /// stands for it in messages).
    fn protocol_call(
        &mut self,
        f: &mut Frame,
        recv: Typed,
        recv_expr: &ExprRef<'_>,
        name: &str,
    ) -> Eval<Typed> {
        let attr = ast::Identifier {
            name: name.into(),
            range: recv_expr.range,
            id: ast::NameId(0),
        };
        self.call_method(f, recv, recv_expr, &attr, Vec::new(), recv_expr.range)
    }

    /// `it = it.__next__()`: the iterator keeps the type `__fastiter__`
    /// gave it (upstream's hidden `var` local).
    fn next_iterator(&mut self, f: &mut Frame, it: Typed, iter: &ExprRef<'_>) -> Eval<Typed> {
        let ty = it.ty;
        let next = self.protocol_call(f, it, iter, NEXT)?;
        self.convert_to(f, next, ty, iter.range, None)
    }

    /// ASTFrame: run `for target in iter` over `value` by the protocol.
    pub(crate) fn exec_protocol_for(
        &mut self,
        f: &mut Frame,
        target: &ast::Identifier,
        iter: &ExprRef<'_>,
        value: Typed,
        body: &Stmts<'_>,
    ) -> Eval<Flow> {
        let mut it = self.protocol_call(f, value, iter, FASTITER)?;
        loop {
            let more = self.protocol_call(f, it.clone(), iter, CONTINUE)?;
            let more = self.convert_to(f, more, TypeId::BOOL, iter.range, None)?;
            if more.value.as_bool() != Some(true) {
                break;
            }
            let item = self.protocol_call(f, it.clone(), iter, ITEM)?;
            it = self.next_iterator(f, it, iter)?;
            self.store_slot(f, target, item.ty, Color::Red, item.value)?;
            match self.exec_block(f, body)? {
                Flow::Break => break,
                Flow::Normal | Flow::Continue => {}
                ret @ Flow::Return(_) => return Ok(ret),
            }
        }
        Ok(Flow::Normal)
    }

    /// DopplerFrame: emit the protocol's `while` loop as residual code,
    /// the iterator in a fresh local `iter$N`, the target declared in the
    /// loop body (a declaration in a loop body is one declaration).
    pub(crate) fn shift_protocol_for(
        &mut self,
        f: &mut Frame,
        s: &StmtRef<'_>,
        target: &ast::Identifier,
        iter: &ExprRef<'_>,
        value: Typed,
        body: &Stmts<'_>,
    ) -> Eval<Flow> {
        let range = iter.range;
        let first = self.protocol_call(f, value, iter, FASTITER)?;
        let it_ty = first.ty;
        let first = self.residual(f, &first, range)?;
        let sh = f.shift()?;
        let it_name = sh.temp_name("iter");
        self.emit_declaration(f, &it_name, it_ty, Some(first), range)?;
        let it = Self::residual_value(f, it_ty, sh.name(&it_name, range));

        // the test is evaluated on every iteration: it must be one expression
        f.shift()?.push_block();
        let more = self
            .protocol_call(f, it.clone(), iter, CONTINUE)
            .and_then(|m| self.convert_to(f, m, TypeId::BOOL, range, None))
            .and_then(|m| self.residual(f, &m, range));
        let hoisted = f.shift()?.pop_block()?;
        let test = more?;
        if !hoisted.is_empty() {
            return Err(SpyError::new(
                ExcKind::Wip,
                "a `__continue_iteration__` call that needs temporaries cannot be redshifted yet",
            )
            .with_error(&f.file, range, "")
            .into());
        }

        sh.push_block();
        let result = self.shift_protocol_body(f, target, iter, it, &it_name, body);
        let block = sh.pop_block()?;
        result?;
        let body = sh.block(block);
        sh.emit(StmtNode::While { test, body }, s.range);
        Ok(Flow::Normal)
    }

    /// The residual loop body: `x: T = it.__item__()`, `it = it.__next__()`,
    /// then the shifted body.
    fn shift_protocol_body(
        &mut self,
        f: &mut Frame,
        target: &ast::Identifier,
        iter: &ExprRef<'_>,
        it: Typed,
        it_name: &str,
        body: &Stmts<'_>,
    ) -> Eval<()> {
        let range = iter.range;
        let item = self.protocol_call(f, it.clone(), iter, ITEM)?;
        let NameRef::Local(slot) = f.res.name(target.id) else {
            return Err(crate::bug!("for target `{}` is not a local", target.name));
        };
        let sh = f.shift()?;
        let name = sh.declare_residual_name(slot, &target.name)?;
        let item_expr = self.residual(f, &item, range)?;
        self.emit_declaration(f, &name, item.ty, Some(item_expr), target.range)?;
        f.locals.borrow_mut()[slot as usize] = Some(Local {
            ty: item.ty,
            color: Color::Red,
            value: Some(sh.value(sh.name(&name, target.range))),
        });
        let next = self.next_iterator(f, it, iter)?;
        let next = self.residual(f, &next, range)?;
        let target = sh.name(it_name, range);
        sh.emit(StmtNode::Assign { target, value: next }, range);
        // the body's control flow is abstract here (see `shift_block`)
        self.exec_block(f, body)?;
        Ok(())
    }
}
