//! A record batch whose schema is a `static` in flash (borrowed names, no
//! allocation), with columns built in a static arena or borrowed from flash.

#![no_std]
#![no_main]

use alkaid::array::{
    Array, ArrayRef, BooleanBuilder, PrimitiveArray, PrimitiveBuilder, RecordBatch,
};
use alkaid::buffer::SharedSlice;
use alkaid::datatypes::{DataType, Field, Schema, TimeUnit};
use alkaid::Error;
use alkaid_alloc::StaticArena;
use alkaid_qemu_cortex_m4::{entry, in_flash, Harness};

const ARENA_BYTES: usize = 32 * 1024;
static ARENA: StaticArena<ARENA_BYTES> = StaticArena::new();

/// The allocator of this firmware: a shared reference to the arena.
type A = &'static StaticArena<ARENA_BYTES>;

/// The schema, built at compile time: names borrow string literals.
static FIELDS: [Field<'static, A>; 3] = [
    Field::new(
        "time",
        DataType::Timestamp(TimeUnit::Millisecond, None),
        false,
    ),
    Field::new("temperature", DataType::Int16, true),
    Field::new("door_open", DataType::Boolean, false),
];
static SCHEMA: Schema<'static, A> = Schema::from_fields(SharedSlice::borrowed(&FIELDS));

/// Timestamps in flash, used as a column without copying.
static TIMES: [i64; 4] = [1_000, 2_000, 3_000, 4_000];

fn columns(temps: &[Option<i16>], doors: &[bool]) -> alkaid::Result<[ArrayRef<'static, A>; 3]> {
    let time = PrimitiveArray::<i64, A>::from_slice(&TIMES[..temps.len()])
        .with_data_type(DataType::Timestamp(TimeUnit::Millisecond, None))?;
    let mut t = PrimitiveBuilder::<i16, A>::new_in(&ARENA);
    for v in temps {
        t.try_append_option(*v)?;
    }
    let mut d = BooleanBuilder::new_in(&ARENA);
    for v in doors {
        d.try_append_value(*v)?;
    }
    Ok([
        time.into_array_ref(),
        t.finish().into_array_ref(),
        d.finish().into_array_ref(),
    ])
}

#[entry]
fn main() -> ! {
    let mut h = Harness::new("record_batch");

    h.test("schema_lives_in_flash", |t| {
        t.check("schema in flash", in_flash(&SCHEMA));
        t.check(
            "fields in flash",
            in_flash(SCHEMA.fields().as_slice().as_ptr()),
        );
        let name = SCHEMA.field(1).map(|f| f.name());
        t.eq("name", &name, &Some("temperature"));
        t.check("names in flash", name.is_some_and(|n| in_flash(n.as_ptr())));
        t.check("borrowed, not owned", !SCHEMA.fields().is_owned());
        t.eq("index_of", &SCHEMA.index_of("door_open"), &Some(2));
        Ok(())
    });

    h.test("batch_with_borrowed_columns", |t| {
        let used = ARENA.used();
        let cols = columns(
            &[Some(21), None, Some(23), Some(24)],
            &[false, true, true, false],
        )?;
        let batch = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(&cols))?;
        t.eq("rows", &batch.num_rows(), &4);
        t.eq("columns", &batch.num_columns(), &3);
        let temp = batch.column_by_name("temperature");
        let temps = match temp {
            Some(ArrayRef::Int16(a)) => Some([a.get(0), a.get(1), a.get(2), a.get(3)]),
            _ => None,
        };
        t.eq(
            "temperatures",
            &temps,
            &Some([Some(21), None, Some(23), Some(24)]),
        );
        let time = match batch.column(0) {
            Some(ArrayRef::Int64(a)) => Some(a.values().as_ptr()),
            _ => None,
        };
        t.eq("time column borrows flash", &time, &Some(TIMES.as_ptr()));
        let door = match batch.column(2) {
            Some(ArrayRef::Boolean(a)) => Some(a.true_count()),
            _ => None,
        };
        t.eq("doors open", &door, &Some(2));
        t.check("arena used by the two built columns", ARENA.used() > used);
        batch.validate(alkaid::array::ValidationLevel::Full)?;
        Ok(())
    });

    h.test("batch_with_columns_in_the_arena", |t| {
        let cols = columns(&[Some(1), Some(2)], &[true, false])?;
        let shared = SharedSlice::try_from_iter_in(cols, &ARENA)?;
        t.check("columns owned by the arena", shared.is_owned());
        let batch = RecordBatch::try_new(SCHEMA.clone(), shared)?;
        let sliced: alkaid::Result<[ArrayRef<'static, A>; 3]> = (|| {
            Ok([
                batch.column(0).ok_or(Error::OutOfBounds)?.slice(1, 1)?,
                batch.column(1).ok_or(Error::OutOfBounds)?.slice(1, 1)?,
                batch.column(2).ok_or(Error::OutOfBounds)?.slice(1, 1)?,
            ])
        })();
        let sliced = sliced?;
        let one = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(&sliced))?;
        t.eq("sliced rows", &one.num_rows(), &1);
        let temp = match one.column(1) {
            Some(ArrayRef::Int16(a)) => a.get(0),
            _ => None,
        };
        t.eq("sliced temperature", &temp, &Some(2));
        t.eq("batches compare", &(one == batch), &false);
        Ok(())
    });

    h.test("schema_violations_are_errors", |t| {
        let cols = columns(&[Some(1), Some(2), Some(3)], &[true, false, true])?;
        let two = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(&cols[..2]));
        t.eq("missing column", &two.err(), &Some(Error::SchemaMismatch));

        let swapped = [cols[0].clone(), cols[2].clone(), cols[1].clone()];
        let r = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(&swapped));
        t.eq("wrong types", &r.err(), &Some(Error::SchemaMismatch));

        let short = [cols[0].clone(), cols[1].slice(0, 2)?, cols[2].clone()];
        let r = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(&short));
        t.eq("length mismatch", &r.err(), &Some(Error::LengthMismatch));

        let mut d = BooleanBuilder::new_in(&ARENA);
        d.try_append_value(true)?;
        d.try_append_null()?;
        d.try_append_value(false)?;
        let nulls = [
            cols[0].clone(),
            cols[1].clone(),
            d.finish().into_array_ref(),
        ];
        let r = RecordBatch::try_new(SCHEMA.clone(), SharedSlice::borrowed(&nulls));
        t.eq(
            "null in non-nullable",
            &r.err(),
            &Some(Error::NullInNonNullableField),
        );
        Ok(())
    });

    h.finish()
}
