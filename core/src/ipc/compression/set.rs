//! [`CodecSet`]: the codecs a reader or writer may use, chosen by the
//! `BodyCompression` codec of each message.

#[cfg(feature = "compression")]
use super::BodyExecutor;
use super::Codec;
use crate::error::Error;
#[cfg(feature = "compression")]
use crate::error::Result;
use crate::ipc::message::CompressionCodec;

/// A set of [`Codec`]s indexed by [`CompressionCodec`].
///
/// Readers look up the codec a message names; writers the one their options
/// name. [`BuiltinCodecs`] holds what the core implements; [`WithCodec`] adds
/// (or overrides) one codec, e.g. the std shim's ZSTD.
pub trait CodecSet {
    /// The codec for `codec`, or `None` when this set has none.
    fn get(&mut self, codec: CompressionCodec) -> Option<&mut dyn Codec>;

    /// An executor that runs the compression or decompression jobs of a
    /// batch body, possibly on several threads ([`BodyExecutor`]), with
    /// codecs that write the same bytes as this set's; `None` (the
    /// default): the writers and readers run them one after the other with
    /// [`CodecSet::get`]'s codecs. ([`WithCodec`] offers none: the
    /// executor of its `rest` would not know its added codec.) Feature
    /// `compression`.
    #[cfg(feature = "compression")]
    fn executor(&mut self) -> Option<&mut dyn BodyExecutor> {
        None
    }
}

/// The error for a set without a codec for `codec`: names the codec
/// ([`Error::Lz4CodecMissing`], [`Error::ZstdCodecMissing`]).
pub(crate) fn missing(codec: CompressionCodec) -> Error {
    match codec {
        CompressionCodec::Lz4Frame => Error::Lz4CodecMissing,
        CompressionCodec::Zstd => Error::ZstdCodecMissing,
    }
}

/// The codec for `codec` in `codecs`, or the error naming the one missing
/// (feature `compression`).
///
/// # Errors
/// [`Error::Lz4CodecMissing`], [`Error::ZstdCodecMissing`].
#[cfg(feature = "compression")]
pub(crate) fn codec_of(
    codecs: &mut dyn CodecSet,
    codec: CompressionCodec,
) -> Result<&mut dyn Codec> {
    codecs.get(codec).ok_or(missing(codec))
}

/// The codecs built into the core: LZ4 frame with feature `lz4`; the ZSTD
/// decoder (`zstd_decode::ZstdDecoder`, decode only) with feature
/// `zstd-decode`.
#[derive(Debug, Default)]
pub struct BuiltinCodecs {
    #[cfg(feature = "lz4")]
    lz4: Option<super::lz4_frame::Lz4FrameCodec>,
    #[cfg(feature = "zstd-decode")]
    zstd: Option<super::zstd_decode::ZstdDecoder>,
}

impl BuiltinCodecs {
    /// The built-in codecs (nothing is allocated; LZ4's table and the ZSTD
    /// decoder's window are made on first use).
    pub fn new() -> Self {
        Self::default()
    }
}

impl CodecSet for BuiltinCodecs {
    fn get(&mut self, codec: CompressionCodec) -> Option<&mut dyn Codec> {
        match codec {
            #[cfg(feature = "lz4")]
            CompressionCodec::Lz4Frame => Some(
                self.lz4
                    .get_or_insert_with(super::lz4_frame::Lz4FrameCodec::new),
            ),
            #[cfg(feature = "zstd-decode")]
            CompressionCodec::Zstd => Some(
                self.zstd
                    .get_or_insert_with(super::zstd_decode::ZstdDecoder::new),
            ),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

/// A codec set with one more codec `C`, consulted before `rest`.
#[derive(Debug, Default)]
pub struct WithCodec<C, S = BuiltinCodecs> {
    /// The added codec.
    pub codec: C,
    /// The other codecs.
    pub rest: S,
}

impl<C: Codec, S> WithCodec<C, S> {
    /// `codec` in front of `rest`.
    pub fn new(codec: C, rest: S) -> Self {
        WithCodec { codec, rest }
    }
}

impl<C: Codec, S: CodecSet> CodecSet for WithCodec<C, S> {
    fn get(&mut self, codec: CompressionCodec) -> Option<&mut dyn Codec> {
        if self.codec.codec() == codec {
            Some(&mut self.codec)
        } else {
            self.rest.get(codec)
        }
    }
}
