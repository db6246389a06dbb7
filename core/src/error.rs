//! The one error type of the core.
//!
//! Every fallible operation of `alkaid` returns [`Error`]: a `Copy` value of
//! a `#[non_exhaustive]` [`ErrorKind`], whose variants each carry a static
//! message, and an optional [`Location`] (field path, IPC message, buffer,
//! row or byte offset) — nothing that allocates, so that it can be returned
//! from a firmware without a heap and logged with `defmt` (feature `defmt`).

use core::fmt;

mod input;
mod location;

pub use input::InputKind;
pub use location::Location;

/// Shorthand for `core::result::Result<T, alkaid::Error>`.
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// An error of the core: what went wrong ([`ErrorKind`], with a static
/// message) and, where the code that saw it knows, where ([`Location`]).
///
/// `Error` is `Copy` and never allocates. Its [`Display`](fmt::Display) is
/// the kind's message followed by the location, e.g. `offsets are not
/// monotonically increasing (message 2, field 2, buffer 7, byte offset
/// 40)`: all indices count from 0 (IPC message 0 of a stream is its schema;
/// the field path counts the schema's fields, then each nested child).
///
/// Every kind has a constant without a location (`Error::OutOfBounds`), so
/// `Err(Error::OutOfBounds)` and `assert_eq!(e, Error::OutOfBounds)` read as
/// with an enum. Equality and hashing look at the kind only: the location is
/// diagnostic. To branch on an error, `match e.kind()` against [`ErrorKind`]
/// (the constants cannot be patterns).
///
/// **Feature `error-location`** (default, and implied by `alloc`): without it, an `Error`
/// is its kind alone (one byte), [`Error::location`] is always empty and the
/// `with_*` / [`Error::in_child`] builders do nothing, so that firmware
/// builds with `default-features = false` pay no code or stack for
/// locations. With it, an `Error` is a few dozen bytes, still `Copy`.
#[derive(Clone, Copy)]
pub struct Error {
    kind: ErrorKind,
    /// What the input looks like, when a reader recognised it.
    #[cfg(feature = "error-location")]
    input: Option<InputKind>,
    location: Location,
}

impl Error {
    /// An error of `kind` without a location.
    pub const fn new(kind: ErrorKind) -> Self {
        Error {
            kind,
            #[cfg(feature = "error-location")]
            input: None,
            location: Location::NONE,
        }
    }

    /// What the input looks like, when the reader that refused it at its
    /// start recognised it as something else (a Parquet file, text, an IPC
    /// file given to a stream reader, a truncated IPC file, …); always
    /// `None` without the feature `error-location`.
    pub const fn input(&self) -> Option<InputKind> {
        #[cfg(feature = "error-location")]
        {
            self.input
        }
        #[cfg(not(feature = "error-location"))]
        {
            None
        }
    }

    /// The error of a reader of `reads` that refused an input whose first
    /// bytes are `head` (8 suffice): records what `head` looks like
    /// ([`InputKind`]) unless it is what the reader reads or looks like
    /// nothing known. Does nothing without the feature `error-location`
    /// (firmware builds pay no code for it).
    #[inline(always)]
    #[must_use]
    pub(crate) fn at_start(self, head: &[u8], reads: InputKind) -> Self {
        #[cfg(feature = "error-location")]
        {
            let mut e = self;
            if let Some(k) = InputKind::sniff(head).filter(|&k| k != reads) {
                e.input = Some(k);
            }
            e
        }
        #[cfg(not(feature = "error-location"))]
        {
            let _ = (head, reads);
            self
        }
    }

    /// The error of a file reader given an input of `len` bytes that
    /// starts with the file magic and does not end with it:
    /// [`InputKind::TruncatedArrowFile`] at byte offset `len`. Does
    /// nothing without the feature `error-location`.
    #[inline(always)]
    #[must_use]
    pub(crate) fn truncated_file(self, len: u64) -> Self {
        #[cfg(feature = "error-location")]
        {
            let mut e = self.with_offset(usize::try_from(len).unwrap_or(usize::MAX));
            e.input = Some(InputKind::TruncatedArrowFile);
            e
        }
        #[cfg(not(feature = "error-location"))]
        {
            let _ = len;
            self
        }
    }

    /// What went wrong.
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Where it went wrong, as far as known (empty when nothing is known or
    /// the feature `error-location` is off).
    pub const fn location(&self) -> &Location {
        &self.location
    }

    /// The kind's static, human-readable description (no allocation, no
    /// location: see [`Display`](fmt::Display) for both).
    pub const fn message(&self) -> &'static str {
        self.kind.message()
    }

    /// The error inside field `index` (0-based) of a schema, record batch or
    /// struct: prepends `index` to the field path, as [`Error::in_child`].
    #[inline(always)]
    #[must_use]
    pub fn with_field(self, index: usize) -> Self {
        self.in_child(index)
    }

    /// The error inside child `index` (0-based) of a nested array or field:
    /// prepends `index` to the field path, so that the boundary of each
    /// nesting level adds its own index on the way out (the outermost index
    /// comes first). A path deeper than [`Location::MAX_DEPTH`] keeps its
    /// outermost indices and is shown with a trailing `.…`.
    #[inline(always)]
    #[must_use]
    pub fn in_child(mut self, index: usize) -> Self {
        self.location.push_front(index);
        self
    }

    /// The error in IPC message `index` (0-based, counting every message of
    /// the stream or every block of the file, schema included for a stream).
    /// Keeps an index already set by an inner boundary.
    #[inline(always)]
    #[must_use]
    pub fn with_message(mut self, index: usize) -> Self {
        self.location.set_message(index);
        self
    }

    /// The error in buffer `index` (0-based) of a record batch or dictionary
    /// batch body (the order of `RecordBatch.buffers` in Message.fbs), or of
    /// a C Data Interface array's `buffers`. Keeps an index already set.
    #[inline(always)]
    #[must_use]
    pub fn with_buffer(mut self, index: usize) -> Self {
        self.location.set_buffer(index);
        self
    }

    /// The error at byte `offset` (of a buffer, a value's data, or an IPC
    /// input). Keeps an offset or row already set.
    #[inline(always)]
    #[must_use]
    pub fn with_offset(mut self, offset: usize) -> Self {
        self.location.set_position(location::Position::Byte, offset);
        self
    }

    /// The error at row / slot `index` (0-based, an element index of the
    /// array or a row of the row format). Keeps an offset or row already set.
    #[inline(always)]
    #[must_use]
    pub fn with_row(mut self, index: usize) -> Self {
        self.location.set_position(location::Position::Row, index);
        self
    }
}

impl PartialEq for Error {
    /// Compares the kinds only: the location is diagnostic.
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

impl Eq for Error {}

impl core::hash::Hash for Error {
    /// Hashes the kind only, consistently with `PartialEq`.
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.kind.hash(state)
    }
}

impl PartialEq<ErrorKind> for Error {
    fn eq(&self, other: &ErrorKind) -> bool {
        self.kind == *other
    }
}

macro_rules! errors {
    ($($(#[$doc:meta])* $name:ident => $msg:literal,)*) => {
        /// What went wrong: the kind of an [`Error`].
        ///
        /// Variants are grouped by concern: memory, arguments, then one variant per
        /// validation rule of the Arrow columnar format (each rule is reported by a
        /// distinct variant, so tests and callers can tell them apart), then IPC.
        /// [`ErrorKind::message`] gives a static, human-readable sentence.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $($(#[$doc])* $name,)*
        }

        impl ErrorKind {
            /// A static, human-readable description of the error (no allocation).
            pub const fn message(&self) -> &'static str {
                match self {
                    $(ErrorKind::$name => $msg,)*
                }
            }
        }

        /// One constant per [`ErrorKind`], without a location, so that
        /// `Err(Error::OutOfBounds)` builds an error and `assert_eq!(e,
        /// Error::OutOfBounds)` compares kinds. Constants cannot be `match`
        /// patterns (equality is by kind only): match on [`Error::kind`].
        #[allow(non_upper_case_globals)]
        impl Error {
            $(
                #[doc = concat!("An error of kind [`ErrorKind::", stringify!($name), "`] without a location.")]
                pub const $name: Error = Error::new(ErrorKind::$name);
            )*
        }
    };
}

errors! {
    // ----- memory -----
    /// The allocator returned an error (out of memory, arena exhausted, or a
    /// limit set by the caller was reached).
    AllocationFailed => "memory allocation failed",
    /// A size computation overflowed `usize` or the maximum layout size.
    CapacityOverflow => "size computation overflowed",
    /// A byte region is not aligned for the element type it must hold and the
    /// caller chose to refuse rather than copy.
    Misaligned => "buffer is not aligned for its element type",
    /// A byte region's length is not a multiple of the element size.
    BufferLengthNotMultiple => "buffer length is not a multiple of the element size",

    // ----- arguments -----
    /// An index or a slice range is outside the array or buffer.
    OutOfBounds => "index or range out of bounds",
    /// A `take` index (a valid one: null indices are not read) is not less
    /// than the length of the array taken from; the location's row is the
    /// position of the index among the indices.
    TakeIndexOutOfBounds => "take index out of bounds of the array",
    /// The data type given does not match the layout of the array being built.
    TypeMismatch => "data type does not match the array layout",
    /// A data type is malformed (e.g. decimal precision out of range, a negative
    /// fixed size, a union with duplicate type ids, a run-end type that is not
    /// Int16/Int32/Int64).
    InvalidDataType => "invalid data type parameters",
    /// Columns of a record batch, or children of a struct, have different lengths.
    LengthMismatch => "lengths of columns or children differ",
    /// The columns of a record batch do not match its schema (count or types).
    SchemaMismatch => "columns do not match the schema",
    /// A null was found in a field declared non-nullable.
    NullInNonNullableField => "null value in a non-nullable field",
    /// An argument is outside its documented domain (e.g. an IPC alignment
    /// that is not 8, 16, 32 or 64).
    InvalidArgument => "invalid argument",
    /// A builder was asked for an operation that its state does not allow.
    InvalidBuilderState => "invalid builder state",

    // ----- validation: buffers and bitmaps -----
    /// A buffer is shorter than the array's length and offset require.
    BufferTooSmall => "buffer too small for the array length",
    /// The validity bitmap is shorter than the array's length requires.
    ValidityTooSmall => "validity bitmap too small for the array length",
    /// The declared null count differs from the number of zero bits in the bitmap.
    NullCountMismatch => "null count does not match the validity bitmap",
    /// An array that must have no validity bitmap (e.g. a union) has one.
    UnexpectedValidity => "this layout must not have a validity bitmap",

    // ----- validation: offsets -----
    /// An offsets buffer does not hold `length + 1` entries.
    OffsetsLength => "offsets buffer must hold length + 1 entries",
    /// Offsets decrease somewhere (they must be monotonically non-decreasing).
    OffsetsNotMonotonic => "offsets are not monotonically increasing",
    /// An offset is negative or beyond the end of the values or child array.
    OffsetOutOfBounds => "offset out of bounds of the values",
    /// A variable-length value is not valid UTF-8 in a Utf8 / LargeUtf8 / Utf8View array.
    InvalidUtf8 => "string value is not valid UTF-8",

    // ----- validation: views -----
    /// A view's length is negative.
    ViewLengthNegative => "view length is negative",
    /// An inline view (length <= 12) has non-zero bytes after its data.
    ViewInlinePaddingNotZero => "inline view padding is not zero",
    /// A view's 4-byte prefix differs from the first bytes of its data.
    ViewPrefixMismatch => "view prefix does not match its data",
    /// A view names a variadic data buffer that does not exist.
    ViewBufferIndexOutOfBounds => "view buffer index out of bounds",
    /// A view's offset + length lies outside its data buffer.
    ViewOffsetOutOfBounds => "view offset and length outside its data buffer",

    // ----- validation: lists -----
    /// A list view's offset or size is negative, or offset + size exceeds the child.
    ListViewOutOfBounds => "list view offset + size outside the child array",
    /// A fixed-size list's child is shorter than `length * list_size`, or the size is negative.
    FixedSizeListChildTooShort => "fixed-size list child too short for length * size",

    // ----- validation: unions -----
    /// A union type id is not one of the ids declared in the union type.
    UnionTypeIdUndeclared => "union type id not declared by the union type",
    /// A dense union offset is negative or not less than its child's length.
    UnionOffsetOutOfBounds => "dense union offset outside its child",
    /// A dense union lacks its offsets buffer or a sparse union has one.
    UnionOffsetsPresence => "dense unions need offsets, sparse unions must have none",
    /// A sparse union child is shorter than the union.
    UnionChildTooShort => "sparse union child shorter than the union",

    // ----- validation: run-end encoding -----
    /// A run end is zero or negative.
    RunEndNotPositive => "run end is not positive",
    /// Run ends are not strictly increasing.
    RunEndsNotIncreasing => "run ends are not strictly increasing",
    /// The last run end does not cover the array's offset + length.
    RunEndsTooShort => "run ends do not cover the array length",
    /// The run-ends child contains nulls, or run ends and values differ in length.
    RunEndsInvalidChild => "run-ends child has nulls or differs in length from values",

    // ----- validation: dictionaries and maps -----
    /// A dictionary index is negative or not less than the dictionary's length.
    DictionaryKeyOutOfBounds => "dictionary index out of bounds",
    /// A map's keys field is nullable or a key is null.
    MapKeyNull => "map keys must not be null",
    /// A map's entries are not a struct of two fields (key, value).
    MapEntriesInvalid => "map entries must be a non-null struct of key and value",

    // ----- IPC (filled by the IPC modules) -----
    /// The input ended before a complete message, body or footer was read.
    UnexpectedEof => "unexpected end of input",
    /// The sink accepted zero bytes (it is full or closed).
    WriteZero => "the writer accepted zero bytes",
    /// An I/O error from the underlying reader or writer.
    Io => "I/O error",
    /// A flatbuffer failed verification (an offset, vtable, vector or string
    /// outside the buffer, or a string that is not UTF-8).
    InvalidFlatbuffer => "flatbuffer failed verification",
    /// A custom metadata entry (`KeyValue` in Schema.fbs) without its key or
    /// its value: pyarrow refuses it ("Unexpected null field
    /// custom_metadata.value"), so do the readers.
    MetadataEntryIncomplete => "custom metadata entry without a key or a value",
    /// The metadata scratch area is too small for the flatbuffer being encoded.
    ScratchTooSmall => "metadata scratch area too small",
    /// A type, message kind, metadata version or codec this reader does not support.
    UnsupportedType => "unsupported type or metadata feature",
    /// Metadata version V1–V3 (or unknown): only V4 and V5 are read.
    UnsupportedVersion => "unsupported metadata version (V4 or V5 required)",
    /// A field node has a negative length or null count, or more nulls than slots.
    InvalidFieldNode => "invalid field node (negative, or null count above length)",
    /// The header lists fewer or more field nodes than the schema needs.
    NodeCountMismatch => "wrong number of field nodes for the schema",
    /// The header lists fewer or more buffers than the schema needs.
    BufferCountMismatch => "wrong number of buffers for the schema",
    /// A buffer's offset and length lie outside the message body.
    BufferOutOfBody => "buffer lies outside the message body",
    /// A message length is negative or a body length does not match.
    InvalidMessage => "invalid message framing",
    /// A message of an unexpected kind (e.g. a second schema, or a record
    /// batch where the footer points to a dictionary).
    UnexpectedMessage => "unexpected message type",
    /// A dictionary-encoded column refers to a dictionary id never received.
    DictionaryNotFound => "dictionary batch missing for a dictionary id",
    /// A file does not start and end with `ARROW1` or `ALKAID1`.
    InvalidMagic => "not an Arrow IPC file (bad magic)",
    /// A file footer's length or blocks are inconsistent with the file.
    InvalidFooter => "invalid file footer",
    /// A field has the wrong number of children for its type.
    InvalidChildCount => "wrong number of child fields for the type",
    /// The file format allows one non-delta dictionary per id: a dictionary
    /// changed other than by appending.
    DictionaryReplacementInFile => "dictionary replacement is not allowed in the file format",
    /// A caller-set limit (nesting depth, fields, message size, metadata
    /// entries, dictionary size) was exceeded.
    LimitExceeded => "a decoding limit was exceeded",
    /// A compressed body buffer is malformed: a length prefix shorter than 8
    /// bytes or below -1, a bad LZ4 frame magic, version, reserved bit, header
    /// checksum or block size, a truncated frame or an invalid LZ4 sequence.
    CorruptCompressedData => "compressed data is corrupt",
    /// A block or content checksum of compressed data does not match the data.
    CompressedChecksumMismatch => "checksum of compressed data does not match",
    /// Decompression produced a different number of bytes than the buffer's
    /// length prefix or the frame's content size declares.
    DecompressedSizeMismatch => "decompressed size differs from the declared size",

    // ----- extension types -----
    /// A field's `ARROW:extension:name` is absent or names another extension type.
    ExtensionNameMismatch => "field does not carry this extension type's name",
    /// `ARROW:extension:metadata` is not valid for its extension type: not
    /// JSON (or nested too deeply), a required key missing, a key of the
    /// wrong JSON type, a negative size, more dimensions than supported, or
    /// metadata where the type takes none.
    InvalidExtensionMetadata => "invalid extension type metadata",
    /// The storage type does not fit the extension type (e.g. a fixed-shape
    /// tensor whose list size is not the product of its shape, a UUID that is
    /// not FixedSizeBinary(16)).
    ExtensionStorageMismatch => "storage type does not fit the extension type",
    /// A tensor `permutation` is not a permutation of `0..ndim`.
    InvalidPermutation => "tensor permutation is not a permutation of 0..ndim",
    /// A tensor's `dim_names`, `uniform_shape` or multi-index does not have
    /// one entry per dimension.
    DimensionCountMismatch => "tensor parameter does not have one entry per dimension",
    /// A variable-shape tensor's data length differs from the product of its
    /// shape, or a shape has a negative or null size.
    TensorSizeMismatch => "tensor data length differs from the product of its shape",
    /// A variable-shape tensor's size in a uniform dimension differs from
    /// `uniform_shape`.
    UniformShapeViolated => "tensor size differs from uniform_shape in a uniform dimension",

    // ----- row format -----
    /// Row bytes are not a valid encoding for the converter's fields: a
    /// sentinel or block marker that is not allowed, a row that ends early or
    /// has bytes left over, non-zero padding, or list lengths that disagree.
    InvalidRow => "row bytes are not a valid row encoding",
    /// A row holds a dictionary key that this converter never issued (for
    /// example a row made by another converter).
    UnknownDictionaryKey => "row holds a dictionary key unknown to this converter",
    /// Dictionary columns of a converter with the seed's encoding
    /// (`RowEncoding::Seed`) were encoded or decoded without a
    /// `RowInterner` (use the `*_with_interner` methods).
    RowInternerRequired => "seed-encoded dictionary rows need a RowInterner",
    /// The `RowInterner` given was made for another converter (it has
    /// another number of dictionary columns).
    RowInternerMismatch => "RowInterner made for another converter",

    // ----- C Data Interface: arrays -----
    /// A C Data Interface struct has a negative length, offset, null count
    /// or count, a null count above its length, or a length plus offset
    /// that overflows.
    FfiNegativeCount => "negative or overflowing length, offset or count in a C Data Interface struct",
    /// A C Data Interface array has a number of buffers that its type's
    /// layout does not have.
    FfiBufferCount => "wrong number of buffers in a C Data Interface array for its type",
    /// A C Data Interface array has a null pointer where its layout needs a
    /// buffer (a non-empty one), a child or a dictionary.
    FfiNullBuffer => "null pointer for a required buffer, child or dictionary of a C Data Interface array",
    /// A C Data Interface child array is shorter than its parent needs.
    ChildLengthMismatch => "child array shorter than its parent needs",
    // ----- C Data Interface: schemas -----
    /// An `ArrowSchema.format` string is malformed: an unknown type letter,
    /// a missing or empty parameter (`"w:"`, `"d:1"`, `"+w:"`), a number that
    /// is not decimal digits with an optional `-`, an unknown time unit
    /// (`"tsx:"`) or bytes after the end of the format.
    FfiFormatInvalid => "malformed C Data Interface format string",
    /// A format string's number is outside its range: a decimal precision
    /// outside `1..=max` of its bit width (9, 18, 38, 76), a scale outside
    /// `i8`, a bit width other than 32, 64, 128 or 256, a fixed binary width
    /// (`w:N`) not above 0, or a fixed list size (`+w:N`) negative or above
    /// `i32::MAX`.
    FfiFormatParameterOutOfRange => "format string parameter out of range",
    /// The type ids of a union format (`+ud:…`/`+us:…`) are outside
    /// `0..=127` or repeat.
    FfiUnionTypeIdsInvalid => "union type ids out of 0..=127 or repeated",
    /// The time zone of a timestamp format (`tsu:…`) is not UTF-8.
    FfiTimezoneNotUtf8 => "timestamp time zone is not UTF-8",
    /// An `ArrowSchema.name` is not UTF-8.
    FfiNameNotUtf8 => "field name is not UTF-8",
    /// A name or time zone to export contains a NUL byte, which cannot be
    /// written as a C string.
    FfiStringHasNul => "name or time zone contains a NUL byte",
    /// `ArrowSchema.n_children` differs from the number of children the
    /// format string needs (one for lists and maps, two for run-end encoded,
    /// one per type id for unions, none for the other non-struct types).
    FfiChildCountMismatch => "number of children does not match the format string",
    /// `ArrowSchema.n_children` is negative, or `children` (or one of its
    /// entries) is null while `n_children` is positive.
    FfiChildrenInvalid => "negative child count or null child pointer",
    /// A run-end encoded node's children are not `run_ends` (non-nullable
    /// Int16, Int32 or Int64) followed by `values`.
    FfiRunEndsInvalid => "run-end encoded children must be non-null Int16/32/64 run ends and values",
    /// `ArrowSchema.format` is null.
    FfiNullFormat => "format string pointer is null",
    /// A C Data Interface struct (schema, array or stream) was already
    /// released (`release` is null) where a live one is required.
    FfiReleased => "struct already released",
    /// A node has a `dictionary` but its format is not an integer type (the
    /// index type of a dictionary-encoded field).
    FfiDictionaryIndexNotInteger => "dictionary-encoded node whose format is not an integer type",
    /// Children and dictionaries nest deeper than the limit (64 by default).
    FfiNestingTooDeep => "schema nests deeper than the limit",
    /// A node has more children, or the whole tree more nodes, than the
    /// import limit allows.
    FfiTooManyNodes => "schema has more nodes than the limit",
    /// The top node of a schema is not a struct (`"+s"`) without a dictionary.
    FfiSchemaNotStruct => "top-level schema node is not a struct",
    /// Binary-encoded metadata declares a negative number of pairs or a
    /// negative key or value length.
    FfiMetadataNegativeLength => "metadata has a negative count or length",
    /// A metadata key or value is not UTF-8.
    FfiMetadataNotUtf8 => "metadata key or value is not UTF-8",
    /// Binary-encoded metadata (with names and time zones copied) exceeds the
    /// import limit on copied bytes, or a count or length to export exceeds
    /// `i32::MAX`.
    FfiMetadataTooLarge => "metadata larger than the limit",

    // ----- IPC defects (#14) -----
    /// A file footer's `Block` has a negative field, or its message
    /// (metadata and body) does not lie between the leading magic and the
    /// footer.
    BlockOutOfFile => "footer block lies outside the file's messages",
    /// A file footer's `Block` has an offset, metadata length or body length
    /// that is not a multiple of 8 bytes.
    UnalignedBlock => "footer block offset or length is not a multiple of 8",
    /// A file footer's `Block` disagrees with its message: the metadata
    /// length is not the message's prefix plus flatbuffer, or the body
    /// length is not the message's `bodyLength`.
    BlockMessageMismatch => "footer block lengths disagree with its message",
    /// A flatbuffer string is not followed by the NUL byte the flatbuffers
    /// format requires (overwritten, or past the end of the buffer).
    FlatbufferStringNotTerminated => "flatbuffer string is not NUL-terminated",
    /// A body buffer's offset is not a multiple of 8 bytes (the format
    /// requires every buffer of a message body to be 8-byte aligned).
    UnalignedBodyBuffer => "body buffer offset is not a multiple of 8",

    // ----- validation and ZSTD checks (#14) -----
    /// A valid slot of a Decimal32/64/128/256 array holds a value whose
    /// magnitude is not below `10^precision` ("Decimal" in Schema.fbs: the
    /// value has at most `precision` decimal digits). Checked at
    /// `ValidationLevel::Full`, as pyarrow's `validate(full=True)` does.
    DecimalOutOfPrecision => "decimal value does not fit in its precision",
    /// A valid slot of a Date64 array is not a whole number of days (a
    /// multiple of 86,400,000 milliseconds, "Date" in Schema.fbs). Checked at
    /// `ValidationLevel::Full`, as pyarrow's `validate(full=True)` does.
    Date64NotWholeDays => "Date64 value is not a whole number of days",
    /// A valid slot of a Time32/Time64 array is outside one day: negative,
    /// or not below 86,400 seconds in the array's unit ("Time" in
    /// Schema.fbs: the time elapsed since midnight). Checked at
    /// `ValidationLevel::Full`, as pyarrow's `validate(full=True)` does.
    TimeOutOfRange => "Time32/Time64 value outside one day",
    /// A ZSTD block's `Block_Size` exceeds its frame's `Block_Maximum_Size`
    /// (min(Window_Size, 128 KiB), RFC 8878 section 3.1.1.2.4).
    ZstdBlockTooLarge => "ZSTD block larger than the frame's maximum block size",
    /// A ZSTD compressed block sets the reserved low two bits of its
    /// sequences section's `Symbol_Compression_Modes` byte (RFC 8878 section
    /// 3.1.1.3.2.1).
    ZstdReservedBitsSet => "reserved bits set in a ZSTD sequences section header",

    // ----- parallel compression (#17) -----
    /// A [`BodyExecutor`](crate::ipc::compression::BodyExecutor) returned
    /// without running every job it was given, or one of its worker threads
    /// panicked while running them.
    ExecutorFailed => "job executor failed",

    // ----- codecs (#42) -----
    /// The data is (or is to be) compressed with LZ4 frames and the
    /// reader's or writer's codec set has no LZ4 codec (feature `lz4` of the
    /// core, or a codec set that holds one).
    Lz4CodecMissing => "LZ4-compressed body: no LZ4 codec configured (feature lz4)",
    /// The data is (or is to be) compressed with ZSTD and the codec set has
    /// no ZSTD codec (feature `zstd-decode` of the core for reading, or
    /// `alkaid-std`'s codecs, which read and write it).
    ZstdCodecMissing => "ZSTD-compressed body: no ZSTD codec configured (read: feature zstd-decode; write: alkaid-std)",
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl Error {
    /// The sentence of [`Display`](fmt::Display): what the input looks
    /// like when known, else the static message then the location.
    fn describe(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(input) = self.input() {
            return input.describe(f, self.location.byte_offset());
        }
        f.write_str(self.message())?;
        if !self.location.is_empty() {
            write!(f, " ({})", self.location)?;
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    /// The static message, then the location when one is known, e.g.
    /// `offsets are not monotonically increasing (message 2, field 2,
    /// buffer 7, byte offset 40)`; when the reader recognised what the
    /// input is instead ([`Error::input`]), that, e.g. `a Parquet file,
    /// not Arrow IPC` or `an Arrow IPC file truncated at byte 400: the
    /// footer is missing`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.describe(f)
    }
}

impl fmt::Debug for Error {
    /// The kind's name, its message, then the location when one is known,
    /// e.g. `SchemaMismatch: columns do not match the schema (field 3)`: what
    /// `fn main() -> Result<(), Box<dyn Error>>` prints says what is wrong.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.kind, f)?;
        f.write_str(": ")?;
        self.describe(f)
    }
}

impl core::error::Error for Error {}

#[cfg(feature = "defmt")]
impl defmt::Format for Error {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "{=str}", self.message());
        if !self.location.is_empty() {
            defmt::write!(f, " ({})", self.location);
        }
    }
}

#[cfg(feature = "defmt")]
impl defmt::Format for ErrorKind {
    fn format(&self, f: defmt::Formatter) {
        defmt::write!(f, "{=str}", self.message())
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl From<allocator_api2::alloc::AllocError> for Error {
    fn from(_: allocator_api2::alloc::AllocError) -> Self {
        Error::AllocationFailed
    }
}

impl From<core::alloc::LayoutError> for Error {
    fn from(_: core::alloc::LayoutError) -> Self {
        Error::CapacityOverflow
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_the_static_message() {
        extern crate std;
        use std::string::ToString;
        assert_eq!(
            Error::InvalidUtf8.to_string(),
            "string value is not valid UTF-8"
        );
        assert_eq!(
            Error::AllocationFailed.message(),
            "memory allocation failed"
        );
    }

    #[test]
    fn kinds_match_and_locations_do_not_matter_for_equality() {
        let e = Error::OutOfBounds.with_row(4);
        assert_eq!(e, Error::OutOfBounds);
        assert_eq!(e.kind(), ErrorKind::OutOfBounds);
        assert_ne!(e, Error::InvalidRow);
        assert_eq!(Error::from(ErrorKind::InvalidRow), Error::InvalidRow);
        assert!(Error::OutOfBounds.location().is_empty());
    }

    #[cfg(feature = "error-location")]
    #[test]
    fn display_shows_the_known_parts_of_the_location_in_order() {
        extern crate std;
        use std::string::ToString;
        // Inner boundaries first: the innermost child index, then its
        // parents, then the buffer and the message.
        let e = Error::InvalidUtf8
            .with_offset(40)
            .in_child(0)
            .with_buffer(7)
            .in_child(3)
            .with_field(2)
            .with_message(5)
            // Outer boundaries do not overwrite what an inner one set.
            .with_buffer(1)
            .with_message(9)
            .with_row(1);
        assert_eq!(
            e.to_string(),
            "string value is not valid UTF-8 (message 5, field 2.3.0, buffer 7, byte offset 40)"
        );
        let l = e.location();
        assert_eq!(l.field_path(), &[2, 3, 0]);
        assert_eq!((l.message(), l.buffer()), (Some(5), Some(7)));
        assert_eq!((l.byte_offset(), l.row()), (Some(40), None));
        // Deeper than MAX_DEPTH: the outermost indices are kept.
        let mut deep = Error::LimitExceeded;
        for i in (0..9).rev() {
            deep = deep.in_child(i);
        }
        assert_eq!(deep.location().field_path(), &[0, 1, 2, 3, 4, 5]);
        assert_eq!(
            deep.to_string(),
            "a decoding limit was exceeded (field 0.1.2.3.4.5.…)"
        );
        assert_eq!(
            std::format!("{deep:?}"),
            "LimitExceeded: a decoding limit was exceeded (field 0.1.2.3.4.5.…)"
        );
    }

    #[cfg(feature = "error-location")]
    #[test]
    fn a_recognised_input_is_said_instead_of_the_kind() {
        extern crate std;
        use std::string::ToString;
        let e = Error::LimitExceeded
            .with_message(0)
            .at_start(b"PAR1\x15\x04", InputKind::ArrowStream);
        assert_eq!(e, Error::LimitExceeded);
        assert_eq!(e.input(), Some(InputKind::Parquet));
        assert_eq!(e.to_string(), "a Parquet file, not Arrow IPC");
        assert_eq!(
            std::format!("{e:?}"),
            "LimitExceeded: a Parquet file, not Arrow IPC"
        );
        // What the reader reads, or nothing known: the error is unchanged.
        let e = Error::InvalidFlatbuffer.with_message(0);
        let same = e.at_start(&[0xFF; 8], InputKind::ArrowStream);
        assert_eq!(same.input(), None);
        assert_eq!(
            same.to_string(),
            "flatbuffer failed verification (message 0)"
        );
        let same = e.at_start(&[0x01, 0x9C, 0xFE, 0x42], InputKind::ArrowStream);
        assert_eq!(same.input(), None);
        let e = Error::InvalidMagic.at_start(&[0xFF; 8], InputKind::ArrowFile);
        assert_eq!(
            e.to_string(),
            "an Arrow IPC stream, not a file (read it with a stream reader)"
        );
        let e = Error::UnexpectedEof.at_start(&[], InputKind::ArrowStream);
        assert_eq!(e.to_string(), "empty input (0 bytes), not Arrow IPC");
        let e = Error::InvalidMagic.truncated_file(1234);
        assert_eq!(e.input(), Some(InputKind::TruncatedArrowFile));
        assert_eq!(e.location().byte_offset(), Some(1234));
        assert_eq!(
            e.to_string(),
            "an Arrow IPC file truncated at byte 1234: the footer is missing"
        );
        assert_eq!(
            InputKind::TruncatedArrowFile.to_string(),
            "an Arrow IPC file truncated: the footer is missing"
        );
    }

    #[cfg(not(feature = "error-location"))]
    #[test]
    fn without_the_feature_an_error_is_one_byte_and_has_no_location() {
        assert_eq!(core::mem::size_of::<Error>(), 1);
        let e = Error::InvalidUtf8.with_offset(3).with_field(1);
        assert!(e.location().is_empty());
        let e = Error::LimitExceeded.at_start(b"PAR1", InputKind::ArrowStream);
        assert_eq!(e.input(), None);
    }
}
