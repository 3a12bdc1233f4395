//! SPy types as interned ids. Every value carries a static type (`TypeId`);
//! types themselves are first-class blue values (`Value::Type`).
//!
//! Builtin types have fixed ids (the constants below). Structural types
//! (static tuples) are interned so that `tuple[i32, f64]` is one type however
//! it was spelled; nominal types (structs) get a fresh id per definition.

use foldhash::HashMap;

use crate::vm::ops::PrimTy;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

impl TypeId {
    pub const I8: TypeId = TypeId(0);
    pub const U8: TypeId = TypeId(1);
    pub const I32: TypeId = TypeId(2);
    pub const U32: TypeId = TypeId(3);
    pub const I64: TypeId = TypeId(4);
    pub const U64: TypeId = TypeId(5);
    pub const F32: TypeId = TypeId(6);
    pub const F64: TypeId = TypeId(7);
    pub const BOOL: TypeId = TypeId(8);
    pub const STR: TypeId = TypeId(9);
    pub const NONE: TypeId = TypeId(10);
    pub const TYPE: TypeId = TypeId(11);
    pub const OBJECT: TypeId = TypeId(12);
    pub const DYNAMIC: TypeId = TypeId(13);
    pub const RANGE: TypeId = TypeId(14);
    pub const MODULE: TypeId = TypeId(15);
    /// Builtin functions (`print`, `len`...) and bound methods.
    pub const BUILTIN_FUNC: TypeId = TypeId(16);
    /// Instances of exception classes (`ValueError("x")`).
    pub const EXCEPTION: TypeId = TypeId(17);
    /// Blue tuples of arbitrary items (types, functions, MetaArgs...).
    pub const INTERP_TUPLE: TypeId = TypeId(18);
    pub const METAARG: TypeId = TypeId(19);
    pub const OPSPEC: TypeId = TypeId(20);
    /// The type of `[]`: converts to any `list[T]`.
    pub const EMPTY_LIST: TypeId = TypeId(21);
    /// The type of `{}`: converts to any `dict[K, V]` or `interp_dict[K, V]`
    /// (upstream `__spy__::EmptyDictType`).
    pub const EMPTY_DICT: TypeId = TypeId(22);
    /// An open (or closed) file, from `open(path, mode)` (spec §8.5).
    pub const FILE: TypeId = TypeId(23);
    /// Ids from here on are made while a program runs (tuples, structs,
    /// function types, pointers, SIMD vectors).
    /// `bytes`: an immutable byte string (a value type, like `str`).
    pub const BYTES: TypeId = TypeId(24);
    /// The type of the `NotImplemented` singleton (upstream
    /// `types::NotImplementedType`, `spy/vm/primitive.py`).
    pub const NOT_IMPLEMENTED: TypeId = TypeId(25);
    /// `rawbuffer::RawBuffer`: bytes holding scalars at byte offsets
    /// (spec §15.6).
    pub const RAW_BUFFER: TypeId = TypeId(26);
    pub const FIRST_DYNAMIC_ID: u32 = 27;

    pub fn prim(p: PrimTy) -> TypeId {
        match p {
            PrimTy::I8 => TypeId::I8,
            PrimTy::U8 => TypeId::U8,
            PrimTy::I32 => TypeId::I32,
            PrimTy::U32 => TypeId::U32,
            PrimTy::I64 => TypeId::I64,
            PrimTy::U64 => TypeId::U64,
            PrimTy::F32 => TypeId::F32,
            PrimTy::F64 => TypeId::F64,
            PrimTy::Bool => TypeId::BOOL,
        }
    }

    pub fn as_prim(self) -> Option<PrimTy> {
        Some(match self {
            TypeId::I8 => PrimTy::I8,
            TypeId::U8 => PrimTy::U8,
            TypeId::I32 => PrimTy::I32,
            TypeId::U32 => PrimTy::U32,
            TypeId::I64 => PrimTy::I64,
            TypeId::U64 => PrimTy::U64,
            TypeId::F32 => PrimTy::F32,
            TypeId::F64 => PrimTy::F64,
            TypeId::BOOL => PrimTy::Bool,
            _ => return None,
        })
    }
}

/// A field of a struct type.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: TypeId,
}

/// What a type is.
#[derive(Clone, Debug)]
pub enum TypeKind {
    Prim(PrimTy),
    Str,
    Bytes,
    NoneType,
    Type,
    Object,
    Dynamic,
    Range,
    Module,
    BuiltinFunc,
    Exception,
    InterpTuple,
    MetaArg,
    OpSpec,
    /// `gc_ptr[T]` (`gc: true`, also spelled `ptr[T]`) or `raw_ptr[T]`.
    Ptr {
        item: TypeId,
        gc: bool,
    },
    /// `gc_ref[T]` / `raw_ref[T]`: a reference to a struct in pointer
    /// memory (an item of a pointer, or a struct field of one), what
    /// `p[i]` and `p.f` give for struct-typed items and fields (spec
    /// §15.1, "References").
    Ref {
        item: TypeId,
        gc: bool,
    },
    /// `SIMD[T, N]`.
    Simd {
        lane: PrimTy,
        lanes: u32,
    },
    /// `list[T]`: a mutable sequence with reference semantics.
    List(TypeId),
    /// `list[T]::list_iterator`: what `l.__fastiter__()` returns, a
    /// position in a list (upstream's `stdlib/_list.spy` struct).
    ListIter(TypeId),
    /// The type of `[]` before it meets an expected `list[T]`.
    EmptyList,
    /// `dict[K, V]` (`interp: false`) or `__spy__::interp_dict[K, V]`: a
    /// mutable map with reference semantics.
    Dict {
        key: TypeId,
        value: TypeId,
        interp: bool,
    },
    /// The type of `{}` before it meets an expected dict type.
    EmptyDict,
    /// `_file::file` (`open(path, mode)`).
    File,
    /// `types::NotImplementedType`, whose one value is `NotImplemented`.
    NotImplemented,
    /// `rawbuffer::RawBuffer` (a reference type: copies share the bytes).
    RawBuffer,
    /// A static tuple `tuple[T0, ...]`: a red, by-value product.
    Tuple(Vec<TypeId>),
    /// A `@struct` class. `fields` is filled when the class body runs
    /// (the type exists earlier, for forward references).
    Struct {
        fields: Vec<Field>,
        complete: bool,
    },
    /// A user function type `def(i32, f64) -> str` (red) or
    /// `@blue def(...) -> ...`.
    Func {
        params: Vec<TypeId>,
        ret: TypeId,
        blue: bool,
    },
}

#[derive(Clone, Debug)]
pub struct TypeInfo {
    /// Fully qualified name, as printed in messages (`i32`, `test::Point`,
    /// `tuple[i32, f64]`, `types::NoneType`).
    pub fqn: String,
    pub kind: TypeKind,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum TypeKey {
    Tuple(Vec<TypeId>),
    List(TypeId),
    InterpList(TypeId),
    ListIter(TypeId),
    Dict(TypeId, TypeId, bool),
    Ptr(TypeId, bool),
    Ref(TypeId, bool),
    Simd(PrimTy, u32),
    Func(Vec<TypeId>, TypeId, &'static str),
}

/// A field of the struct a pointer or reference points to (see
/// [`TypeTable::mem_field`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemField {
    /// Its position among the struct's fields.
    pub index: usize,
    /// Its declared type.
    pub field: TypeId,
    /// The type a read of it has: `field`, or a reference to it.
    pub ty: TypeId,
    pub by_ref: bool,
}

/// The type table of one VM.
#[derive(Debug)]
pub struct TypeTable {
    types: Vec<TypeInfo>,
    interned: HashMap<TypeKey, TypeId>,
    /// The `list` types that are `__spy__::interp_list[T]`.
    interp_lists: foldhash::HashSet<TypeId>,
}

impl Default for TypeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl TypeTable {
    pub fn new() -> TypeTable {
        let mut t = TypeTable {
            types: Vec::new(),
            // (a fuzzed program's interpreters intern a few dozen function,
            // tuple and pointer types each: no rehashing while they do)
            interned: HashMap::with_capacity_and_hasher(64, Default::default()),
            interp_lists: Default::default(),
        };
        let builtins: [(&str, TypeKind); 27] = [
            ("i8", TypeKind::Prim(PrimTy::I8)),
            ("u8", TypeKind::Prim(PrimTy::U8)),
            ("i32", TypeKind::Prim(PrimTy::I32)),
            ("u32", TypeKind::Prim(PrimTy::U32)),
            ("i64", TypeKind::Prim(PrimTy::I64)),
            ("u64", TypeKind::Prim(PrimTy::U64)),
            ("f32", TypeKind::Prim(PrimTy::F32)),
            ("f64", TypeKind::Prim(PrimTy::F64)),
            ("bool", TypeKind::Prim(PrimTy::Bool)),
            ("str", TypeKind::Str),
            ("types::NoneType", TypeKind::NoneType),
            ("type", TypeKind::Type),
            ("object", TypeKind::Object),
            ("dynamic", TypeKind::Dynamic),
            ("range", TypeKind::Range),
            ("types::module", TypeKind::Module),
            ("builtin_function", TypeKind::BuiltinFunc),
            ("Exception", TypeKind::Exception),
            ("__spy__::interp_tuple", TypeKind::InterpTuple),
            ("operator::MetaArg", TypeKind::MetaArg),
            ("operator::OpSpec", TypeKind::OpSpec),
            ("list[<empty>]", TypeKind::EmptyList),
            ("__spy__::EmptyDictType", TypeKind::EmptyDict),
            ("_file::file", TypeKind::File),
            ("bytes", TypeKind::Bytes),
            ("types::NotImplementedType", TypeKind::NotImplemented),
            ("rawbuffer::RawBuffer", TypeKind::RawBuffer),
        ];
        for (name, kind) in builtins {
            t.types.push(TypeInfo {
                fqn: name.to_string(),
                kind,
            });
        }
        debug_assert_eq!(t.types.len() as u32, TypeId::FIRST_DYNAMIC_ID);
        t
    }

    pub fn info(&self, id: TypeId) -> &TypeInfo {
        &self.types[id.0 as usize]
    }

    pub fn kind(&self, id: TypeId) -> &TypeKind {
        &self.info(id).kind
    }

    /// The name used in error messages: `i32`, `test::Point`.
    pub fn name(&self, id: TypeId) -> &str {
        &self.info(id).fqn
    }

    pub fn tuple(&mut self, items: Vec<TypeId>) -> TypeId {
        let key = TypeKey::Tuple(items.clone());
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let fqn = format!(
            "tuple[{}]",
            items
                .iter()
                .map(|&t| self.name(t).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let id = self.push(fqn, TypeKind::Tuple(items));
        self.interned.insert(key, id);
        id
    }

    pub fn list(&mut self, item: TypeId) -> TypeId {
        let key = TypeKey::List(item);
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let fqn = format!("list[{}]", self.name(item));
        let id = self.push(fqn, TypeKind::List(item));
        self.interned.insert(key, id);
        id
    }

    /// `__spy__::interp_list[item]`: upstream's blue-friendly list. Here it
    /// is a list type like `list[item]` (every list operation applies) with
    /// its own name and the constructor `interp_list[T](a, b, ...)`.
    pub fn interp_list(&mut self, item: TypeId) -> TypeId {
        let key = TypeKey::InterpList(item);
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let fqn = format!("__spy__::interp_list[{}]", self.name(item));
        let id = self.push(fqn, TypeKind::List(item));
        self.interned.insert(key, id);
        self.interp_lists.insert(id);
        id
    }

    /// `list[item]::list_iterator`, the iterator of the list type `list`.
    pub fn list_iter(&mut self, list: TypeId) -> TypeId {
        let key = TypeKey::ListIter(list);
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let fqn = format!("{}::list_iterator", self.name(list));
        let id = self.push(fqn, TypeKind::ListIter(list));
        self.interned.insert(key, id);
        id
    }

    /// The list type a `list_iterator` type walks.
    pub fn list_iter_list(&self, id: TypeId) -> Option<TypeId> {
        match self.kind(id) {
            TypeKind::ListIter(list) => Some(*list),
            _ => None,
        }
    }

    pub fn is_interp_list(&self, id: TypeId) -> bool {
        self.interp_lists.contains(&id)
    }

    pub fn list_item(&self, id: TypeId) -> Option<TypeId> {
        match self.kind(id) {
            TypeKind::List(item) => Some(*item),
            _ => None,
        }
    }

    /// The item type of `id`, which the caller knows is the type of a list
    /// value: another type is a bug. The untyped empty list `[]` has no
    /// items, so its item type is `dynamic` (never used to convert one).
    pub fn checked_list_item(&self, id: TypeId) -> Result<TypeId, crate::error::Failure> {
        match self.kind(id) {
            TypeKind::List(item) => Ok(*item),
            TypeKind::EmptyList => Ok(TypeId::DYNAMIC),
            _ => Err(crate::bug!("`{}` is not a list type", self.name(id))),
        }
    }

    /// `dict[key, value]` (`interp: false`) or `interp_dict[key, value]`.
    pub fn dict(&mut self, key: TypeId, value: TypeId, interp: bool) -> TypeId {
        let tk = TypeKey::Dict(key, value, interp);
        if let Some(&id) = self.interned.get(&tk) {
            return id;
        }
        let prefix = if interp { "__spy__::interp_dict" } else { "dict" };
        let fqn = format!("{prefix}[{}, {}]", self.name(key), self.name(value));
        let id = self.push(fqn, TypeKind::Dict { key, value, interp });
        self.interned.insert(tk, id);
        id
    }

    /// The key and value types of a dict type.
    pub fn dict_types(&self, id: TypeId) -> Option<(TypeId, TypeId)> {
        match self.kind(id) {
            TypeKind::Dict { key, value, .. } => Some((*key, *value)),
            _ => None,
        }
    }

    /// The key and value types of `id`, which the caller knows is the type
    /// of a dict value: another type is a bug.
    pub fn checked_dict_types(&self, id: TypeId) -> Result<(TypeId, TypeId), crate::error::Failure> {
        self.dict_types(id)
            .ok_or_else(|| crate::bug!("`{}` is not a dict type", self.name(id)))
    }

    /// Whether values of `key` can be dict keys: the types whose equality
    /// is their value and that hash (integers, `bool`, `str`, types, and
    /// static tuples of those). Decision: floats are refused (upstream
    /// hashes them but `-0.0 == 0.0` and NaN make lookups by bits wrong),
    /// and so are structs (upstream needs a `__hash__`, which is not
    /// supported here).
    pub fn dict_key_ok(&self, key: TypeId) -> bool {
        match self.kind(key) {
            TypeKind::Prim(p) => !matches!(p, PrimTy::F32 | PrimTy::F64),
            TypeKind::Str | TypeKind::Bytes | TypeKind::Type | TypeKind::NoneType => true,
            TypeKind::Tuple(items) => items.iter().all(|&t| self.dict_key_ok(t)),
            _ => false,
        }
    }

    pub fn ptr(&mut self, item: TypeId, gc: bool) -> TypeId {
        let key = TypeKey::Ptr(item, gc);
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let fqn = format!("{}[{}]", if gc { "gc_ptr" } else { "raw_ptr" }, self.name(item));
        let id = self.push(fqn, TypeKind::Ptr { item, gc });
        self.interned.insert(key, id);
        // its items' reference type exists with it (as upstream makes
        // `gc_ptr[T]` with every `gc_ref[T]`), so the value-free typing of
        // `p[i]` (`signatures::subscript_signature`) can name it
        self.mem_ref(item, gc);
        id
    }

    /// `gc_ref[item]` (`gc: true`) or `raw_ref[item]`.
    pub fn mem_ref(&mut self, item: TypeId, gc: bool) -> TypeId {
        let key = TypeKey::Ref(item, gc);
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let fqn = format!("{}[{}]", if gc { "gc_ref" } else { "raw_ref" }, self.name(item));
        let id = self.push(fqn, TypeKind::Ref { item, gc });
        self.interned.insert(key, id);
        id
    }

    /// `gc_ref[item]` / `raw_ref[item]` if it was made (every pointer type
    /// makes the reference type of its items).
    pub fn existing_ref(&self, item: TypeId, gc: bool) -> Option<TypeId> {
        self.interned.get(&TypeKey::Ref(item, gc)).copied()
    }

    /// The struct type a reference type refers to.
    pub fn ref_item(&self, id: TypeId) -> Option<TypeId> {
        match self.kind(id) {
            TypeKind::Ref { item, .. } => Some(*item),
            _ => None,
        }
    }

    /// The type whose methods and operators a value of type `id` uses:
    /// a reference's struct type (upstream's `W_RefType.lookup` looks in
    /// `T` after `ref[T]`), else `id` itself.
    pub fn method_owner(&self, id: TypeId) -> TypeId {
        self.ref_item(id).unwrap_or(id)
    }

    /// How a field read through pointer or reference type `mem` is typed:
    /// field `name` of the struct it points to is at `index`; a struct
    /// field is reached by reference (`by_ref`, typed `gc_ref[F]` /
    /// `raw_ref[F]` of the same memory kind), any other field by value
    /// (upstream `ptr.py`, `w_ptr_getfield`). `None`: `mem` is not a
    /// pointer or reference to a struct with that field.
    pub fn mem_field(&mut self, mem: TypeId, name: &str) -> Option<MemField> {
        let (item, gc) = match self.kind(mem) {
            TypeKind::Ptr { item, gc } | TypeKind::Ref { item, gc } => (*item, *gc),
            _ => return None,
        };
        let fields = self.struct_fields(item)?;
        let index = fields.iter().position(|fd| fd.name == name)?;
        let field = fields[index].ty;
        Some(if self.is_struct(field) {
            MemField {
                index,
                field,
                ty: self.mem_ref(field, gc),
                by_ref: true,
            }
        } else {
            MemField {
                index,
                field,
                ty: field,
                by_ref: false,
            }
        })
    }

    /// What `p[i]` of pointer type `ptr` gives: a reference to a struct
    /// item, else the item by value (upstream's `getitem_byref` /
    /// `getitem_byval`).
    pub fn ptr_item_result(&self, ptr: TypeId) -> Option<TypeId> {
        match self.kind(ptr) {
            TypeKind::Ptr { item, gc } if self.is_struct(*item) => self.existing_ref(*item, *gc),
            TypeKind::Ptr { item, .. } => Some(*item),
            _ => None,
        }
    }

    pub fn simd(&mut self, lane: PrimTy, lanes: u32) -> TypeId {
        let key = TypeKey::Simd(lane, lanes);
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        let fqn = format!("SIMD[{}, {lanes}]", lane.name());
        let id = self.push(fqn, TypeKind::Simd { lane, lanes });
        self.interned.insert(key, id);
        id
    }

    /// A function type; `prefix` is `""`, `"@blue "`, `"@blue.generic "` or
    /// `"@blue.metafunc "`.
    pub fn func(&mut self, params: Vec<TypeId>, ret: TypeId, prefix: &'static str) -> TypeId {
        let blue = !prefix.is_empty();
        let key = TypeKey::Func(params.clone(), ret, prefix);
        if let Some(&id) = self.interned.get(&key) {
            return id;
        }
        // `{prefix}def({params, ...}) -> {ret}`, written in one buffer (a
        // program's three interpreters each make their function types).
        let mut fqn = String::with_capacity(64);
        fqn.push_str(prefix);
        fqn.push_str("def(");
        for (i, &t) in params.iter().enumerate() {
            if i > 0 {
                fqn.push_str(", ");
            }
            fqn.push_str(self.name(t));
        }
        fqn.push_str(") -> ");
        fqn.push_str(self.name(ret));
        let id = self.push(fqn, TypeKind::Func { params, ret, blue });
        self.interned.insert(key, id);
        id
    }

    /// A new, still incomplete struct type named `fqn`.
    pub fn new_struct(&mut self, fqn: String) -> TypeId {
        self.push(
            fqn,
            TypeKind::Struct {
                fields: Vec::new(),
                complete: false,
            },
        )
    }

    pub fn complete_struct(&mut self, id: TypeId, new_fields: Vec<Field>) {
        if let TypeKind::Struct { fields, complete } = &mut self.types[id.0 as usize].kind {
            *fields = new_fields;
            *complete = true;
        }
    }

    fn push(&mut self, fqn: String, kind: TypeKind) -> TypeId {
        let id = TypeId(self.types.len() as u32);
        self.types.push(TypeInfo { fqn, kind });
        id
    }

    pub fn tuple_items(&self, id: TypeId) -> Option<&[TypeId]> {
        match self.kind(id) {
            TypeKind::Tuple(items) => Some(items),
            _ => None,
        }
    }

    pub fn struct_fields(&self, id: TypeId) -> Option<&[Field]> {
        match self.kind(id) {
            TypeKind::Struct { fields, .. } => Some(fields),
            _ => None,
        }
    }

    /// The fields of `id`, which the caller knows is a struct type (the
    /// type of a struct value, a `StructMake`): another type is a bug.
    pub fn checked_struct_fields(&self, id: TypeId) -> Result<&[Field], crate::error::Failure> {
        self.struct_fields(id)
            .ok_or_else(|| crate::bug!("`{}` is not a struct type", self.name(id)))
    }

    /// The type of field `name` of struct `id`.
    pub fn field_type(&self, id: TypeId, name: &str) -> Option<TypeId> {
        self.struct_fields(id)?
            .iter()
            .find(|fd| fd.name == name)
            .map(|fd| fd.ty)
    }

    pub fn is_struct(&self, id: TypeId) -> bool {
        matches!(self.kind(id), TypeKind::Struct { .. })
    }

    /// Value types have no identity: `is` between two of them is an error.
    pub fn is_value_type(&self, id: TypeId) -> bool {
        matches!(
            self.kind(id),
            TypeKind::Prim(_)
                | TypeKind::Str
                | TypeKind::Bytes
                | TypeKind::Tuple(_)
                | TypeKind::Struct { .. }
                | TypeKind::Simd { .. }
        )
    }

    /// `<spy type 'i32'>`, `<spy type 'test::P' (struct)>`.
    pub fn repr_type(&self, id: TypeId) -> String {
        match self.kind(id) {
            TypeKind::Struct { .. } => format!("<spy type '{}' (struct)>", self.name(id)),
            _ => format!("<spy type '{}'>", self.name(id)),
        }
    }
}
