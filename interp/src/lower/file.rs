//! `_file::file` values of residual code: a handle (the interpreter's
//! `FileId`) to the file table the run borrows (`file_rt`). `open`, the
//! methods of `signatures::file_method` (arguments converted by its
//! parameters, ASTFrame's defaults: `read()` reads everything, `seek(n)`
//! is from the start), `for line in f` (lines until `readline()` is `""`,
//! as ASTFrame's loop) and the text. An error is annotated at the method
//! name (ASTFrame's `call_file_method`) or the `open` call.

use spy_jit::ir::{Block, CmpOp as IC, Stmt as IrStmt, Ty};

use super::func::{FnLower, LVal};
use super::Lowered;
use crate::source::TextRange;
use crate::syntax::ast::Identifier;
use crate::syntax::ast::{ExprRef, Exprs, Stmts};
use crate::vm::types::TypeId;

impl FnLower<'_, '_, '_> {
    /// `open(path[, mode])` (mode `"r"` when not given).
    pub fn file_open(&mut self, args: &Exprs<'_>, call: TextRange) -> Lowered<LVal> {
        if args.is_empty() || args.len() > 2 {
            return self.unsupported("this `open` call", call);
        }
        let mut regs = Vec::new();
        for a in args {
            let v = self.expr(&a)?;
            regs.push(self.coerce(v, TypeId::STR, a.range)?.regs[0]);
        }
        if regs.len() < 2 {
            let r = self.cx.string("r");
            regs.push(self.fb.const_(Ty::Handle, r));
        }
        let h = self.cx.helpers.file.open;
        let r = self.helper_value_in_call(h, Ty::Handle, &regs, call, call)?;
        Ok(LVal::one(TypeId::FILE, r))
    }

    /// `f.m(args)` by the method's signature; `name` is the method name's
    /// range (where an error is annotated), `whole` the call's.
    pub fn file_method(
        &mut self,
        f: LVal,
        attr: &str,
        name: TextRange,
        args: Vec<(LVal, TextRange)>,
        whole: TextRange,
    ) -> Lowered<LVal> {
        use crate::vm::ops::signatures::{method_signature, FileMethod as M, MethodImpl, Param};
        let tys: Vec<TypeId> = args.iter().map(|(v, _)| v.ty).collect();
        let sig = method_signature(&mut self.cx.interp.vm.types, f.ty, attr, &tys);
        let Some(Ok(sig)) = sig else {
            return self.unsupported(format!("this `file.{attr}` call"), whole);
        };
        let MethodImpl::File(m) = sig.imp else {
            return self.unsupported(format!("this `file.{attr}` call"), whole);
        };
        let mut regs = vec![f.regs[0]];
        for ((v, r), p) in args.into_iter().zip(&sig.params) {
            let v = match p {
                Param::Convert(t) => self.coerce(v, *t, r)?,
                Param::Exact(t) if v.ty == *t => v,
                Param::Exact(_) => return self.unsupported(format!("this `{attr}` argument"), r),
            };
            regs.extend(v.regs);
        }
        let hs = self.cx.helpers.file;
        let (h, result) = match m {
            M::Read => {
                if regs.len() < 2 {
                    regs.push(self.fb.const_(Ty::I32, u64::MAX)); // -1
                }
                (hs.read, Some((TypeId::STR, Ty::Handle)))
            }
            M::Readline => (hs.readline, Some((TypeId::STR, Ty::Handle))),
            M::Write => (hs.write, None),
            M::Writelines => (hs.writelines, None),
            M::Tell => (hs.tell, Some((TypeId::I32, Ty::I32))),
            M::Seek => {
                if regs.len() < 3 {
                    regs.push(self.fb.const_(Ty::I32, 0));
                }
                (hs.seek, None)
            }
            M::Flush => (hs.flush, None),
            M::Close => (hs.close, None),
        };
        match result {
            Some((ty, t)) => {
                let r = self.helper_value_in_call(h, t, &regs, name, whole)?;
                Ok(LVal::one(ty, r))
            }
            None => {
                self.call_helper_in_call(h, None, &regs, name, whole);
                Ok(LVal::none())
            }
        }
    }

    /// `for line in f:` — `readline()` until it gives `""` (ASTFrame's
    /// loop over a file); an error is annotated at the file expression.
    pub(super) fn for_file(
        &mut self,
        target: &Identifier,
        f: LVal,
        iter: &ExprRef<'_>,
        body: &Stmts<'_>,
    ) -> Lowered<()> {
        self.declare_local(target, TypeId::STR)?;
        let hs = self.cx.helpers;
        self.fb.open_block();
        let r = (|| {
            let line = self.helper_value(hs.file.readline, Ty::Handle, &[f.regs[0]], iter.range)?;
            let n = self.helper_value(hs.str_len, Ty::I32, &[line], iter.range)?;
            let zero = self.fb.const_(Ty::I32, 0);
            let end = self.fb.cmp(IC::Eq, n, zero);
            self.fb.push(IrStmt::If {
                cond: end,
                then_: Block(vec![IrStmt::Break]),
                else_: Block::default(),
            });
            self.store_local(target, LVal::one(TypeId::STR, line), target.range)?;
            self.block(body)
        })();
        let b = self.fb.close_block();
        r?;
        self.fb.push(IrStmt::Loop { body: b });
        Ok(())
    }

    /// `repr(f)` / `str(f)`.
    pub(super) fn file_text(&mut self, f: &LVal, range: TextRange) -> Lowered<spy_jit::ir::VReg> {
        let h = self.cx.helpers.file.repr;
        self.helper_value(h, Ty::Handle, &[f.regs[0]], range)
    }
}
