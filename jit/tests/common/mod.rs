//! Shared helpers of the integration tests: options, and running a function
//! both through the machine code and through `ir::eval`.
#![allow(dead_code)]

use spy_jit::ir::eval::{self, EvalOptions, HelperEval, NoHelpers};
use spy_jit::ir::{ErrCode, FuncId, Module, RunError, Word};
use spy_jit::runtime::{Context, ContextOptions};
use spy_jit::{compile, CompileOptions, CompiledModule};

pub fn code(c: u32) -> ErrCode {
    ErrCode::new(c).unwrap()
}

pub const RECURSION: u32 = 900;
pub const INTERNAL: u32 = 901;

pub fn opts() -> CompileOptions {
    CompileOptions {
        recursion_error: code(RECURSION),
        internal_error: code(INTERNAL),
        simd: spy_jit::SimdLevel::host(),
        mutations: spy_jit::Mutations::NONE,
    }
}

pub fn eval_opts(depth_limit: u32) -> EvalOptions {
    EvalOptions {
        depth_limit,
        recursion_error: code(RECURSION),
        internal_error: code(INTERNAL),
    }
}

pub struct Both {
    pub module: Module,
    pub compiled: CompiledModule,
    pub ctx: Context,
    pub depth: u32,
}

impl Both {
    pub fn new(module: Module, depth: u32) -> Both {
        let compiled = compile(&module, &opts()).expect("compiles");
        let ctx = Context::new(ContextOptions {
            depth_limit: depth,
            ..Default::default()
        });
        Both {
            module,
            compiled,
            ctx,
            depth,
        }
    }

    pub fn jit(&mut self, f: FuncId, args: &[Word]) -> Result<Vec<Word>, RunError> {
        self.compiled.call(&mut self.ctx, f, args)
    }

    pub fn eval(
        &self,
        f: FuncId,
        args: &[Word],
        helpers: &mut dyn HelperEval,
    ) -> Result<Vec<Word>, RunError> {
        eval::call(&self.module, f, args, &eval_opts(self.depth), helpers)
    }

    /// Run both; assert they agree bit for bit; return the result.
    pub fn both(&mut self, f: FuncId, args: &[Word]) -> Result<Vec<Word>, RunError> {
        self.both_with(f, args, &mut NoHelpers)
    }

    pub fn both_with(
        &mut self,
        f: FuncId,
        args: &[Word],
        h: &mut dyn HelperEval,
    ) -> Result<Vec<Word>, RunError> {
        let j = self.jit(f, args);
        let e = self.eval(f, args, h);
        assert_eq!(j, e, "machine code vs eval for {args:x?}");
        j
    }
}
