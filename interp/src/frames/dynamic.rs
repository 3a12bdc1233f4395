//! Operations whose operand is statically `dynamic`: upstream's
//! `opimpl_dynamic.py` (`dynamic_add`, ..., `dynamic_eq`, `dynamic_call`,
//! `dynamic_hasattr`) select nothing from the static types; at run time they
//! dispatch on the values' own types, as if the operation were written on
//! them, and the result is `dynamic` again; `==`/`!=` use upstream's
//! universal equality (values of types that cannot be compared are unequal).
//!
//! ASTFrame does exactly that on the values. DopplerFrame cannot know the
//! values, so a `dynamic` operation with a run-time operand stays in the
//! residual code as the same operator (or call), typed `dynamic`, and is
//! dispatched when that code runs.

use crate::frames::call::Args;
use crate::frames::doppler::{is_runtime, BinSym};
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::syntax::ast::{BinOp, CmpOp};
use crate::vm::types::TypeId;
use crate::vm::value::{Typed, Value};

impl Interp<'_> {
    /// A `dynamic` value seen with its own type (others unchanged).
    pub(crate) fn undynamic(&self, t: Typed) -> Typed {
        if t.ty != TypeId::DYNAMIC {
            return t;
        }
        match self.dynamic_type(&t.value) {
            Some(ty) => Typed { ty, ..t },
            None => t,
        }
    }

    fn as_dynamic(t: Typed) -> Typed {
        Typed {
            ty: TypeId::DYNAMIC,
            ..t
        }
    }

    /// `l OP r` where an operand is `dynamic`; `None` when neither is.
    pub(crate) fn dynamic_binary(
        &mut self,
        f: &mut Frame,
        sym: BinSym,
        (l, le): (&Typed, TextRange),
        (r, re): (&Typed, TextRange),
        whole: TextRange,
    ) -> Option<Eval<Typed>> {
        if l.ty != TypeId::DYNAMIC && r.ty != TypeId::DYNAMIC {
            return None;
        }
        if f.is_shifting() && (is_runtime(l) || is_runtime(r)) {
            return Some(self.shift_node(f, sym, l, r, TypeId::DYNAMIC, whole));
        }
        let (l, r) = (self.undynamic(l.clone()), self.undynamic(r.clone()));
        if l.ty == TypeId::DYNAMIC || r.ty == TypeId::DYNAMIC {
            // a value without a type of its own: the static error
            return None;
        }
        if let BinSym::Cmp(op @ (CmpOp::Eq | CmpOp::NotEq)) = sym {
            // upstream's `dynamic_eq`/`dynamic_ne` use UNIVERSAL_EQ: values
            // of types that cannot be compared are unequal, not an error
            if self.resolve_cmp(CmpOp::Eq, l.ty, r.ty).is_none() {
                let color = l.color.join(r.color);
                let value = Value::bool(op == CmpOp::NotEq);
                return Some(Ok(Typed {
                    color,
                    ty: TypeId::DYNAMIC,
                    value,
                }));
            }
        }
        let result = match sym {
            BinSym::Bin(op) => self.binop(f, op, (l, le), (r, re), whole),
            BinSym::Cmp(op) => self.cmpop(f, op, (l, le), (r, re), whole),
        };
        Some(result.map(Self::as_dynamic))
    }

    /// `c(args)` where `c` is `dynamic`: the call its value makes.
    pub(crate) fn dynamic_call(
        &mut self,
        f: &mut Frame,
        callee: Typed,
        callee_range: TextRange,
        args: Args,
        call_range: TextRange,
    ) -> Eval<Typed> {
        if f.is_shifting() && is_runtime(&callee) {
            let callee_expr = self.residual(f, &callee, callee_range)?;
            return self.shift_call(f, callee_expr, &args, TypeId::DYNAMIC, call_range);
        }
        let callee = self.undynamic(callee);
        let args = args.into_iter().map(|(a, r)| (self.undynamic(a), r)).collect();
        self.call_value(f, callee, callee_range, args, call_range)
            .map(Self::as_dynamic)
    }

    /// Whether a binary operator is one upstream dispatches for `dynamic`.
    pub(crate) fn dynamic_binop_supported(op: BinOp) -> bool {
        !matches!(op, BinOp::MatMul | BinOp::Pow)
    }

    /// Comparisons upstream dispatches for `dynamic` (not `in`, `is`).
    pub(crate) fn dynamic_cmpop_supported(op: CmpOp) -> bool {
        matches!(
            op,
            CmpOp::Eq | CmpOp::NotEq | CmpOp::Lt | CmpOp::LtE | CmpOp::Gt | CmpOp::GtE
        )
    }
}
