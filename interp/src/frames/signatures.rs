//! The evaluator's side of `vm::ops::signatures`: asking the value-free
//! tables (builtins, `T(x)`, str/list methods, subscripts) with the static
//! types and blue indices of evaluated operands, locating their typed
//! errors in the source, and applying a method's parameters. ASTFrame and
//! DopplerFrame both go through here, so both report the same error with
//! the same annotations.

use crate::error::{Failure, SpyError};
use crate::frames::call::Args;
use crate::frames::{Eval, Frame, Interp};
use crate::source::TextRange;
use crate::vm::builtins::Builtin;
use crate::vm::ops::signatures::{
    self as sig, At, BuiltinSig, ConvImpl, Index, MethodSig, Param, SigError, SubscriptSig,
};
use crate::vm::types::TypeId;
use crate::vm::value::Typed;

/// A subscript table of `vm::ops::signatures` (reads or stores).
pub(crate) type SubscriptTable =
    fn(&crate::vm::types::TypeTable, TypeId, &[Index]) -> Option<Result<SubscriptSig, SigError>>;

/// Where the parts of an operation are, for annotating a [`SigError`].
#[derive(Clone, Copy)]
pub(crate) struct Site {
    /// The builtin's or method's name.
    pub callee: TextRange,
    /// The object of a method call or a subscript (else the callee).
    pub receiver: TextRange,
    pub whole: TextRange,
}

impl Site {
    /// A call or subscript whose callee (or object) is at `part`.
    pub(crate) fn at(part: TextRange, whole: TextRange) -> Site {
        Site {
            callee: part,
            receiver: part,
            whole,
        }
    }
}

impl Interp<'_> {
    /// `e` located at `site` and the argument ranges of `args`.
    pub(crate) fn sig_failure(&self, f: &Frame, e: SigError, args: &Args, site: Site) -> Failure {
        let range = |at: At| match at {
            At::Arg(k) => args.get(k).map_or(site.whole, |(_, r)| *r),
            At::ArgsBefore(k) => match (args.first(), k.checked_sub(1).and_then(|j| args.get(j))) {
                (Some((_, a)), Some((_, b))) => a.cover(*b),
                _ => site.whole,
            },
            At::Callee => site.callee,
            At::Receiver => site.receiver,
            At::Whole => site.whole,
        };
        match e {
            SigError::Arity { min, max } => match self.check_arity(f, min, max, args, site.callee, None) {
                Err(e) => e,
                Ok(()) => crate::bug!("arity {min}..={max} reported for {} arguments", args.len()),
            },
            SigError::Mismatched { arg, expected, got } => {
                self.mismatched(f, got, expected, range(At::Arg(arg)), None)
            }
            SigError::Runtime { error, labels } => {
                let mut err = SpyError::from(error);
                for (at, label) in labels {
                    err = err.with_error(&f.file, range(at), label);
                }
                err.into()
            }
            SigError::Error {
                kind,
                message,
                labels,
                notes,
            } => {
                let mut err = SpyError::new(kind, message);
                for (at, label) in labels {
                    err = err.with_error(&f.file, range(at), label);
                }
                for (at, note) in notes {
                    err = err.with_note(&f.file, range(at), note);
                }
                err.into()
            }
        }
    }

    /// The signature of builtin `b` called with `args` (`None`: not in the
    /// table).
    pub(crate) fn builtin_sig(
        &mut self,
        f: &Frame,
        b: Builtin,
        args: &Args,
        site: Site,
    ) -> Option<Eval<BuiltinSig>> {
        let types: Vec<TypeId> = args.iter().map(|(a, _)| a.ty).collect();
        let with_len: Vec<TypeId> = types
            .iter()
            .copied()
            .filter(|t| self.vm.struct_method(*t, "__len__").is_some())
            .collect();
        let has_len = |t: TypeId| with_len.contains(&t);
        let result = sig::builtin_signature(&mut self.vm.types, b, &types, has_len)?;
        Some(result.map_err(|e| self.sig_failure(f, e, args, site)))
    }

    /// The implementation of `to(arg)` (`to`: a primitive type or `str`).
    pub(crate) fn conversion_sig(
        &self,
        f: &Frame,
        to: TypeId,
        arg: &(Typed, TextRange),
        site: Site,
    ) -> Eval<ConvImpl> {
        sig::conversion_signature(&self.vm.types, to, arg.0.ty)
            .map_err(|e| self.sig_failure(f, e, &vec![arg.clone()], site))
    }

    /// The signature of `obj.name(args)` for a `str` or list receiver.
    pub(crate) fn method_sig(
        &mut self,
        f: &Frame,
        obj: &Typed,
        name: &str,
        args: &Args,
        site: Site,
    ) -> Option<Eval<MethodSig>> {
        let types: Vec<TypeId> = args.iter().map(|(a, _)| a.ty).collect();
        let result = sig::method_signature(&mut self.vm.types, obj.ty, name, &types)?;
        Some(result.map_err(|e| self.sig_failure(f, e, args, site)))
    }

    /// The arguments of a builtin method checked and converted to its
    /// parameters.
    pub(crate) fn method_args(&mut self, f: &Frame, sig: &MethodSig, args: &Args) -> Eval<Args> {
        let mut out = Vec::with_capacity(args.len());
        for ((a, r), p) in args.iter().zip(&sig.params) {
            let a = match *p {
                Param::Exact(t) if a.ty == t || t == TypeId::DYNAMIC => a.clone(),
                Param::Exact(t) => return Err(self.mismatched(f, a.ty, t, *r, None)),
                Param::Convert(t) => self.convert_to(f, a.clone(), t, *r, None)?,
            };
            out.push((a, *r));
        }
        Ok(out)
    }

    /// The signature of `obj[idx...]` in `table` (`subscript_signature`
    /// for reads, `store_signature` for stores; `None`: not in the table).
    pub(crate) fn subscript_sig(
        &self,
        f: &Frame,
        table: SubscriptTable,
        obj: &Typed,
        idx: &Args,
        site: Site,
    ) -> Option<Eval<SubscriptSig>> {
        let result = table(&self.vm.types, obj.ty, &indices(idx))?;
        Some(result.map_err(|e| self.sig_failure(f, e, idx, site)))
    }
}

/// The indices of a subscript as the tables see them.
fn indices(idx: &Args) -> Vec<Index> {
    idx.iter()
        .map(|(i, _)| Index {
            ty: i.ty,
            blue: i.is_blue().then(|| i.value.as_i32()),
        })
        .collect()
}
