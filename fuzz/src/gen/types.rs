//! The generator's model of SPy types (the subset it builds values of) and
//! literals of each type, biased toward edge values (YARPGen/Csmith style:
//! extremes, zero, one, minus one, powers of two).

use std::rc::Rc;

use crate::config::Feature;

/// A type the generator knows how to build values of.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    I8,
    U8,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    Bool,
    Str,
    /// A static tuple of scalars.
    Tuple(Vec<Ty>),
    /// A struct, by index into the generator's struct list, and its
    /// spelling (`S0`, or a generic instance `GS_3[i32]`).
    Struct(usize, Rc<str>),
}

impl Ty {
    pub const INTS: [Ty; 6] = [Ty::I8, Ty::U8, Ty::I32, Ty::U32, Ty::I64, Ty::U64];

    pub fn is_int(&self) -> bool {
        matches!(self, Ty::I8 | Ty::U8 | Ty::I32 | Ty::U32 | Ty::I64 | Ty::U64)
    }

    pub fn is_signed(&self) -> bool {
        matches!(self, Ty::I8 | Ty::I32 | Ty::I64)
    }

    pub fn is_float(&self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self, Ty::Tuple(_) | Ty::Struct(..))
    }

    /// Bit width of an integer type.
    pub fn bits(&self) -> u32 {
        match self {
            Ty::I8 | Ty::U8 => 8,
            Ty::I32 | Ty::U32 => 32,
            _ => 64,
        }
    }

    /// The feature a value of this type needs.
    pub fn feature(&self) -> Option<Feature> {
        match self {
            Ty::I8 | Ty::U8 | Ty::U32 => Some(Feature::SmallInts),
            Ty::I64 | Ty::U64 => Some(Feature::WideInts),
            Ty::F32 => Some(Feature::F32),
            Ty::Str => Some(Feature::Str),
            Ty::Tuple(_) => Some(Feature::StaticTuples),
            Ty::Struct(_, name) if name.starts_with("GP_") => Some(Feature::GenericPairs),
            Ty::Struct(_, name) if name.contains('[') => Some(Feature::GenericStructs),
            Ty::Struct(..) => Some(Feature::Structs),
            _ => None,
        }
    }

    /// The type as written in SPy source.
    pub fn spell(&self) -> String {
        match self {
            Ty::I8 => "i8".into(),
            Ty::U8 => "u8".into(),
            Ty::I32 => "i32".into(),
            Ty::U32 => "u32".into(),
            Ty::I64 => "i64".into(),
            Ty::U64 => "u64".into(),
            Ty::F32 => "f32".into(),
            Ty::F64 => "f64".into(),
            Ty::Bool => "bool".into(),
            Ty::Str => "str".into(),
            Ty::Tuple(items) => {
                let items: Vec<_> = items.iter().map(Ty::spell).collect();
                format!("tuple[{}]", items.join(", "))
            }
            Ty::Struct(_, name) => name.to_string(),
        }
    }

    /// The interesting integer values of this type (as i128).
    pub fn int_edges(&self) -> &'static [i128] {
        match self {
            Ty::I8 => &[0, 1, -1, 2, 7, 100, 127, -128, -127, 64],
            Ty::U8 => &[0, 1, 2, 3, 7, 128, 200, 254, 255, 16],
            Ty::I32 => &[
                0,
                1,
                -1,
                2,
                3,
                -3,
                7,
                10,
                -7,
                100,
                65536,
                2147483647,
                -2147483648,
                -2147483647,
                1 << 30,
            ],
            Ty::U32 => &[0, 1, 2, 3, 7, 1000, 65536, 2147483648, 4294967295, 4294967294],
            Ty::I64 => &[
                0,
                1,
                -1,
                3,
                -7,
                1 << 32,
                5000000000,
                9223372036854775807,
                -9223372036854775808,
                -9223372036854775807,
            ],
            Ty::U64 => &[
                0,
                1,
                2,
                7,
                1 << 32,
                9223372036854775808,
                18446744073709551615,
                18446744073709551614,
            ],
            _ => &[0],
        }
    }
}

/// An integer literal of type `ty` with value `v` (which must fit).
pub fn int_lit(ty: &Ty, v: i128) -> String {
    match ty {
        // Bare literals are i32; the leading minus folds into the literal.
        Ty::I32 if v >= 0 => format!("{v}"),
        Ty::I32 => format!("({v})"),
        _ => format!("{}({v})", ty.spell()),
    }
}

/// Float literals, edge values included (no NaN literal exists; `inf` is
/// `1e999`).
pub const F64_LITS: &[&str] = &[
    "0.0", "1.0", "-1.0", "0.5", "2.5", "-7.25", "0.1", "3.0", "1e308", "-1e308", "1e-310", "1e999", "-0.0",
    "100.0", "1e16",
];

pub const F32_LITS: &[&str] = &[
    "0.0",
    "1.0",
    "-1.5",
    "0.1",
    "2.5",
    "3e38",
    "1e-40",
    "16777217.0",
    "-0.0",
];

pub const STR_LITS: &[&str] = &[
    "\"\"",
    "\"a\"",
    "\"hello\"",
    "\"x y\"",
    "\"caf\\u00e9\"",
    "\"it's\"",
    "\"1,2\"",
    "\"AbC\"",
];
