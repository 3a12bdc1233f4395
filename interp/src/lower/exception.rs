//! `Exception` values of residual code (`exc: Exception = ValueError("m")`):
//! two registers, the kind (its place in `ExcKind::ALL`) and the message (a
//! str handle). Upstream's exception constructors are blue functions of
//! blue arguments, so a value is always made by ASTFrame itself (the call
//! evaluated in the module, which has no effect) and lowered as a
//! constant; `repr`/`str`/`print` of one is the interpreter's
//! `op_select::exception_text`, through a helper. A red exception cannot
//! be raised (a static error redshift leaves as a lazy `raise`), and
//! exceptions have no `==`: nothing else is done with one.

use spy_jit::ir::{Helper, HelperId, ModuleBuilder, Ty, VReg};
use spy_jit::runtime::CtxPtr;

use super::func::{FnLower, LVal};
use super::helpers::with;
use super::Lowered;
use crate::error::ExcKind;
use crate::source::TextRange;
use crate::syntax::ast::{ExprRef, Exprs};
use crate::vm::op_select;
use crate::vm::types::TypeId;
use crate::vm::value::{ExceptionValue, Value};

/// The code of an exception kind (its place in `ExcKind::ALL`).
pub fn kind_code(k: ExcKind) -> u64 {
    ExcKind::ALL
        .iter()
        .position(|&x| x == k)
        .expect("every kind is in ExcKind::ALL") as u64
}

/// `repr(e)` of an exception (`kind` its code, `msg` a str handle).
extern "C" fn exc_text(ctx: CtxPtr<'_>, kind: u64, msg: u64) -> u64 {
    with(ctx, |st, _| {
        let k = ExcKind::ALL[kind as usize];
        let m = st.str(msg);
        st.handle(op_select::exception_text(k, &m))
    })
}

/// The helper `exc_text`, declared once per module.
pub fn declare(m: &mut ModuleBuilder) -> HelperId {
    m.helper(Helper {
        name: "exc_text".to_string(),
        params: vec![Ty::U32, Ty::Handle],
        result: Some(Ty::Handle),
        addr: exc_text as *const () as usize,
        takes_ctx: true,
    })
}

impl FnLower<'_, '_, '_> {
    /// An exception value made at lowering time.
    pub fn exception_lval(&mut self, e: &ExceptionValue) -> LVal {
        let k = self.fb.const_(Ty::U32, kind_code(e.kind));
        let h = self.cx.string(&e.message);
        let m = self.fb.const_(Ty::Handle, h);
        LVal {
            ty: TypeId::EXCEPTION,
            regs: vec![k, m],
        }
    }

    /// `E(args)` of an exception class: evaluated by ASTFrame when every
    /// argument is blue (its checks and its value); red arguments are a
    /// static error redshift has left as a lazy `raise`.
    pub fn exception_make(&mut self, e: &ExprRef<'_>, args: &Exprs<'_>) -> Lowered<LVal> {
        if !args.iter().all(|a| self.is_static_expr(&a)) {
            return self.unsupported("an exception constructor with red arguments", e.range);
        }
        let interp = &mut *self.cx.interp;
        let mut frame = interp.module_frame(self.module);
        match interp.eval_expr(&mut frame, e).map(|t| t.value) {
            Ok(Value::Exception(x)) => Ok(self.exception_lval(&x)),
            _ => self.unsupported("this exception constructor", e.range),
        }
    }

    /// `repr(e)` / `str(e)`: a str handle.
    pub fn exception_repr(&mut self, v: &LVal, range: TextRange) -> Lowered<VReg> {
        let h = self.cx.helpers.exc_text;
        self.helper_value(h, Ty::Handle, &[v.regs[0], v.regs[1]], range)
    }
}
