//! Blue values as residual code: the constant expression that spells a value
//! (literals, type expressions, names of residual functions and structs).
//! A value that cannot be spelled is `WIP: This prebuilt constant cannot be
//! redshifted (yet)`, as upstream.

use crate::error::{ExcKind, SpyError};
use crate::frames::doppler::Shift;
use crate::frames::{Eval, Frame, Interp, Mutation};
use crate::source::TextRange;
use crate::syntax::ast::{ExprId, ExprNode, Lit64, UnaryOp};
use crate::vm::builtins::Builtin;
use crate::vm::ops::Scalar;
use crate::vm::types::{TypeId, TypeKind};
use crate::vm::value::Value;

/// The residual (module-local) name of an FQN: `mod::add[i32]` in module
/// `mod` is `add[i32]`, so that the residual module, run as `mod`, gives
/// every function and struct its original FQN.
pub fn residual_name(modname: &str, fqn: &str) -> String {
    fqn.strip_prefix(modname)
        .and_then(|s| s.strip_prefix("::"))
        .unwrap_or(fqn)
        .to_string()
}

impl crate::frames::doppler::Shift {
    /// The residual name of a module-level definition (`--full-fqn` keeps
    /// the module prefix, for reading; such output runs under another FQN).
    pub(crate) fn global_name(&self, modname: &str, fqn: &str) -> String {
        if self.read().full_fqn {
            return fqn.to_string();
        }
        residual_name(modname, fqn)
    }
}

impl Interp<'_> {
    fn cannot_redshift(&self, f: &Frame, what: String, range: TextRange) -> crate::error::Failure {
        SpyError::new(
            ExcKind::Wip,
            format!("This prebuilt constant cannot be redshifted (yet): {what}"),
        )
        .with_error(&f.file, range, "")
        .into()
    }

    /// The residual expression of the module-level definition `fqn` in the
    /// residual module of `f`'s module: its residual name there, or
    /// `m.name` for a definition of another user module `m` (which the
    /// residual module then imports: `import m`, spec §16.8).
    pub(crate) fn global_ref(&self, f: &Frame, fqn: &str, range: TextRange) -> Eval<ExprId> {
        let sh = f.shift()?;
        let here = self.modname(f);
        if !sh.read().full_fqn {
            if let Some((owner, rest)) = fqn.split_once("::") {
                if owner != here && self.vm.module_named(owner).is_some() {
                    sh.state().user_imports.insert((here, owner.to_string()));
                    let owner = sh.name(owner, range);
                    return Ok(sh.attribute(owner, rest, range));
                }
            }
        }
        Ok(sh.name(&sh.global_name(&here, fqn), range))
    }

    pub(crate) fn modname(&self, f: &Frame) -> String {
        self.vm.module(f.module).name.clone()
    }

    /// The constant expression of blue value `v` of static type `ty`.
    pub(crate) fn const_expr(&mut self, f: &Frame, v: &Value, ty: TypeId, range: TextRange) -> Eval<ExprId> {
        let sh = f.shift()?;
        let lit = |k: ExprNode| sh.expr(k, range);
        Ok(match v {
            // Planted bug (test-only): a blue -0.0 folds into 0.0.
            Value::Scalar(Scalar::F64(x))
                if *x == 0.0 && x.is_sign_negative() && self.mutations.has(Mutation::NegZeroFolded) =>
            {
                lit(ExprNode::Float(Lit64::from_f64(0.0)))
            }
            Value::Scalar(s) => scalar_expr(&sh, *s, range),
            Value::Str(s) => sh.str(s.as_str(), range),
            Value::Bytes(b) => sh.bytes(b.as_bytes(), range),
            Value::None => lit(ExprNode::None),
            // As a value (not an annotation), NoneType is spelled `NoneType`.
            Value::Type(t) if *t == TypeId::NONE => sh.name("NoneType", range),
            Value::Type(t) => self.type_expr(f, *t, range)?,
            Value::Simd(v) => {
                let args = v.lanes.iter().map(|l| scalar_expr(&sh, *l, range)).collect();
                let callee = self.type_expr(f, v.ty, range)?;
                sh.call(callee, args, range)
            }
            Value::Ptr(p) if p.mem.is_none() => {
                let t = self.type_expr(f, p.ty, range)?;
                sh.attribute(t, "NULL", range)
            }
            Value::List(l) => {
                // A list made at redshift time from blue values: a display
                // that makes a fresh list each time it runs.
                let item_ty = self.vm.types.checked_list_item(l.ty)?;
                let items = l.items.borrow().clone();
                if items.is_empty() {
                    let t = self.type_expr(f, l.ty, range)?;
                    sh.call(t, Vec::new(), range)
                } else {
                    let mut elts = Vec::with_capacity(items.len());
                    for item in &items {
                        elts.push(self.const_expr(f, item, item_ty, range)?);
                    }
                    let elts = sh.exprs(elts);
                    lit(ExprNode::List(elts))
                }
            }
            Value::Dict(d) => {
                // A dict made at redshift time from blue values: a display
                // (or `dict[K, V]()`) that makes a fresh dict each time it
                // runs.
                let entries = d.entries();
                match self.vm.types.dict_types(d.ty) {
                    Some((kt, vt)) if !entries.is_empty() => {
                        let mut pairs = Vec::with_capacity(2 * entries.len());
                        for (k, v) in &entries {
                            pairs.push(self.const_expr(f, k, kt, range)?);
                            pairs.push(self.const_expr(f, v, vt, range)?);
                        }
                        let pairs = sh.exprs(pairs);
                        lit(ExprNode::Dict(pairs))
                    }
                    Some(_) => {
                        let t = self.type_expr(f, d.ty, range)?;
                        sh.call(t, Vec::new(), range)
                    }
                    None => {
                        let pairs = sh.exprs([]);
                        lit(ExprNode::Dict(pairs))
                    }
                }
            }
            Value::Func(func) => {
                let key = std::rc::Rc::as_ptr(func) as *const () as usize;
                match self.vm.method_owner.get(&key).cloned() {
                    // Methods live in their struct: `P.norm`.
                    Some((owner, member)) => {
                        let t = self.type_expr(f, owner, range)?;
                        sh.attribute(t, &member, range)
                    }
                    None => self.global_ref(f, &func.fqn, range)?,
                }
            }
            Value::Builtin(b) => self.builtin_expr(f, *b, range)?,
            Value::Tuple(t) => {
                let item_types = self.vm.types.tuple_items(t.ty).map(|s| s.to_vec());
                let mut items = Vec::with_capacity(t.items.len());
                for (k, item) in t.items.iter().enumerate() {
                    let ity = match &item_types {
                        Some(types) => types[k],
                        None => self.dynamic_type(item).unwrap_or(TypeId::DYNAMIC),
                    };
                    items.push(self.const_expr(f, item, ity, range)?);
                }
                // A display of items that all fit a static tuple reads back
                // as one; an interp tuple of such items (`interp_tuple(1, 2)`)
                // is spelled as the call that makes it, keeping its type.
                let reads_as_static = t.items.iter().all(|item| {
                    self.dynamic_type(item)
                        .is_some_and(|it| self.storable_in_static_tuple(it))
                });
                if t.ty == TypeId::INTERP_TUPLE && reads_as_static {
                    sh.note_import(&self.modname(f), "__spy__", "interp_tuple");
                    let callee = sh.name("interp_tuple", range);
                    sh.call(callee, items, range)
                } else {
                    sh.tuple(items, range)
                }
            }
            Value::Struct(s) => {
                let fields = self.vm.types.checked_struct_fields(s.ty)?.to_vec();
                let mut args = Vec::with_capacity(fields.len());
                for (fv, fd) in s.fields.iter().zip(fields) {
                    args.push(self.const_expr(f, fv, fd.ty, range)?);
                }
                let callee = self.type_expr(f, s.ty, range)?;
                let make = sh.attribute(callee, "__make__", range);
                sh.call(make, args, range)
            }
            Value::Range(r) => {
                let callee = sh.name("range", range);
                let args = vec![
                    sh.int(r.start.into(), range),
                    sh.int(r.stop.into(), range),
                    sh.int(r.step.into(), range),
                ];
                sh.call(callee, args, range)
            }
            Value::Exception(e) => {
                let msg = sh.str(e.message.as_str(), range);
                let callee = sh.name(e.kind.name(), range);
                sh.call(callee, vec![msg], range)
            }
            Value::Residual(e) => sh.live(*e)?,
            other => {
                let what = format!("{} of type `{}`", self.short_repr(other), self.vm.types.name(ty));
                return Err(self.cannot_redshift(f, what, range));
            }
        })
    }

    fn short_repr(&self, v: &Value) -> String {
        match v {
            Value::Ptr(_) => "a pointer".to_string(),
            Value::Ref(_) => "a reference".to_string(),
            Value::List(_) => "a list".to_string(),
            Value::Dict(_) => "a dict".to_string(),
            Value::Meta(_) => "a MetaArg".to_string(),
            Value::OpSpec(_) => "an OpSpec".to_string(),
            Value::Simd(_) => "a SIMD vector".to_string(),
            Value::Module(_) => "a module".to_string(),
            Value::GenericStruct(g) => format!("generic struct `{}`", g.fqn),
            other => format!("{other:?}"),
        }
    }

    /// The expression that denotes type `t` in residual code.
    pub(crate) fn type_expr(&mut self, f: &Frame, t: TypeId, range: TextRange) -> Eval<ExprId> {
        let sh = f.shift()?;
        let kind = self.vm.types.kind(t).clone();
        Ok(match kind {
            TypeKind::Prim(_)
            | TypeKind::Str
            | TypeKind::Bytes
            | TypeKind::Object
            | TypeKind::Dynamic
            | TypeKind::Type
            | TypeKind::Range
            | TypeKind::Exception => sh.name(self.vm.types.name(t), range),
            TypeKind::NoneType => sh.expr(ExprNode::None, range),
            // no builtin name spells `types::NotImplementedType`; its one
            // value's static type does
            TypeKind::NotImplemented => {
                sh.note_import(&self.modname(f), "__spy__", "STATIC_TYPE");
                let callee = sh.name("STATIC_TYPE", range);
                let arg = sh.name("NotImplemented", range);
                sh.call(callee, vec![arg], range)
            }
            // A red tuple holding types (made while shifting) is an interp
            // tuple at run time.
            TypeKind::Tuple(items) if items.iter().any(|t| !self.storable_in_static_tuple(*t)) => {
                f.shift()?
                    .note_import(&self.modname(f), "__spy__", "interp_tuple");
                sh.name("interp_tuple", range)
            }
            TypeKind::Tuple(items) => {
                let mut args = Vec::with_capacity(items.len());
                for i in items {
                    args.push(self.type_expr(f, i, range)?);
                }
                let tuple = sh.name("tuple", range);
                sh.subscript(tuple, args, range)
            }
            TypeKind::List(item) => {
                let name = if self.vm.types.is_interp_list(t) {
                    f.shift()?.note_import(&self.modname(f), "__spy__", "interp_list");
                    "interp_list"
                } else {
                    "list"
                };
                let item = self.type_expr(f, item, range)?;
                let generic = sh.name(name, range);
                sh.subscript(generic, vec![item], range)
            }
            TypeKind::Dict { key, value, interp } => {
                let name = if interp {
                    f.shift()?.note_import(&self.modname(f), "__spy__", "interp_dict");
                    "interp_dict"
                } else {
                    "dict"
                };
                let args = vec![self.type_expr(f, key, range)?, self.type_expr(f, value, range)?];
                let generic = sh.name(name, range);
                sh.subscript(generic, args, range)
            }
            TypeKind::EmptyDict => {
                f.shift()?
                    .note_import(&self.modname(f), "__spy__", "EmptyDictType");
                sh.name("EmptyDictType", range)
            }
            TypeKind::Ptr { item, gc } | TypeKind::Ref { item, gc } => {
                let name = match (self.vm.types.kind(t), gc) {
                    (TypeKind::Ptr { .. }, true) => "gc_ptr",
                    (TypeKind::Ptr { .. }, false) => "raw_ptr",
                    (_, true) => "gc_ref",
                    (_, false) => "raw_ref",
                };
                f.shift()?.note_import(&self.modname(f), "unsafe", name);
                let item = self.type_expr(f, item, range)?;
                let generic = sh.name(name, range);
                sh.subscript(generic, vec![item], range)
            }
            TypeKind::Simd { lane, lanes } => {
                sh.note_import(&self.modname(f), "simd", "SIMD");
                let lane = sh.name(lane.name(), range);
                let n = sh.int(lanes.into(), range);
                let simd = sh.name("SIMD", range);
                sh.subscript(simd, vec![lane, n], range)
            }
            TypeKind::Struct { .. } => {
                let fqn = self.vm.types.name(t).to_string();
                self.global_ref(f, &fqn, range)?
            }
            TypeKind::InterpTuple => {
                f.shift()?
                    .note_import(&self.modname(f), "__spy__", "interp_tuple");
                sh.name("interp_tuple", range)
            }
            TypeKind::MetaArg => {
                f.shift()?.note_import(&self.modname(f), "operator", "MetaArg");
                sh.name("MetaArg", range)
            }
            TypeKind::File => {
                f.shift()?.note_import(&self.modname(f), "_file", "file");
                sh.name("file", range)
            }
            TypeKind::RawBuffer => {
                f.shift()?.note_import(&self.modname(f), "rawbuffer", "RawBuffer");
                sh.name("RawBuffer", range)
            }
            _ => {
                let what = format!("type `{}`", self.vm.types.name(t));
                return Err(self.cannot_redshift(f, what, range));
            }
        })
    }

    fn builtin_expr(&mut self, f: &Frame, b: Builtin, range: TextRange) -> Eval<ExprId> {
        let sh = f.shift()?;
        let importer = self.modname(f);
        let imported = |_: &mut Self, module: &'static str, name: &'static str| {
            sh.note_import(&importer, module, name);
            sh.name(name, range)
        };
        Ok(match b {
            Builtin::AllocOf { item, gc } => {
                let name = if gc { "gc_alloc" } else { "raw_alloc" };
                let callee = imported(self, "unsafe", name);
                let item = self.type_expr(f, item, range)?;
                sh.subscript(callee, vec![item], range)
            }
            Builtin::PtrSimdLoadOf(simd) => {
                let callee = imported(self, "simd", "ptr_simd_load");
                let TypeKind::Simd { lane, lanes } = *self.vm.types.kind(simd) else {
                    return Err(crate::bug!("ptr_simd_load of a non-SIMD type"));
                };
                let args = vec![sh.name(lane.name(), range), sh.int(lanes.into(), range)];
                sh.subscript(callee, args, range)
            }
            Builtin::PtrSimdStore => imported(self, "simd", "ptr_simd_store"),
            Builtin::Time => imported(self, "time", "time"),
            Builtin::Sleep => imported(self, "time", "sleep"),
            Builtin::Math(m) => imported(self, "math", m.name()),
            Builtin::Mem(m) => imported(self, "unsafe", m.name()),
            Builtin::Div(d) => imported(self, "unsafe", d.name()),
            Builtin::StructMake(t) => {
                let t = self.type_expr(f, t, range)?;
                sh.attribute(t, "__make__", range)
            }
            Builtin::Rb(r) => imported(self, "rawbuffer", r.name()),
            Builtin::Module(m) => {
                let what = format!("module `{}`", m.name());
                return Err(self.cannot_redshift(f, what, range));
            }
            Builtin::UnrollRange => imported(self, "__spy__", "UNROLL_RANGE"),
            Builtin::ColorOf => imported(self, "__spy__", "COLOR"),
            Builtin::StaticType => imported(self, "__spy__", "STATIC_TYPE"),
            Builtin::AsRed => imported(self, "__spy__", "as_red"),
            Builtin::LookupFqn => imported(self, "__spy__", "lookup_fqn"),
            Builtin::ForceInline => imported(self, "__spy__", "force_inline"),
            Builtin::OpSpec | Builtin::OpSpecConst => imported(self, "operator", "OpSpec"),
            Builtin::Alloc { gc: true } => imported(self, "unsafe", "gc_alloc"),
            Builtin::Alloc { gc: false } => imported(self, "unsafe", "raw_alloc"),
            Builtin::PtrType { gc: true } => imported(self, "unsafe", "gc_ptr"),
            Builtin::PtrType { gc: false } => imported(self, "unsafe", "raw_ptr"),
            Builtin::RefType { gc: true } => imported(self, "unsafe", "gc_ref"),
            Builtin::RefType { gc: false } => imported(self, "unsafe", "raw_ref"),
            Builtin::SimdType => imported(self, "simd", "SIMD"),
            Builtin::PtrSimdLoad => imported(self, "simd", "ptr_simd_load"),
            Builtin::SimdWidthOf => imported(self, "simd", "simd_width_of"),
            other => sh.name(other.name(), range),
        })
    }
}

/// A scalar literal that reads back as the same value and type.
fn scalar_expr(sh: &Shift, s: Scalar, range: TextRange) -> ExprId {
    let lit = |k: ExprNode| sh.expr(k, range);
    let typed = |ty: &str, inner: ExprId| {
        let callee = sh.name(ty, range);
        sh.call(callee, vec![inner], range)
    };
    match s {
        Scalar::I32(v) => sh.int(v.into(), range),
        Scalar::I8(v) => typed("i8", sh.int(v.into(), range)),
        Scalar::U8(v) => typed("u8", sh.int(v.into(), range)),
        Scalar::U32(v) => typed("u32", sh.int(v.into(), range)),
        Scalar::I64(v) => typed("i64", sh.int(v, range)),
        Scalar::U64(v) => typed("u64", lit(ExprNode::Int(Lit64::from_u64(v)))),
        Scalar::Bool(b) => lit(ExprNode::Bool(b)),
        Scalar::F64(x) => float_expr(sh, x, range),
        // An f32 value converts exactly to f64 and back.
        Scalar::F32(x) => typed("f32", float_expr(sh, x as f64, range)),
    }
}

fn float_expr(sh: &Shift, x: f64, range: TextRange) -> ExprId {
    if x.is_sign_negative() && !x.is_nan() {
        let operand = sh.expr(ExprNode::Float(Lit64::from_f64(-x)), range);
        sh.expr(
            ExprNode::UnaryOp {
                op: UnaryOp::Neg,
                operand,
            },
            range,
        )
    } else {
        sh.expr(ExprNode::Float(Lit64::from_f64(x)), range)
    }
}
