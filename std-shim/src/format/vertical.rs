//! Rows of a record batch one field per line ([`write_vertical`]), as
//! psql's expanded display (`\x`), for tables too wide for the terminal.

use core::fmt::{self, Write};
use core::ops::Range;

use alkaid::allocator_api2::alloc::Allocator;
use alkaid::array::RecordBatch;

use super::table::clip;
use super::value::write_value;

/// Writes rows `rows` of `batch` (clamped to its rows) vertically: for each
/// row a header line `-[ row N ]-` (`N` counts from `first`, 1 for the
/// first row of a stream), then one line `name: value` per column, each
/// value rendered by [`super::value`] and cut (as column names are) to
/// `max` characters with `…` (`None`: no limit). Every line ends with `\n`.
///
/// ```
/// use alkaid_std::array::{Array, Int64Array, RecordBatch, StringArray};
/// use alkaid_std::format::write_vertical;
///
/// let batch = RecordBatch::try_from_iter([
///     ("id", Int64Array::from(vec![1, 2]).into_array_ref()),
///     ("name", StringArray::from(vec![Some("alice"), None]).into_array_ref()),
/// ])?;
/// let mut out = String::new();
/// write_vertical(&mut out, &batch, 0..2, 1, None)?;
/// assert_eq!(out, "-[ row 1 ]-\nid: 1\nname: alice\n-[ row 2 ]-\nid: 2\nname: null\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// The error of `out`.
pub fn write_vertical<W: Write, A: Allocator>(
    out: &mut W,
    batch: &RecordBatch<'_, A>,
    rows: Range<usize>,
    first: usize,
    max: Option<usize>,
) -> fmt::Result {
    let end = rows.end.min(batch.num_rows());
    let start = rows.start.min(end);
    let names: Vec<String> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| clip(f.name().to_string(), max))
        .collect();
    let mut cell = String::new();
    for row in start..end {
        writeln!(out, "-[ row {} ]-", first.saturating_add(row - start))?;
        for (name, column) in names.iter().zip(batch.columns()) {
            cell.clear();
            write_value(&mut cell, column, row, false)?;
            let shown = clip(core::mem::take(&mut cell), max);
            writeln!(out, "{name}: {shown}")?;
            cell = shown;
        }
    }
    Ok(())
}
