//! Builders for modules and functions: declare functions first (so calls,
//! including recursive ones, can name them), then fill each body with
//! [`FunctionBuilder`], whose nested blocks are closures.
//!
//! ```
//! use spy_jit::ir::{ModuleBuilder, Ty, BinOp};
//! let mut m = ModuleBuilder::new();
//! let add = m.declare("add", &[Ty::I64, Ty::I64], &[Ty::I64]);
//! let mut f = m.function(add);
//! let (a, b) = (f.param(0), f.param(1));
//! let s = f.binary(BinOp::Add, a, b);
//! f.ret(&[s]);
//! m.define(f);
//! let module = m.finish().unwrap();
//! assert_eq!(module.functions.len(), 1);
//! ```

use super::{
    verify, BinOp, Block, CmpOp, ErrCode, FuncId, Function, Helper, HelperId, Module, Op, ShiftOp, SiteId,
    Stmt, Ty, UnOp, VReg, VRegInfo, VRegKind, VerifyError, Word,
};

/// Builds a [`Module`].
#[derive(Default)]
pub struct ModuleBuilder {
    functions: Vec<Option<Function>>,
    sigs: Vec<(String, Vec<Ty>, Vec<Ty>)>,
    helpers: Vec<Helper>,
}

impl ModuleBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Declare a function; define it later with [`Self::function`] + [`Self::define`].
    pub fn declare(&mut self, name: &str, params: &[Ty], results: &[Ty]) -> FuncId {
        self.sigs
            .push((name.to_string(), params.to_vec(), results.to_vec()));
        self.functions.push(None);
        FuncId(self.functions.len() as u32 - 1)
    }

    /// Declare a runtime helper (see [`Helper`]).
    pub fn helper(&mut self, helper: Helper) -> HelperId {
        self.helpers.push(helper);
        HelperId(self.helpers.len() as u32 - 1)
    }

    /// Start the body of a declared function.
    pub fn function(&self, f: FuncId) -> FunctionBuilder {
        let (name, params, results) = &self.sigs[f.0 as usize];
        let mut b = FunctionBuilder {
            id: f,
            func: Function {
                name: name.clone(),
                params: vec![],
                results: results.clone(),
                vregs: vec![],
                body: Block::default(),
            },
            stack: vec![vec![]],
        };
        for &t in params {
            let p = b.local(t);
            b.func.params.push(p);
        }
        b
    }

    /// Install a finished body.
    pub fn define(&mut self, f: FunctionBuilder) {
        let id = f.id;
        self.functions[id.0 as usize] = Some(f.finish());
    }

    /// The module, verified. A declared function without a body is an error.
    pub fn finish(self) -> Result<Module, VerifyError> {
        let mut functions = Vec::with_capacity(self.functions.len());
        for (f, (name, ..)) in self.functions.into_iter().zip(self.sigs) {
            functions.push(f.ok_or_else(|| VerifyError {
                function: name,
                message: "declared but never defined".into(),
            })?);
        }
        let m = Module {
            functions,
            helpers: self.helpers,
        };
        verify(&m)?;
        Ok(m)
    }
}

/// Builds one [`Function`]; statements go to the innermost open block.
pub struct FunctionBuilder {
    id: FuncId,
    func: Function,
    stack: Vec<Vec<Stmt>>,
}

impl FunctionBuilder {
    /// The `i`-th parameter (a local).
    pub fn param(&self, i: usize) -> VReg {
        self.func.params[i]
    }

    /// A new mutable local.
    pub fn local(&mut self, ty: Ty) -> VReg {
        self.vreg(ty, VRegKind::Local)
    }

    /// A new temporary (define it exactly once).
    pub fn temp(&mut self, ty: Ty) -> VReg {
        self.vreg(ty, VRegKind::Temp)
    }

    fn vreg(&mut self, ty: Ty, kind: VRegKind) -> VReg {
        self.func.vregs.push(VRegInfo { ty, kind });
        VReg(self.func.vregs.len() as u32 - 1)
    }

    /// The type of a register.
    pub fn ty(&self, v: VReg) -> Ty {
        self.func.ty(v)
    }

    /// Append a statement to the current block.
    #[inline]
    pub fn push(&mut self, s: Stmt) {
        self.stack.last_mut().expect("open block").push(s);
    }

    /// `dst = op` (for locals, or temporaries made with [`Self::temp`]).
    pub fn assign(&mut self, dst: VReg, op: Op) {
        self.push(Stmt::Assign { dst, op });
    }

    /// A new temporary of type `ty` defined as `op`.
    pub fn op(&mut self, ty: Ty, op: Op) -> VReg {
        let t = self.temp(ty);
        self.assign(t, op);
        t
    }

    pub fn const_(&mut self, ty: Ty, w: Word) -> VReg {
        self.op(ty, Op::Const(w))
    }

    pub fn unary(&mut self, u: UnOp, a: VReg) -> VReg {
        let t = self.ty(a);
        self.op(t, Op::Unary(u, a))
    }

    pub fn binary(&mut self, b: BinOp, x: VReg, y: VReg) -> VReg {
        let t = self.ty(x);
        self.op(t, Op::Binary(b, x, y))
    }

    pub fn floor_div(&mut self, a: VReg, b: VReg, on_zero: ErrCode) -> VReg {
        let t = self.ty(a);
        self.op(t, Op::FloorDiv { a, b, on_zero })
    }

    pub fn floor_mod(&mut self, a: VReg, b: VReg, on_zero: ErrCode) -> VReg {
        let t = self.ty(a);
        self.op(t, Op::FloorMod { a, b, on_zero })
    }

    pub fn fdiv(&mut self, a: VReg, b: VReg, on_zero: ErrCode) -> VReg {
        let t = self.ty(a);
        self.op(t, Op::FDiv { a, b, on_zero })
    }

    pub fn shift(&mut self, op: ShiftOp, a: VReg, b: VReg, on_negative: ErrCode) -> VReg {
        let t = self.ty(a);
        self.op(
            t,
            Op::Shift {
                op,
                a,
                b,
                on_negative,
            },
        )
    }

    pub fn cmp(&mut self, c: CmpOp, a: VReg, b: VReg) -> VReg {
        self.op(Ty::Bool, Op::Cmp(c, a, b))
    }

    pub fn convert(&mut self, to: Ty, a: VReg) -> VReg {
        self.op(to, Op::Convert(a))
    }

    pub fn load(
        &mut self,
        ty: Ty,
        ptr: VReg,
        len: VReg,
        index: VReg,
        on_null: ErrCode,
        on_oob: ErrCode,
    ) -> VReg {
        self.op(
            ty,
            Op::Load {
                ptr,
                len,
                index,
                on_null,
                on_oob,
                checked: true,
            },
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        ptr: VReg,
        len: VReg,
        index: VReg,
        value: VReg,
        on_null: ErrCode,
        on_oob: ErrCode,
    ) {
        self.push(Stmt::Store {
            ptr,
            len,
            index,
            value,
            on_null,
            on_oob,
            checked: true,
        });
    }

    /// Call a module function; returns one fresh temporary per result.
    pub fn call(&mut self, m: &Module, func: FuncId, args: &[VReg], site: SiteId) -> Vec<VReg> {
        let tys = m.function(func).results.clone();
        self.call_with(func, &tys, args, site)
    }

    /// Call a function whose result types are given (when the callee is
    /// still being built).
    pub fn call_with(&mut self, func: FuncId, result_tys: &[Ty], args: &[VReg], site: SiteId) -> Vec<VReg> {
        let results: Vec<VReg> = result_tys.iter().map(|&t| self.temp(t)).collect();
        self.push(Stmt::Call {
            func,
            args: args.to_vec(),
            results: results.clone(),
            site,
        });
        results
    }

    /// Call a helper; returns its result as a fresh temporary, if it has one.
    pub fn call_helper(
        &mut self,
        helper: HelperId,
        result: Option<Ty>,
        args: &[VReg],
        site: SiteId,
    ) -> Option<VReg> {
        let r = result.map(|t| self.temp(t));
        self.push(Stmt::CallHelper {
            helper,
            args: args.to_vec(),
            results: r.into_iter().collect(),
            site,
        });
        r
    }

    pub fn raise(&mut self, code: ErrCode, operands: [Option<VReg>; 2]) {
        self.push(Stmt::Raise { code, operands });
    }

    /// `if cond { then_ } else { else_ }`.
    pub fn if_(&mut self, cond: VReg, then_: impl FnOnce(&mut Self), else_: impl FnOnce(&mut Self)) {
        let t = self.nested(then_);
        let e = self.nested(else_);
        self.push(Stmt::If {
            cond,
            then_: t,
            else_: e,
        });
    }

    /// `loop { body }`.
    pub fn loop_(&mut self, body: impl FnOnce(&mut Self)) {
        let b = self.nested(body);
        self.push(Stmt::Loop { body: b });
    }

    fn nested(&mut self, f: impl FnOnce(&mut Self)) -> Block {
        self.open_block();
        f(self);
        self.close_block()
    }

    /// Start a nested block explicitly (for front ends whose own state
    /// cannot be captured by the closures of [`Self::if_`] / [`Self::loop_`]):
    /// statements go to it until [`Self::close_block`], whose result is then
    /// pushed inside a `Stmt::If` or `Stmt::Loop`.
    pub fn open_block(&mut self) {
        self.stack.push(vec![]);
    }

    /// Close the innermost block opened with [`Self::open_block`].
    pub fn close_block(&mut self) -> Block {
        assert!(self.stack.len() > 1, "close_block without open_block");
        Block(compact(self.stack.pop().expect("nested block")))
    }

    pub fn break_(&mut self) {
        self.push(Stmt::Break);
    }

    pub fn continue_(&mut self) {
        self.push(Stmt::Continue);
    }

    pub fn ret(&mut self, values: &[VReg]) {
        self.push(Stmt::Return(values.to_vec()));
    }

    /// The finished function (not yet verified: [`ModuleBuilder::finish`] does it).
    pub fn finish(mut self) -> Function {
        assert_eq!(self.stack.len(), 1, "unclosed block");
        self.func.body = Block(compact(self.stack.pop().expect("body")));
        self.func
    }
}

/// A finished block without the room its pushes' doubling left: every
/// function of a module is alive until the module is compiled (a large
/// program's lowered IR, issue 14 item 5).
fn compact(mut stmts: Vec<Stmt>) -> Vec<Stmt> {
    stmts.shrink_to_fit();
    stmts
}
