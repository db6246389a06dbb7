//! Logical equality of arrays: [`logical_eq`] (same data type, same slots)
//! and [`values_equal`] (same slots whatever the encoding of the values).
//!
//! Both compare arrays slot by slot as the columnar format defines them, and
//! look through everything the format leaves to the writer: slicing (a view
//! starting anywhere in its buffers), where the offsets of a variable-size
//! layout start, the content of null slots (bytes, offsets, views, child
//! values), how views arrange their data buffers, which dictionary a
//! dictionary-encoded array uses and how its keys index it, and where the run
//! boundaries of a run-end encoded array fall.
//!
//! The rules are documented on [`logical_eq`]; [`values_equal`] applies
//! them to arrays of different but equivalent data types.

use core::mem::discriminant;

use allocator_api2::alloc::Allocator;

#[cfg(feature = "union")]
use super::UnionArray;
use super::{dispatch_primitive, Array, ArrayRef, PrimitiveArray, PrimitiveType};
use crate::native::NativeType;

#[cfg(feature = "nested")]
mod nested;
mod types;

#[cfg(test)]
mod tests;

/// Whether data types must be equal ([`logical_eq`]) or only equivalent
/// ([`values_equal`]) at every level.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// Same data type: equal values are compared between arrays of the same
    /// layout only.
    Strict,
    /// Equivalent data types: values of the same family (strings, binaries,
    /// lists) compare across layouts, encodings are looked through.
    Relaxed,
}

/// Logical equality: `a` and `b` have the same data type (`DataType ==`,
/// which includes child field names, nullability and metadata), the same
/// length, the same null slots and equal values in the other slots, as
/// described below.
///
/// This is `impl PartialEq for ArrayRef`. It looks through the physical
/// representation: a slice equals an array built from the same values;
/// offsets may start anywhere; null slots may hold anything; views may
/// arrange their data buffers in any way; two dictionary arrays of the same
/// type are equal when their *decoded* slots are (different dictionaries,
/// different keys); two run-end encoded arrays of the same type are equal
/// when their *logical* slots are (different run boundaries); a sparse union
/// ignores the unselected child slots, a dense union the arrangement of its
/// children.
///
/// It does **not** look through data types: a `Dictionary(Int8, Utf8)` array
/// never equals a `Utf8` array, nor a `Dictionary(Int16, Utf8)` one; an
/// `Int64` array never equals a `Timestamp` one. See [`values_equal`] for that.
///
/// ```
/// use alkaid::array::{logical_eq, values_equal, Array, LargeStringArray, StringArray};
///
/// let a = StringArray::from(vec![Some("x"), None, Some("y")]).into_array_ref();
/// let b = StringArray::from(vec!["w", "x", "q", "y"]).into_array_ref();
/// let b = b.slice(1, 3)?; // ["x", "q", "y"]: slot 1 is not null
/// assert!(!logical_eq(&a, &b));
/// let c = StringArray::from(vec![Some("x"), None, Some("y")]).into_array_ref();
/// assert!(logical_eq(&a, &c) && a == c);
///
/// // Same values in another layout: only `values_equal` looks through it.
/// let large = LargeStringArray::from_iter([Some("x"), None, Some("y")]).into_array_ref();
/// assert!(!logical_eq(&a, &large));
/// assert!(values_equal(&a, &large));
/// # Ok::<(), alkaid::Error>(())
/// ```
///
/// O(len) for flat layouts, O(len · log runs) with run-end encoding,
/// O(total elements) for nested layouts.
///
/// Spec: "Validity bitmaps" and the layout sections of the columnar format
/// (null slots hold unspecified data; "Dictionary-encoded Layout", "Run-End
/// Encoded Layout", "Union Layout": logical nulls come from keys, dictionary
/// values, runs and child values).
///
/// # Slots
///
/// Slot `i` of an array is either *null* or holds a *value*:
///
/// - Null layout: every slot is null.
/// - Layouts with a validity bitmap (primitive, boolean, binary/utf8 and
///   their large and view variants, fixed-size binary, lists, list views,
///   fixed-size lists, structs, maps): the slot is null when its bit is 0.
/// - Dictionary encoded: null when key `i` is null, otherwise the slot is slot
///   `keys[i]` of the dictionary (so it is also null when that dictionary
///   value is null).
/// - Run-end encoded: slot `i` is the value of the run covering it (null
///   when that value is null).
/// - Unions (no bitmap): null when the child slot the type id (and, for dense
///   unions, the offset) selects is null by these same rules; otherwise the
///   value is the pair (type id, child value).
///
/// # Values
///
/// Two valid slots are equal when their values are:
///
/// - fixed-width values (integers, floats, decimals, temporal, intervals)
///   compare **bitwise** ([`NativeType::bits_eq`]): a NaN equals a NaN with
///   the same bits, `0.0` and `-0.0` differ;
/// - booleans by their bit; binary, utf8 and fixed-size binary values by their
///   bytes;
/// - lists (all list layouts and maps) by their element ranges: same number of
///   elements, and the child slots of both ranges pairwise equal by these
///   same rules (recursively);
/// - structs by their children at the same slot, child by child;
/// - unions by type id, then by the selected child values.
///
/// # Malformed arrays
///
/// Neither function panics nor allocates, whatever the arrays (recursion
/// follows the nesting of the arrays). Arrays built with `new_unchecked` that
/// break the layout rules compare **unequal** to anything (themselves
/// included) as soon as a compared slot cannot be read: a valid slot whose
/// offsets, view, dictionary key, run ends or union type id / offset point
/// outside their buffers or children. Nulls are never read beyond their
/// bitmap, so garbage in null slots does not matter.
pub fn logical_eq<A: Allocator>(a: &ArrayRef<'_, A>, b: &ArrayRef<'_, A>) -> bool {
    a.len() == b.len()
        && a.data_type() == b.data_type()
        && range_eq(a, 0, b, 0, a.len(), Mode::Strict)
}

/// Value equality: `a` and `b` hold the same sequence of slots (same length,
/// same null slots, equal values in the other slots, as described on
/// [`logical_eq`]) and have *equivalent* data types: two
/// arrays with different physical layouts but equal values are equal.
///
/// Data types are compared after these rewrites, at every nesting level:
///
/// - `Dictionary(_, V, _)` and `RunEndEncoded(_, V)` are replaced by their
///   value type `V` (the index type, run-end type and `ordered` flag are
///   ignored): a dictionary or run-end encoded array equals a plain array of
///   its decoded values, and two dictionaries with different key types are
///   equal when their decoded slots are;
/// - `Utf8`, `LargeUtf8` and `Utf8View` are one type; so are `Binary`,
///   `LargeBinary` and `BinaryView` (but strings never equal binaries);
/// - `List`, `LargeList`, `ListView` and `LargeListView` are one type when
///   their element types are equivalent; `FixedSizeList`s need the same size;
/// - sparse and dense unions are one type when they declare the same type ids
///   in the same order, with equivalent children of the same names;
/// - struct children must have the same names, in the same order, and
///   equivalent types; map entries are compared by position (the spec does
///   not enforce their names) and the `keys_sorted` flag is ignored;
/// - child nullability, metadata, dictionary ids and the names of list,
///   map and run-end children are ignored;
/// - every other type must be equal (`Int32` never equals `Date32`,
///   `Timestamp` units and time zones must match, `FixedSizeBinary` widths too).
///
/// `logical_eq(a, b)` implies `values_equal(a, b)`. No allocation, no panic;
/// malformed arrays are unequal (see [`logical_eq`]).
pub fn values_equal<A: Allocator>(a: &ArrayRef<'_, A>, b: &ArrayRef<'_, A>) -> bool {
    a.len() == b.len()
        && types::equivalent(a.data_type(), b.data_type())
        && range_eq(a, 0, b, 0, a.len(), Mode::Relaxed)
}

/// `true` when `start..start + len` lies within `total` slots.
#[inline]
fn fits(start: usize, len: usize, total: usize) -> bool {
    start.checked_add(len).is_some_and(|end| end <= total)
}

/// Compares slots `ai..ai + len` of `a` with slots `bi..bi + len` of `b`
/// (`false` when a range exceeds its array).
fn range_eq<A: Allocator>(
    a: &ArrayRef<'_, A>,
    ai: usize,
    b: &ArrayRef<'_, A>,
    bi: usize,
    len: usize,
    mode: Mode,
) -> bool {
    if !fits(ai, len, a.len()) || !fits(bi, len, b.len()) {
        return false;
    }
    dispatch_primitive!((a, b); (x, y): T => primitive_range_eq(x, ai, y, bi, len), {
        (ArrayRef::Null(_), ArrayRef::Null(_)) => true,
        _ => {
            #[cfg(feature = "nested")]
            if let Some(eq) = nested::range_eq(a, ai, b, bi, len, mode) {
                return eq;
            }
            // `ai + len` and `bi + len` fit (checked above).
            (0..len).all(|k| slot_eq(a, ai + k, b, bi + k, mode))
        }
    })
}

/// Fast path of [`range_eq`] for two primitive arrays of the same native type
/// (ranges already checked).
fn primitive_range_eq<T: PrimitiveType, A: Allocator>(
    x: &PrimitiveArray<'_, T, A>,
    xi: usize,
    y: &PrimitiveArray<'_, T, A>,
    yi: usize,
    len: usize,
) -> bool {
    let (Some(xv), Some(yv)) = (
        x.values().get(xi..xi.saturating_add(len)),
        y.values().get(yi..yi.saturating_add(len)),
    ) else {
        return false;
    };
    if x.nulls().is_none() && y.nulls().is_none() {
        // Bitwise equality of every value is equality of the bytes.
        if let (Ok(p), Ok(q)) = (
            bytemuck::try_cast_slice::<T, u8>(xv),
            bytemuck::try_cast_slice::<T, u8>(yv),
        ) {
            return p == q;
        }
    }
    xv.iter().zip(yv).enumerate().all(|(k, (p, q))| {
        let valid = x.is_valid(xi + k);
        valid == y.is_valid(yi + k) && (!valid || p.bits_eq(q))
    })
}

/// What slot `i` of an array logically is, once dictionary and run-end
/// encoding are looked through.
enum Slot<'r, 'a, A: Allocator> {
    /// A null slot ("Slots" in the documentation of [`logical_eq`]).
    Null,
    /// A valid slot: slot `.1` of `.0`, which is neither a Null, dictionary
    /// nor run-end encoded array.
    Value(&'r ArrayRef<'a, A>, usize),
    /// The slot does not exist or cannot be read (malformed array).
    Invalid,
}

/// Resolves slot `i` of `a` (recursively through dictionaries and runs).
fn resolve<'r, 'a, A: Allocator>(a: &'r ArrayRef<'a, A>, i: usize) -> Slot<'r, 'a, A> {
    if i >= a.len() {
        return Slot::Invalid;
    }
    match a {
        ArrayRef::Null(_) => Slot::Null,
        #[cfg(feature = "dictionary")]
        ArrayRef::Dictionary(d) => {
            let keys = d.keys();
            if !keys.is_valid(i) {
                return Slot::Null;
            }
            match keys.value(i) {
                Some(k) => resolve(d.values(), k),
                None => Slot::Invalid,
            }
        }
        #[cfg(feature = "run-end")]
        ArrayRef::RunEndEncoded(r) => match r.physical_index(i) {
            Some(j) => resolve(r.values(), j),
            None => Slot::Invalid,
        },
        #[cfg(feature = "union")]
        ArrayRef::Union(u) => {
            let child = u
                .value(i)
                .and_then(|(_, c, s)| Some(resolve(u.children().get(c)?, s)));
            match child {
                Some(Slot::Value(..)) => Slot::Value(a, i),
                Some(Slot::Null) => Slot::Null,
                _ => Slot::Invalid,
            }
        }
        _ if a.is_valid(i) => Slot::Value(a, i),
        _ => Slot::Null,
    }
}

/// Compares slot `i` of `a` with slot `j` of `b`: both null, or both valid
/// with equal values.
fn slot_eq<A: Allocator>(
    a: &ArrayRef<'_, A>,
    i: usize,
    b: &ArrayRef<'_, A>,
    j: usize,
    mode: Mode,
) -> bool {
    match (resolve(a, i), resolve(b, j)) {
        (Slot::Null, Slot::Null) => true,
        (Slot::Value(x, xi), Slot::Value(y, yi)) => value_eq(x, xi, y, yi, mode),
        _ => false,
    }
}

/// Which values of the variable-size binary layouts compare with each other.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BytesFamily {
    /// Utf8, LargeUtf8, Utf8View.
    String,
    /// Binary, LargeBinary, BinaryView.
    Binary,
}

/// The family and bytes of slot `i` when `a` is a binary or string array
/// (bytes `None` when they cannot be read).
fn var_bytes<'r, A: Allocator>(
    a: &'r ArrayRef<'_, A>,
    i: usize,
) -> Option<(BytesFamily, Option<&'r [u8]>)> {
    Some(match a {
        ArrayRef::Utf8(x) => (BytesFamily::String, x.value_bytes(i)),
        ArrayRef::LargeUtf8(x) => (BytesFamily::String, x.value_bytes(i)),
        #[cfg(feature = "views")]
        ArrayRef::Utf8View(x) => (BytesFamily::String, x.value_bytes(i)),
        ArrayRef::Binary(x) => (BytesFamily::Binary, x.value_bytes(i)),
        ArrayRef::LargeBinary(x) => (BytesFamily::Binary, x.value_bytes(i)),
        #[cfg(feature = "views")]
        ArrayRef::BinaryView(x) => (BytesFamily::Binary, x.value_bytes(i)),
        _ => return None,
    })
}

/// `true` when both values could be read and are equal.
#[inline]
fn both_eq<T: PartialEq + ?Sized>(a: Option<&T>, b: Option<&T>) -> bool {
    matches!((a, b), (Some(a), Some(b)) if a == b)
}

/// Compares the values of two valid slots (as [`resolve`] returns them).
fn value_eq<A: Allocator>(
    x: &ArrayRef<'_, A>,
    i: usize,
    y: &ArrayRef<'_, A>,
    j: usize,
    mode: Mode,
) -> bool {
    if mode == Mode::Strict && discriminant(x) != discriminant(y) {
        return false;
    }
    dispatch_primitive!((x, y); (p, q): T => {
        matches!((p.value(i), q.value(j)), (Some(u), Some(v)) if u.bits_eq(&v))
    }, {
        (ArrayRef::Boolean(p), ArrayRef::Boolean(q)) => {
            both_eq(p.value(i).as_ref(), q.value(j).as_ref())
        }
        (ArrayRef::FixedSizeBinary(p), ArrayRef::FixedSizeBinary(q)) => {
            both_eq(p.value(i), q.value(j))
        }
        #[cfg(feature = "union")]
        (ArrayRef::Union(u), ArrayRef::Union(v)) => union_value_eq(u, i, v, j, mode),
        _ => match (var_bytes(x, i), var_bytes(y, j)) {
            (Some((fx, bx)), Some((fy, by))) => fx == fy && both_eq(bx, by),
            #[cfg(feature = "nested")]
            (None, None) => nested::value_eq(x, i, y, j, mode),
            _ => false,
        },
    })
}

/// Compares two valid union slots: same type id, equal child values.
#[cfg(feature = "union")]
fn union_value_eq<A: Allocator>(
    u: &UnionArray<'_, A>,
    i: usize,
    v: &UnionArray<'_, A>,
    j: usize,
    mode: Mode,
) -> bool {
    match (u.value(i), v.value(j)) {
        (Some((tu, cu, su)), Some((tv, cv, sv))) if tu == tv => {
            match (u.children().get(cu), v.children().get(cv)) {
                (Some(x), Some(y)) => slot_eq(x, su, y, sv, mode),
                _ => false,
            }
        }
        _ => false,
    }
}
