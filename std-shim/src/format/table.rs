//! Rows of record batches as a text table: [`TableWriter`] prints a header
//! once and then any number of row ranges with column widths that only grow;
//! [`table`] and [`empty_table`] display one range.

use core::fmt::{self, Write};
use core::ops::Range;

use alkaid::allocator_api2::alloc::Allocator;
use alkaid::array::{ArrayRef, RecordBatch};
use alkaid::datatypes::{DataType, Schema};

use super::value::write_value;

/// The widest a cell is printed by default, in characters; longer cells are
/// cut to this width with `…` as their last character.
pub const DEFAULT_MAX_CELL_WIDTH: usize = 40;

/// Whether a column of type `dt` holds numbers (printed right-aligned).
fn is_numeric<A: Allocator>(dt: &DataType<'_, A>) -> bool {
    use DataType::*;
    matches!(
        dt,
        Int8 | Int16
            | Int32
            | Int64
            | UInt8
            | UInt16
            | UInt32
            | UInt64
            | Float16
            | Float32
            | Float64
            | Decimal32(..)
            | Decimal64(..)
            | Decimal128(..)
            | Decimal256(..)
    )
}

/// `cell` cut to at most `max` characters (`None`: no limit), the last one
/// `…` when it was cut.
pub(super) fn clip(mut cell: String, max: Option<usize>) -> String {
    if let Some(max) = max {
        if cell.chars().count() > max {
            let keep = cell
                .char_indices()
                .nth(max.saturating_sub(1))
                .map_or(cell.len(), |(at, _)| at);
            cell.truncate(keep);
            if max > 0 {
                cell.push('…');
            }
        }
    }
    cell
}

/// Prints record batches of one schema as a single text table.
///
/// The header (column names, then a rule) is printed once, by the first
/// [`write_rows`](Self::write_rows) or by [`finish`](Self::finish) when no
/// row came. Each call measures its rows (in characters) and widens columns
/// whose cells are wider, so columns keep their width from one call to the
/// next and only grow (up to the cell limit). Numeric columns (integers,
/// floats, decimals) are right-aligned, the others left-aligned; columns are
/// separated by ` | ` (`-+-` in the rule); no line has trailing spaces.
///
/// ```
/// use alkaid_std::array::{Array, Int64Array, RecordBatch, StringArray};
/// use alkaid_std::format::TableWriter;
///
/// let batch = |ids: Vec<i64>, names: Vec<Option<&str>>| {
///     RecordBatch::try_from_iter([
///         ("id", Int64Array::from(ids).into_array_ref()),
///         ("name", StringArray::from(names).into_array_ref()),
///     ])
/// };
/// let first = batch(vec![1, 2], vec![Some("a"), None])?;
/// let second = batch(vec![300], vec![Some("a rather long name, cut at 12")])?;
/// let mut table = TableWriter::new(first.schema(), Some(12));
/// let mut out = String::new();
/// table.write_rows(&mut out, &first, 0..2)?;
/// table.write_rows(&mut out, &second, 0..1)?;
/// assert_eq!(
///     out,
///     "id | name\n\
///      ---+-----\n \
///       1 | a\n \
///       2 | null\n\
///      300 | a rather lo…\n"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct TableWriter {
    header: Vec<String>,
    right: Vec<bool>,
    widths: Vec<usize>,
    max: Option<usize>,
    line_width: Option<usize>,
    /// The columns printed, in order (`None` for the gap of elided ones),
    /// chosen when the header is written.
    layout: Vec<Option<usize>>,
    started: bool,
}

impl TableWriter {
    /// A table of `schema`'s columns whose cells are at most
    /// `max_cell_width` characters wide (`None`: no limit;
    /// [`DEFAULT_MAX_CELL_WIDTH`] is a good default). Column names are cut
    /// the same way.
    pub fn new<A: Allocator>(schema: &Schema<'_, A>, max_cell_width: Option<usize>) -> Self {
        let fields = schema.fields();
        let header: Vec<String> = fields
            .iter()
            .map(|c| clip(c.name().to_string(), max_cell_width))
            .collect();
        TableWriter {
            widths: header.iter().map(|h| h.chars().count()).collect(),
            right: fields.iter().map(|c| is_numeric(c.data_type())).collect(),
            header,
            max: max_cell_width,
            line_width: None,
            layout: Vec::new(),
            started: false,
        }
    }

    /// Fits lines to `width` characters (`None`: no limit, the default) by
    /// eliding whole columns from the middle: the first and last columns
    /// are kept, then the second and the second-to-last and so on while
    /// they fit, and one `…` column stands for those left out. The columns
    /// are chosen from the widths of the first rows written (columns that
    /// widen later may make lines longer than `width`); at least the first
    /// column is always shown. [`finish`](Self::finish) then prints a note
    /// `(K of N columns not shown; use --width or --vertical)`.
    pub fn with_line_width(mut self, width: Option<usize>) -> Self {
        self.line_width = width;
        self
    }

    /// How many columns the layout leaves out (0 before the header).
    pub fn elided(&self) -> usize {
        let shown = self.layout.iter().filter(|c| c.is_some()).count();
        if self.started {
            self.header.len() - shown
        } else {
            0
        }
    }

    /// The columns to print within the line width.
    fn choose_layout(&self) -> Vec<Option<usize>> {
        let n = self.widths.len();
        let all: Vec<Option<usize>> = (0..n).map(Some).collect();
        let Some(limit) = self.line_width else {
            return all;
        };
        let total = |cols: &[usize], gap: bool| {
            let w: usize = cols
                .iter()
                .map(|&k| self.widths.get(k).copied().unwrap_or(0))
                .sum();
            let count = cols.len() + usize::from(gap);
            w + usize::from(gap) + 3 * count.saturating_sub(1)
        };
        let every: Vec<usize> = (0..n).collect();
        if total(&every, false) <= limit {
            return all;
        }
        let (mut left, mut right) = (Vec::new(), Vec::new());
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let from_left = left.len() <= right.len();
            let k = if from_left { lo } else { hi - 1 };
            let mut cols: Vec<usize> = left.clone();
            if from_left {
                cols.push(k);
            }
            let mut tail = right.clone();
            if !from_left {
                tail.push(k);
            }
            cols.extend(tail.iter().rev());
            if total(&cols, true) > limit && !left.is_empty() {
                break;
            }
            if from_left {
                left.push(k);
                lo += 1;
            } else {
                right.push(k);
                hi -= 1;
            }
        }
        let mut layout: Vec<Option<usize>> = left.into_iter().map(Some).collect();
        layout.push(None);
        layout.extend(right.into_iter().rev().map(Some));
        layout
    }

    /// Writes rows `rows` of `batch` (clamped to its rows), after the header
    /// when it was not written yet. The cells of these rows are rendered in
    /// memory first (to measure them): pass big batches a range at a time.
    ///
    /// # Errors
    /// The error of `out`.
    pub fn write_rows<W: Write, A: Allocator>(
        &mut self,
        out: &mut W,
        batch: &RecordBatch<'_, A>,
        rows: Range<usize>,
    ) -> fmt::Result {
        let end = rows.end.min(batch.num_rows());
        let start = rows.start.min(end);
        let lines = self.render(batch.columns(), start..end)?;
        self.write_header(out)?;
        for cells in &lines {
            self.write_line(out, cells)?;
        }
        Ok(())
    }

    /// Writes the header if no call wrote it (a table without rows).
    ///
    /// # Errors
    /// The error of `out`.
    pub fn finish<W: Write>(&mut self, out: &mut W) -> fmt::Result {
        self.write_header(out)?;
        let elided = self.elided();
        if elided > 0 {
            writeln!(
                out,
                "({elided} of {} columns not shown; use --width or --vertical)",
                self.header.len()
            )?;
        }
        Ok(())
    }

    /// Renders the cells of `rows` and widens the columns to them.
    fn render<A: Allocator>(
        &mut self,
        columns: &[ArrayRef<'_, A>],
        rows: Range<usize>,
    ) -> Result<Vec<Vec<String>>, fmt::Error> {
        let mut lines = Vec::with_capacity(rows.len());
        for row in rows {
            let mut cells = Vec::with_capacity(columns.len());
            for (k, col) in columns.iter().enumerate() {
                let mut cell = String::new();
                write_value(&mut cell, col, row, false)?;
                let cell = clip(cell, self.max);
                if let Some(w) = self.widths.get_mut(k) {
                    *w = (*w).max(cell.chars().count());
                }
                cells.push(cell);
            }
            lines.push(cells);
        }
        Ok(lines)
    }

    fn write_header<W: Write>(&mut self, f: &mut W) -> fmt::Result {
        if self.started {
            return Ok(());
        }
        self.started = true;
        self.layout = self.choose_layout();
        self.write_line(f, &self.header)?;
        for (i, col) in self.layout.iter().enumerate() {
            if i > 0 {
                f.write_str("-+-")?;
            }
            let w = col.map_or(1, |k| self.widths.get(k).copied().unwrap_or(0));
            for _ in 0..w {
                f.write_char('-')?;
            }
        }
        f.write_char('\n')
    }

    /// One line of the layout's cells padded to the widths (the last one
    /// unpadded when left-aligned), `…` for the elided columns.
    fn write_line<W: Write>(&self, f: &mut W, cells: &[String]) -> fmt::Result {
        let last = self.layout.len().saturating_sub(1);
        for (i, col) in self.layout.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            let Some(k) = *col else {
                f.write_char('…')?;
                continue;
            };
            let cell = cells.get(k).map_or("", String::as_str);
            let w = self.widths.get(k).copied().unwrap_or(0);
            let pad = w.saturating_sub(cell.chars().count());
            let right = self.right.get(k).copied().unwrap_or(false);
            if right {
                for _ in 0..pad {
                    f.write_char(' ')?;
                }
            }
            f.write_str(cell)?;
            if !right && i < last {
                for _ in 0..pad {
                    f.write_char(' ')?;
                }
            }
        }
        f.write_char('\n')
    }
}

/// Displays rows of a record batch; see [`table`] and [`empty_table`].
#[derive(Debug)]
pub struct TableDisplay<'x, 'a, A: Allocator> {
    schema: &'x Schema<'a, A>,
    batch: Option<&'x RecordBatch<'a, A>>,
    rows: Range<usize>,
    max: Option<usize>,
}

impl<A: Allocator> TableDisplay<'_, '_, A> {
    /// Cuts cells to at most `max` characters (`None`: no limit) instead of
    /// [`DEFAULT_MAX_CELL_WIDTH`].
    pub fn max_cell_width(mut self, max: Option<usize>) -> Self {
        self.max = max;
        self
    }
}

/// Rows `rows` of `batch` (clamped to its rows) as a [`TableWriter`] table:
/// a header line of column names, a rule, then one line per row, each slot
/// rendered by [`super::value`] and cut to [`DEFAULT_MAX_CELL_WIDTH`]
/// characters. Every line ends with `\n`.
///
/// ```text
/// id | name  | score
/// ---+-------+------
///  1 | alice |   1.5
///  2 | null  |  null
/// ```
pub fn table<'x, 'a, A: Allocator>(
    batch: &'x RecordBatch<'a, A>,
    rows: Range<usize>,
) -> TableDisplay<'x, 'a, A> {
    TableDisplay {
        schema: batch.schema(),
        batch: Some(batch),
        rows,
        max: Some(DEFAULT_MAX_CELL_WIDTH),
    }
}

/// The header and rule of a table of `schema` without rows (what [`table`]
/// prints for zero rows).
pub fn empty_table<'x, 'a, A: Allocator>(schema: &'x Schema<'a, A>) -> TableDisplay<'x, 'a, A> {
    TableDisplay {
        schema,
        batch: None,
        rows: 0..0,
        max: Some(DEFAULT_MAX_CELL_WIDTH),
    }
}

impl<A: Allocator> fmt::Display for TableDisplay<'_, '_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut w = TableWriter::new(self.schema, self.max);
        if let Some(batch) = self.batch {
            w.write_rows(f, batch, self.rows.clone())?;
        }
        w.finish(f)
    }
}

#[cfg(test)]
mod tests {
    use alkaid::array::{Array, Int32Array, RecordBatch, StringArray};

    use super::{clip, empty_table, table, TableWriter};

    fn batch(ids: &[Option<i32>], names: &[Option<&str>]) -> RecordBatch<'static> {
        RecordBatch::try_from_iter([
            ("id", Int32Array::from(ids.to_vec()).into_array_ref()),
            ("name", StringArray::from(names.to_vec()).into_array_ref()),
        ])
        .unwrap()
    }

    #[test]
    fn numbers_right_aligned_text_left_no_trailing_spaces() {
        let b = batch(&[Some(1), None, Some(333)], &[Some("ünï"), None, Some("x")]);
        assert_eq!(
            table(&b, 0..3).to_string(),
            concat!(
                "  id | name\n",
                "-----+-----\n",
                "   1 | ünï\n",
                "null | null\n",
                " 333 | x\n"
            )
        );
        assert_eq!(
            table(&b, 2..99).to_string(),
            " id | name\n----+-----\n333 | x\n"
        );
        assert_eq!(table(&b, 5..9).to_string(), "id | name\n---+-----\n");
        assert_eq!(
            empty_table(b.schema()).to_string(),
            "id | name\n---+-----\n"
        );
    }

    #[test]
    fn widths_grow_across_calls_and_the_header_is_written_once() {
        let first = batch(&[Some(1)], &[Some("a")]);
        let second = batch(&[Some(-12345)], &[Some("abc")]);
        let mut w = TableWriter::new(first.schema(), None);
        let mut out = String::new();
        w.write_rows(&mut out, &first, 0..1).unwrap();
        w.write_rows(&mut out, &second, 0..1).unwrap();
        w.write_rows(&mut out, &first, 0..1).unwrap();
        w.finish(&mut out).unwrap();
        assert_eq!(
            out,
            "id | name\n\
             ---+-----\n \
              1 | a\n\
             -12345 | abc\n     \
                  1 | a\n"
        );
    }

    #[test]
    fn cells_and_names_cut_to_the_limit() {
        assert_eq!(clip("abcdef".into(), Some(4)), "abc…");
        assert_eq!(clip("abcd".into(), Some(4)), "abcd");
        assert_eq!(clip("ééééé".into(), Some(3)), "éé…");
        assert_eq!(clip("abc".into(), Some(0)), "");
        assert_eq!(clip("abc".into(), None), "abc");
        let b = RecordBatch::try_from_iter([(
            "a_long_column_name",
            StringArray::from(vec!["0123456789"]).into_array_ref(),
        )])
        .unwrap();
        assert_eq!(
            table(&b, 0..1).max_cell_width(Some(6)).to_string(),
            "a_lon…\n------\n01234…\n"
        );
        assert_eq!(
            table(&b, 0..1).max_cell_width(None).to_string(),
            "a_long_column_name\n------------------\n0123456789\n"
        );
    }
}
