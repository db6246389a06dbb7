//! The row format on the MCU: columns encoded into memcmp-comparable rows in
//! a static arena, sorted by bytes, and decoded back. No global allocator.

#![no_std]
#![no_main]

use alkaid::array::{
    Array, ArrayRef, ListBuilder, PrimitiveArray, PrimitiveBuilder, StringArray, UnionArray,
};
use alkaid::buffer::{ScalarBuffer, SharedSlice};
use alkaid::datatypes::{DataType, Field, UnionFields, UnionMode};
use alkaid::row::{RowConverter, SortField, SortOptions};
use alkaid_alloc::StaticArena;
use alkaid_qemu_cortex_m4::{entry, Harness};

const ARENA_BYTES: usize = 64 * 1024;
static ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
type A = &'static StaticArena<ARENA_BYTES>;

/// The fields of a union of Int32 (type id 0) and Utf8 (type id 5).
static UNION_FIELDS: [Field<'static, A>; 2] = [
    Field::new("i", DataType::Int32, true),
    Field::new("s", DataType::Utf8, true),
];
static UNION_IDS: [i8; 2] = [0, 5];

/// Indices `0..N` sorted by their rows' bytes (insertion sort, no heap).
fn sorted<const N: usize>(rows: &alkaid::row::Rows<A>) -> [usize; N] {
    let mut order = [0usize; N];
    for (i, o) in order.iter_mut().enumerate() {
        *o = i;
    }
    for i in 1..N {
        let mut j = i;
        while j > 0 && rows.row(order[j - 1]) > rows.row(order[j]) {
            order.swap(j - 1, j);
            j -= 1;
        }
    }
    order
}

#[entry]
fn main() -> ! {
    let mut h = Harness::new("row");

    h.test("spec_u32_examples", |t| {
        let col = PrimitiveArray::<u32, A>::try_from_options_in(
            &[Some(3), Some(258), Some(23423), None],
            &ARENA,
        )?
        .into_array_ref();
        let fields = [SortField::new(DataType::UInt32)];
        let conv = RowConverter::try_new_in(&fields, &ARENA)?;
        let rows = conv.convert_columns(core::slice::from_ref(&col))?;
        let want: [&[u8]; 4] = [
            &[0x01, 0, 0, 0, 3],
            &[0x01, 0, 0, 1, 2],
            &[0x01, 0, 0, 0x5B, 0x7F],
            &[0x00, 0, 0, 0, 0],
        ];
        for (i, w) in want.iter().enumerate() {
            let got = rows.row(i);
            t.eq("row bytes", &got.as_ref().map(|r| r.as_ref()), &Some(*w));
        }
        Ok(())
    });

    h.test("sort_by_bytes_and_decode", |t| {
        let ints = PrimitiveArray::<i32, A>::try_from_options_in(
            &[Some(5), Some(-5), None, Some(5), Some(0)],
            &ARENA,
        )?
        .into_array_ref();
        let names = StringArray::<A>::try_from_options_in(
            &[Some("b"), Some("z"), Some("a"), Some("a"), None],
            &ARENA,
        )?
        .into_array_ref();
        let fields = [
            SortField::new(DataType::Int32),
            SortField::new_with_options(
                DataType::Utf8,
                SortOptions {
                    descending: true,
                    nulls_first: false,
                },
            ),
        ];
        let conv = RowConverter::try_new_in(&fields, &ARENA)?;
        let cols = [ints, names];
        let rows = conv.convert_columns(&cols)?;
        // Insertion sort of row indices by bytes (no heap).
        let mut order = [0usize, 1, 2, 3, 4];
        for i in 1..order.len() {
            let mut j = i;
            while j > 0 && rows.row(order[j - 1]) > rows.row(order[j]) {
                order.swap(j - 1, j);
                j -= 1;
            }
        }
        // null int first; then -5; 0; then 5 with "b" before "a" (descending).
        t.eq("order", &order, &[2, 1, 4, 0, 3]);
        let back = conv.convert_rows(&rows)?;
        t.eq("columns", &back.len(), &2);
        t.check("ints round trip", back[0] == cols[0]);
        t.check("strings round trip", back[1] == cols[1]);
        if let ArrayRef::Utf8(s) = &back[1] {
            t.eq("value", &s.value(1), &Some("z"));
        }
        Ok(())
    });

    h.test("lists_sort_element_by_element", |t| {
        // [1], [1, null], [], null
        let mut b = ListBuilder::new_in(PrimitiveBuilder::<i32, A>::new_in(&ARENA), &ARENA);
        b.values().try_append_value(1)?;
        b.try_append(true)?;
        b.values().try_append_value(1)?;
        b.values().try_append_null()?;
        b.try_append(true)?;
        b.try_append(true)?;
        b.try_append_null()?;
        let lists = b.try_finish()?.into_array_ref();
        let fields = [SortField::new(lists.data_type().clone())];
        let conv = RowConverter::try_new_in(&fields, &ARENA)?;
        let cols = [lists];
        let rows = conv.convert_columns(&cols)?;
        // null, [], [1], [1, null]: a prefix sorts first.
        t.eq("order", &sorted::<4>(&rows), &[3, 2, 0, 1]);
        let back = conv.convert_rows(&rows)?;
        t.check("lists round trip", back[0] == cols[0]);
        Ok(())
    });

    h.test("unions_sort_by_type_then_value", |t| {
        // Dense: Int32 3, Utf8 "a", Int32 -1, Utf8 null.
        let fields = UnionFields::try_new(
            SharedSlice::borrowed(&UNION_IDS),
            SharedSlice::borrowed(&UNION_FIELDS),
        )?;
        let ints = PrimitiveArray::<i32, A>::try_from_options_in(&[Some(3), Some(-1)], &ARENA)?;
        let strs = StringArray::<A>::try_from_options_in(&[Some("a"), None], &ARENA)?;
        let children =
            SharedSlice::try_from_iter_in([ints.into_array_ref(), strs.into_array_ref()], &ARENA)?;
        let u = UnionArray::try_new(
            fields,
            UnionMode::Dense,
            ScalarBuffer::try_copy_in(&[0i8, 5, 0, 5], &ARENA)?,
            Some(ScalarBuffer::try_copy_in(&[0i32, 0, 1, 1], &ARENA)?),
            children,
        )?
        .into_array_ref();
        let sort = [SortField::new(u.data_type().clone())];
        let conv = RowConverter::try_new_in(&sort, &ARENA)?;
        let cols = [u];
        let rows = conv.convert_columns(&cols)?;
        // Int32 -1, Int32 3, then Utf8 null (nulls first), Utf8 "a".
        t.eq("order", &sorted::<4>(&rows), &[2, 0, 3, 1]);
        t.eq("type id byte", &rows.row(1).map(|r| r.data()[0]), &Some(5));
        let back = conv.convert_rows(&rows)?;
        t.check("union round trip", back[0] == cols[0]);
        Ok(())
    });

    h.test("malformed_rows_are_errors", |t| {
        let fields = [SortField::new(DataType::Utf8)];
        let conv = RowConverter::try_new_in(&fields, &ARENA)?;
        let bad = alkaid::row::Row::new(&[0x02, b'x', 0x01]);
        t.check("error", conv.convert_rows([bad]).is_err());
        Ok(())
    });

    h.finish()
}
