//! Test support: a plain value model of columns, building arrays from it,
//! reading values back, and the reference comparator the row order must match.

use core::cmp::Ordering;
use std::vec::Vec;

use crate::Global;

use super::{RowConverter, RowEncoding, SortField, SortOptions};
use crate::array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, BooleanBuilder, DictionaryArray, DictionaryKeys,
    FixedSizeBinaryArray, FixedSizeListArray, LargeBinaryArray, LargeListArray, LargeListViewArray,
    LargeStringArray, ListArray, ListViewArray, MapArray, NullArray, PrimitiveArray,
    PrimitiveBuilder, PrimitiveType, RunArray, RunEnds, StringArray, StringViewArray, StructArray,
};
use crate::buffer::{
    NullBuffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer, SharedBox, SharedSlice,
};
use crate::datatypes::{DataType, Field, FieldRef, IndexType, IntervalUnit};
use crate::native::{f16, i256, IntervalDayTime, IntervalMonthDayNano};

pub(crate) type G = Global;
pub(crate) type Dt = DataType<'static, G>;

/// A value of any supported type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum V {
    Null,
    Bool(bool),
    /// Signed integers, decimals, temporal values.
    I(i128),
    U(u64),
    /// Normalised IEEE bits of the value as `f64` (NaN canonical, no `-0.0`).
    F(u64),
    W(i256),
    /// Interval fields, compared in order.
    Iv(Vec<i64>),
    /// Binary and string bytes.
    B(Vec<u8>),
    /// Struct children.
    S(Vec<V>),
    /// List, fixed-size list and map elements (map entries are `S([k, v])`).
    L(Vec<V>),
    /// A union value: the type id and the selected child's value (a union
    /// slot itself is never null; its child value may be).
    T(i8, std::boxed::Box<V>),
}

/// The normalised bits of a float.
pub(crate) fn float(x: f64) -> V {
    let x = if x.is_nan() {
        f64::NAN
    } else if x == 0.0 {
        0.0
    } else {
        x
    };
    V::F(x.to_bits())
}

pub(crate) fn field(name: &'static str, dt: Dt, nullable: bool) -> FieldRef<'static, G> {
    SharedBox::try_new_in(Field::new(name, dt, nullable), Global).unwrap()
}

pub(crate) fn nulls_of(valid: impl Iterator<Item = bool>) -> Option<NullBuffer<'static, G>> {
    let mut b = NullBufferBuilder::new_in(Global);
    for v in valid {
        b.try_append(v).unwrap();
    }
    b.finish()
}

fn prim<T: PrimitiveType>(dt: &Dt, vals: &[V], f: impl Fn(&V) -> T) -> ArrayRef<'static, G> {
    let mut b = PrimitiveBuilder::<T, G>::new_in(Global)
        .with_data_type(dt.clone())
        .unwrap();
    for v in vals {
        match v {
            V::Null => b.try_append_null().unwrap(),
            v => b.try_append_value(f(v)).unwrap(),
        }
    }
    b.finish().into_array_ref()
}

fn int(v: &V) -> i128 {
    match v {
        V::I(x) => *x,
        _ => 0,
    }
}

fn bytes(v: &V) -> Option<&[u8]> {
    match v {
        V::B(b) => Some(b),
        _ => None,
    }
}

fn strs(vals: &[V]) -> Vec<Option<&str>> {
    vals.iter()
        .map(|v| bytes(v).map(|b| core::str::from_utf8(b).unwrap()))
        .collect()
}

fn elements(v: &V) -> &[V] {
    match v {
        V::L(e) => e,
        _ => &[],
    }
}

fn offsets<O: crate::buffer::OffsetSize>(vals: &[V]) -> Vec<O> {
    let mut o = std::vec![O::ZERO];
    let mut n = 0;
    for v in vals {
        n += elements(v).len();
        o.push(O::from_usize(n).unwrap());
    }
    o
}

fn flat(vals: &[V]) -> Vec<V> {
    vals.iter()
        .flat_map(|v| elements(v).iter().cloned())
        .collect()
}

fn valid(vals: &[V]) -> Option<NullBuffer<'static, G>> {
    nulls_of(vals.iter().map(|v| *v != V::Null))
}

/// List-view starts, sizes and child values with the elements laid out in
/// reverse slot order (so that offsets decrease).
fn reversed_views(vals: &[V]) -> (Vec<i64>, Vec<i64>, Vec<V>) {
    let mut child = Vec::new();
    let mut starts = std::vec![0i64; vals.len()];
    let mut sizes = std::vec![0i64; vals.len()];
    for (i, v) in vals.iter().enumerate().rev() {
        starts[i] = child.len() as i64;
        sizes[i] = elements(v).len() as i64;
        child.extend(elements(v).iter().cloned());
    }
    (starts, sizes, child)
}

/// Builds an array of type `dt` holding `vals`.
pub(crate) fn build(dt: &Dt, vals: &[V]) -> ArrayRef<'static, G> {
    use DataType::*;
    let n = vals.len();
    match dt {
        Null => NullArray::new(n).into_array_ref(),
        Boolean => {
            let mut b = BooleanBuilder::new_in(Global);
            for v in vals {
                b.try_append_option(match v {
                    V::Bool(x) => Some(*x),
                    _ => None,
                })
                .unwrap();
            }
            b.finish().into_array_ref()
        }
        Int8 => prim(dt, vals, |v| int(v) as i8),
        Int16 => prim(dt, vals, |v| int(v) as i16),
        Int32 | Date32 | Time32(_) | Decimal32(..) | Interval(IntervalUnit::YearMonth) => {
            prim(dt, vals, |v| int(v) as i32)
        }
        Int64 | Date64 | Time64(_) | Timestamp(..) | Duration(_) | Decimal64(..) => {
            prim(dt, vals, |v| int(v) as i64)
        }
        Decimal128(..) => prim(dt, vals, int),
        UInt8 | UInt16 | UInt32 | UInt64 => {
            let u = |v: &V| match v {
                V::U(x) => *x,
                _ => 0,
            };
            match dt {
                UInt8 => prim(dt, vals, |v| u(v) as u8),
                UInt16 => prim(dt, vals, |v| u(v) as u16),
                UInt32 => prim(dt, vals, |v| u(v) as u32),
                _ => prim(dt, vals, u),
            }
        }
        Float16 | Float32 | Float64 => {
            let f = |v: &V| match v {
                V::F(b) => f64::from_bits(*b),
                _ => 0.0,
            };
            match dt {
                Float16 => prim(dt, vals, |v| f16::from_f64(f(v))),
                Float32 => prim(dt, vals, |v| f(v) as f32),
                _ => prim(dt, vals, f),
            }
        }
        Decimal256(..) => prim(dt, vals, |v| match v {
            V::W(w) => *w,
            _ => i256::ZERO,
        }),
        Interval(IntervalUnit::DayTime) => prim(dt, vals, |v| match v {
            V::Iv(f) => IntervalDayTime::new(f[0] as i32, f[1] as i32),
            _ => IntervalDayTime::default(),
        }),
        Interval(IntervalUnit::MonthDayNano) => prim(dt, vals, |v| match v {
            V::Iv(f) => IntervalMonthDayNano::new(f[0] as i32, f[1] as i32, f[2]),
            _ => IntervalMonthDayNano::default(),
        }),
        FixedSizeBinary(w) => {
            FixedSizeBinaryArray::try_from_iter_in(*w, vals.iter().map(bytes), Global)
                .unwrap()
                .into_array_ref()
        }
        Binary => BinaryArray::try_from_iter_in(vals.iter().map(bytes), Global)
            .unwrap()
            .into_array_ref(),
        LargeBinary => LargeBinaryArray::try_from_iter_in(vals.iter().map(bytes), Global)
            .unwrap()
            .into_array_ref(),
        BinaryView => BinaryViewArray::try_from_iter_in(vals.iter().map(bytes), Global)
            .unwrap()
            .into_array_ref(),
        Utf8 => StringArray::try_from_iter_in(strs(vals), Global)
            .unwrap()
            .into_array_ref(),
        LargeUtf8 => LargeStringArray::try_from_iter_in(strs(vals), Global)
            .unwrap()
            .into_array_ref(),
        Utf8View => StringViewArray::try_from_iter_in(strs(vals), Global)
            .unwrap()
            .into_array_ref(),
        Struct(fields) => {
            let children = SharedSlice::try_from_fn_in(fields.len(), Global, |k| {
                let col: Vec<V> = vals
                    .iter()
                    .map(|v| match v {
                        V::S(c) => c[k].clone(),
                        _ => V::Null,
                    })
                    .collect();
                Ok(build(fields[k].data_type(), &col))
            })
            .unwrap();
            StructArray::try_new_with_len(fields.clone(), children, n, valid(vals))
                .unwrap()
                .into_array_ref()
        }
        List(f) => ListArray::try_new_in(
            f.clone(),
            OffsetBuffer::try_new(
                ScalarBuffer::try_copy_in(&offsets::<i32>(vals), Global).unwrap(),
            )
            .unwrap(),
            build(f.data_type(), &flat(vals)),
            valid(vals),
            Global,
        )
        .unwrap()
        .into_array_ref(),
        LargeList(f) => LargeListArray::try_new_in(
            f.clone(),
            OffsetBuffer::try_new(
                ScalarBuffer::try_copy_in(&offsets::<i64>(vals), Global).unwrap(),
            )
            .unwrap(),
            build(f.data_type(), &flat(vals)),
            valid(vals),
            Global,
        )
        .unwrap()
        .into_array_ref(),
        ListView(f) => {
            let (starts, sizes, child) = reversed_views(vals);
            let starts: Vec<i32> = starts.iter().map(|&x| x as i32).collect();
            let sizes: Vec<i32> = sizes.iter().map(|&x| x as i32).collect();
            ListViewArray::try_new(
                f.clone(),
                ScalarBuffer::try_copy_in(&starts, Global).unwrap(),
                ScalarBuffer::try_copy_in(&sizes, Global).unwrap(),
                SharedBox::try_new_in(build(f.data_type(), &child), Global).unwrap(),
                valid(vals),
            )
            .unwrap()
            .into_array_ref()
        }
        LargeListView(f) => {
            let (starts, sizes, child) = reversed_views(vals);
            LargeListViewArray::try_new(
                f.clone(),
                ScalarBuffer::try_copy_in(&starts, Global).unwrap(),
                ScalarBuffer::try_copy_in(&sizes, Global).unwrap(),
                SharedBox::try_new_in(build(f.data_type(), &child), Global).unwrap(),
                valid(vals),
            )
            .unwrap()
            .into_array_ref()
        }
        FixedSizeList(f, size) => {
            let child: Vec<V> = vals
                .iter()
                .flat_map(|v| match v {
                    V::L(e) => e.clone(),
                    _ => std::vec![V::Null; *size as usize],
                })
                .collect();
            FixedSizeListArray::try_new(
                f.clone(),
                *size,
                n,
                SharedBox::try_new_in(build(f.data_type(), &child), Global).unwrap(),
                valid(vals),
            )
            .unwrap()
            .into_array_ref()
        }
        Map(f, sorted) => {
            let entries = build(f.data_type(), &flat(vals));
            MapArray::try_new(
                f.clone(),
                OffsetBuffer::try_new(
                    ScalarBuffer::try_copy_in(&offsets::<i32>(vals), Global).unwrap(),
                )
                .unwrap(),
                SharedBox::try_new_in(entries, Global).unwrap(),
                valid(vals),
                *sorted,
            )
            .unwrap()
            .into_array_ref()
        }
        Dictionary(index, value_type, _) => build_dictionary(*index, value_type, vals),
        #[cfg(feature = "union")]
        DataType::Union(u, mode) => build_union(u, *mode, vals),
        #[cfg(not(feature = "union"))]
        DataType::Union(..) => panic!("unions need the union feature"),
        RunEndEncoded(_, vf) => {
            let mut ends = Vec::new();
            let mut heads = Vec::new();
            for (i, v) in vals.iter().enumerate() {
                if heads.last() != Some(v) || i == 0 {
                    heads.push(v.clone());
                    ends.push(i as i32 + 1);
                } else {
                    *ends.last_mut().unwrap() = i as i32 + 1;
                }
            }
            let ends = PrimitiveArray::<i32, G>::try_new(
                Int32,
                ScalarBuffer::try_copy_in(&ends, Global).unwrap(),
                None,
            )
            .unwrap();
            RunArray::try_new_in(RunEnds::Int32(ends), build(vf.data_type(), &heads), Global)
                .unwrap()
                .into_array_ref()
        }
    }
}

/// A sparse or dense union of `vals` (`V::T`; anything else, such as the
/// `V::Null` under a null parent, becomes a null of the first child). The
/// slots of a sparse child that another child selects hold that child's
/// previous selected value (or a null), which the encoder must ignore.
#[cfg(feature = "union")]
fn build_union(
    u: &crate::datatypes::UnionFields<'static, G>,
    mode: crate::datatypes::UnionMode,
    vals: &[V],
) -> ArrayRef<'static, G> {
    use crate::datatypes::UnionMode;
    let n = u.len();
    let mut ids = Vec::new();
    let mut offsets = Vec::new();
    let mut children: Vec<Vec<V>> = std::vec![Vec::new(); n];
    for v in vals {
        let (id, x) = match v {
            V::T(id, x) => (*id, (**x).clone()),
            _ => (u.type_ids()[0], V::Null),
        };
        let k = u.child_index(id).unwrap();
        ids.push(id);
        match mode {
            UnionMode::Dense => {
                offsets.push(children[k].len() as i32);
                children[k].push(x);
            }
            UnionMode::Sparse => {
                for (j, c) in children.iter_mut().enumerate() {
                    let filler = if j == k {
                        x.clone()
                    } else {
                        c.last().cloned().unwrap_or(V::Null)
                    };
                    c.push(filler);
                }
            }
        }
    }
    let arrays = SharedSlice::try_from_fn_in(n, Global, |k| {
        Ok(build(u.fields()[k].data_type(), &children[k]))
    })
    .unwrap();
    let offsets =
        (mode == UnionMode::Dense).then(|| ScalarBuffer::try_copy_in(&offsets, Global).unwrap());
    crate::array::UnionArray::try_new(
        u.clone(),
        mode,
        ScalarBuffer::try_copy_in(&ids, Global).unwrap(),
        offsets,
        arrays,
    )
    .unwrap()
    .into_array_ref()
}

/// A dictionary whose values are the distinct values in reverse order of
/// first appearance, plus an unused value and a null value; null slots
/// alternate between a null key and a key to the null value.
fn build_dictionary(index: IndexType, value_type: &Dt, vals: &[V]) -> ArrayRef<'static, G> {
    let mut dict: Vec<V> = Vec::new();
    for v in vals {
        if *v != V::Null && !dict.contains(v) {
            dict.push(v.clone());
        }
    }
    dict.reverse();
    if let Some(first) = dict.first().cloned() {
        dict.push(first); // a duplicate value: two keys, one value
    }
    dict.push(V::Null);
    let null_at = dict.len() - 1;
    let keys: Vec<Option<i64>> = vals
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            V::Null if i % 2 == 0 => None,
            V::Null => Some(null_at as i64),
            v => Some(dict.iter().position(|d| d == v).unwrap() as i64),
        })
        .collect();
    let keys = match index {
        IndexType::Int32 => DictionaryKeys::Int32(
            PrimitiveArray::try_from_options_in(
                &keys.iter().map(|k| k.map(|k| k as i32)).collect::<Vec<_>>(),
                Global,
            )
            .unwrap(),
        ),
        IndexType::UInt16 => DictionaryKeys::UInt16(
            PrimitiveArray::try_from_options_in(
                &keys.iter().map(|k| k.map(|k| k as u16)).collect::<Vec<_>>(),
                Global,
            )
            .unwrap(),
        ),
        _ => DictionaryKeys::Int64(PrimitiveArray::try_from_options_in(&keys, Global).unwrap()),
    };
    DictionaryArray::try_new_in(keys, build(value_type, &dict), false, Global)
        .unwrap()
        .into_array_ref()
}

/// The value of slot `i` of `a`.
pub(crate) fn value_at(a: &ArrayRef<'_, G>, i: usize) -> V {
    use ArrayRef as R;
    // Dictionaries, run-end encoded arrays and unions: nulls are in the children.
    let nulls_in_children = matches!(a, R::Dictionary(_) | R::RunEndEncoded(_));
    #[cfg(feature = "union")]
    let nulls_in_children = nulls_in_children || matches!(a, R::Union(_));
    if !nulls_in_children && !a.is_valid(i) {
        return V::Null;
    }
    let list = |child: &ArrayRef<'_, G>, r: core::ops::Range<usize>| {
        V::L(r.map(|j| value_at(child, j)).collect())
    };
    match a {
        R::Null(_) => V::Null,
        R::Boolean(x) => V::Bool(x.value(i).unwrap()),
        R::Int8(x) => V::I(x.value(i).unwrap().into()),
        R::Int16(x) => V::I(x.value(i).unwrap().into()),
        R::Int32(x) => V::I(x.value(i).unwrap().into()),
        R::Int64(x) => V::I(x.value(i).unwrap().into()),
        R::Int128(x) => V::I(x.value(i).unwrap()),
        R::UInt8(x) => V::U(x.value(i).unwrap().into()),
        R::UInt16(x) => V::U(x.value(i).unwrap().into()),
        R::UInt32(x) => V::U(x.value(i).unwrap().into()),
        R::UInt64(x) => V::U(x.value(i).unwrap()),
        R::Float16(x) => float(x.value(i).unwrap().to_f64()),
        R::Float32(x) => float(x.value(i).unwrap().into()),
        R::Float64(x) => float(x.value(i).unwrap()),
        R::Int256(x) => V::W(x.value(i).unwrap()),
        R::IntervalDayTime(x) => {
            let v = x.value(i).unwrap();
            V::Iv(std::vec![v.days.into(), v.milliseconds.into()])
        }
        R::IntervalMonthDayNano(x) => {
            let v = x.value(i).unwrap();
            V::Iv(std::vec![v.months.into(), v.days.into(), v.nanoseconds])
        }
        R::FixedSizeBinary(x) => V::B(x.value(i).unwrap().to_vec()),
        R::Binary(x) => V::B(x.value_bytes(i).unwrap().to_vec()),
        R::LargeBinary(x) => V::B(x.value_bytes(i).unwrap().to_vec()),
        R::Utf8(x) => V::B(x.value_bytes(i).unwrap().to_vec()),
        R::LargeUtf8(x) => V::B(x.value_bytes(i).unwrap().to_vec()),
        R::BinaryView(x) => V::B(x.value_bytes(i).unwrap().to_vec()),
        R::Utf8View(x) => V::B(x.value_bytes(i).unwrap().to_vec()),
        R::Struct(s) => V::S(s.columns().map(|c| value_at(&c, i)).collect()),
        R::List(l) => {
            let o = l.value_offsets();
            list(l.values(), o[i] as usize..o[i + 1] as usize)
        }
        R::LargeList(l) => {
            let o = l.value_offsets();
            list(l.values(), o[i] as usize..o[i + 1] as usize)
        }
        R::ListView(l) => {
            let (o, s) = (l.value_offsets()[i] as usize, l.value_sizes()[i] as usize);
            list(l.values(), o..o + s)
        }
        R::LargeListView(l) => {
            let (o, s) = (l.value_offsets()[i] as usize, l.value_sizes()[i] as usize);
            list(l.values(), o..o + s)
        }
        R::FixedSizeList(l) => {
            let o = l.value_offset(i).unwrap();
            list(l.values(), o..o + l.value_length() as usize)
        }
        R::Map(m) => {
            let o = m.value_offsets();
            list(m.list().values(), o[i] as usize..o[i + 1] as usize)
        }
        R::Dictionary(d) => match d.key(i) {
            Some(k) => value_at(d.values(), k),
            None => V::Null,
        },
        R::RunEndEncoded(r) => value_at(r.values(), r.physical_index(i).unwrap()),
        #[cfg(feature = "union")]
        R::Union(u) => {
            let (id, k, slot) = u.value(i).unwrap();
            V::T(id, std::boxed::Box::new(value_at(&u.children()[k], slot)))
        }
    }
}

/// The order of two non-null leaf values, ascending.
fn leaf_cmp(a: &V, b: &V) -> Ordering {
    match (a, b) {
        (V::Bool(x), V::Bool(y)) => x.cmp(y),
        (V::I(x), V::I(y)) => x.cmp(y),
        (V::U(x), V::U(y)) => x.cmp(y),
        (V::F(x), V::F(y)) => f64::from_bits(*x).total_cmp(&f64::from_bits(*y)),
        (V::W(x), V::W(y)) => x.cmp(y),
        (V::Iv(x), V::Iv(y)) => x.cmp(y),
        (V::B(x), V::B(y)) => x.cmp(y),
        _ => panic!("mismatched values {a:?} {b:?}"),
    }
}

/// The order rows of `a` and `b` must have under `opts` (the order of
/// the values: every case is defined, none is left out).
pub(crate) fn reference_cmp(dt: &Dt, opts: SortOptions, a: &V, b: &V) -> Ordering {
    use DataType::*;
    let nulls = |o: Ordering| if opts.nulls_first { o } else { o.reverse() };
    match (a, b) {
        (V::Null, V::Null) => return Ordering::Equal,
        (V::Null, _) => return nulls(Ordering::Less),
        (_, V::Null) => return nulls(Ordering::Greater),
        _ => {}
    }
    let dir = |o: Ordering| if opts.descending { o.reverse() } else { o };
    // Element by element with `opts`, stopping at the first difference.
    let each = |f: &Dt, o: SortOptions, x: &[V], y: &[V]| {
        x.iter()
            .zip(y)
            .map(|(p, q)| reference_cmp(f, o, p, q))
            .find(|c| c.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    match dt {
        Struct(fields) => {
            let (V::S(x), V::S(y)) = (a, b) else { panic!() };
            fields
                .iter()
                .zip(x.iter().zip(y))
                .map(|(f, (p, q))| reference_cmp(f.data_type(), opts, p, q))
                .find(|c| c.is_ne())
                .unwrap_or(Ordering::Equal)
        }
        FixedSizeList(f, _) => {
            let (V::L(x), V::L(y)) = (a, b) else { panic!() };
            each(f.data_type(), opts, x, y)
        }
        List(f) | LargeList(f) | ListView(f) | LargeListView(f) | Map(f, _) => {
            let (V::L(x), V::L(y)) = (a, b) else { panic!() };
            // Elements ascending with the nulls placement they get before
            // the whole list is inverted for descending; a prefix first.
            let eo = SortOptions::new(false, opts.nulls_first != opts.descending);
            dir(each(f.data_type(), eo, x, y).then(x.len().cmp(&y.len())))
        }
        Dictionary(_, v, _) => reference_cmp(v, opts, a, b),
        RunEndEncoded(_, v) => reference_cmp(v.data_type(), opts, a, b),
        // By type id (larger first when descending), then by the child's
        // value under the union's options (nulls inside the child).
        Union(u, _) => {
            let (V::T(p, x), V::T(q, y)) = (a, b) else {
                panic!()
            };
            if p != q {
                return dir(p.cmp(q));
            }
            let k = u.child_index(*p).unwrap();
            reference_cmp(u.fields()[k].data_type(), opts, x, y)
        }
        _ => dir(leaf_cmp(a, b)),
    }
}

/// xorshift64*: deterministic values for tests.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The ascending rows of `"ab"` (one block, zero-padded, length 2) and of
/// 32 `x` then `y` (a whole block, `0xFF`, then a block of one byte):
/// the spec's variable-length layout.
pub(crate) fn spec_ab_and_long_rows() -> (Vec<u8>, Vec<u8>) {
    let mut ab = std::vec![0x02, b'a', b'b'];
    ab.extend([0; 30]);
    ab.push(2);
    let mut long = std::vec![0x02];
    long.extend([b'x'; 32]);
    long.push(0xFF);
    long.push(b'y');
    long.extend([0; 31]);
    long.push(1);
    (ab, long)
}

/// A converter of one column of type `dt`.
pub(crate) fn one_column_converter(dt: Dt, opts: SortOptions, enc: RowEncoding) -> Seeded {
    Seeded::with_encoding(&[SortField::new_with_options(dt, opts)], enc)
}

/// A converter of the columns `types` (type and sort options each).
pub(crate) fn converter_of(types: &[(Dt, SortOptions)]) -> RowConverter<'static, G> {
    let fields: Vec<_> = types
        .iter()
        .map(|(t, o)| SortField::new_with_options(t.clone(), *o))
        .collect();
    RowConverter::try_new(&fields).unwrap()
}

/// A converter with its [`super::RowInterner`], for tests of every
/// encoding: `convert_columns`, `append`, `convert_rows` and
/// `convert_all_rows` go through the interner (empty unless the
/// converter writes seed dictionaries); the rest is the converter's.
pub(crate) struct Seeded {
    pub(crate) c: RowConverter<'static, G>,
    pub(crate) i: super::RowInterner<G>,
}

impl Seeded {
    /// `c` with a new interner.
    pub(crate) fn new(c: RowConverter<'static, G>) -> Self {
        let i = c.try_new_interner().unwrap();
        Seeded { c, i }
    }

    /// A converter of `fields` writing `encoding`, with a new interner.
    pub(crate) fn with_encoding(fields: &[SortField<'static, G>], encoding: RowEncoding) -> Self {
        Self::new(RowConverter::try_new_with_encoding(fields, encoding).unwrap())
    }

    pub(crate) fn convert_columns(
        &mut self,
        columns: &[ArrayRef<'_, G>],
    ) -> crate::error::Result<super::Rows<G>> {
        self.c.convert_columns_with_interner(&mut self.i, columns)
    }

    pub(crate) fn append(
        &mut self,
        rows: &mut super::Rows<G>,
        columns: &[ArrayRef<'_, G>],
    ) -> crate::error::Result<()> {
        self.c.append_with_interner(&mut self.i, rows, columns)
    }

    pub(crate) fn convert_rows<'r, I>(
        &self,
        rows: I,
    ) -> crate::error::Result<crate::buffer::SharedSlice<'static, ArrayRef<'static, G>, G>>
    where
        I: IntoIterator<Item = super::Row<'r>>,
        I::IntoIter: ExactSizeIterator,
    {
        self.c.convert_rows_with_interner(&self.i, rows)
    }

    pub(crate) fn convert_all_rows(
        &self,
        rows: &super::Rows<G>,
    ) -> crate::error::Result<crate::buffer::SharedSlice<'static, ArrayRef<'static, G>, G>> {
        self.c.convert_all_rows_with_interner(&self.i, rows)
    }
}

impl core::ops::Deref for Seeded {
    type Target = RowConverter<'static, G>;
    fn deref(&self) -> &Self::Target {
        &self.c
    }
}
