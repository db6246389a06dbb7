//! Every physical layout built on the MCU in a static arena: a null array and
//! an empty array of every layout (`compute::new_null` / `new_empty`), their
//! concatenation, and builder-made strings, views, lists, dictionaries and
//! run-end encoded arrays, each validated fully. No global allocator.

#![no_std]
#![no_main]

use alkaid::array::{
    Array, ArrayRef, BinaryViewArray, ListBuilder, PrimitiveBuilder, PrimitiveDictionaryBuilder,
    PrimitiveRunBuilder, StringArray, ValidationLevel,
};
use alkaid::buffer::{SharedBox, SharedSlice};
use alkaid::compute::{concat, new_empty, new_null};
use alkaid::datatypes::{
    DataType, Field, IndexType, IntervalUnit, TimeUnit, UnionFields, UnionMode,
};
use alkaid_alloc::StaticArena;
use alkaid_qemu_cortex_m4::{entry, Harness};

const ARENA_BYTES: usize = 256 * 1024;
static ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();
type A = &'static StaticArena<ARENA_BYTES>;

static ITEM: Field<'static, A> = Field::new("item", DataType::Int32, true);
static KEY: [Field<'static, A>; 2] = [
    Field::new("key", DataType::Utf8, false),
    Field::new("value", DataType::Float64, true),
];
static ENTRIES: Field<'static, A> = Field::new(
    "entries",
    DataType::Struct(SharedSlice::borrowed(&KEY)),
    false,
);
static RUN_ENDS: Field<'static, A> = Field::new("run_ends", DataType::Int32, false);
static UNION_IDS: [i8; 2] = [0, 1];

/// One data type per layout (nested ones with borrowed child fields).
fn types() -> alkaid::Result<[DataType<'static, A>; 31]> {
    use DataType::*;
    let item = || SharedBox::borrowed(&ITEM);
    let union = |mode| -> alkaid::Result<DataType<'static, A>> {
        Ok(Union(
            UnionFields::try_new(
                SharedSlice::borrowed(&UNION_IDS),
                SharedSlice::borrowed(&KEY),
            )?,
            mode,
        ))
    };
    Ok([
        Null,
        Boolean,
        Int8,
        Int64,
        UInt16,
        Float16,
        Float64,
        Decimal32(9, 2),
        Decimal128(38, 3),
        Decimal256(76, 0),
        Date64,
        Time64(TimeUnit::Nanosecond),
        Timestamp(TimeUnit::Millisecond, None),
        Interval(IntervalUnit::DayTime),
        Interval(IntervalUnit::MonthDayNano),
        Duration(TimeUnit::Second),
        FixedSizeBinary(3),
        Binary,
        LargeUtf8,
        BinaryView,
        Utf8View,
        List(item()),
        LargeList(item()),
        ListView(item()),
        LargeListView(item()),
        FixedSizeList(item(), 2),
        Struct(SharedSlice::borrowed(&KEY)),
        Map(SharedBox::borrowed(&ENTRIES), false),
        union(UnionMode::Sparse)?,
        union(UnionMode::Dense)?,
        RunEndEncoded(SharedBox::borrowed(&RUN_ENDS), item()),
    ])
}

#[entry]
fn main() -> ! {
    let mut h = Harness::new("layouts");

    h.test("null_empty_and_concat_of_every_layout", |t| {
        for dt in types()? {
            let nulls = new_null(&dt, 5, &ARENA)?;
            let empty = new_empty(&dt, &ARENA)?;
            nulls.validate(ValidationLevel::Full)?;
            empty.validate(ValidationLevel::Full)?;
            t.eq("null len", &nulls.len(), &5);
            t.eq("empty len", &empty.len(), &0);
            t.check("type kept", nulls.data_type() == &dt);
            let both = concat(&[&nulls, &empty, &nulls.slice(1, 3)?], &ARENA)?;
            both.validate(ValidationLevel::Full)?;
            t.eq("concat len", &both.len(), &8);
            t.check("concat equals its parts", both.slice(0, 5)? == nulls);
        }
        // SAFETY: single-threaded; every arena allocation of this test is gone.
        unsafe { ARENA.reset_unchecked() };
        Ok(())
    });

    h.test("builders", |t| {
        let s = StringArray::<A>::try_from_options_in(
            &[Some("joe"), None, None, Some("mark")],
            &ARENA,
        )?;
        t.eq("offsets", &s.value_offsets(), &&[0, 3, 3, 3, 7][..]);
        let v = BinaryViewArray::<A>::try_from_options_in(
            &[
                Some(b"short".as_slice()),
                Some(b"a value longer than twelve".as_slice()),
            ],
            &ARENA,
        )?;
        t.eq(
            "view",
            &v.value(1),
            &Some(b"a value longer than twelve".as_slice()),
        );

        let mut l = ListBuilder::new_in(PrimitiveBuilder::<i32, A>::new_in(&ARENA), &ARENA);
        for row in [&[1, 2][..], &[], &[3]] {
            l.values().try_append_slice(row)?;
            l.try_append(true)?;
        }
        let l = l.try_finish()?;
        l.validate(ValidationLevel::Full)?;
        t.eq("list offsets", &l.value_offsets(), &&[0, 2, 2, 3][..]);

        let mut d = PrimitiveDictionaryBuilder::<i8, u16, A>::new_in(&ARENA);
        for v in [7u16, 9, 7, 7] {
            d.try_append_value(v)?;
        }
        let d = d.finish()?;
        t.eq("dictionary keys", &d.key(3), &Some(0));
        t.eq("dictionary size", &d.values().len(), &2);
        t.eq("index type", &d.index_type(), &IndexType::Int8);

        let mut r = PrimitiveRunBuilder::<i16, f32, A>::new_in(&ARENA);
        for v in [1.0f32, 1.0, 1.0, 2.0] {
            r.try_append_value(v)?;
        }
        let r = r.finish()?;
        t.eq("runs", &r.values().len(), &2);
        t.eq("physical index", &r.physical_index(3), &Some(1));
        t.check(
            "layouts differ, values agree",
            ArrayRef::RunEndEncoded(r.clone()) == ArrayRef::RunEndEncoded(r),
        );
        Ok(())
    });

    h.finish()
}
