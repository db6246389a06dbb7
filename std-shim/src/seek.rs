//! [`FileSeekReader`]: the IPC file format read from a [`std::fs::File`]
//! by seeking, one batch at a time, without a memory map.

use std::fmt;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

use alkaid::array::RecordBatch;
use alkaid::datatypes::{Metadata, Schema};
use alkaid::ipc::reader::{self as core_reader, IpcReadOptions};
use alkaid::Global;

use crate::bridge::Tracked;
use crate::codecs::StdCodecs;
use crate::error::{Error, Result};

type Core<R> = core_reader::FileSeekReader<'static, Tracked<R>, Global, StdCodecs>;

/// Reads the IPC file format from a [`File`] by seeking: the footer, the
/// schema and the dictionaries when opened, then each record batch's body
/// when asked for (read into aligned memory: the batches own their buffers,
/// are `'static` and outlive the reader). Nothing is memory-mapped, so a
/// file that another process truncates gives an error, not a `SIGBUS` (see
/// [`crate::open_ipc`] for the mapped reader).
///
/// An [`Iterator`] over the batches not yet read, in order, that ends after
/// the first error; [`Self::batch`] reads any batch by index.
///
/// ```
/// use std::path::Path;
///
/// use alkaid_std::array::{Array, Int64Array, RecordBatch};
/// use alkaid_std::FileSeekReader;
///
/// /// Every batch of the IPC file at `path`: owned, so they outlive the
/// /// reader and the open file.
/// fn load(path: &Path) -> Result<Vec<RecordBatch<'static>>, alkaid_std::Error> {
///     FileSeekReader::open(path)?.collect()
/// }
///
/// let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
/// let path = std::env::temp_dir().join(format!("seek-doc-{}.arrow", std::process::id()));
/// let mut w = alkaid_std::create_file(&path, batch.schema(), Default::default())?;
/// w.write(&batch)?;
/// w.write(&batch)?;
/// w.finish()?;
/// drop(w);
///
/// assert_eq!(load(&path)?, [batch.clone(), batch.clone()]);
///
/// // Random access by index; `num_batches` comes from the footer.
/// let mut reader = FileSeekReader::open(&path)?;
/// assert_eq!(reader.num_batches(), 2);
/// assert_eq!(reader.batch(1)?, batch);
/// # std::fs::remove_file(&path)?;
/// # Ok::<(), alkaid_std::Error>(())
/// ```
pub struct FileSeekReader {
    inner: Core<Arc<File>>,
    /// The index of the batch the iterator returns next.
    next: usize,
}

impl FileSeekReader {
    /// Opens the IPC file at `path` with the default options (full
    /// validation, default limits); see [`Self::try_new`].
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be opened; as [`Self::try_new`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, IpcReadOptions::default())
    }

    /// [`Self::open`] with explicit options.
    ///
    /// # Errors
    /// As [`Self::open`].
    pub fn open_with(path: impl AsRef<Path>, options: IpcReadOptions) -> Result<Self> {
        Self::try_new(File::open(path.as_ref())?, options)
    }

    /// Reads the magic, the footer, the schema and every dictionary of the
    /// IPC file `file` (from its start, whatever its current position).
    ///
    /// ```
    /// # use alkaid_std::array::{Array, Int64Array, RecordBatch};
    /// # let batch = RecordBatch::try_from_iter([("v", Int64Array::from(vec![7, 8]).into_array_ref())])?;
    /// use alkaid_std::{FileSeekReader, FileWriter, IpcReadOptions};
    ///
    /// let path = std::env::temp_dir().join(format!("seek-new-{}.arrow", std::process::id()));
    /// let mut w = FileWriter::try_new(std::fs::File::create(&path)?, batch.schema())?;
    /// w.write(&batch)?;
    /// w.finish()?;
    ///
    /// let reader = FileSeekReader::try_new(std::fs::File::open(&path)?, IpcReadOptions::default())?;
    /// assert_eq!(reader.schema(), batch.schema());
    /// assert_eq!(reader.num_batches(), 1);
    ///
    /// // A stream is not a file: the magic is missing.
    /// let mut s = alkaid_std::create_stream(&path, batch.schema(), Default::default())?;
    /// s.finish()?;
    /// drop(s);
    /// let err = FileSeekReader::open(&path).unwrap_err();
    /// assert_eq!(err.as_arrow(), Some(alkaid::Error::InvalidMagic));
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), alkaid_std::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`alkaid::Error::InvalidMagic`] when the file does not start and end
    /// with `ARROW1` (or `ALKAID1`); [`alkaid::Error::InvalidFooter`],
    /// [`alkaid::Error::InvalidFlatbuffer`], [`alkaid::Error::LimitExceeded`]
    /// and the other errors of the core's
    /// [`FileSeekReader`](alkaid::ipc::reader::FileSeekReader) for a
    /// malformed footer, schema or dictionary; [`Error::Io`] when a read or
    /// seek fails.
    pub fn try_new(file: File, options: IpcReadOptions) -> Result<Self> {
        let file = Arc::new(file);
        match Core::try_new_with_codecs_in(
            Tracked::new(Arc::clone(&file)),
            options,
            StdCodecs::default(),
            Global,
        ) {
            Ok(inner) => Ok(FileSeekReader { inner, next: 0 }),
            // The core dropped its source, and the operating system's
            // error kept there: read the start once more through an adapter
            // that stays here, to return that error with its cause.
            Err(alkaid::Error::Io) => {
                let mut again = Tracked::new(&*file);
                let e = core_reader::FileSeekReader::try_new_with_codecs_in(
                    &mut again,
                    options,
                    StdCodecs::default(),
                    Global,
                )
                .err()
                .unwrap_or(alkaid::Error::Io);
                Err(again.lift(e))
            }
            Err(e) => Err(Error::Arrow(e)),
        }
    }

    /// The file's schema.
    pub fn schema(&self) -> &Schema<'static, Global> {
        self.inner.schema()
    }

    /// The number of record batches (from the footer).
    pub fn num_batches(&self) -> usize {
        self.inner.num_batches()
    }

    /// Custom metadata of the record batch last read
    /// (`Message.custom_metadata`); empty when it has none.
    pub fn batch_metadata(&self) -> &Metadata<'static, Global> {
        self.inner.batch_metadata()
    }

    /// Reads record batch `i` (zero-based, in file order), whatever the
    /// iterator's position; its body is read into memory, at most the bytes
    /// the file holds before its footer.
    ///
    /// # Errors
    /// [`alkaid::Error::OutOfBounds`] when `i >= num_batches()`; the core's
    /// errors for a malformed message or body and the validation errors
    /// (batches are validated fully unless the options said otherwise);
    /// [`Error::Io`] when a read or seek fails.
    pub fn batch(&mut self, i: usize) -> Result<RecordBatch<'static, Global>> {
        self.inner
            .batch(i)
            .map_err(|e| self.inner.get_mut().lift(e))
    }

    /// The next record batch of the iteration, `None` after the last one;
    /// after an error the iteration ends.
    ///
    /// # Errors
    /// As [`Self::batch`].
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch<'static, Global>>> {
        if self.next >= self.num_batches() {
            return Ok(None);
        }
        let b = self.batch(self.next);
        self.next = if b.is_ok() {
            self.next + 1
        } else {
            self.num_batches()
        };
        b.map(Some)
    }
}

impl Iterator for FileSeekReader {
    type Item = Result<RecordBatch<'static, Global>>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}

impl fmt::Debug for FileSeekReader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileSeekReader")
            .field("num_batches", &self.num_batches())
            .field("next", &self.next)
            .finish()
    }
}
