//! The errors residual code can raise at run time, as typed values.
//!
//! This module owns [`RuntimeError`]: every value-dependent SPy exception of
//! the pure operator layer (`vm::ops`) and of the run-time builtins (lists,
//! pointers, SIMD lanes, `assert`, string limits, call depth). Each variant
//! has one exact text (upstream's wording, in `Display`), one [`ExcKind`] and
//! one **stable numeric code**: the JIT raises by code with up to two operand
//! words, so every variant is rebuilt by [`RuntimeError::from_code`] from its
//! code and [`Operands`]. Codes are never reused or renumbered; a new error
//! takes a new code (the golden list in the tests pins them, spec §7.4).
//!
//! Nothing here knows about values, frames or source locations: the
//! evaluator turns a `RuntimeError` into a located [`SpyError`] (via `From`),
//! which keeps its code and operands (`SpyError::runtime`, a
//! [`RuntimeCode`]) so that redshift's `$raise[N]` helpers are rebuilt from
//! the code, not from a message string. The JIT's `ErrCode` (non-zero) is
//! [`RuntimeError::code`] and its two operand words are
//! [`Operands::words`].
//! Static (type-level) errors — "cannot do `i8` + `i32`" — are not here:
//! typed residual code cannot raise them.

use std::fmt;

use crate::error::{ExcKind, RuntimeCode, SpyError};
use crate::vm::ops::format::python_repr_str;
use crate::vm::ops::PrimTy;

/// Python's limit on the digits of an `int(str)` conversion.
pub const MAX_STR_DIGITS: u64 = 4300;

/// An error residual code can raise at run time. See the module doc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeError {
    // ---------------------------------------------------- ZeroDivisionError
    /// int `/` by zero.
    IntDivByZero,
    /// int `//` by zero.
    IntFloorDivByZero,
    /// int `%` by zero.
    IntModByZero,
    /// int `0 ** negative`.
    IntZeroToNegativePower,
    /// float (f64 and f32) `/` by zero.
    FloatDivByZero,
    /// float `//` by zero.
    FloatFloorDivByZero,
    /// float `%` by zero.
    FloatModByZero,
    /// float `0.0 ** negative`.
    FloatZeroToNegativePower,
    // ----------------------------------------------------------- ValueError
    /// int `x ** negative` with `x != 0`.
    IntNegativeExponent,
    /// `<<` or `>>` by a negative count.
    NegativeShiftCount,
    /// float `negative ** non-integer`.
    MathDomain,
    /// `s[a:b:0]`.
    SliceStepZero,
    /// `s.split("")`.
    EmptySeparator,
    /// `range(a, b, 0)`.
    RangeStepZero,
    /// `l.index(v)` with `v` absent.
    NotInList,
    /// `int(s)` with more than [`MAX_STR_DIGITS`] digits.
    IntStrDigitsLimit { digits: u64 },
    /// `int(s)` of a string that is not a base-10 literal (`literal` is `s`).
    InvalidIntLiteral { literal: String },
    /// A method of a closed `file`.
    FileClosed,
    /// A file's bytes read are not UTF-8 (ours: upstream's str is bytes).
    FileNotUtf8,
    /// `s.encode(e)` / `b.decode(e)` with `e` other than `"utf-8"`.
    UnsupportedEncoding,
    /// `b.decode("utf-8")` of bytes that are not utf-8 (ours: upstream
    /// copies them unchecked); `position` is the first invalid byte.
    InvalidUtf8 { position: u64 },
    // -------------------------------------------------------- OverflowError
    /// f64 `**` whose result is infinite.
    FloatPowOverflow,
    /// `s * n` past the str size limit of the operator layer.
    RepeatedStrTooLong,
    /// A string past the interpreter's `max_str_bytes` limit.
    StrTooLong { limit: u64 },
    /// `T(s)` (an integer type) of a literal out of `T`'s range; `digits` is
    /// the value in decimal, sign included (it may not fit in 64 bits).
    IntOutOfRange { ty: PrimTy, digits: String },
    /// `len(x)` of more items than an `i32` holds.
    LenTooLarge { len: u64 },
    // ----------------------------------------------------------- IndexError
    /// `s[i]` out of range.
    StrIndex,
    /// `b[i]` out of range (ours: upstream panics in the bounds check).
    BytesIndex,
    /// `l[i]` out of range (upstream's message is empty and the text is
    /// only in the annotation; ours carries it, spec §7.3).
    ListIndex,
    /// `l.pop()` of an empty list.
    PopEmptyList,
    /// `t[i]` out of range.
    TupleIndex,
    /// `v[i]` of a SIMD vector out of range.
    SimdIndex,
    // ----------------------------------------------------------- PanicError
    /// Reading or writing through a NULL pointer.
    NullPointer,
    /// `p[i]` (or `p.field`) out of the allocation.
    PtrGetitemOutOfBounds,
    /// `p[i] = v` (or `p.field = v`) out of the allocation.
    PtrStoreOutOfBounds,
    /// `simd.load(p, i)` past the allocation.
    PtrSimdLoadOutOfBounds,
    /// `simd.store(p, i, v)` past the allocation.
    PtrSimdStoreOutOfBounds,
    /// `gc_alloc(T)(n)` / `raw_alloc(T)(n)` with `n < 0`.
    NegativeAlloc,
    /// `open(path, mode)` with a mode other than `r w a` and an optional `+`.
    FileMode,
    /// `unsafe.unchecked_div` of integers by zero (upstream's debug check).
    UncheckedIntDivByZero,
    /// `unsafe.unchecked_floordiv` of integers by zero.
    UncheckedIntFloorDivByZero,
    /// `unsafe.unchecked_mod` of integers by zero.
    UncheckedIntModByZero,
    /// `unsafe.unchecked_div` of floats by zero.
    UncheckedFloatDivByZero,
    /// `unsafe.unchecked_floordiv` of floats by zero.
    UncheckedFloatFloorDivByZero,
    /// `unsafe.unchecked_mod` of floats by zero.
    UncheckedFloatModByZero,
    /// `rawbuffer.rb_get_i32(b, offset)` (and the other accessors) outside
    /// the buffer's bytes (ours: upstream's interpreter lets Python's
    /// `struct` raise, its C code does not check).
    RawBufferOutOfBounds,
    // ------------------------------------------------------------ TypeError
    /// `ord("")` (our decision: upstream crashes).
    OrdEmptyStr,
    /// `ord(b"")` (our decision: upstream crashes).
    OrdEmptyBytes,
    // ------------------------------------------------------- AssertionError
    /// `assert c` (no message).
    AssertionFailed,
    /// `assert c, msg`.
    AssertionMessage { message: String },
    // ------------------------------------------------------- RecursionError
    /// The call depth limit.
    RecursionDepth,
    // ---------------------------------------------------------- MemoryError
    /// Past the memory budget of `limit` bytes (`--max-memory`).
    MemoryLimit { limit: u64 },
    // ------------------------------------------------------------- KeyError
    /// `d[k]`, `d.__delitem__(k)` of a key the dict does not hold.
    KeyNotFound,
    // -------------------------------------------------------------- OSError
    /// `open(path, mode)` failed.
    FileOpen,
    /// `f.read()` failed.
    FileReadAll,
    /// `f.readline()` (or a `for` over `f`) failed.
    FileReadLine,
    /// `f.read(n)` failed (ours: upstream ignores the error).
    FileRead,
    /// `f.tell()` failed (or the position does not fit in an `i32`).
    FileTell,
    /// `f.seek(offset, whence)` failed.
    FileSeek,
    /// `f.write(s)` failed.
    FileWrite,
    /// `open` in a run without file access (ours: the fuzzer's runs).
    FileAccessDenied,
}

/// What a raise by code carries besides the code: up to two machine words,
/// and for a variant with a text (a message, a literal) that text. The JIT
/// passes a text as one word (the SPy `str` it already is) and decodes it
/// before calling [`RuntimeError::from_code`]; a text variant uses at most
/// one other word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Operands<'a> {
    pub words: [u64; 2],
    pub text: &'a str,
}

impl RuntimeError {
    /// Every variant with sample operands (tests, docs).
    #[cfg(test)]
    pub(crate) fn samples() -> Vec<RuntimeError> {
        use RuntimeError::*;
        vec![
            IntDivByZero,
            IntFloorDivByZero,
            IntModByZero,
            IntZeroToNegativePower,
            FloatDivByZero,
            FloatFloorDivByZero,
            FloatModByZero,
            FloatZeroToNegativePower,
            IntNegativeExponent,
            NegativeShiftCount,
            MathDomain,
            SliceStepZero,
            EmptySeparator,
            RangeStepZero,
            NotInList,
            IntStrDigitsLimit { digits: 4301 },
            InvalidIntLiteral {
                literal: "1x'\n".into(),
            },
            UnsupportedEncoding,
            InvalidUtf8 { position: 3 },
            FloatPowOverflow,
            RepeatedStrTooLong,
            StrTooLong { limit: 1 << 20 },
            IntOutOfRange {
                ty: PrimTy::I8,
                digits: "-129".into(),
            },
            LenTooLarge { len: 1 << 31 },
            StrIndex,
            ListIndex,
            PopEmptyList,
            TupleIndex,
            SimdIndex,
            BytesIndex,
            NullPointer,
            PtrGetitemOutOfBounds,
            PtrStoreOutOfBounds,
            PtrSimdLoadOutOfBounds,
            PtrSimdStoreOutOfBounds,
            NegativeAlloc,
            OrdEmptyStr,
            OrdEmptyBytes,
            AssertionFailed,
            AssertionMessage {
                message: "x must be positive".into(),
            },
            RecursionDepth,
            MemoryLimit { limit: 1 << 30 },
            KeyNotFound,
            FileClosed,
            FileNotUtf8,
            FileMode,
            UncheckedIntDivByZero,
            UncheckedIntFloorDivByZero,
            UncheckedIntModByZero,
            UncheckedFloatDivByZero,
            UncheckedFloatFloorDivByZero,
            UncheckedFloatModByZero,
            RawBufferOutOfBounds,
            FileOpen,
            FileReadAll,
            FileReadLine,
            FileRead,
            FileTell,
            FileSeek,
            FileWrite,
            FileAccessDenied,
        ]
    }

    /// The stable code (spec §7.4). Grouped by kind in blocks of 100:
    /// 1xx ZeroDivisionError, 2xx ValueError, 3xx OverflowError,
    /// 4xx IndexError, 5xx PanicError, 6xx TypeError, 7xx AssertionError,
    /// 8xx RecursionError, 9xx MemoryError, 10xx KeyError, 11xx OSError. Never renumber;
    /// append.
    pub fn code(&self) -> u32 {
        use RuntimeError::*;
        match self {
            IntDivByZero => 101,
            IntFloorDivByZero => 102,
            IntModByZero => 103,
            IntZeroToNegativePower => 104,
            FloatDivByZero => 111,
            FloatFloorDivByZero => 112,
            FloatModByZero => 113,
            FloatZeroToNegativePower => 114,
            IntNegativeExponent => 201,
            NegativeShiftCount => 202,
            MathDomain => 203,
            SliceStepZero => 204,
            EmptySeparator => 205,
            RangeStepZero => 206,
            NotInList => 207,
            IntStrDigitsLimit { .. } => 208,
            InvalidIntLiteral { .. } => 209,
            FloatPowOverflow => 301,
            RepeatedStrTooLong => 302,
            StrTooLong { .. } => 303,
            IntOutOfRange { .. } => 304,
            StrIndex => 401,
            ListIndex => 402,
            PopEmptyList => 403,
            TupleIndex => 404,
            SimdIndex => 405,
            NullPointer => 501,
            PtrGetitemOutOfBounds => 502,
            PtrStoreOutOfBounds => 503,
            PtrSimdLoadOutOfBounds => 504,
            PtrSimdStoreOutOfBounds => 505,
            NegativeAlloc => 506,
            OrdEmptyStr => 601,
            OrdEmptyBytes => 602,
            AssertionFailed => 701,
            AssertionMessage { .. } => 702,
            RecursionDepth => 801,
            LenTooLarge { .. } => 305,
            MemoryLimit { .. } => 901,
            KeyNotFound => 1001,
            FileClosed => 210,
            FileNotUtf8 => 211,
            UnsupportedEncoding => 212,
            InvalidUtf8 { .. } => 213,
            BytesIndex => 406,
            FileMode => 507,
            UncheckedIntDivByZero => 508,
            UncheckedIntFloorDivByZero => 509,
            UncheckedIntModByZero => 510,
            UncheckedFloatDivByZero => 511,
            UncheckedFloatFloorDivByZero => 512,
            UncheckedFloatModByZero => 513,
            RawBufferOutOfBounds => 514,
            FileOpen => 1101,
            FileReadAll => 1102,
            FileReadLine => 1103,
            FileRead => 1104,
            FileTell => 1105,
            FileSeek => 1106,
            FileWrite => 1107,
            FileAccessDenied => 1108,
        }
    }

    /// What [`RuntimeError::from_code`] needs besides the code.
    pub fn operands(&self) -> Operands<'_> {
        use RuntimeError::*;
        let none = Operands::default();
        match self {
            IntStrDigitsLimit { digits } => Operands {
                words: [*digits, 0],
                text: "",
            },
            StrTooLong { limit } | MemoryLimit { limit } => Operands {
                words: [*limit, 0],
                text: "",
            },
            LenTooLarge { len } => Operands {
                words: [*len, 0],
                text: "",
            },
            InvalidIntLiteral { literal } => Operands {
                words: [0, 0],
                text: literal,
            },
            InvalidUtf8 { position } => Operands {
                words: [*position, 0],
                text: "",
            },
            IntOutOfRange { ty, digits } => Operands {
                words: [ty.code(), 0],
                text: digits,
            },
            AssertionMessage { message } => Operands {
                words: [0, 0],
                text: message,
            },
            _ => none,
        }
    }

    /// The code and operands, owned (what a [`SpyError`] carries).
    pub fn runtime_code(&self) -> RuntimeCode {
        let ops = self.operands();
        RuntimeCode {
            code: self.code(),
            words: ops.words,
            text: ops.text.to_string(),
        }
    }

    /// Inverse of [`RuntimeError::runtime_code`].
    pub fn from_runtime_code(c: &RuntimeCode) -> Option<RuntimeError> {
        RuntimeError::from_code(
            c.code,
            Operands {
                words: c.words,
                text: &c.text,
            },
        )
    }

    /// The error with this code and operands; `None` for an unknown code or
    /// operands no variant produces (a bug of the caller).
    pub fn from_code(code: u32, ops: Operands<'_>) -> Option<RuntimeError> {
        use RuntimeError::*;
        Some(match code {
            101 => IntDivByZero,
            102 => IntFloorDivByZero,
            103 => IntModByZero,
            104 => IntZeroToNegativePower,
            111 => FloatDivByZero,
            112 => FloatFloorDivByZero,
            113 => FloatModByZero,
            114 => FloatZeroToNegativePower,
            201 => IntNegativeExponent,
            202 => NegativeShiftCount,
            203 => MathDomain,
            204 => SliceStepZero,
            205 => EmptySeparator,
            206 => RangeStepZero,
            207 => NotInList,
            208 => IntStrDigitsLimit { digits: ops.words[0] },
            209 => InvalidIntLiteral {
                literal: ops.text.to_string(),
            },
            301 => FloatPowOverflow,
            302 => RepeatedStrTooLong,
            303 => StrTooLong { limit: ops.words[0] },
            304 => IntOutOfRange {
                ty: PrimTy::from_code(ops.words[0]).filter(|t| t.is_int())?,
                digits: ops.text.to_string(),
            },
            401 => StrIndex,
            402 => ListIndex,
            403 => PopEmptyList,
            404 => TupleIndex,
            405 => SimdIndex,
            406 => BytesIndex,
            212 => UnsupportedEncoding,
            213 => InvalidUtf8 {
                position: ops.words[0],
            },
            501 => NullPointer,
            502 => PtrGetitemOutOfBounds,
            503 => PtrStoreOutOfBounds,
            504 => PtrSimdLoadOutOfBounds,
            505 => PtrSimdStoreOutOfBounds,
            506 => NegativeAlloc,
            601 => OrdEmptyStr,
            602 => OrdEmptyBytes,
            701 => AssertionFailed,
            702 => AssertionMessage {
                message: ops.text.to_string(),
            },
            801 => RecursionDepth,
            305 => LenTooLarge { len: ops.words[0] },
            901 => MemoryLimit { limit: ops.words[0] },
            1001 => KeyNotFound,
            210 => FileClosed,
            211 => FileNotUtf8,
            507 => FileMode,
            508 => UncheckedIntDivByZero,
            509 => UncheckedIntFloorDivByZero,
            510 => UncheckedIntModByZero,
            511 => UncheckedFloatDivByZero,
            512 => UncheckedFloatFloorDivByZero,
            513 => UncheckedFloatModByZero,
            514 => RawBufferOutOfBounds,
            1101 => FileOpen,
            1102 => FileReadAll,
            1103 => FileReadLine,
            1104 => FileRead,
            1105 => FileTell,
            1106 => FileSeek,
            1107 => FileWrite,
            1108 => FileAccessDenied,
            _ => return None,
        })
    }

    /// Whether the variant with this code carries a text operand
    /// ([`Operands::text`]).
    pub fn has_text(code: u32) -> bool {
        matches!(code, 209 | 304 | 702)
    }

    /// The SPy exception class raised.
    pub fn kind(&self) -> ExcKind {
        match self.code() / 100 {
            1 => ExcKind::ZeroDivisionError,
            2 => ExcKind::ValueError,
            3 => ExcKind::OverflowError,
            4 => ExcKind::IndexError,
            5 => ExcKind::PanicError,
            6 => ExcKind::TypeError,
            7 => ExcKind::AssertionError,
            8 => ExcKind::RecursionError,
            10 => ExcKind::KeyError,
            11 => ExcKind::OSError,
            _ => ExcKind::MemoryError,
        }
    }

    /// `Kind: message`, the line every engine must agree on.
    pub fn headline(&self) -> String {
        SpyError::from(self.clone()).headline()
    }
}

impl fmt::Display for RuntimeError {
    /// The exception's message, exactly as upstream words it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RuntimeError::*;
        let text = match self {
            IntDivByZero | UncheckedIntDivByZero => "division by zero",
            IntFloorDivByZero | UncheckedIntFloorDivByZero => "integer division or modulo by zero",
            IntModByZero | UncheckedIntModByZero => "integer modulo by zero",
            IntZeroToNegativePower => "0 cannot be raised to a negative power",
            FloatDivByZero | UncheckedFloatDivByZero => "float division by zero",
            FloatFloorDivByZero | UncheckedFloatFloorDivByZero => "float floor division by zero",
            FloatModByZero | UncheckedFloatModByZero => "float modulo by zero",
            FloatZeroToNegativePower => "0.0 cannot be raised to a negative power",
            IntNegativeExponent => "integer ** negative exponent",
            NegativeShiftCount => "negative shift count",
            MathDomain => "math domain error",
            SliceStepZero => "slice step cannot be zero",
            EmptySeparator => "empty separator",
            RangeStepZero => "range() arg 3 must not be zero",
            NotInList => "value is not in list",
            FileClosed => "I/O operation on closed file",
            FileNotUtf8 => "file content is not valid utf-8",
            FileMode => "invalid mode for _fopen",
            RawBufferOutOfBounds => "rawbuffer access out of bounds",
            FileOpen => "cannot open file",
            FileReadAll => "freadall: read error",
            FileReadLine => "freadline: read error",
            FileRead => "fread: read error",
            FileTell => "ftell failed",
            FileSeek => "fseek failed",
            FileWrite => "fwrite: write error",
            FileAccessDenied => "file access is disabled in this run",
            IntStrDigitsLimit { digits } => {
                return write!(
                    f,
                    "Exceeds the limit ({MAX_STR_DIGITS} digits) for integer string conversion: \
                     value has {digits} digits; use sys.set_int_max_str_digits() to increase the limit"
                )
            }
            InvalidIntLiteral { literal } => {
                return write!(
                    f,
                    "invalid literal for int() with base 10: {}",
                    python_repr_str(literal)
                )
            }
            FloatPowOverflow => "(34, 'Numerical result out of range')",
            RepeatedStrTooLong => "repeated string is too long",
            StrTooLong { limit } => return write!(f, "string too long (the limit is {limit} bytes)"),
            LenTooLarge { len } => return write!(f, "length {len} does not fit in i32"),
            MemoryLimit { limit } => {
                return write!(f, "out of memory (the limit is {limit} bytes, see --max-memory)")
            }
            IntOutOfRange { ty, digits } => {
                let (lo, hi) = ty.int_bounds().unwrap_or((0, 0));
                return write!(f, "{ty} value {digits} out of range [{lo}, {hi}]");
            }
            StrIndex => "string index out of bound",
            BytesIndex => "bytes index out of range",
            UnsupportedEncoding => "only 'utf-8' encoding is supported",
            InvalidUtf8 { position } => return write!(f, "invalid utf-8 at byte {position}"),
            ListIndex => "list index out of range",
            PopEmptyList => "pop from empty list",
            TupleIndex => "tuple index out of range",
            SimdIndex => "SIMD index out of range",
            NullPointer => "cannot dereference NULL pointer",
            PtrGetitemOutOfBounds => "ptr_getitem out of bounds",
            PtrStoreOutOfBounds => "ptr_store out of bounds",
            PtrSimdLoadOutOfBounds => "ptr_simd_load out of bounds",
            PtrSimdStoreOutOfBounds => "ptr_simd_store out of bounds",
            NegativeAlloc => "cannot allocate a negative number of items",
            OrdEmptyStr => "ord() expected a character, but string of length 0 found",
            OrdEmptyBytes => "ord() expected a byte, but bytes of length 0 found",
            AssertionFailed => "assertion failed",
            AssertionMessage { message } => message,
            RecursionDepth => "maximum recursion depth exceeded",
            KeyNotFound => "key not found",
        };
        f.write_str(text)
    }
}

impl From<RuntimeError> for SpyError {
    /// The evaluator adds annotations and the traceback afterwards.
    fn from(e: RuntimeError) -> SpyError {
        let mut s = SpyError::new(e.kind(), e.to_string());
        s.runtime = Some(Box::new(e.runtime_code()));
        s
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn has_text_is_exactly_the_variants_with_a_text() {
        for e in super::RuntimeError::samples() {
            assert_eq!(
                super::RuntimeError::has_text(e.code()),
                !e.operands().text.is_empty(),
                "{e:?}"
            );
        }
    }

    use super::*;

    /// The stable codes. Changing a line of this list breaks the JIT's
    /// compiled raises and spec §7.4: append instead.
    const GOLDEN: &[(u32, &str)] = &[
        (101, "ZeroDivisionError: division by zero"),
        (102, "ZeroDivisionError: integer division or modulo by zero"),
        (103, "ZeroDivisionError: integer modulo by zero"),
        (104, "ZeroDivisionError: 0 cannot be raised to a negative power"),
        (111, "ZeroDivisionError: float division by zero"),
        (112, "ZeroDivisionError: float floor division by zero"),
        (113, "ZeroDivisionError: float modulo by zero"),
        (114, "ZeroDivisionError: 0.0 cannot be raised to a negative power"),
        (201, "ValueError: integer ** negative exponent"),
        (202, "ValueError: negative shift count"),
        (203, "ValueError: math domain error"),
        (204, "ValueError: slice step cannot be zero"),
        (205, "ValueError: empty separator"),
        (206, "ValueError: range() arg 3 must not be zero"),
        (207, "ValueError: value is not in list"),
        (
            208,
            "ValueError: Exceeds the limit (4300 digits) for integer string conversion: \
             value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit",
        ),
        (
            209,
            "ValueError: invalid literal for int() with base 10: \"1x'\\n\"",
        ),
        (212, "ValueError: only 'utf-8' encoding is supported"),
        (213, "ValueError: invalid utf-8 at byte 3"),
        (301, "OverflowError: (34, 'Numerical result out of range')"),
        (302, "OverflowError: repeated string is too long"),
        (303, "OverflowError: string too long (the limit is 1048576 bytes)"),
        (304, "OverflowError: i8 value -129 out of range [-128, 127]"),
        (305, "OverflowError: length 2147483648 does not fit in i32"),
        (401, "IndexError: string index out of bound"),
        (402, "IndexError: list index out of range"),
        (403, "IndexError: pop from empty list"),
        (404, "IndexError: tuple index out of range"),
        (405, "IndexError: SIMD index out of range"),
        (406, "IndexError: bytes index out of range"),
        (501, "PanicError: cannot dereference NULL pointer"),
        (502, "PanicError: ptr_getitem out of bounds"),
        (503, "PanicError: ptr_store out of bounds"),
        (504, "PanicError: ptr_simd_load out of bounds"),
        (505, "PanicError: ptr_simd_store out of bounds"),
        (506, "PanicError: cannot allocate a negative number of items"),
        (
            601,
            "TypeError: ord() expected a character, but string of length 0 found",
        ),
        (
            602,
            "TypeError: ord() expected a byte, but bytes of length 0 found",
        ),
        (701, "AssertionError: assertion failed"),
        (702, "AssertionError: x must be positive"),
        (801, "RecursionError: maximum recursion depth exceeded"),
        (
            901,
            "MemoryError: out of memory (the limit is 1073741824 bytes, see --max-memory)",
        ),
        (1001, "KeyError: key not found"),
        (210, "ValueError: I/O operation on closed file"),
        (211, "ValueError: file content is not valid utf-8"),
        (507, "PanicError: invalid mode for _fopen"),
        (508, "PanicError: division by zero"),
        (509, "PanicError: integer division or modulo by zero"),
        (510, "PanicError: integer modulo by zero"),
        (511, "PanicError: float division by zero"),
        (512, "PanicError: float floor division by zero"),
        (513, "PanicError: float modulo by zero"),
        (514, "PanicError: rawbuffer access out of bounds"),
        (1101, "OSError: cannot open file"),
        (1102, "OSError: freadall: read error"),
        (1103, "OSError: freadline: read error"),
        (1104, "OSError: fread: read error"),
        (1105, "OSError: ftell failed"),
        (1106, "OSError: fseek failed"),
        (1107, "OSError: fwrite: write error"),
        (1108, "OSError: file access is disabled in this run"),
    ];

    #[test]
    fn codes_are_the_golden_list() {
        let got: Vec<(u32, String)> = RuntimeError::samples()
            .iter()
            .map(|e| (e.code(), e.headline()))
            .collect();
        let want: Vec<(u32, String)> = GOLDEN.iter().map(|(c, h)| (*c, h.to_string())).collect();
        assert_eq!(got, want);
    }

    /// Spec §7.5 lists every code with its kind, and nothing else.
    #[test]
    fn spec_table_lists_every_code() {
        let spec = include_str!("../../../spec/07-errors.md");
        let section = spec
            .split("## 7.5 Run-time error codes")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("spec §7.5");
        let rows: Vec<(u32, String)> = section
            .lines()
            .filter_map(|l| {
                let mut cells = l.split('|').map(str::trim).skip(1);
                let code = cells.next()?.parse().ok()?;
                Some((code, cells.next()?.to_string()))
            })
            .collect();
        let want: Vec<(u32, String)> = RuntimeError::samples()
            .iter()
            .map(|e| (e.code(), e.kind().name().to_string()))
            .collect();
        assert_eq!(rows, want);
    }

    #[test]
    fn codes_are_unique() {
        let mut codes: Vec<u32> = RuntimeError::samples().iter().map(RuntimeError::code).collect();
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }

    #[test]
    fn every_variant_round_trips_through_code_and_operands() {
        for e in RuntimeError::samples() {
            assert_eq!(
                RuntimeError::from_code(e.code(), e.operands()),
                Some(e.clone()),
                "{e:?}"
            );
        }
        // every code the table decodes is a sample's (no variant is missing
        // from `samples`)
        let known: Vec<u32> = RuntimeError::samples().iter().map(RuntimeError::code).collect();
        for code in 0..2000 {
            let ops = Operands {
                words: [PrimTy::I32.code(), 0],
                text: "",
            };
            if RuntimeError::from_code(code, ops).is_some() {
                assert!(known.contains(&code), "code {code} has no sample");
            }
        }
    }

    #[test]
    fn bad_operands_are_refused() {
        let ops = Operands {
            words: [PrimTy::F64.code(), 0],
            text: "1e400",
        };
        assert_eq!(RuntimeError::from_code(304, ops), None);
        assert_eq!(RuntimeError::from_code(0, Operands::default()), None);
    }

    #[test]
    fn kinds_follow_the_code_blocks() {
        for e in RuntimeError::samples() {
            let s: SpyError = e.clone().into();
            assert_eq!(s.kind, e.kind());
            assert_eq!(s.message, e.to_string());
            let code = s.runtime.as_deref().expect("a runtime code");
            assert_eq!(RuntimeError::from_runtime_code(code), Some(e.clone()));
        }
    }
}
