//! Rows of a record batch as a text table ([`TableDisplay`]).

use core::fmt::{self, Write};
use core::ops::Range;

use alkaid::allocator_api2::alloc::Allocator;
use alkaid::array::{ArrayRef, RecordBatch};
use alkaid::datatypes::Schema;

use super::value::write_value;

/// Displays rows of a record batch; see [`table`] and [`empty_table`].
#[derive(Debug)]
pub struct TableDisplay<'x, 'a, A: Allocator> {
    schema: &'x Schema<'a, A>,
    columns: &'x [ArrayRef<'a, A>],
    rows: Range<usize>,
}

/// Rows `rows` of `batch` (clamped to its rows) as a table: a header line of
/// column names, a rule, then one line per row, each slot rendered by
/// [`super::value`]; columns are left-aligned to their widest cell (in
/// characters) and separated by ` | ` (`-+-` in the rule). The last column
/// is not padded, so no line has trailing spaces. Every line ends with `\n`.
///
/// ```text
/// id | name  | score
/// ---+-------+------
/// 1  | alice | 1.5
/// 2  | null  | null
/// ```
///
/// The cells are rendered in memory first (to measure the columns): show
/// big batches a range of rows at a time.
pub fn table<'x, 'a, A: Allocator>(
    batch: &'x RecordBatch<'a, A>,
    rows: Range<usize>,
) -> TableDisplay<'x, 'a, A> {
    let end = rows.end.min(batch.num_rows());
    let start = rows.start.min(end);
    TableDisplay {
        schema: batch.schema(),
        columns: batch.columns(),
        rows: start..end,
    }
}

/// The header and rule of a table of `schema` without rows (what [`table`]
/// prints for zero rows).
pub fn empty_table<'x, 'a, A: Allocator>(schema: &'x Schema<'a, A>) -> TableDisplay<'x, 'a, A> {
    TableDisplay {
        schema,
        columns: &[],
        rows: 0..0,
    }
}

/// Writes one line of cells padded to `widths` (the last one unpadded).
fn write_line<W: Write>(f: &mut W, cells: &[String], widths: &[usize]) -> fmt::Result {
    let last = cells.len().saturating_sub(1);
    for (k, (cell, &w)) in cells.iter().zip(widths).enumerate() {
        if k > 0 {
            f.write_str(" | ")?;
        }
        f.write_str(cell)?;
        if k < last {
            for _ in cell.chars().count()..w {
                f.write_char(' ')?;
            }
        }
    }
    f.write_char('\n')
}

impl<A: Allocator> fmt::Display for TableDisplay<'_, '_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header: Vec<String> = self
            .schema
            .fields()
            .iter()
            .map(|c| c.name().to_string())
            .collect();
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        let mut lines = Vec::with_capacity(self.rows.len());
        for row in self.rows.clone() {
            let mut cells = Vec::with_capacity(header.len());
            for (k, col) in self.columns.iter().enumerate() {
                let mut cell = String::new();
                write_value(&mut cell, col, row, false)?;
                if let Some(w) = widths.get_mut(k) {
                    *w = (*w).max(cell.chars().count());
                }
                cells.push(cell);
            }
            lines.push(cells);
        }
        write_line(f, &header, &widths)?;
        for (k, &w) in widths.iter().enumerate() {
            if k > 0 {
                f.write_str("-+-")?;
            }
            for _ in 0..w {
                f.write_char('-')?;
            }
        }
        f.write_char('\n')?;
        for cells in &lines {
            write_line(f, cells, &widths)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use alkaid::array::{Array, PrimitiveArray, RecordBatch, StringArray};
    use alkaid::buffer::SharedSlice;
    use alkaid::datatypes::{DataType, Field, Schema};
    use alkaid::Global as G;

    use super::{empty_table, table};

    fn batch() -> RecordBatch<'static, G> {
        let ids = PrimitiveArray::<i32, G>::try_from_options_in(&[Some(1), Some(22), Some(333)], G)
            .unwrap();
        let names =
            StringArray::<G>::try_from_options_in(&[Some("ünï"), None, Some("x")], G).unwrap();
        let fields = SharedSlice::try_from_iter_in(
            [
                Field::new("id", DataType::Int32, false),
                Field::new("name", DataType::Utf8, true),
            ],
            G,
        )
        .unwrap();
        let cols = SharedSlice::try_from_iter_in([ids.into_array_ref(), names.into_array_ref()], G)
            .unwrap();
        RecordBatch::try_new(Schema::new(fields), cols).unwrap()
    }

    #[test]
    fn aligned_by_characters_without_trailing_spaces() {
        let b = batch();
        assert_eq!(
            table(&b, 0..3).to_string(),
            "id  | name\n\
             ----+-----\n\
             1   | ünï\n\
             22  | null\n\
             333 | x\n"
        );
        assert_eq!(
            table(&b, 1..99).to_string(),
            "id  | name\n----+-----\n22  | null\n333 | x\n"
        );
        assert_eq!(table(&b, 5..9).to_string(), "id | name\n---+-----\n");
        assert_eq!(
            empty_table(b.schema()).to_string(),
            "id | name\n---+-----\n"
        );
    }
}
