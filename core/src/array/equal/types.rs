//! Equivalence of data types for [`super::values_equal`]: equality once
//! encodings and physical layout choices are set aside.

use allocator_api2::alloc::Allocator;

use crate::datatypes::{DataType, Fields};

/// The type of the decoded values of `t`: the value type of a dictionary or
/// run-end encoded type (repeatedly), `t` itself otherwise.
fn decoded<'r, 'a, A: Allocator>(mut t: &'r DataType<'a, A>) -> &'r DataType<'a, A> {
    loop {
        t = match t {
            DataType::Dictionary(_, value, _) => value,
            DataType::RunEndEncoded(_, values) => values.data_type(),
            _ => return t,
        };
    }
}

/// `true` when arrays of types `a` and `b` can hold the same values (the
/// rules listed in [`super::values_equal`]).
pub(super) fn equivalent<A: Allocator>(a: &DataType<'_, A>, b: &DataType<'_, A>) -> bool {
    use DataType::*;
    match (decoded(a), decoded(b)) {
        (Utf8 | LargeUtf8 | Utf8View, Utf8 | LargeUtf8 | Utf8View) => true,
        (Binary | LargeBinary | BinaryView, Binary | LargeBinary | BinaryView) => true,
        (
            List(x) | LargeList(x) | ListView(x) | LargeListView(x),
            List(y) | LargeList(y) | ListView(y) | LargeListView(y),
        ) => equivalent(x.data_type(), y.data_type()),
        (FixedSizeList(x, n), FixedSizeList(y, m)) => {
            n == m && equivalent(x.data_type(), y.data_type())
        }
        (Struct(x), Struct(y)) => fields_equivalent(x, y, true),
        (Map(x, _), Map(y, _)) => match (x.data_type(), y.data_type()) {
            (Struct(x), Struct(y)) => fields_equivalent(x, y, false),
            (x, y) => equivalent(x, y),
        },
        (Union(x, _), Union(y, _)) => {
            x.type_ids() == y.type_ids() && fields_equivalent(x.fields(), y.fields(), true)
        }
        (a, b) => a == b,
    }
}

/// Same number of fields with pairwise equivalent types (and equal names
/// when `names`).
fn fields_equivalent<A: Allocator>(x: &Fields<'_, A>, y: &Fields<'_, A>, names: bool) -> bool {
    x.len() == y.len()
        && x.iter().zip(y.iter()).all(|(f, g)| {
            (!names || f.name() == g.name()) && equivalent(f.data_type(), g.data_type())
        })
}
