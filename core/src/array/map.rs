//! Map layout ("Map" in the data types table: a variable-size list of
//! structs): a validity bitmap, `len + 1` `i32` offsets and one child, the
//! non-null `entries: Struct<key, value>` array; slot `i` is the entries
//! `offsets[i]..offsets[i + 1]`. Keys are never null.
//!
//! A [`MapArray`] is a [`ListArray`] of its entries plus the map rules and
//! the `keys_sorted` flag: value access, slicing and the list checks are the
//! list's.

use core::fmt;

use allocator_api2::alloc::Allocator;
use derive_where::derive_where;

use super::builder::ArrayBuilder;
use super::{Array, ArrayRef, ListArray, StructArray, ValidationLevel};
use crate::buffer::{NullBuffer, OffsetBuffer, OffsetsBuilder, SharedBox, SharedSlice};
use crate::datatypes::{DataType, Field, FieldRef};
use crate::error::{Error, Result};

/// An array of maps: each slot is a list of (key, value) entries of one
/// `entries` struct child, with 32-bit offsets in entries.
///
/// The type is `Map(entries_field, keys_sorted)`; the entries field is a
/// non-nullable struct of two fields, the first (the key) non-nullable.
/// Slicing shares the offsets (not rebased) and the entries.
///
/// Usually built with a [`MapBuilder`]; read back per slot as the struct of
/// its entries:
///
/// ```
/// use alkaid::array::{Array, Int32Array, Int32Builder, MapBuilder, StringArray, StringBuilder};
///
/// // [{"a": 1, "b": 2}, null, {}]
/// let mut b = MapBuilder::new(StringBuilder::new(), Int32Builder::new());
/// b.keys().try_append_value("a")?;
/// b.values().try_append_value(1)?;
/// b.keys().try_append_value("b")?;
/// b.values().try_append_value(2)?;
/// b.try_append(true)?;
/// b.try_append_null()?;
/// b.try_append(true)?;
/// let map = b.try_finish()?;
///
/// assert_eq!((map.len(), map.null_count()), (3, 1));
/// assert_eq!(map.value_offsets(), &[0, 2, 2, 2]);
/// let first = map.get(0).expect("a valid map");
/// assert_eq!(first.column(0), Some(StringArray::from(vec!["a", "b"]).into_array_ref()));
/// assert_eq!(first.column(1), Some(Int32Array::from(vec![1, 2]).into_array_ref()));
/// assert!(map.get(1).is_none());
/// assert_eq!(map.get(2).map(|m| m.len()), Some(0));
/// assert_eq!(map.keys().map(|k| k.len()), Some(2)); // all entries
/// # Ok::<(), alkaid::Error>(())
/// ```
#[derive_where(Clone)]
pub struct MapArray<
    'a,
    #[cfg(feature = "alloc")] A: Allocator = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator,
> {
    /// `Map(field, keys_sorted)`.
    data_type: DataType<'a, A>,
    keys_sorted: bool,
    /// The offsets, validity and entries, as `List(field)`.
    list: ListArray<'a, A>,
}

impl<'a, A: Allocator> MapArray<'a, A> {
    /// A map array of type `Map(field, keys_sorted)` over `offsets` (one more
    /// than the number of slots) into the `entries` struct array, with an
    /// optional validity bitmap. Checks everything ([`ValidationLevel::Full`]).
    ///
    /// # Errors
    /// [`Error::MapEntriesInvalid`] when the entries field is not a
    /// non-nullable struct of two fields or the entries array is not a struct
    /// or has nulls; [`Error::MapKeyNull`] when the key field is nullable or
    /// a key in the entries referenced by the offsets is null;
    /// [`Error::TypeMismatch`] when the entries' type is not the field's; as
    /// [`ListArray::try_new`] for the validity bitmap, the offsets and the
    /// entries' own validation.
    pub fn try_new(
        field: FieldRef<'a, A>,
        offsets: OffsetBuffer<'a, i32, A>,
        entries: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
        keys_sorted: bool,
    ) -> Result<Self> {
        // SAFETY: validated at Full before the array is returned.
        let a = unsafe { Self::new_unchecked(field, offsets, entries, nulls, keys_sorted) };
        a.validate(ValidationLevel::Full)?;
        Ok(a)
    }

    /// As [`Self::try_new`], moving the `entries` into an allocation from `alloc`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; as [`Self::try_new`].
    pub fn try_new_in(
        field: FieldRef<'a, A>,
        offsets: OffsetBuffer<'a, i32, A>,
        entries: StructArray<'a, A>,
        nulls: Option<NullBuffer<'a, A>>,
        keys_sorted: bool,
        alloc: A,
    ) -> Result<Self> {
        let entries = SharedBox::try_new_in(ArrayRef::Struct(entries), alloc)?;
        Self::try_new(field, offsets, entries, nulls, keys_sorted)
    }

    /// As [`Self::try_new`] without any check.
    ///
    /// # Safety
    /// Everything [`Self::try_new`] checks must hold. Accessors stay memory
    /// safe otherwise, but return `None` or wrong data.
    pub unsafe fn new_unchecked(
        field: FieldRef<'a, A>,
        offsets: OffsetBuffer<'a, i32, A>,
        entries: SharedBox<'a, ArrayRef<'a, A>, A>,
        nulls: Option<NullBuffer<'a, A>>,
        keys_sorted: bool,
    ) -> Self {
        MapArray {
            data_type: DataType::Map(field.clone(), keys_sorted),
            keys_sorted,
            // SAFETY: the caller vouches for the list invariants too.
            list: unsafe { ListArray::new_unchecked(field, offsets, entries, nulls) },
        }
    }

    /// The typed array inside `a`, if `a` is a map.
    pub fn downcast_ref<'b>(a: &'b ArrayRef<'a, A>) -> Option<&'b Self> {
        match a {
            ArrayRef::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The entries field (`entries: Struct<key, value>`).
    pub fn field(&self) -> &FieldRef<'a, A> {
        self.list.field()
    }

    /// Whether the keys of each map are declared sorted.
    pub fn keys_sorted(&self) -> bool {
        self.keys_sorted
    }

    /// The map as the list of entries it is: type `List(entries_field)`, the
    /// same offsets, validity and entries.
    pub fn list(&self) -> &ListArray<'a, A> {
        &self.list
    }

    /// The offsets buffer (`len + 1` offsets in entries).
    pub fn offsets(&self) -> &OffsetBuffer<'a, i32, A> {
        self.list.offsets()
    }

    /// The offsets, `len + 1` of them, in entries.
    pub fn value_offsets(&self) -> &[i32] {
        self.list.value_offsets()
    }

    /// The whole entries struct array; `None` only for unchecked arrays whose
    /// entries are not a struct.
    pub fn entries(&self) -> Option<&StructArray<'a, A>> {
        StructArray::downcast_ref(self.list.values())
    }

    /// All keys (child 0 of the entries); `None` only for unchecked arrays.
    pub fn keys(&self) -> Option<ArrayRef<'a, A>> {
        self.entries()?.column(0)
    }

    /// All values (child 1 of the entries); `None` only for unchecked arrays.
    pub fn values(&self) -> Option<ArrayRef<'a, A>> {
        self.entries()?.column(1)
    }

    /// The entries of slot `i` whatever its validity, as a zero-copy slice
    /// of the entries; `None` when `i >= len`.
    pub fn value(&self, i: usize) -> Option<StructArray<'a, A>> {
        match self.list.value(i)? {
            ArrayRef::Struct(s) => Some(s),
            _ => None,
        }
    }

    /// `Some(entries)` for a valid slot, `None` for a null or missing one.
    pub fn get(&self, i: usize) -> Option<StructArray<'a, A>> {
        if self.is_valid(i) {
            self.value(i)
        } else {
            None
        }
    }

    /// Iterates the slots as options of entries.
    pub fn iter(&self) -> impl Iterator<Item = Option<StructArray<'a, A>>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Checks that no key referenced by the offsets is null (O(entries) when
    /// the keys have nulls, O(1) otherwise).
    fn check_keys(&self) -> Result<()> {
        let keys = self.keys().ok_or(Error::MapEntriesInvalid)?;
        if keys.null_count() == 0 && !matches!(keys, ArrayRef::Null(_)) {
            return Ok(());
        }
        let offsets = self.list.offsets();
        if (offsets.first()..offsets.last()).any(|j| keys.is_null(j)) {
            return Err(Error::MapKeyNull);
        }
        Ok(())
    }
}

impl<'a, A: Allocator> Array<'a, A> for MapArray<'a, A> {
    fn data_type(&self) -> &DataType<'a, A> {
        &self.data_type
    }

    fn len(&self) -> usize {
        self.list.len()
    }

    fn nulls(&self) -> Option<&NullBuffer<'a, A>> {
        self.list.nulls()
    }

    fn slice(&self, offset: usize, len: usize) -> Result<Self> {
        Ok(MapArray {
            data_type: self.data_type.clone(),
            keys_sorted: self.keys_sorted,
            list: self.list.slice(offset, len)?,
        })
    }

    fn validate(&self, level: ValidationLevel) -> Result<()> {
        if level == ValidationLevel::None {
            return Ok(());
        }
        // Entries: a non-nullable struct of two fields, non-nullable key.
        self.data_type.validate()?;
        self.list.validate(level)?;
        let entries = self.entries().ok_or(Error::MapEntriesInvalid)?;
        if entries.null_count() != 0 {
            return Err(Error::MapEntriesInvalid);
        }
        if level >= ValidationLevel::Full {
            self.check_keys()?;
        }
        Ok(())
    }

    fn into_array_ref(self) -> ArrayRef<'a, A> {
        ArrayRef::Map(self)
    }
}

impl<A: Allocator> fmt::Debug for MapArray<'_, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MapArray<{:?}> ", self.field().data_type())?;
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Builds a [`MapArray`] in memory from `A`: append a map's keys and values
/// to [`Self::keys`] and [`Self::values`] (same number to each), then close
/// it with [`Self::try_append`].
///
/// The type is `Map(entries: Struct<key: K (non-null), value: V>, keys_sorted)`
/// with `keys_sorted` false unless set by [`Self::with_keys_sorted`].
///
/// ```
/// use alkaid::array::{Array, MapBuilder, UInt8Builder, StringBuilder};
/// use alkaid::datatypes::DataType;
///
/// let mut b = MapBuilder::new(UInt8Builder::new(), StringBuilder::new())
///     .with_keys_sorted(true);
/// b.keys().try_append_slice(&[1, 2])?;
/// b.values().try_append_value("one")?;
/// b.values().try_append_null()?; // values may be null, keys may not
/// b.try_append(true)?;
/// let map = b.try_finish()?;
/// assert!(map.keys_sorted());
/// assert!(matches!(map.data_type(), DataType::Map(_, true)));
/// assert_eq!(map.values().map(|v| v.null_count()), Some(1));
/// # Ok::<(), alkaid::Error>(())
/// ```
pub struct MapBuilder<
    'a,
    K,
    V,
    #[cfg(feature = "alloc")] A: Allocator + Clone = crate::Global,
    #[cfg(not(feature = "alloc"))] A: Allocator + Clone,
> {
    keys: K,
    values: V,
    /// Offsets (in entries, from 0) and validity.
    offsets: OffsetsBuilder<i32, A>,
    keys_sorted: bool,
    field: Option<FieldRef<'a, A>>,
    alloc: A,
}

impl<'a, K: ArrayBuilder<'a, A>, V: ArrayBuilder<'a, A>, A: Allocator + Clone>
    MapBuilder<'a, K, V, A>
{
    /// An empty builder over the key and value builders; allocates nothing
    /// yet. They should be empty: entries already in them belong to the first map.
    pub fn new_in(keys: K, values: V, alloc: A) -> Self {
        MapBuilder {
            keys,
            values,
            offsets: OffsetsBuilder::new_in(0, alloc.clone()),
            keys_sorted: false,
            field: None,
            alloc,
        }
    }

    /// Declares whether the keys of each map are sorted.
    pub fn with_keys_sorted(mut self, sorted: bool) -> Self {
        self.keys_sorted = sorted;
        self
    }

    /// Uses `field` as the entries field (names and nullability of entries,
    /// key and value; checked by [`Self::try_finish`]).
    pub fn with_field(mut self, field: FieldRef<'a, A>) -> Self {
        self.field = Some(field);
        self
    }

    /// The key builder.
    pub fn keys(&mut self) -> &mut K {
        &mut self.keys
    }

    /// The value builder.
    pub fn values(&mut self) -> &mut V {
        &mut self.values
    }

    /// Number of maps closed.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// `true` when no map was closed.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Closes the current map: the entries appended since the previous one
    /// become slot `len`, valid or null as `valid` says.
    ///
    /// # Errors
    /// [`Error::InvalidBuilderState`] when keys and values differ in number or
    /// the key builder shrank;
    /// [`Error::CapacityOverflow`] past `i32::MAX` entries;
    /// [`Error::AllocationFailed`]. The builder is unchanged on error.
    pub fn try_append(&mut self, valid: bool) -> Result<()> {
        let end = self.keys.len();
        if end != self.values.len() {
            return Err(Error::InvalidBuilderState);
        }
        self.offsets.try_append(end, valid)
    }

    /// Closes the current map as a null slot (normally with no entries).
    ///
    /// # Errors
    /// As [`Self::try_append`].
    pub fn try_append_null(&mut self) -> Result<()> {
        self.try_append(false)
    }

    /// Freezes into an array: finishes keys and values and shares them.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`]; [`Error::InvalidBuilderState`] when keys
    /// and values differ in number; [`Error::MapKeyNull`] when a key of a
    /// closed map is null; [`Error::TypeMismatch`] when a field set by
    /// [`Self::with_field`] does not match; the children's finish errors.
    pub fn try_finish(self) -> Result<MapArray<'a, A>> {
        let MapBuilder {
            keys,
            values,
            offsets,
            keys_sorted,
            field,
            alloc,
            ..
        } = self;
        let n = keys.len();
        if n != values.len() {
            return Err(Error::InvalidBuilderState);
        }
        let (offsets, nulls) = offsets.finish()?;
        let keys = keys.try_finish_array_ref()?;
        let values = values.try_finish_array_ref()?;
        let fields = match &field {
            Some(f) => match f.data_type() {
                DataType::Struct(fs) => fs.clone(),
                _ => return Err(Error::MapEntriesInvalid),
            },
            None => SharedSlice::try_from_iter_in(
                [
                    Field::new("key", keys.data_type().clone(), false),
                    Field::new("value", values.data_type().clone(), true),
                ],
                alloc.clone(),
            )?,
        };
        let children = SharedSlice::try_from_iter_in([keys, values], alloc.clone())?;
        let entries = StructArray::try_new_cheap(fields.clone(), children, n, None)?;
        let field = match field {
            Some(f) => f,
            None => SharedBox::try_new_in(
                Field::new("entries", DataType::Struct(fields), false),
                alloc.clone(),
            )?,
        };
        let entries = SharedBox::try_new_in(ArrayRef::Struct(entries), alloc)?;
        // SAFETY: validated at Cheap just below, and the keys (the part of
        // Full that the builders' children do not already guarantee) next.
        let a = unsafe { MapArray::new_unchecked(field, offsets, entries, nulls, keys_sorted) };
        a.validate(ValidationLevel::Cheap)?;
        a.check_keys()?;
        Ok(a)
    }
}

impl<'a, K: ArrayBuilder<'a, A>, V: ArrayBuilder<'a, A>, A: Allocator + Clone> ArrayBuilder<'a, A>
    for MapBuilder<'a, K, V, A>
{
    fn len(&self) -> usize {
        MapBuilder::len(self)
    }

    fn try_append_null(&mut self) -> Result<()> {
        MapBuilder::try_append_null(self)
    }

    fn try_finish_array_ref(self) -> Result<ArrayRef<'a, A>> {
        Ok(self.try_finish()?.into_array_ref())
    }
}

impl<K, V, A: Allocator + Clone> fmt::Debug for MapBuilder<'_, K, V, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MapBuilder")
            .field("len", &self.offsets.len())
            .field("keys_sorted", &self.keys_sorted)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{PrimitiveArray, PrimitiveBuilder};
    use crate::buffer::{BooleanBuffer, Buffer, ScalarBuffer};
    use crate::test_support::{check_every_failure, TestAlloc};
    use crate::Global;
    use std::vec::Vec;

    type B = MapBuilder<
        'static,
        PrimitiveBuilder<'static, i32, Global>,
        PrimitiveBuilder<'static, i8, Global>,
        Global,
    >;

    fn builder() -> B {
        MapBuilder::new_in(
            PrimitiveBuilder::new_in(Global),
            PrimitiveBuilder::new_in(Global),
            Global,
        )
    }

    fn i32s(a: &ArrayRef<'_, Global>) -> Vec<Option<i32>> {
        let ArrayRef::Int32(p) = a else {
            panic!("{a:?}")
        };
        p.iter().collect()
    }

    fn i8s(a: &ArrayRef<'_, Global>) -> Vec<Option<i8>> {
        let ArrayRef::Int8(p) = a else {
            panic!("{a:?}")
        };
        p.iter().collect()
    }

    /// `Map<Int32, Int8>` `[{1: 10, 2: null}, null, {}, {3: 30}]`.
    fn sample() -> MapArray<'static, Global> {
        let mut b = builder();
        b.keys().try_append_slice(&[1, 2]).unwrap();
        b.values().try_append_value(10).unwrap();
        b.values().try_append_null().unwrap();
        b.try_append(true).unwrap();
        b.try_append_null().unwrap();
        b.try_append(true).unwrap();
        b.keys().try_append_value(3).unwrap();
        b.values().try_append_value(30).unwrap();
        b.try_append(true).unwrap();
        b.try_finish().unwrap()
    }

    #[test]
    fn layout_of_a_map() {
        let a = sample();
        assert_eq!(a.len(), 4);
        assert_eq!(a.null_count(), 1);
        assert_eq!(
            a.nulls().unwrap().inner().inner().as_slice(),
            &[0b0000_1101]
        );
        assert_eq!(a.value_offsets(), &[0, 2, 2, 2, 3]);
        let bytes: Vec<u8> = [0i32, 2, 2, 2, 3]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        assert_eq!(a.offsets().inner().inner().as_slice(), bytes.as_slice());
        // Entries: a non-null struct of a non-null key and a nullable value.
        let e = a.entries().unwrap();
        assert_eq!(e.len(), 3);
        assert!(e.nulls().is_none());
        assert_eq!(e.fields()[0].name(), "key");
        assert!(!e.fields()[0].is_nullable());
        assert_eq!(e.fields()[1].name(), "value");
        assert!(a.field().name() == "entries" && !a.field().is_nullable());
        assert!(matches!(a.data_type(), DataType::Map(_, false)));
        assert!(!a.keys_sorted());
        assert_eq!(i32s(&a.keys().unwrap()), [Some(1), Some(2), Some(3)]);
        assert_eq!(i8s(&a.values().unwrap()), [Some(10), None, Some(30)]);
        // Slots.
        let m0 = a.get(0).unwrap();
        assert_eq!(i32s(&m0.column(0).unwrap()), [Some(1), Some(2)]);
        assert_eq!(i8s(&m0.column(1).unwrap()), [Some(10), None]);
        assert!(a.get(1).is_none());
        assert_eq!(a.get(2).unwrap().len(), 0);
        assert_eq!(i32s(&a.get(3).unwrap().column(0).unwrap()), [Some(3)]);
        assert!(a.value(4).is_none());
        assert_eq!(a.validate(ValidationLevel::Full), Ok(()));
    }

    #[test]
    fn slice_then_values() {
        let a = sample();
        let s = a.slice(2, 2).unwrap();
        assert_eq!(s.value_offsets(), &[2, 2, 3]);
        assert_eq!(s.null_count(), 0);
        assert_eq!(s.get(0).unwrap().len(), 0);
        assert_eq!(i8s(&s.get(1).unwrap().column(1).unwrap()), [Some(30)]);
        assert_eq!(s.validate(ValidationLevel::Full), Ok(()));
        let r = s.into_array_ref().slice(1, 1).unwrap();
        let m = MapArray::downcast_ref(&r).unwrap();
        assert_eq!(m.value_offsets(), &[2, 3]);
        assert_eq!(a.slice(1, 4).unwrap_err(), Error::OutOfBounds);
    }

    #[test]
    fn builder_states_and_sorted_flag() {
        let mut b = builder().with_keys_sorted(true);
        b.keys().try_append_value(1).unwrap();
        assert_eq!(b.try_append(true), Err(Error::InvalidBuilderState));
        b.values().try_append_value(1).unwrap();
        b.try_append(true).unwrap();
        let a = b.try_finish().unwrap();
        assert!(a.keys_sorted());
        assert!(matches!(a.data_type(), DataType::Map(_, true)));
        // A null key in a closed map.
        let mut b = builder();
        b.keys().try_append_null().unwrap();
        b.values().try_append_value(1).unwrap();
        b.try_append(true).unwrap();
        assert_eq!(b.try_finish().unwrap_err(), Error::MapKeyNull);
        // Empty.
        let e = builder().try_finish().unwrap();
        assert_eq!(e.len(), 0);
        assert_eq!(e.value_offsets(), &[0]);
    }

    // Parts for hand-made maps: Struct<key: Int32, value: Int8> over 3 entries.
    static KEYS: [i32; 3] = [1, 2, 3];
    static VALS: [i8; 3] = [10, 20, 30];
    static KV: [Field<'static, Global>; 2] = [
        Field::new("key", DataType::Int32, false),
        Field::new("value", DataType::Int8, true),
    ];

    fn entries_of(
        fields: &'static [Field<'static, Global>],
        keys: ArrayRef<'static, Global>,
        nulls: Option<NullBuffer<'static, Global>>,
    ) -> StructArray<'static, Global> {
        let vals = PrimitiveArray::<i8, Global>::from_slice(&VALS).into_array_ref();
        let mut cols = std::vec![keys, vals];
        while cols.len() < fields.len() {
            cols.push(PrimitiveArray::<i8, Global>::from_slice(&VALS).into_array_ref());
        }
        let children = SharedSlice::try_from_iter_in(cols, Global).unwrap();
        StructArray::try_new_with_len(SharedSlice::borrowed(fields), children, 3, nulls).unwrap()
    }

    fn try_map(
        entries: StructArray<'static, Global>,
        entries_nullable: bool,
        offsets: &'static [i32],
    ) -> Result<MapArray<'static, Global>> {
        let f = Field::new("entries", entries.data_type().clone(), entries_nullable);
        // SAFETY: the offsets may be invalid on purpose (test); try_new checks them.
        let o = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from_slice_ref(offsets)) };
        MapArray::try_new_in(
            SharedBox::try_new_in(f, Global)?,
            o,
            entries,
            None,
            false,
            Global,
        )
    }

    fn keys_plain() -> ArrayRef<'static, Global> {
        PrimitiveArray::<i32, Global>::from_slice(&KEYS).into_array_ref()
    }

    fn keys_with_null_at_2() -> ArrayRef<'static, Global> {
        PrimitiveArray::<i32, Global>::try_from_options_in(&[Some(1), Some(2), None], Global)
            .unwrap()
            .into_array_ref()
    }

    #[test]
    fn hand_made_map_is_valid() {
        let m = try_map(entries_of(&KV, keys_plain(), None), false, &[0, 1, 3]).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(
            i32s(&m.get(1).unwrap().column(0).unwrap()),
            [Some(2), Some(3)]
        );
    }

    #[test]
    fn rule_entries_not_two_fields() {
        static KVX: [Field<'static, Global>; 3] = [
            Field::new("key", DataType::Int32, false),
            Field::new("value", DataType::Int8, true),
            Field::new("extra", DataType::Int8, true),
        ];
        let r = try_map(entries_of(&KVX, keys_plain(), None), false, &[0, 3]);
        assert_eq!(r.unwrap_err(), Error::MapEntriesInvalid);
    }

    #[test]
    fn rule_entries_field_nullable() {
        let r = try_map(entries_of(&KV, keys_plain(), None), true, &[0, 3]);
        assert_eq!(r.unwrap_err(), Error::MapEntriesInvalid);
    }

    #[test]
    fn rule_entries_have_nulls() {
        static BITS: [u8; 1] = [0b101];
        let n =
            NullBuffer::new(BooleanBuffer::try_new(Buffer::from_slice_ref(&BITS), 0, 3).unwrap());
        let r = try_map(entries_of(&KV, keys_plain(), Some(n)), false, &[0, 3]);
        assert_eq!(r.unwrap_err(), Error::MapEntriesInvalid);
    }

    #[test]
    fn rule_key_field_nullable() {
        static KVN: [Field<'static, Global>; 2] = [
            Field::new("key", DataType::Int32, true),
            Field::new("value", DataType::Int8, true),
        ];
        let r = try_map(entries_of(&KVN, keys_plain(), None), false, &[0, 3]);
        assert_eq!(r.unwrap_err(), Error::MapKeyNull);
    }

    #[test]
    fn rule_null_key_in_range() {
        let r = try_map(
            entries_of(&KV, keys_with_null_at_2(), None),
            false,
            &[0, 1, 3],
        );
        assert_eq!(r.unwrap_err(), Error::MapKeyNull);
        // Outside the referenced entries a null key is not looked at.
        let m = try_map(
            entries_of(&KV, keys_with_null_at_2(), None),
            false,
            &[0, 1, 2],
        )
        .unwrap();
        assert_eq!(m.len(), 2);
        // Cheap validation does not scan keys.
        // SAFETY: only validated below.
        let m = unsafe {
            MapArray::new_unchecked(
                m.field().clone(),
                OffsetBuffer::new_unchecked(ScalarBuffer::from_slice_ref(&[0, 3])),
                SharedBox::try_new_in(m.list().values().clone(), Global).unwrap(),
                None,
                false,
            )
        };
        assert_eq!(m.validate(ValidationLevel::Cheap), Ok(()));
        assert_eq!(m.validate(ValidationLevel::Full), Err(Error::MapKeyNull));
    }

    #[test]
    fn rule_entries_type_mismatch() {
        let e = entries_of(&KV, keys_plain(), None);
        static OTHER: [Field<'static, Global>; 2] = [
            Field::new("k", DataType::Int32, false),
            Field::new("v", DataType::Int8, true),
        ];
        let f = Field::new(
            "entries",
            DataType::Struct(SharedSlice::borrowed(&OTHER)),
            false,
        );
        let o = OffsetBuffer::try_new(ScalarBuffer::from_slice_ref(&[0, 3])).unwrap();
        let r = MapArray::try_new_in(SharedBox::borrowed(&f), o, e, None, false, Global);
        assert_eq!(r.unwrap_err(), Error::TypeMismatch);
    }

    #[test]
    fn rule_offsets_beyond_entries() {
        let r = try_map(entries_of(&KV, keys_plain(), None), false, &[0, 4]);
        assert_eq!(r.unwrap_err(), Error::OffsetOutOfBounds);
        let r = try_map(entries_of(&KV, keys_plain(), None), false, &[0, 3, 2]);
        assert_eq!(r.unwrap_err(), Error::OffsetsNotMonotonic);
    }

    #[test]
    fn rule_validity_length() {
        static BITS: [u8; 1] = [0xFF];
        let e = entries_of(&KV, keys_plain(), None);
        let f = Field::new("entries", e.data_type().clone(), false);
        let o = OffsetBuffer::try_new(ScalarBuffer::from_slice_ref(&[0, 3])).unwrap();
        let n =
            NullBuffer::new(BooleanBuffer::try_new(Buffer::from_slice_ref(&BITS), 0, 2).unwrap());
        let r = MapArray::try_new_in(SharedBox::borrowed(&f), o, e, Some(n), false, Global);
        assert_eq!(r.unwrap_err(), Error::ValidityTooSmall);
    }

    #[test]
    fn allocation_failures_are_errors() {
        let n = check_every_failure(|alloc: TestAlloc| {
            let mut b = MapBuilder::new_in(
                PrimitiveBuilder::<i32, _>::new_in(alloc.clone()),
                PrimitiveBuilder::<i8, _>::new_in(alloc.clone()),
                alloc,
            );
            b.keys().try_append_slice(&[1, 2])?;
            b.values().try_append_slice(&[3, 4])?;
            b.try_append(true)?;
            b.try_append_null()?;
            let a = b.try_finish()?;
            assert_eq!(a.value_offsets(), &[0, 2, 2]);
            Ok(())
        });
        assert!(n > 0);
    }
}
