//! The SPy virtual machine: values, types, operator semantics, builtin
//! modules. Only the pure operator layer lives here so far.

pub mod ops;
