//! Every builder of the crate under allocation failure: for each `k` from 0
//! to the number of allocations a successful build makes, failing the `k`-th
//! allocation makes the build return `Err(AllocationFailed)` (never panic),
//! and once everything is dropped no byte is left allocated.
//!
//! Builders covered: `PrimitiveBuilder` (all 15 native types),
//! `BooleanBuilder`, `GenericByteBuilder` (Binary, LargeBinary, Utf8,
//! LargeUtf8), `FixedSizeBinaryBuilder`, `GenericByteViewBuilder` (BinaryView,
//! Utf8View), `UnionBuilder` (sparse, dense), `DictionaryBuilder`,
//! `PrimitiveDictionaryBuilder`, `PrimitiveRunBuilder`, `GenericListBuilder`
//! and `GenericListViewBuilder` (32- and 64-bit), `FixedSizeListBuilder`,
//! `StructBuilder` (with child builders and with `()`), `MapBuilder`, nested
//! in each other, empty and with a few hundred slots.

mod common;

use alkaid::array::{
    Array, ArrayBuilder, ArrayRef, BinaryBuilder, BinaryViewBuilder, BooleanBuilder,
    DictionaryBuilder, DictionaryKeyType, FixedSizeBinaryBuilder, FixedSizeListBuilder,
    GenericListBuilder, GenericListViewBuilder, LargeBinaryBuilder, LargeStringBuilder,
    ListOffsetSize, MapBuilder, PrimitiveArray, PrimitiveBuilder, PrimitiveDictionaryBuilder,
    PrimitiveRunBuilder, PrimitiveType, RunEndIndexType, StringArray, StringBuilder,
    StringViewBuilder, StructBuilder, UnionBuilder, ValidationLevel,
};
use alkaid::buffer::{SharedBox, SharedSlice, SharedStr};
use alkaid::datatypes::{DataType, Field, IndexType, TimeUnit, UnionFields, UnionMode};
use alkaid::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};
use alkaid::Result;
use common::{check_every_failure, counting, TestAlloc};

type R = ArrayRef<'static, TestAlloc>;

/// Number of slots of the non-empty builds: enough for several growths of
/// every buffer.
const N: usize = 300;

/// Validates a finished array (must pass at Full) and erases its type.
fn done<T: Array<'static, TestAlloc>>(a: T) -> Result<R> {
    a.validate(ValidationLevel::Full)?;
    Ok(a.into_array_ref())
}

fn primitive<T: PrimitiveType>(
    n: usize,
    value: impl Fn(usize) -> T,
) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc| {
        let mut b = PrimitiveBuilder::<T, TestAlloc>::new_in(alloc);
        for i in 0..n {
            b.try_append_option((i % 7 != 3).then(|| value(i)))?;
        }
        if n > 0 {
            b.try_reserve(10)?;
            b.try_append_slice(&[value(0), value(1)])?;
        }
        done(b.finish())
    }
}

#[test]
fn primitive_builders() {
    for n in [0, 1, N] {
        check_every_failure(primitive(n, |i| i as i8));
        check_every_failure(primitive(n, |i| i as i16));
        check_every_failure(primitive(n, |i| i as i32));
        check_every_failure(primitive(n, |i| i as i64 * 3));
        check_every_failure(primitive(n, |i| i as u8));
        check_every_failure(primitive(n, |i| i as u16));
        check_every_failure(primitive(n, |i| i as u32));
        check_every_failure(primitive(n, |i| i as u64));
        check_every_failure(primitive(n, |i| f16::from_f32(i as f32)));
        check_every_failure(primitive(n, |i| i as f32 / 3.0));
        check_every_failure(primitive(n, |i| i as f64 / 3.0));
        check_every_failure(primitive(n, |i| i as i128 - 5));
        check_every_failure(primitive(n, |i| i256::from_i128(i as i128)));
        check_every_failure(primitive(n, |i| IntervalDayTime::new(i as i32, 1)));
        check_every_failure(primitive(n, |i| IntervalMonthDayNano::new(1, i as i32, 2)));
    }
    // A logical type whose time zone is allocated too.
    let n = check_every_failure(|alloc| {
        let tz = SharedStr::try_from_str_in("Europe/Paris", alloc.clone())?;
        let mut b = PrimitiveBuilder::<i64, TestAlloc>::new_in(alloc)
            .with_data_type(DataType::Timestamp(TimeUnit::Millisecond, Some(tz)))?;
        for i in 0..N as i64 {
            b.try_append_value(i)?;
        }
        done(b.finish())
    });
    assert!(n > 2);
    check_every_failure(|alloc| {
        let v: Vec<Option<u32>> = (0..N as u32).map(|i| (i % 5 != 0).then_some(i)).collect();
        done(PrimitiveArray::try_from_options_in(&v, alloc)?)
    });
}

#[test]
fn boolean_builder() {
    for n in [0, 1, 9, N] {
        let count = check_every_failure(|alloc| {
            let mut b = BooleanBuilder::new_in(alloc);
            for i in 0..n {
                b.try_append_option((i % 5 != 1).then_some(i % 3 == 0))?;
            }
            done(b.finish())
        });
        // Values and validity bitmaps (none for fewer than two slots).
        assert!(n < 2 || count >= 2, "{n}: {count}");
    }
}

macro_rules! bytes_builder {
    ($builder:ident, $value:expr) => {
        for n in [0usize, 1, N] {
            check_every_failure(|alloc| {
                let mut b = $builder::new_in(alloc);
                if n > 0 {
                    b.try_reserve(4, 16)?;
                }
                for i in 0..n {
                    b.try_append_option((i % 6 != 2).then(|| $value(i)))?;
                }
                done(b.finish())
            });
        }
    };
}

fn text(i: usize) -> &'static str {
    const WORDS: [&str; 4] = ["", "joe", "mark", "a string longer than twelve bytes"];
    WORDS[i % WORDS.len()]
}

fn bytes(i: usize) -> &'static [u8] {
    text(i).as_bytes()
}

#[test]
fn variable_size_binary_builders() {
    bytes_builder!(BinaryBuilder, bytes);
    bytes_builder!(LargeBinaryBuilder, bytes);
    bytes_builder!(StringBuilder, text);
    bytes_builder!(LargeStringBuilder, text);
    check_every_failure(|alloc| {
        let v: Vec<Option<&str>> = (0..N).map(|i| (i % 4 != 0).then(|| text(i))).collect();
        done(StringArray::try_from_options_in(&v, alloc)?)
    });
}

#[test]
fn fixed_size_binary_builder() {
    for (width, n) in [(0, 0), (0, 10), (5, 0), (5, 1), (5, N)] {
        check_every_failure(|alloc| {
            let mut b = FixedSizeBinaryBuilder::try_new_in(width, alloc)?;
            if n > 0 {
                b.try_reserve(3)?;
            }
            let value = [7u8; 5];
            for i in 0..n {
                b.try_append_option((i % 4 != 1).then_some(&value[..width as usize]))?;
            }
            done(b.finish())
        });
    }
}

macro_rules! view_builder {
    ($builder:ident, $value:expr) => {
        for n in [0usize, 1, 3, N] {
            check_every_failure(|alloc| {
                let mut b = $builder::new_in(alloc);
                if n > 0 {
                    b.try_reserve(2, 8)?;
                }
                for i in 0..n {
                    b.try_append_option((i % 6 != 2).then(|| $value(i)))?;
                }
                done(b.finish()?)
            });
        }
    };
}

#[test]
fn view_builders() {
    view_builder!(BinaryViewBuilder, bytes);
    view_builder!(StringViewBuilder, text);
}

/// `Union<i: Int32 (id 3), s: Utf8 (id 7)>` built in `mode` with `n` slots.
fn union(mode: UnionMode, n: usize) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc: TestAlloc| {
        let fields = SharedSlice::try_from_iter_in(
            [
                Field::new("i", DataType::Int32, true),
                Field::new("s", DataType::Utf8, true),
            ],
            alloc.clone(),
        )?;
        let ids = SharedSlice::try_from_slice_in(&[3, 7], alloc.clone())?;
        let fields = UnionFields::try_new(ids, fields)?;
        let mut b = UnionBuilder::new_in(fields, mode, alloc.clone());
        let mut ints = PrimitiveBuilder::<i32, TestAlloc>::new_in(alloc.clone());
        let mut strings = StringBuilder::new_in(alloc.clone());
        for i in 0..n {
            let id = if i % 3 == 0 { 7 } else { 3 };
            b.try_append(id)?;
            let valid = i % 5 != 4;
            match (mode, id) {
                (UnionMode::Sparse, 3) => {
                    ints.try_append_option(valid.then_some(i as i32))?;
                    strings.try_append_null()?;
                }
                (UnionMode::Sparse, _) => {
                    ints.try_append_null()?;
                    strings.try_append_option(valid.then(|| text(i)))?;
                }
                (UnionMode::Dense, 3) => ints.try_append_option(valid.then_some(i as i32))?,
                (UnionMode::Dense, _) => strings.try_append_option(valid.then(|| text(i)))?,
            }
        }
        let children = SharedSlice::try_from_iter_in(
            [
                ints.finish().into_array_ref(),
                strings.finish().into_array_ref(),
            ],
            alloc,
        )?;
        done(b.finish(children)?)
    }
}

#[test]
fn union_builders() {
    for n in [0, 1, N] {
        check_every_failure(union(UnionMode::Sparse, n));
        check_every_failure(union(UnionMode::Dense, n));
    }
}

/// Keys of type `K` into a Utf8 dictionary of `d` values, `n` slots.
fn dictionary<K: DictionaryKeyType>(d: usize, n: usize) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc: TestAlloc| {
        let mut values = StringBuilder::new_in(alloc.clone());
        for i in 0..d {
            values.try_append_value(text(i))?;
        }
        let mut b =
            DictionaryBuilder::<K, TestAlloc>::try_new_in(values.finish().into_array_ref(), alloc)?
                .with_ordered(true);
        for i in 0..n {
            b.try_append_option((i % 4 != 0 && d > 0).then_some(i % d.max(1)))?;
        }
        done(b.finish())
    }
}

#[test]
fn dictionary_builders() {
    for (d, n) in [(0, 0), (0, 3), (3, 1), (4, N)] {
        check_every_failure(dictionary::<i8>(d, n));
        check_every_failure(dictionary::<u16>(d, n));
        check_every_failure(dictionary::<i32>(d, n));
        check_every_failure(dictionary::<u64>(d, n));
    }
}

fn primitive_dictionary<K: DictionaryKeyType, V: PrimitiveType>(
    n: usize,
    value: impl Fn(usize) -> V,
) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc| {
        let mut b = PrimitiveDictionaryBuilder::<K, V, TestAlloc>::new_in(alloc);
        for i in 0..n {
            b.try_append_option((i % 9 != 5).then(|| value(i % 23)))?;
        }
        done(b.finish()?)
    }
}

#[test]
fn primitive_dictionary_builders() {
    for n in [0, 1, N] {
        check_every_failure(primitive_dictionary::<u8, i64>(n, |i| i as i64));
        check_every_failure(primitive_dictionary::<i16, f64>(n, |i| i as f64));
        check_every_failure(primitive_dictionary::<i64, u32>(n, |i| i as u32));
    }
    check_every_failure(|alloc| {
        let mut b = PrimitiveDictionaryBuilder::<i32, i64, TestAlloc>::new_in(alloc)
            .with_value_type(DataType::Timestamp(TimeUnit::Second, None))?;
        for i in 0..N as i64 {
            b.try_append_value(i % 11)?;
        }
        done(b.finish()?)
    });
}

fn run_builder<R2: RunEndIndexType, V: PrimitiveType>(
    n: usize,
    value: impl Fn(usize) -> V,
) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc| {
        let mut b = PrimitiveRunBuilder::<R2, V, TestAlloc>::new_in(alloc);
        for i in 0..n {
            // Runs of 1 to 4 slots, some null.
            let run = i / 3;
            b.try_append_run((run % 5 != 2).then(|| value(run)), 1 + i % 4)?;
        }
        if n > 0 {
            b.try_append_null()?;
            b.try_append_value(value(0))?;
        }
        done(b.finish()?)
    }
}

#[test]
fn run_builders() {
    for n in [0, 1, N] {
        check_every_failure(run_builder::<i16, f64>(n, |r| r as f64));
        check_every_failure(run_builder::<i32, i32>(n, |r| r as i32));
        check_every_failure(run_builder::<i64, u8>(n, |r| r as u8));
    }
}

/// Regression: finishing builders that never received a slot (the empty
/// buffers used to be refused as misaligned for run ends and dense offsets).
#[test]
fn empty_builders_finish() {
    let a = PrimitiveRunBuilder::<i32, i64, TestAlloc>::new_in(counting())
        .finish()
        .unwrap();
    assert_eq!(a.len(), 0);
    a.validate(ValidationLevel::Full).unwrap();
    let u = union(UnionMode::Dense, 0)(counting()).unwrap();
    assert_eq!(u.len(), 0);
    let p = PrimitiveBuilder::<i64, TestAlloc>::new_in(counting()).finish();
    assert_eq!(p.values(), &[] as &[i64]);
    let d = PrimitiveDictionaryBuilder::<i8, i128, TestAlloc>::new_in(counting())
        .finish()
        .unwrap();
    assert_eq!(d.len(), 0);
}

/// `List<Utf8>` (or `LargeList`) of `n` lists of 0 to 3 strings, some null.
fn list<O: ListOffsetSize>(n: usize) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc: TestAlloc| {
        let mut b =
            GenericListBuilder::<O, _, _>::new_in(StringBuilder::new_in(alloc.clone()), alloc);
        for i in 0..n {
            for j in 0..i % 4 {
                b.values()
                    .try_append_option((j != 1).then(|| text(i + j)))?;
            }
            b.try_append(i % 5 != 3)?;
        }
        done(b.try_finish()?)
    }
}

/// `ListView<Int64>` (or `LargeListView`): `n` slots, every third one a
/// view back over earlier elements.
fn list_view<O: ListOffsetSize>(n: usize) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc: TestAlloc| {
        let mut b = GenericListViewBuilder::<O, _, _>::new_in(
            PrimitiveBuilder::<i64, TestAlloc>::new_in(alloc.clone()),
            alloc,
        );
        for i in 0..n {
            if i % 3 == 2 {
                let size = b.values().len().min(2);
                b.try_append_view(0, size, true)?;
            } else {
                for j in 0..i % 3 {
                    b.values().try_append_value((i * j) as i64)?;
                }
                b.try_append(i % 7 != 5)?;
            }
        }
        done(b.try_finish()?)
    }
}

#[test]
fn list_builders() {
    for n in [0, 1, N] {
        check_every_failure(list::<i32>(n));
        check_every_failure(list::<i64>(n));
        check_every_failure(list_view::<i32>(n));
        check_every_failure(list_view::<i64>(n));
    }
    // Nested twice: List<List<Int8>>.
    check_every_failure(|alloc| {
        let inner = GenericListBuilder::<i32, _, _>::new_in(
            PrimitiveBuilder::<i8, TestAlloc>::new_in(alloc.clone()),
            alloc.clone(),
        );
        let mut b = GenericListBuilder::<i32, _, _>::new_in(inner, alloc);
        for i in 0..N / 4 {
            for j in 0..i % 3 {
                for k in 0..j {
                    b.values().values().try_append_value(k as i8)?;
                }
                b.values().try_append(true)?;
            }
            b.try_append(i % 4 != 0)?;
        }
        done(b.try_finish()?)
    });
}

#[test]
fn fixed_size_list_builders() {
    for (size, n) in [(0, 0), (0, 5), (3, 0), (3, 1), (3, N)] {
        check_every_failure(|alloc| {
            let mut b =
                FixedSizeListBuilder::new_in(BooleanBuilder::new_in(alloc.clone()), size, alloc);
            for i in 0..n {
                if i % 4 == 1 {
                    b.try_append_null()?;
                } else {
                    for j in 0..size {
                        b.values()
                            .try_append_option((j != 1).then_some(i % 2 == 0))?;
                    }
                    b.try_append(true)?;
                }
            }
            done(b.try_finish()?)
        });
    }
}

/// `Struct<a: Int32, b: Utf8, c: Dictionary<Int8, Utf8>>` of `n` slots.
fn structs(n: usize) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc: TestAlloc| {
        let mut dict_values = StringBuilder::new_in(alloc.clone());
        dict_values.try_append_value("x")?;
        dict_values.try_append_value("y")?;
        let dict = DictionaryBuilder::<i8, TestAlloc>::try_new_in(
            dict_values.finish().into_array_ref(),
            alloc.clone(),
        )?;
        let fields = SharedSlice::try_from_iter_in(
            [
                Field::new("a", DataType::Int32, true),
                Field::new("b", DataType::Utf8, true),
                Field::new(
                    "c",
                    DataType::Dictionary(
                        IndexType::Int8,
                        SharedBox::try_new_in(DataType::Utf8, alloc.clone())?,
                        false,
                    ),
                    true,
                ),
            ],
            alloc.clone(),
        )?;
        let children = (
            PrimitiveBuilder::<i32, TestAlloc>::new_in(alloc.clone()),
            StringBuilder::new_in(alloc.clone()),
            dict,
        );
        let mut b = StructBuilder::new_in(fields, children, alloc);
        for i in 0..n {
            if i % 6 == 5 {
                b.try_append_null()?;
                continue;
            }
            b.children().0.try_append_value(i as i32)?;
            b.children()
                .1
                .try_append_option((i % 3 != 0).then(|| text(i)))?;
            b.children()
                .2
                .try_append_option((i % 4 != 0).then_some(i % 2))?;
            b.try_append(true)?;
        }
        done(b.try_finish()?)
    }
}

#[test]
fn struct_builders() {
    for n in [0, 1, N] {
        check_every_failure(structs(n));
    }
    // Validity only, children finished apart.
    check_every_failure(|alloc| {
        let fields = SharedSlice::try_from_iter_in(
            [Field::new("v", DataType::UInt16, true)],
            alloc.clone(),
        )?;
        let mut b = StructBuilder::new_in(fields, (), alloc.clone());
        let mut child = PrimitiveBuilder::<u16, TestAlloc>::new_in(alloc.clone());
        for i in 0..N {
            child.try_append_value(i as u16)?;
            b.try_append(i % 3 != 0)?;
        }
        let children = SharedSlice::try_from_iter_in([child.finish().into_array_ref()], alloc)?;
        done(b.try_finish_with_children(children)?)
    });
    // A list of structs of a run-end encoded child.
    check_every_failure(|alloc| {
        let ree_type = PrimitiveRunBuilder::<i16, i32, TestAlloc>::new_in(alloc.clone())
            .finish()?
            .data_type()
            .clone();
        let fields =
            SharedSlice::try_from_iter_in([Field::new("r", ree_type, true)], alloc.clone())?;
        let children = (PrimitiveRunBuilder::<i16, i32, TestAlloc>::new_in(
            alloc.clone(),
        ),);
        let inner = StructBuilder::new_in(fields, children, alloc.clone());
        let mut b = GenericListBuilder::<i32, _, _>::new_in(inner, alloc);
        for i in 0..N / 3 {
            for j in 0..i % 3 {
                b.values()
                    .children()
                    .0
                    .try_append_value((i / 4 + j) as i32)?;
                b.values().try_append(true)?;
            }
            b.try_append(true)?;
        }
        done(b.try_finish()?)
    });
}

/// `Map<Utf8, Float64>` of `n` maps of 0 to 2 entries.
fn map(n: usize) -> impl Fn(TestAlloc) -> Result<R> {
    move |alloc: TestAlloc| {
        let mut b = MapBuilder::new_in(
            StringBuilder::new_in(alloc.clone()),
            PrimitiveBuilder::<f64, TestAlloc>::new_in(alloc.clone()),
            alloc,
        )
        .with_keys_sorted(true);
        for i in 0..n {
            for j in 0..i % 3 {
                b.keys().try_append_value(text(j + 1))?;
                b.values().try_append_option((j == 0).then_some(i as f64))?;
            }
            b.try_append(i % 5 != 4)?;
        }
        done(b.try_finish()?)
    }
}

#[test]
fn map_builders() {
    for n in [0, 1, N] {
        check_every_failure(map(n));
    }
}

/// Builders used as children through [`ArrayBuilder`] report the same
/// failures (the child's own allocations happen inside the parent's build).
#[test]
fn array_builder_children() {
    fn through_trait<'a, B: ArrayBuilder<'a, TestAlloc>>(
        mut b: B,
        n: usize,
    ) -> Result<ArrayRef<'a, TestAlloc>> {
        for _ in 0..n {
            b.try_append_null()?;
        }
        b.try_finish_array_ref()
    }
    for n in [0, 1, N] {
        check_every_failure(|alloc| {
            through_trait(FixedSizeBinaryBuilder::try_new_in(4, alloc)?, n)
        });
        check_every_failure(|alloc| through_trait(BinaryViewBuilder::new_in(alloc), n));
        check_every_failure(|alloc| {
            let b = MapBuilder::new_in(
                StringBuilder::new_in(alloc.clone()),
                BooleanBuilder::new_in(alloc.clone()),
                alloc,
            );
            through_trait(b, n)
        });
    }
}
