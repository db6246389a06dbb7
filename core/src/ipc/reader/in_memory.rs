//! The constructors both in-memory readers ([`SliceStreamReader`] and
//! [`FileReader`]) share: over a `&[u8]` or a [`Buffer`], with the core's
//! [`BuiltinCodecs`] or a caller's codec set, all through the one each
//! reader defines, `try_from_buffer_with_codecs_in`.
//!
//! [`SliceStreamReader`]: super::SliceStreamReader
//! [`FileReader`]: super::FileReader
//! [`Buffer`]: crate::buffer::Buffer
//! [`BuiltinCodecs`]: crate::ipc::compression::BuiltinCodecs

/// Defines `try_new_in`, `try_from_buffer_in` and `try_new_with_codecs_in`
/// of the in-memory reader `$ty` over its `try_from_buffer_with_codecs_in`,
/// with the docs given for the first two; `$errors` names the constructor
/// whose errors they share.
macro_rules! in_memory_constructors {
    (
        $ty:ident,
        $errors:literal,
        $(#[$new_doc:meta])*
        try_new_in;
        $(#[$buffer_doc:meta])*
        try_from_buffer_in;
    ) => {
        impl<'b, A: Allocator + Clone + 'b> $ty<'b, A> {
            $(#[$new_doc])*
            pub fn try_new_in(input: &'b [u8], options: IpcReadOptions, alloc: A) -> Result<Self> {
                Self::try_new_with_codecs_in(input, options, BuiltinCodecs::new(), alloc)
            }

            $(#[$buffer_doc])*
            ///
            /// # Errors
            #[doc = concat!("As [`", $errors, "`].")]
            pub fn try_from_buffer_in(
                input: Buffer<'b, A>,
                options: IpcReadOptions,
                alloc: A,
            ) -> Result<Self> {
                Self::try_from_buffer_with_codecs_in(input, options, BuiltinCodecs::new(), alloc)
            }
        }

        impl<'b, A: Allocator + Clone + 'b, S: CodecSet> $ty<'b, A, S> {
            #[doc = concat!("As [`", stringify!($ty), "::try_new_in`] with the codecs of `codecs`.")]
            ///
            /// # Errors
            #[doc = concat!("As [`", $errors, "`].")]
            pub fn try_new_with_codecs_in(
                input: &'b [u8],
                options: IpcReadOptions,
                codecs: S,
                alloc: A,
            ) -> Result<Self> {
                Self::try_from_buffer_with_codecs_in(
                    Buffer::from_slice_ref(input),
                    options,
                    codecs,
                    alloc,
                )
            }
        }
    };
}
