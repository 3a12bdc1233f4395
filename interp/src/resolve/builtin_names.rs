//! The names of the `builtins` scope, in slot order: all the resolver needs
//! to know about builtins (a name is a builtin, and which slot it has). Their
//! values live in `vm::builtins`, whose table is checked against this list.

/// Every builtin name; `NameRef::Builtin(i)` points at `BUILTIN_NAMES[i]`.
pub const BUILTIN_NAMES: &[&str] = &[
    // types
    "i8",
    "u8",
    "i32",
    "int",
    "u32",
    "i64",
    "u64",
    "f32",
    "f64",
    "float",
    "bool",
    "str",
    "bytes",
    "object",
    "dynamic",
    "type",
    "NoneType",
    // functions
    "print",
    "len",
    "abs",
    "min",
    "max",
    "range",
    "repr",
    "ord",
    "tuple",
    "list",
    "dict",
    "getattr",
    "setattr",
    "hasattr",
    // upstream's builtins module has it too (`vm/modules/builtins.py`)
    "STATIC_TYPE",
    // a value (upstream `spy/vm/primitive.py`: `B.add("NotImplemented", ...)`)
    "NotImplemented",
    // exception classes
    "Exception",
    "StaticError",
    "TypeError",
    "ValueError",
    "OverflowError",
    "IndexError",
    "KeyError",
    "ZeroDivisionError",
    "AssertionError",
    "NameError",
    "ScopeError",
    "ParseError",
    "ImportError",
    "PanicError",
    "RecursionError",
    "NotImplementedError",
    "WIP",
    "OSError",
    "open",
];

/// The slot of the builtin called `name`.
pub fn lookup(name: &str) -> Option<u32> {
    BUILTIN_NAMES.iter().position(|n| *n == name).map(|i| i as u32)
}
