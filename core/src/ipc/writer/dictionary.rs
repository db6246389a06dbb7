//! Which dictionaries a batch needs, and whether each must be (re)sent.

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef, RecordBatch};
use crate::buffer::TryVec;
use crate::datatypes::{DataType, Field};
use crate::error::{Error, Result};

/// What to do with a batch's dictionary for one id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DictionaryAction {
    /// Already sent, unchanged.
    Skip,
    /// Send it: whole (`None`) or the values after the first `n` (a delta).
    Write { delta_from: Option<usize> },
}

/// The dictionaries written so far, by id.
pub(crate) struct DictionaryTracker<'a, A: Allocator + Clone> {
    written: TryVec<(i64, ArrayRef<'a, A>), A>,
}

impl<'a, A: Allocator + Clone> DictionaryTracker<'a, A> {
    pub(crate) fn new_in(alloc: A) -> Self {
        DictionaryTracker {
            written: TryVec::new_in(alloc),
        }
    }

    /// Pushes `(dictionary id, values)` for every dictionary-encoded array of
    /// `batch`, depth first (nested ones included).
    pub(crate) fn collect(
        &self,
        batch: &RecordBatch<'a, A>,
        out: &mut TryVec<(i64, ArrayRef<'a, A>), A>,
    ) -> Result<()> {
        for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
            collect(f, c, out, 0)?;
        }
        Ok(())
    }

    /// Decides what to send for `values` under `id`.
    pub(crate) fn action(
        &self,
        id: i64,
        values: &ArrayRef<'a, A>,
        file: bool,
    ) -> Result<DictionaryAction> {
        let Some((_, old)) = self.written.iter().find(|(i, _)| *i == id) else {
            return Ok(DictionaryAction::Write { delta_from: None });
        };
        if old == values {
            return Ok(DictionaryAction::Skip);
        }
        let n = old.len();
        if values.len() > n && values.slice(0, n)? == *old {
            return Ok(DictionaryAction::Write {
                delta_from: Some(n),
            });
        }
        if file {
            return Err(Error::DictionaryReplacementInFile);
        }
        Ok(DictionaryAction::Write { delta_from: None })
    }

    /// Remembers `values` as the current dictionary of `id`.
    pub(crate) fn record(&mut self, id: i64, values: ArrayRef<'a, A>) -> Result<()> {
        match self.written.iter_mut().find(|(i, _)| *i == id) {
            Some(slot) => slot.1 = values,
            None => self.written.try_push((id, values))?,
        }
        Ok(())
    }
}

const MAX_DEPTH: usize = 64;

fn collect<'a, A: Allocator + Clone>(
    field: &Field<'a, A>,
    array: &ArrayRef<'a, A>,
    out: &mut TryVec<(i64, ArrayRef<'a, A>), A>,
    depth: usize,
) -> Result<()> {
    collect_type(field.data_type(), field.dict_id(), array, out, depth)
}

/// Pushes the dictionaries of `array` of type `dt`; `dict_id` is the id of
/// the field when `dt` is a dictionary. Dictionaries nested in a
/// dictionary's values come first: the outer values refer to them.
fn collect_type<'a, A: Allocator + Clone>(
    dt: &DataType<'a, A>,
    dict_id: Option<i64>,
    array: &ArrayRef<'a, A>,
    out: &mut TryVec<(i64, ArrayRef<'a, A>), A>,
    depth: usize,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(Error::LimitExceeded);
    }
    match (dt, array) {
        (DataType::Dictionary(_, value_type, _), ArrayRef::Dictionary(d)) => {
            let id = dict_id.ok_or(Error::InvalidDataType)?;
            collect_type(value_type, None, d.values(), out, depth + 1)?;
            if !out.iter().any(|(i, _)| *i == id) {
                out.try_push((id, d.values().clone()))?;
            }
            Ok(())
        }
        #[cfg(feature = "union")]
        (DataType::Union(u, _), ArrayRef::Union(a)) => {
            for (f, c) in u.fields().iter().zip(a.children()) {
                collect(f, c, out, depth + 1)?;
            }
            Ok(())
        }
        #[cfg(feature = "run-end")]
        (DataType::RunEndEncoded(_, v), ArrayRef::RunEndEncoded(r)) => {
            collect(v, r.values(), out, depth + 1)
        }
        #[cfg(feature = "nested")]
        (DataType::List(f), ArrayRef::List(l)) => collect(f, l.values(), out, depth + 1),
        #[cfg(feature = "nested")]
        (DataType::LargeList(f), ArrayRef::LargeList(l)) => collect(f, l.values(), out, depth + 1),
        #[cfg(feature = "nested")]
        (DataType::ListView(f), ArrayRef::ListView(l)) => collect(f, l.values(), out, depth + 1),
        #[cfg(feature = "nested")]
        (DataType::LargeListView(f), ArrayRef::LargeListView(l)) => {
            collect(f, l.values(), out, depth + 1)
        }
        #[cfg(feature = "nested")]
        (DataType::FixedSizeList(f, _), ArrayRef::FixedSizeList(l)) => {
            collect(f, l.values(), out, depth + 1)
        }
        #[cfg(feature = "nested")]
        (DataType::Struct(fs), ArrayRef::Struct(s)) => {
            for (f, c) in fs.iter().zip(s.children()) {
                collect(f, c, out, depth + 1)?;
            }
            Ok(())
        }
        #[cfg(feature = "nested")]
        (DataType::Map(f, _), ArrayRef::Map(m)) => collect(f, m.list().values(), out, depth + 1),
        _ => Ok(()),
    }
}
