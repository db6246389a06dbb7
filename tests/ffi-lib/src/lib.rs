//! A test-only shared library (`cdylib`) that Python loads with `ctypes`
//! (`tests/python/ffi_interop.py`, run by `scripts/test.sh interop`) to
//! exchange arrays and streams with pyarrow, polars and DuckDB through the
//! C Data Interface, in one process.
//!
//! Every function returns 0 on success or an `errno`-compatible code
//! (`alkaid::ffi::error_code`), and takes the addresses of structs that the
//! caller allocated (`ArrowArrayStream`, `ArrowArray`, `ArrowSchema`).

#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, CStr};

use alkaid::array::{Array, ArrayRef, RecordBatch};
use alkaid::ffi::{
    error_code, export_array_in, import_array_in, ArrowArrayStreamReader, FFI_ArrowArray,
    FFI_ArrowArrayStream, FFI_ArrowSchema, EINVAL, EIO,
};
use alkaid::Global;

/// The path argument as UTF-8.
fn path_of<'p>(path: *const c_char) -> Result<&'p str, c_int> {
    if path.is_null() {
        return Err(EINVAL);
    }
    // SAFETY: the caller passes a NUL-terminated path.
    unsafe { CStr::from_ptr(path) }.to_str().map_err(|_| EINVAL)
}

/// The batches and schema of the IPC file at `path`, read by alkaid (the
/// batches keep the file's mapping alive).
fn read_file(
    path: *const c_char,
) -> Result<
    (
        alkaid::datatypes::Schema<'static, Global>,
        Vec<RecordBatch<'static, Global>>,
    ),
    c_int,
> {
    let input = alkaid_std::open_ipc(path_of(path)?).map_err(|_| EIO)?;
    let reader = input.reader().map_err(|_| EIO)?;
    let schema = reader.schema().clone();
    let batches = reader
        .collect::<alkaid_std::Result<Vec<_>>>()
        .map_err(|_| EIO)?;
    Ok((schema, batches))
}

/// Exports the batches of the IPC file at `path` as a stream into `out`
/// (`alkaid_std::IpcInput::to_ffi_stream`: batches read as pulled).
#[no_mangle]
pub unsafe extern "C" fn alkaid_test_export_file_stream(
    path: *const c_char,
    out: *mut FFI_ArrowArrayStream,
) -> c_int {
    let path = match path_of(path) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let stream = alkaid_std::open_ipc(path).and_then(|input| input.to_ffi_stream());
    match stream {
        Ok(s) => {
            // SAFETY: `out` is the caller's struct to fill.
            unsafe { out.write(s) };
            0
        }
        Err(_) => EIO,
    }
}

/// Exports column `column` of batch 0 of the IPC file at `path` into
/// `out_array` / `out_schema`, and writes the address of its last buffer
/// (the values of a primitive column) to `address`.
#[no_mangle]
pub unsafe extern "C" fn alkaid_test_export_column(
    path: *const c_char,
    column: usize,
    out_array: *mut FFI_ArrowArray,
    out_schema: *mut FFI_ArrowSchema,
    address: *mut usize,
) -> c_int {
    let (schema, batches) = match read_file(path) {
        Ok(x) => x,
        Err(e) => return e,
    };
    let (Some(batch), Some(field)) = (batches.first(), schema.field(column)) else {
        return EINVAL;
    };
    let Some(col) = batch.column(column) else {
        return EINVAL;
    };
    match export_array_in(field, col, Global) {
        Ok((a, s)) => {
            // SAFETY: the exporter made `n_buffers` entries.
            let last = unsafe { *a.buffers.add(a.n_buffers as usize - 1) };
            // SAFETY: the caller's structs to fill.
            unsafe {
                address.write(last as usize);
                out_array.write(a);
                out_schema.write(s);
            }
            0
        }
        Err(e) => error_code(e),
    }
}

/// Imports an array and its schema (e.g. from pyarrow's `_export_to_c`),
/// validates it, writes its length to `len` and the address of its values
/// buffer (primitive arrays) to `address`; the array is then dropped, which
/// releases the producer's struct.
#[no_mangle]
pub unsafe extern "C" fn alkaid_test_import_array(
    array: *mut FFI_ArrowArray,
    schema: *mut FFI_ArrowSchema,
    len: *mut usize,
    address: *mut usize,
) -> c_int {
    if array.is_null() || schema.is_null() {
        return EINVAL;
    }
    // SAFETY: the caller hands over its live structs: the array is moved
    // out (its slot left released), the schema is read and then released.
    let a = unsafe { array.replace(FFI_ArrowArray::empty()) };
    // SAFETY: as above, for the schema.
    let s = unsafe { schema.replace(FFI_ArrowSchema::empty()) };
    // SAFETY: structs from a C Data Interface producer.
    match unsafe { import_array_in(a, &s, Global) } {
        Ok((_, a)) => {
            let values = match &a {
                ArrayRef::Int64(p) => p.values().as_ptr() as usize,
                ArrayRef::Int32(p) => p.values().as_ptr() as usize,
                ArrayRef::Float64(p) => p.values().as_ptr() as usize,
                _ => 0,
            };
            // SAFETY: the caller's out parameters.
            unsafe {
                len.write(a.len());
                address.write(values);
            }
            0
        }
        Err(e) => error_code(e),
    }
}

/// Imports a stream (e.g. from pyarrow's `RecordBatchReader._export_to_c`)
/// and writes its batches as an IPC file at `path` with alkaid's writer.
#[no_mangle]
pub unsafe extern "C" fn alkaid_test_import_stream_to_file(
    stream: *mut FFI_ArrowArrayStream,
    path: *const c_char,
) -> c_int {
    if stream.is_null() || path.is_null() {
        return EINVAL;
    }
    // SAFETY: the caller hands over its live stream (its slot is left
    // released) and a NUL-terminated path.
    let s = unsafe { stream.replace(FFI_ArrowArrayStream::empty()) };
    let Ok(path) = path_of(path) else {
        return EINVAL;
    };
    // SAFETY: a stream from a C Stream Interface producer.
    let reader = match unsafe { ArrowArrayStreamReader::try_new_in(s, Global) } {
        Ok(r) => r,
        Err(e) => return error_code(e),
    };
    let mut w = match alkaid_std::create_file(path, reader.schema(), Default::default()) {
        Ok(w) => w,
        Err(_) => return EIO,
    };
    for b in reader {
        let b = match b {
            Ok(b) => b,
            Err(e) => return error_code(e),
        };
        if w.write(&b).is_err() {
            return EIO;
        }
    }
    if w.finish().is_err() {
        return EIO;
    }
    0
}
