//! Operator selection on static types, value-free: an operator and the
//! static types of its operands select one implementation ([`OpImpl`]),
//! as upstream's `operator` module does. ASTFrame and DopplerFrame
//! (`frames::dispatch`) execute the selection on values or shift it into
//! residual code; the JIT's lowering (`lower`) compiles it. This module is
//! the one place the selection is written.
//!
//! Also the typing of SIMD lane-wise operators ([`simd_binop_sel`]).
//!
//! Also value-free: which dunder a struct uses for `str()`/`repr()`
//! ([`display_dunder`]) and how `==` between two values of one value type
//! is decided ([`value_eq_impl`]).

use std::rc::Rc;

use crate::syntax::ast::{BinOp, CmpOp};
use crate::vm::ops::{self, PrimTy};
use crate::vm::types::{TypeId, TypeKind, TypeTable};
use crate::vm::value::Function;
use crate::vm::Vm;

/// The implementation an operator resolved to.
#[derive(Clone, Debug)]
pub enum OpImpl {
    /// A primitive operation; both operands are converted to `operand`.
    PrimBin {
        op: BinOp,
        operand: PrimTy,
        result: PrimTy,
    },
    PrimCmp {
        op: CmpOp,
        operand: PrimTy,
    },
    StrConcat,
    StrRepeat,
    StrEq {
        negate: bool,
    },
    StrContains,
    BytesConcat,
    BytesRepeat,
    BytesEq {
        negate: bool,
    },
    /// `==`/`!=` between two types, functions... (identity).
    IdentityEq {
        negate: bool,
    },
    /// `is` / `is not`.
    Is {
        negate: bool,
    },
    /// Field-wise / item-wise equality of value types (structs, tuples).
    ValueEq {
        negate: bool,
    },
    /// `x in t` for a homogeneous tuple.
    TupleContains,
    RangeContains,
    ListContains,
    /// `k in d` for a dict whose key type is `k`'s.
    DictContains,
    /// `a + b` of two `list[T]`: a new list (upstream `_list.spy` `__add__`).
    ListConcat {
        ty: TypeId,
    },
    /// `l * n` of a `list[T]` and an `i32`: a new list, empty for `n <= 0`
    /// (upstream `_list.spy` `__mul__`).
    ListRepeat {
        ty: TypeId,
    },
    /// A user dunder method (`__add__`, `__eq__`, `__contains__`...).
    Method {
        func: Rc<Function>,
        swap: bool,
    },
}

impl OpImpl {
    /// Whether the implementation compares values: its operands are the
    /// structs references refer to (a reference operand is converted to
    /// its struct first, as upstream's `T.__eq__` and `list.__contains__`
    /// take a `T`).
    pub fn decays_operands(&self) -> bool {
        matches!(self, OpImpl::ValueEq { .. } | OpImpl::ListContains)
    }
}

/// The dunder of a binary operator.
pub fn binop_dunder(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "__add__",
        BinOp::Sub => "__sub__",
        BinOp::Mul => "__mul__",
        BinOp::Div => "__div__",
        BinOp::FloorDiv => "__floordiv__",
        BinOp::Mod => "__mod__",
        BinOp::Pow => "__pow__",
        BinOp::LShift => "__lshift__",
        BinOp::RShift => "__rshift__",
        BinOp::BitAnd => "__and__",
        BinOp::BitOr => "__or__",
        BinOp::BitXor => "__xor__",
        BinOp::MatMul => return None,
    })
}

/// The dunder of a comparison.
pub fn cmp_dunder(op: CmpOp) -> Option<&'static str> {
    Some(match op {
        CmpOp::Eq => "__eq__",
        CmpOp::NotEq => "__ne__",
        CmpOp::Lt => "__lt__",
        CmpOp::LtE => "__le__",
        CmpOp::Gt => "__gt__",
        CmpOp::GtE => "__ge__",
        _ => return None,
    })
}

/// `l op r` (SIMD operands are selected before this, by the caller).
pub fn binop_impl(vm: &Vm, op: BinOp, l: TypeId, r: TypeId) -> Option<OpImpl> {
    match (l.as_prim(), r.as_prim()) {
        (Some(a), Some(b)) => ops::binop_signature(op, a, b).map(|sig| OpImpl::PrimBin {
            op,
            operand: sig.operand,
            result: sig.result,
        }),
        _ if l == TypeId::STR && r == TypeId::STR && op == BinOp::Add => Some(OpImpl::StrConcat),
        _ if l == TypeId::STR && r == TypeId::I32 && op == BinOp::Mul => Some(OpImpl::StrRepeat),
        _ if l == TypeId::BYTES && r == TypeId::BYTES && op == BinOp::Add => Some(OpImpl::BytesConcat),
        _ if l == TypeId::BYTES && r == TypeId::I32 && op == BinOp::Mul => Some(OpImpl::BytesRepeat),
        _ if op == BinOp::Add && l == r && vm.types.list_item(l).is_some() => {
            Some(OpImpl::ListConcat { ty: l })
        }
        _ if op == BinOp::Mul && r == TypeId::I32 && vm.types.list_item(l).is_some() => {
            Some(OpImpl::ListRepeat { ty: l })
        }
        _ => binop_dunder(op)
            .and_then(|name| vm.struct_method(l, name))
            .map(|func| OpImpl::Method { func, swap: false }),
    }
}

/// `l op r` for a comparison (`is`, `in`, `==`...).
pub fn cmpop_impl(vm: &Vm, op: CmpOp, l: TypeId, r: TypeId) -> Option<OpImpl> {
    let types = &vm.types;
    match op {
        CmpOp::Is | CmpOp::IsNot => {
            let negate = op == CmpOp::IsNot;
            let is_ref = |t: TypeId| types.ref_item(t).is_some();
            // Decision: a reference has no identity of its own (upstream
            // compares its interpreter objects: `p[0] is p[0]` is False)
            if (types.is_value_type(l) && types.is_value_type(r)) || is_ref(l) || is_ref(r) {
                None
            } else {
                Some(OpImpl::Is { negate })
            }
        }
        CmpOp::In => {
            if l == TypeId::STR && r == TypeId::STR {
                return Some(OpImpl::StrContains);
            }
            if r == TypeId::RANGE && l == TypeId::I32 {
                return Some(OpImpl::RangeContains);
            }
            // a reference is looked for in a list as the struct it refers
            // to (upstream's `list.__contains__(self, item: T)` converts
            // it; a tuple's `in` wants the item type itself)
            if types.list_item(r) == Some(types.method_owner(l)) {
                return Some(OpImpl::ListContains);
            }
            if types.dict_types(r).is_some_and(|(k, _)| k == l) {
                return Some(OpImpl::DictContains);
            }
            if let Some(items) = types.tuple_items(r) {
                if !items.is_empty() && items.iter().all(|&t| t == l) {
                    return Some(OpImpl::TupleContains);
                }
                return None;
            }
            vm.struct_method(r, "__contains__")
                .map(|func| OpImpl::Method { func, swap: true })
        }
        _ => {
            if let (Some(a), Some(b)) = (l.as_prim(), r.as_prim()) {
                return ops::cmpop_signature(op, a, b).map(|sig| OpImpl::PrimCmp {
                    op,
                    operand: sig.operand,
                });
            }
            let eq_like = matches!(op, CmpOp::Eq | CmpOp::NotEq);
            let negate = op == CmpOp::NotEq;
            // references compare as the structs they refer to (upstream:
            // `ref[T]` finds `T.__eq__`; ValueEq's operands are decayed
            // first, `decays_operands`)
            let (l, r) = (types.method_owner(l), types.method_owner(r));
            if let Some(func) = cmp_dunder(op).and_then(|name| vm.struct_method(l, name)) {
                return Some(OpImpl::Method { func, swap: false });
            }
            if !eq_like {
                return None;
            }
            if l == TypeId::STR && r == TypeId::STR {
                return Some(OpImpl::StrEq { negate });
            }
            if l == TypeId::BYTES && r == TypeId::BYTES {
                return Some(OpImpl::BytesEq { negate });
            }
            if l == r
                && (types.is_struct(l)
                    || matches!(
                        types.kind(l),
                        TypeKind::Tuple(_)
                            | TypeKind::List(_)
                            | TypeKind::Dict { .. }
                            | TypeKind::EmptyDict
                            | TypeKind::InterpTuple
                    ))
            {
                // the auto-generated `__eq__`/`__ne__` of value types
                if negate && vm.struct_method(l, "__eq__").is_some() {
                    return None;
                }
                return Some(OpImpl::ValueEq { negate });
            }
            // upstream's `can_use_reference_eq`: the common type must be a
            // reference type other than `object` and `dynamic`
            let reference =
                |t: TypeId| !types.is_value_type(t) && t != TypeId::OBJECT && t != TypeId::DYNAMIC;
            if reference(l)
                && reference(r)
                && (l == r
                    || l == TypeId::NONE
                    || r == TypeId::NONE
                    || (l == TypeId::TYPE && r == TypeId::TYPE))
            {
                return Some(OpImpl::IdentityEq { negate });
            }
            None
        }
    }
}

/// How `a == b` is decided for two values of value type `ty` (ASTFrame's
/// `values_equal`, by type): the parts of `Items` are compared in order,
/// each by its own rule, and the first unequal part decides.
#[derive(Clone, Debug)]
pub enum EqImpl {
    /// Primitive `==` (false on NaN).
    Prim(PrimTy),
    Str,
    /// The struct's `__eq__` (a user method returning `bool`).
    Dunder(Rc<Function>),
    /// Item-wise (tuples) or field-wise (structs without `__eq__`).
    Items(Vec<TypeId>),
    /// Nothing to compare (`None`).
    Always,
}

/// See [`EqImpl`]; `None` for a type that is not a by-value type with a
/// value-free equality (lists, pointers...).
pub fn value_eq_impl(vm: &Vm, ty: TypeId) -> Option<EqImpl> {
    let types = &vm.types;
    Some(match types.kind(ty) {
        TypeKind::Prim(p) => EqImpl::Prim(*p),
        TypeKind::Str => EqImpl::Str,
        TypeKind::NoneType => EqImpl::Always,
        TypeKind::Tuple(items) => EqImpl::Items(items.clone()),
        TypeKind::Struct { fields, .. } => match vm.struct_method(ty, "__eq__") {
            Some(f) => EqImpl::Dunder(f),
            None => EqImpl::Items(fields.iter().map(|f| f.ty).collect()),
        },
        _ => return None,
    })
}

/// The user method `str()`/`repr()` of a struct value calls: `__str__`,
/// else `__repr__`; `None` prints [`opaque_struct_text`].
pub fn display_dunder(vm: &Vm, ty: TypeId) -> Option<(&'static str, Rc<Function>)> {
    ["__str__", "__repr__"]
        .into_iter()
        .find_map(|d| vm.struct_method(ty, d).map(|m| (d, m)))
}

/// Whether `str()`/`repr()` of a value of type `ty` runs user code (a
/// struct's `__str__`/`__repr__`, also as a tuple item): such a call is
/// red even when the value is known, as upstream's `x.__str__()` is.
pub fn display_runs_user_code(vm: &Vm, ty: TypeId) -> bool {
    match vm.types.kind(ty) {
        TypeKind::Struct { .. } => display_dunder(vm, ty).is_some(),
        TypeKind::Tuple(items) => items.iter().any(|t| display_runs_user_code(vm, *t)),
        _ => false,
    }
}

/// `repr()`/`str()` of an exception value: `ValueError('m')`.
pub fn exception_text(kind: crate::error::ExcKind, message: &str) -> String {
    format!("{kind}({})", crate::vm::ops::format::repr_str(message))
}

/// The text of a range object (Python's: the step only when it is not 1).
pub fn range_text(start: i32, stop: i32, step: i32) -> String {
    if step == 1 {
        format!("range({start}, {stop})")
    } else {
        format!("range({start}, {stop}, {step})")
    }
}

/// `str()` and `repr()` of a reference (its own text, whatever the struct
/// defines: upstream finds `object.__repr__` in `ref[T]` before `T`'s
/// `__str__`) and of a `RawBuffer` (what a live pointer prints too); no
/// address, as [`opaque_struct_text`].
pub fn object_text(vm: &Vm, ty: TypeId) -> String {
    format!("<spy `{}` object>", vm.types.name(ty))
}

/// `str()` of a struct without `__str__`/`__repr__`. Deliberate difference
/// from upstream: no `at 0x...` address (deterministic).
pub fn opaque_struct_text(vm: &Vm, ty: TypeId) -> String {
    format!("<spy `{}` object>", vm.types.name(ty))
}

/// `repr()` of a tuple from the reprs of its items. Deliberate difference:
/// upstream prints the generic `<spy `...::_tup` object at 0x...>`; this
/// is Python's tuple repr, deterministic and readable.
/// The text of a list from its items' reprs.
pub fn list_text(parts: &[String]) -> String {
    format!("[{}]", parts.join(", "))
}

/// The text of a list of `len` items whose reprs took `part_bytes` in
/// total, before it is built: what ASTFrame checks against the str limit.
pub fn list_text_len(len: usize, part_bytes: usize) -> usize {
    part_bytes.saturating_add(2 * len).saturating_add(2)
}

pub fn tuple_text(parts: &[String]) -> String {
    if parts.len() == 1 {
        format!("({},)", parts[0])
    } else {
        format!("({})", parts.join(", "))
    }
}

/// The operators SIMD vectors support lane-wise.
#[derive(Clone, Copy, Debug)]
pub enum SimdOp {
    Bin(BinOp),
    Cmp(CmpOp),
}

impl SimdOp {
    pub fn symbol(self) -> &'static str {
        match self {
            SimdOp::Bin(b) => b.symbol(),
            SimdOp::Cmp(c) => c.symbol(),
        }
    }

    /// `+ - * /` and comparisons (not `is`/`in`).
    pub fn supported(self) -> bool {
        match self {
            SimdOp::Bin(b) => matches!(b, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div),
            SimdOp::Cmp(c) => !matches!(c, CmpOp::Is | CmpOp::IsNot | CmpOp::In | CmpOp::NotIn),
        }
    }
}

/// How one operand of a lane-wise SIMD operator is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimdOperand {
    /// A vector of the operator's type, lane by lane.
    Vector,
    /// A scalar of this type, converted to the lane type (an implicit
    /// conversion) and used for every lane.
    Broadcast(PrimTy),
}

/// The selection of a lane-wise SIMD operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimdSel {
    /// The operands' vector type `SIMD[lane, lanes]`.
    pub vector: TypeId,
    pub lane: PrimTy,
    pub lanes: u32,
    /// How each operand is used; `None` when it does not fit (a vector of
    /// another type, or a scalar without an implicit conversion to the lane
    /// type): `TypeError: cannot do `l` op `r`` when the operator runs.
    pub left: Option<SimdOperand>,
    pub right: Option<SimdOperand>,
    /// The lane type of the result: `bool` for a comparison, the scalar
    /// operator's result type otherwise (`f64` for `/` of integer lanes);
    /// `None` when the scalar operator does not exist for the lane type.
    pub result_lane: Option<PrimTy>,
}

impl SimdSel {
    /// Both operands, if both fit.
    pub fn operands(&self) -> Option<(SimdOperand, SimdOperand)> {
        self.left.zip(self.right)
    }
}

/// `l op r` when one operand is a SIMD vector: `None` when neither is (or
/// both are scalars, or the operator is not lane-wise).
pub fn simd_binop_sel(types: &TypeTable, op: SimdOp, l: TypeId, r: TypeId) -> Option<SimdSel> {
    if !op.supported() || (l.as_prim().is_some() && r.as_prim().is_some()) {
        return None;
    }
    let (lane, lanes, vector) = match (types.kind(l), types.kind(r)) {
        (TypeKind::Simd { lane, lanes }, _) => (*lane, *lanes, l),
        (_, TypeKind::Simd { lane, lanes }) => (*lane, *lanes, r),
        _ => return None,
    };
    let operand = |t: TypeId| -> Option<SimdOperand> {
        if t == vector {
            return Some(SimdOperand::Vector);
        }
        match t.as_prim() {
            Some(p) if ops::convert::implicit_convertible(p, lane) => Some(SimdOperand::Broadcast(p)),
            _ => None,
        }
    };
    Some(SimdSel {
        vector,
        lane,
        lanes,
        left: operand(l),
        right: operand(r),
        result_lane: match op {
            SimdOp::Cmp(_) => Some(PrimTy::Bool),
            SimdOp::Bin(b) => ops::binop_signature(b, lane, lane).map(|s| s.result),
        },
    })
}
