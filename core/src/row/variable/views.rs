//! Decoding BinaryView and Utf8View columns (see [`super`] for the
//! encoding), through per-row cursors ([`decode_view`]) or whole rows (a
//! converter of one view column): one pass that appends each value and
//! makes its view while it is hot (see `decode_views`).

use allocator_api2::alloc::Allocator;

use super::columns::decoded_total;
use super::{decode_ordered_with, read_unordered, BlockSink};
use crate::array::{ByteArrayNativeType, ByteView, ByteViewType, GenericByteViewArray};
use crate::buffer::{Appender, BooleanBuffer, MutableBuffer, NullBuffer, SharedSlice};
use crate::error::{Error, ErrorKind, Result};
use crate::row::variable::BLOCK_SIZE;
use crate::row::SortOptions;

/// Decodes a BinaryView/Utf8View column from the front of each row,
/// advancing the rows. `trusted`: an encoder of the same fields wrote
/// every byte of the rows (see `row/provenance.rs`), so Utf8View values
/// are not checked to be UTF-8.
///
/// One pass: each value is decoded into the data buffer and its view made
/// while it is hot. A value of at most 12 bytes lives in its view only (the
/// data buffer's position goes back to its start), a longer one stays in
/// the data buffer, referenced by offset. The data buffer is sized for all
/// the value bytes by an exact pass over the rows.
///
/// # Errors
/// As [`super::decode`].
pub(crate) fn decode_view<'a, T: ByteViewType, A: Allocator + Clone>(
    rows: &mut [&[u8]],
    opts: SortOptions,
    unordered: bool,
    trusted: bool,
    alloc: &A,
) -> Result<GenericByteViewArray<'a, T, A>> {
    let utf8 = T::Native::IS_UTF8 && !trusted;
    let n = rows.len();
    let total = decoded_total(rows, opts, unordered);
    let decoded = fill_views(rows, n, opts, unordered, utf8, total, alloc)?;
    into_array(decoded, alloc)
}

/// The view array of [`fill_views`]' buffers.
///
/// # Errors
/// [`Error::AllocationFailed`].
fn into_array<'a, T: ByteViewType, A: Allocator + Clone>(
    decoded: DecodedViews<A>,
    alloc: &A,
) -> Result<GenericByteViewArray<'a, T, A>> {
    let (views, values, nulls) = decoded;
    let mut data = (!values.is_empty()).then(|| values.into_buffer());
    let count = usize::from(data.is_some());
    let buffers = SharedSlice::try_from_fn_in(count, alloc.clone(), |_| {
        data.take().ok_or(Error::OutOfBounds)
    })?;
    // SAFETY: `fill_views` made every view: inline ones hold the value's
    // length and bytes, zero padded; the others reference buffer 0 (the
    // data buffer, present whenever such a view was made) at the value's
    // offset, with its length and first 4 bytes, inside the buffer; null
    // slots are the empty inline view; the validity is the decoder's, of
    // one bit per row; for Utf8View every value is UTF-8: either checked
    // (`fill_views` is called with `utf8` set to `T`'s: inline ones one by
    // one, the data buffer whole, or found to be all ASCII, with every
    // value's start on a character boundary), or, `trusted`, decoded from
    // rows that an encoder of the same fields wrote from valid strings
    // (the round trip gives back exactly the values encoded).
    Ok(unsafe { GenericByteViewArray::new_unchecked(views.into_buffer(), buffers, nulls) })
}

/// Decoded views, data buffer and validity.
type DecodedViews<A> = (
    MutableBuffer<A>,
    MutableBuffer<A>,
    Option<NullBuffer<'static, A>>,
);

/// Decodes the value at the front of each of the `n` rows `rows` into its
/// view (see [`decode_view`]), advancing the rows past their values, with
/// a data buffer of `total + BLOCK_SIZE` bytes (a malformed row that needs
/// more is an error). `utf8`: every value must be UTF-8.
///
/// # Errors
/// As [`decode_ordered_with`]; [`Error::InvalidUtf8`];
/// [`Error::CapacityOverflow`] when an offset or length exceeds `i32`;
/// [`Error::AllocationFailed`]; [`Error::InvalidRow`] for more or fewer
/// rows than `n`.
fn fill_views<A: Allocator + Clone>(
    rows: &mut [&[u8]],
    n: usize,
    opts: SortOptions,
    unordered: bool,
    utf8: bool,
    total: usize,
    alloc: &A,
) -> Result<DecodedViews<A>> {
    let room = total
        .checked_add(BLOCK_SIZE)
        .ok_or(Error::CapacityOverflow)?;
    let view_bytes = n
        .checked_mul(ByteView::SIZE)
        .ok_or(Error::CapacityOverflow)?;
    let mut values = MutableBuffer::new_in(alloc.clone());
    let mut views = MutableBuffer::new_in(alloc.clone());
    let mut validity = MutableBuffer::new_in(alloc.clone());
    validity.try_extend_zeros(n.div_ceil(8))?;
    let bits = validity.as_slice_mut();
    // Views and values are written once each, in order, into room that is
    // not zeroed first.
    let filled = values.try_extend_appended(room, |w| {
        views.try_extend_appended(view_bytes, |v| {
            let null = opts.null_sentinel();
            if unordered {
                view_rows(rows, w, v, bits, utf8, |row, sink| {
                    let Some(value) = read_unordered(row)? else {
                        return Ok(false);
                    };
                    sink.unordered(value)?;
                    Ok(true)
                })
            } else if opts.descending {
                view_rows(rows, w, v, bits, utf8, |row, sink| {
                    decode_ordered_with(row, null, 0xFF, sink)
                })
            } else {
                view_rows(rows, w, v, bits, utf8, |row, sink| {
                    decode_ordered_with(row, null, 0, sink)
                })
            }
        })
    })?;
    let Some(filled) = filled else {
        return Err(Error::InvalidRow);
    };
    if views.len() != view_bytes {
        return Err(Error::InvalidRow);
    }
    if utf8 && (filled.bad_utf8 || !is_utf8(values.as_slice())) {
        return Err(Error::InvalidUtf8);
    }
    let nulls = if filled.nulls == 0 {
        None
    } else {
        let bits = BooleanBuffer::try_new(validity.into_buffer(), 0, n)?;
        Some(NullBuffer::try_new_with_count(bits, filled.nulls)?)
    };
    Ok((views, values, nulls))
}

/// The high bit of each of 16 bytes.
const HIGH_BITS: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;

/// Whether `bytes` are UTF-8: all ASCII (the common case, checked several
/// times faster than `from_utf8` checks it), else as `from_utf8` says.
#[inline]
fn is_utf8(bytes: &[u8]) -> bool {
    bytes.is_ascii() || core::str::from_utf8(bytes).is_ok()
}

/// What [`view_rows`] found besides the views.
struct Filled {
    /// Null rows.
    nulls: usize,
    /// A value was found not to be UTF-8 (an inline one, or a long one
    /// that starts with a continuation byte).
    bad_utf8: bool,
}

/// A value's bytes appended to the data buffer, its first 16 bytes kept
/// (zero padded) for its view.
struct ViewSink<'w, 'b> {
    w: &'w mut Appender<'b>,
    head: [u8; 16],
    started: bool,
}

impl ViewSink<'_, '_> {
    /// Keeps the first 16 bytes of the value's first block.
    #[inline(always)]
    fn keep_head(&mut self, block: &[u8; BLOCK_SIZE]) {
        if !self.started {
            if let Some(h) = block.first_chunk() {
                self.head = *h;
            }
            self.started = true;
        }
    }

    /// Appends a whole unordered value.
    #[inline(always)]
    fn unordered(&mut self, value: &[u8]) -> Result<()> {
        let k = value.len().min(16);
        if let (Some(h), Some(v)) = (self.head.get_mut(..k), value.get(..k)) {
            h.copy_from_slice(v);
        }
        self.w.put_slice(value)
    }
}

impl BlockSink for ViewSink<'_, '_> {
    #[inline(always)]
    fn block(&mut self, block: &[u8; BLOCK_SIZE]) -> Result<()> {
        self.keep_head(block);
        self.w.put(block)
    }

    #[inline(always)]
    fn last(&mut self, block: &[u8; BLOCK_SIZE], n: usize) -> Result<()> {
        // The padding past `n` is zero: the head of a short value is its
        // bytes zero padded.
        self.keep_head(block);
        self.w.put_prefix(block, n)
    }
}

/// The loop of [`fill_views`]: decodes each row's value with `decode`
/// (`false` for a null) into `w`, its view into `v` and its validity bit
/// into `bits` (see [`Filled`]; `utf8`: inline values checked, long values'
/// first bytes checked to start a character); `None` when the room runs
/// out.
///
/// # Errors
/// As `decode` (not [`Error::OutOfBounds`]); [`Error::CapacityOverflow`]
/// when an offset or length exceeds `i32`.
#[inline(always)]
fn view_rows<'r, F>(
    rows: &mut [&'r [u8]],
    w: &mut Appender<'_>,
    v: &mut Appender<'_>,
    bits: &mut [u8],
    utf8: bool,
    decode: F,
) -> Result<Option<Filled>>
where
    F: Fn(&mut &'r [u8], &mut ViewSink<'_, '_>) -> Result<bool>,
{
    let base = w.pos();
    let mut null_count = 0usize;
    let mut bad_utf8 = false;
    for (i, row) in rows.iter_mut().enumerate() {
        let mut r: &'r [u8] = row;
        let start = w.pos();
        let mut sink = ViewSink {
            w,
            head: [0; 16],
            started: false,
        };
        let valid = match decode(&mut r, &mut sink) {
            Err(e) if e.kind() == ErrorKind::OutOfBounds => return Err(Error::InvalidRow),
            d => d?,
        };
        let head = sink.head;
        *row = r;
        if !valid {
            null_count += 1;
            v.put(&[0u8; 16])?;
            continue;
        }
        if let Some(b) = bits.get_mut(i / 8) {
            *b |= 1 << (i % 8);
        }
        let len = w.pos() - start;
        let length = i32::try_from(len).map_err(|_| Error::CapacityOverflow)?;
        let view = if len <= ByteView::MAX_INLINE_LEN {
            // The value lives in its view only.
            w.rewind(start)?;
            let data = u128::from_le_bytes(head);
            if utf8 && data & HIGH_BITS != 0 {
                // `len <= 12` bytes of the 16.
                bad_utf8 |= head
                    .get(..len)
                    .is_none_or(|h| core::str::from_utf8(h).is_err());
            }
            let mut view = (data << 32).to_le_bytes();
            if let Some(l) = view.first_chunk_mut::<4>() {
                *l = length.to_ne_bytes();
            }
            view
        } else {
            let offset = i32::try_from(start - base).map_err(|_| Error::CapacityOverflow)?;
            let [p0, p1, p2, p3, ..] = head;
            // A value starting with a continuation byte starts inside a
            // character.
            bad_utf8 |= utf8 && (p0 & 0xC0) == 0x80;
            // Built in registers (no stores of parts read back whole).
            let [l0, l1, l2, l3] = length.to_ne_bytes();
            let [o0, o1, o2, o3] = offset.to_ne_bytes();
            [l0, l1, l2, l3, p0, p1, p2, p3, 0, 0, 0, 0, o0, o1, o2, o3]
        };
        v.put(&view)?;
    }
    Ok(Some(Filled {
        nulls: null_count,
        bad_utf8,
    }))
}

#[cfg(test)]
mod tests {
    use std::vec::Vec;

    use crate::Global;

    use super::*;
    use crate::array::{Array, ArrayRef};
    use crate::datatypes::DataType;
    use crate::row::test_model::one_column_converter as converter;
    use crate::row::{Row, RowConverter, RowEncoding};

    type G = Global;

    /// Rows gathered one by one (`convert_rows`).
    fn whole(c: &RowConverter<'static, G>, rows: &[&[u8]]) -> Result<ArrayRef<'static, G>> {
        let cols = c.convert_rows(rows.iter().map(|r| Row::new(r)))?;
        Ok(cols.first().unwrap().clone())
    }

    /// Decoded views are the ones a builder makes: inline views (0 to 12
    /// bytes, the last rows too, read near the end of the bytes) zero
    /// padded, longer ones pointing into the one data buffer; the array
    /// passes full validation and holds the values, both view types, ordered
    /// (both directions) and unordered.
    #[test]
    fn decoded_views_validate() {
        use crate::array::{StringViewArray, ValidationLevel};
        let words: Vec<std::string::String> = (0..40)
            .map(|i| {
                (0..(i * 5) % 31)
                    .map(|j| char::from(b'a' + ((i + j) % 26) as u8))
                    .collect()
            })
            .collect();
        let mut opts: Vec<Option<&str>> = words.iter().map(|w| Some(w.as_str())).collect();
        opts[3] = None;
        let long = "long value: more than two 32-byte blocks of it, é and ü too";
        opts.push(Some(long));
        // Inline and not ASCII: checked as UTF-8 on its own.
        opts.push(Some("ü é"));
        opts.push(Some("tail"));
        let bytes: Vec<Option<&[u8]>> = opts.iter().map(|o| o.map(str::as_bytes)).collect();
        let strings = StringViewArray::<G>::try_from_options_in(&opts, Global)
            .unwrap()
            .into_array_ref();
        let binary = crate::array::BinaryViewArray::<G>::try_from_options_in(&bytes, Global)
            .unwrap()
            .into_array_ref();
        for (dt, col) in [
            (DataType::Utf8View, strings),
            (DataType::BinaryView, binary),
        ] {
            for (o, enc) in [
                (SortOptions::default(), RowEncoding::Ordered),
                (SortOptions::new(true, false), RowEncoding::Ordered),
                (SortOptions::default(), RowEncoding::Unordered),
            ] {
                let mut c = converter(dt.clone(), o, enc);
                let rows = c.convert_columns(core::slice::from_ref(&col)).unwrap();
                for back in [
                    c.convert_all_rows(&rows).unwrap(),
                    c.convert_rows(rows.iter()).unwrap(),
                ] {
                    back[0].validate(ValidationLevel::Full).unwrap();
                    assert!(back[0] == col, "{dt:?} {o:?} {enc:?}");
                }
            }
        }
    }

    /// Binary rows decoded as Utf8View: invalid UTF-8 in an inline value,
    /// in a long one, and long values that are UTF-8 only back to back
    /// (one starts with a continuation byte) are errors, both directions;
    /// valid ones decode.
    #[test]
    fn view_utf8_is_checked() {
        let a13 = [b'a'; 13];
        let mut split_end = a13.to_vec();
        split_end.push(0xC3);
        let mut split_start = std::vec![0xA9];
        split_start.extend_from_slice(&a13);
        let cases: [(&[&[u8]], bool); 5] = [
            (&[b"ok", "é and more than 12".as_bytes()], true),
            (&[b"ok", b"\xFF"], false),
            (&[b"\xC3\xA9abc\xC3", b"fine"], false),
            (
                &[
                    &a13,
                    b"a very long one \xFF with more text after it to pass 32",
                ],
                false,
            ),
            (&[&split_end, &split_start], false),
        ];
        for (values, ok) in cases {
            let col = crate::array::BinaryViewArray::<G>::try_from_options_in(
                &values.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
                Global,
            )
            .unwrap()
            .into_array_ref();
            for o in [SortOptions::default(), SortOptions::new(true, false)] {
                let mut b = converter(DataType::BinaryView, o, RowEncoding::Ordered);
                let rows = b.convert_columns(core::slice::from_ref(&col)).unwrap();
                let raw: Vec<&[u8]> = rows.iter().map(|r| r.data()).collect();
                let c = converter(DataType::Utf8View, o, RowEncoding::Ordered);
                for got in [
                    whole(&c, &raw),
                    c.convert_all_rows(&rows).map(|c| c[0].clone()),
                ] {
                    match got {
                        Ok(a) => {
                            assert!(ok, "{values:?} {o:?}");
                            a.validate(crate::array::ValidationLevel::Full).unwrap();
                        }
                        Err(e) => {
                            assert!(!ok, "{values:?} {o:?} {e:?}");
                            assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
                        }
                    }
                }
            }
        }
    }

    /// Utf8View: one byte that is not ASCII, at any place of an inline or
    /// a long value (first or later block, either half), is found; valid
    /// UTF-8 of several bytes per character decodes; both directions and
    /// both encodings.
    #[test]
    fn views_find_each_byte_that_is_not_utf8() {
        for (opts, enc) in [
            (SortOptions::default(), RowEncoding::Ordered),
            (SortOptions::new(true, false), RowEncoding::Ordered),
            (SortOptions::default(), RowEncoding::Unordered),
        ] {
            let mut binary = converter(DataType::BinaryView, opts, enc);
            let c = converter(DataType::Utf8View, opts, enc);
            for len in [5, 12, 40, 70] {
                for at in 0..len {
                    let mut v = std::vec![b'a'; len];
                    v[at] = 0xFF;
                    let values: [Option<&[u8]>; 3] =
                        [Some(b"fine, and long enough"), Some(&v), None];
                    let col =
                        crate::array::BinaryViewArray::<G>::try_from_options_in(&values, Global)
                            .unwrap()
                            .into_array_ref();
                    let rows = binary.convert_columns(core::slice::from_ref(&col)).unwrap();
                    let e = c.convert_all_rows(&rows).map(|_| ()).unwrap_err();
                    assert_eq!(e.kind(), ErrorKind::InvalidUtf8, "{len} {at}");
                    v[at] = b'a';
                    v.splice(at..at, "é".bytes());
                    let s = std::string::String::from_utf8(v).unwrap();
                    let strings = crate::array::StringViewArray::<G>::try_from_options_in(
                        &[Some(s.as_str()), None],
                        Global,
                    )
                    .unwrap()
                    .into_array_ref();
                    let mut c2 = converter(DataType::Utf8View, opts, enc);
                    let rows = c2.convert_columns(core::slice::from_ref(&strings)).unwrap();
                    assert!(c.convert_all_rows(&rows).unwrap()[0] == strings);
                    assert!(c.convert_rows(rows.iter()).unwrap()[0] == strings);
                }
            }
        }
    }
}
