//! Plain constructors of the IPC readers and writers for the global heap
//! (feature `alloc`): default options, scratch memory and batches from
//! [`Global`], the codecs built into the core. Each is the matching `*_in`
//! constructor with `IpcWriteOptions::default()` / `IpcReadOptions::default()`
//! and `Global`; a firmware names its allocator with those.

use embedded_io::{Read, Seek, Write};

use super::reader::{FileReader, FileSeekReader, IpcReadOptions, SliceStreamReader, StreamReader};
use super::writer::{FileWriter, IpcWriteOptions, StreamWriter};
use crate::datatypes::Schema;
use crate::error::Result;
use crate::Global;

impl<'a, W: Write> StreamWriter<'a, W, Global> {
    /// Starts a stream of batches of `schema` on `sink` with default options
    /// (64-byte alignment, no compression), writing the schema message at once
    /// (arrow-rs: `StreamWriter::try_new`).
    ///
    /// ```
    /// use alkaid::array::{Array, Int32Array, RecordBatch};
    /// use alkaid::ipc::reader::SliceStreamReader;
    /// use alkaid::ipc::writer::StreamWriter;
    ///
    /// let batch = RecordBatch::try_from_iter([("x", Int32Array::from(vec![1, 2]).into_array_ref())])?;
    /// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let bytes = w.into_inner();
    /// let back: Vec<_> = SliceStreamReader::try_new(&bytes)?.collect::<Result<_, _>>()?;
    /// assert_eq!(back, [batch]);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`StreamWriter::try_new_in`].
    pub fn try_new(sink: W, schema: &Schema<'a, Global>) -> Result<Self> {
        Self::try_new_in(sink, schema, IpcWriteOptions::default(), Global)
    }

    /// As [`Self::try_new`] with `options` (alignment, compression,
    /// metadata version) (arrow-rs: `StreamWriter::try_new_with_options`).
    ///
    /// ```
    /// use alkaid::array::{Array, Int64Array, RecordBatch};
    /// use alkaid::ipc::writer::{CompressionCodec, IpcWriteOptions, StreamWriter};
    ///
    /// let batch = RecordBatch::try_from_iter([("x", Int64Array::from(vec![7; 1000]).into_array_ref())])?;
    /// let options = IpcWriteOptions { compression: Some(CompressionCodec::Lz4Frame), ..Default::default() };
    /// let mut w = StreamWriter::try_new_with_options(Vec::new(), batch.schema(), options)?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// assert!(w.into_inner().len() < 8 * 1000); // compressed body
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`StreamWriter::try_new_in`].
    pub fn try_new_with_options(
        sink: W,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
    ) -> Result<Self> {
        Self::try_new_in(sink, schema, options, Global)
    }
}

impl<'a, W: Write> FileWriter<'a, W, Global> {
    /// Starts an IPC file of batches of `schema` on `sink` with default
    /// options: writes the magic and the schema (arrow-rs:
    /// `FileWriter::try_new`).
    ///
    /// ```
    /// use alkaid::array::{Array, RecordBatch, StringArray};
    /// use alkaid::ipc::reader::FileReader;
    /// use alkaid::ipc::writer::FileWriter;
    ///
    /// let batch = RecordBatch::try_from_iter([("s", StringArray::from(vec!["a", "b"]).into_array_ref())])?;
    /// let mut w = FileWriter::try_new(Vec::new(), batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let bytes = w.into_inner();
    /// let mut reader = FileReader::try_new(&bytes)?;
    /// assert_eq!(reader.num_batches(), 1);
    /// assert_eq!(reader.batch(0)?, batch);
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`FileWriter::try_new_in`].
    pub fn try_new(sink: W, schema: &Schema<'a, Global>) -> Result<Self> {
        Self::try_new_in(sink, schema, IpcWriteOptions::default(), Global)
    }

    /// As [`Self::try_new`] with `options`.
    ///
    /// # Errors
    /// As [`FileWriter::try_new_in`].
    pub fn try_new_with_options(
        sink: W,
        schema: &Schema<'a, Global>,
        options: IpcWriteOptions,
    ) -> Result<Self> {
        Self::try_new_in(sink, schema, options, Global)
    }
}

impl<'a, R: Read> StreamReader<'a, R, Global> {
    /// Reads the schema message that opens the stream from `src` with default
    /// options (full validation, default limits); batches are read one at a
    /// time into the global heap.
    ///
    /// ```
    /// use alkaid::array::{Array, RecordBatch, UInt8Array};
    /// use alkaid::ipc::reader::StreamReader;
    /// use alkaid::ipc::writer::StreamWriter;
    ///
    /// let batch = RecordBatch::try_from_iter([("b", UInt8Array::from(vec![1, 2, 3]).into_array_ref())])?;
    /// let mut w = StreamWriter::try_new(Vec::new(), batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    /// let bytes = w.into_inner();
    /// // Any `embedded_io::Read`: a UART, a socket, here a byte slice.
    /// let mut reader = StreamReader::try_new(&bytes[..])?;
    /// assert_eq!(reader.schema(), batch.schema());
    /// assert_eq!(reader.next().transpose()?, Some(batch));
    /// assert!(reader.next().is_none());
    /// # Ok::<(), alkaid::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`StreamReader::try_new_in`].
    pub fn try_new(src: R) -> Result<Self> {
        Self::try_new_in(src, IpcReadOptions::default(), Global)
    }
}

impl<'b> SliceStreamReader<'b, Global> {
    /// Reads the schema message at the start of `input` with default options;
    /// batches' buffers point into `input` where aligned (zero copy).
    ///
    /// # Errors
    /// As [`SliceStreamReader::try_new_in`].
    pub fn try_new(input: &'b [u8]) -> Result<Self> {
        Self::try_new_in(input, IpcReadOptions::default(), Global)
    }
}

impl<'b> FileReader<'b, Global> {
    /// Checks the magic, decodes the footer, the schema and every dictionary
    /// of the IPC file in `input`, with default options; batches are read on
    /// demand, zero copy where aligned.
    ///
    /// # Errors
    /// As [`FileReader::try_new_in`].
    pub fn try_new(input: &'b [u8]) -> Result<Self> {
        Self::try_new_in(input, IpcReadOptions::default(), Global)
    }
}

impl<'a, R: Read + Seek> FileSeekReader<'a, R, Global> {
    /// Reads the footer, the schema and every dictionary of the IPC file in
    /// `src` (any `embedded_io::Read + Seek`) with default options.
    ///
    /// # Errors
    /// As [`FileSeekReader::try_new_in`].
    pub fn try_new(src: R) -> Result<Self> {
        Self::try_new_in(src, IpcReadOptions::default(), Global)
    }
}
