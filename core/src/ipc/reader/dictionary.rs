//! The dictionaries a reader has received, by id.

use allocator_api2::alloc::Allocator;

use crate::array::{Array, ArrayRef};
use crate::buffer::{SharedBox, TryVec};
use crate::datatypes::{DataType, Field, Fields};
use crate::error::{Error, Result};

/// Dictionary values by id, and the value field of every id of the schema.
pub(crate) struct DictionaryStore<'b, A: Allocator + Clone> {
    /// (id, value field) for every dictionary-encoded field of the schema.
    fields: TryVec<(i64, Field<'b, A>), A>,
    /// (id, current values).
    values: TryVec<(i64, SharedBox<'b, ArrayRef<'b, A>, A>), A>,
}

impl<'b, A: Allocator + Clone> DictionaryStore<'b, A> {
    /// Finds every dictionary-encoded field of `fields` (nested ones included).
    ///
    /// # Errors
    /// [`Error::InvalidDataType`] for a dictionary field without an id, or
    /// fields that share an id with different value types;
    /// [`Error::LimitExceeded`] beyond 128 levels of nesting.
    pub(crate) fn try_new_in(fields: &Fields<'b, A>, alloc: A) -> Result<Self> {
        let mut s = DictionaryStore {
            fields: TryVec::new_in(alloc.clone()),
            values: TryVec::new_in(alloc),
        };
        for f in fields.iter() {
            s.scan(f, 0)?;
        }
        Ok(s)
    }

    fn scan(&mut self, f: &Field<'b, A>, depth: usize) -> Result<()> {
        if depth > 128 {
            return Err(Error::LimitExceeded);
        }
        if let DataType::Dictionary(_, v, _) = f.data_type() {
            let id = f.dict_id().ok_or(Error::InvalidDataType)?;
            if let Some((_, known)) = self.fields.iter().find(|(i, _)| *i == id) {
                // Fields that share a dictionary id share its values
                // ("Dictionary IDs"): their value types must be the same,
                // or a dictionary batch would decode as the first field's
                // type and become the values of another type.
                if known.data_type() != &**v {
                    return Err(Error::InvalidDataType);
                }
            } else {
                let vf = Field::from_parts(
                    f.name_shared().clone(),
                    (**v).clone(),
                    true,
                    crate::buffer::SharedSlice::empty(),
                    None,
                );
                self.fields.try_push((id, vf))?;
            }
            // A dictionary's values may themselves hold dictionaries.
            return self.scan_type(v, depth + 1);
        }
        self.scan_type(f.data_type(), depth)
    }

    fn scan_type(&mut self, dt: &DataType<'b, A>, depth: usize) -> Result<()> {
        use DataType::*;
        match dt {
            List(c)
            | LargeList(c)
            | ListView(c)
            | LargeListView(c)
            | FixedSizeList(c, _)
            | Map(c, _) => self.scan(c, depth + 1),
            Struct(cs) => {
                for c in cs.iter() {
                    self.scan(c, depth + 1)?;
                }
                Ok(())
            }
            Union(u, _) => {
                for c in u.fields().iter() {
                    self.scan(c, depth + 1)?;
                }
                Ok(())
            }
            RunEndEncoded(_, v) => self.scan(v, depth + 1),
            Dictionary(_, v, _) => self.scan_type(v, depth + 1),
            _ => Ok(()),
        }
    }

    /// The value field of dictionary `id` (to decode its batches).
    pub(crate) fn field(&self, id: i64) -> Result<&Field<'b, A>> {
        self.fields
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, f)| f)
            .ok_or(Error::DictionaryNotFound)
    }

    /// The current values of dictionary `id`.
    pub(crate) fn get(&self, id: i64) -> Option<&SharedBox<'b, ArrayRef<'b, A>, A>> {
        self.values.iter().find(|(i, _)| *i == id).map(|(_, v)| v)
    }

    /// Installs `values` for `id`, replacing the previous ones, or appending to
    /// them when `delta`; refuses dictionaries longer than `max_len`, and a
    /// delta for an `id` that has no dictionary yet (IPC format, "Dictionary
    /// Messages": a delta adds to an existing dictionary; pyarrow and
    /// arrow-rs refuse it the same way) with [`Error::DictionaryNotFound`].
    pub(crate) fn insert(
        &mut self,
        id: i64,
        values: ArrayRef<'b, A>,
        delta: bool,
        max_len: usize,
        alloc: &A,
    ) -> Result<()> {
        let slot = self.values.iter().position(|(i, _)| *i == id);
        let merged = match (delta, slot.and_then(|p| self.values.get(p))) {
            (true, Some((_, old))) => {
                if old.len().saturating_add(values.len()) > max_len {
                    return Err(Error::LimitExceeded);
                }
                super::concat_values(old, &values, alloc)?
            }
            (true, None) => return Err(Error::DictionaryNotFound),
            (false, _) => {
                if values.len() > max_len {
                    return Err(Error::LimitExceeded);
                }
                values
            }
        };
        let boxed = SharedBox::try_new_in(merged, alloc.clone())?;
        match slot.and_then(|p| self.values.get_mut(p)) {
            Some(s) => s.1 = boxed,
            None => self.values.try_push((id, boxed))?,
        }
        Ok(())
    }
}
