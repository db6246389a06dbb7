//! The [`ValidationLevel::Strict`] rule for non-nullable child fields
//! ([`super::check_non_nullable`]): no null in the child where the parent
//! slot is valid (structs, fixed-size lists), none at all in the child of a
//! list. `Full`, the default, accepts all of these (as pyarrow does).

extern crate std;
use std::vec;

use super::*;
use crate::buffer::{BooleanBuffer, Buffer, OffsetBuffer, ScalarBuffer, SharedBox, SharedSlice};
use crate::datatypes::{DataType, Field};
use crate::Global;

/// A bitmap of `valid.len()` bits (LSB order).
fn bitmap(valid: &[bool]) -> NullBuffer<'static, Global> {
    let mut bytes = vec![0u8; valid.len().div_ceil(8)];
    for (i, v) in valid.iter().enumerate() {
        if *v {
            bytes[i / 8] |= 1 << (i % 8);
        }
    }
    let buf = Buffer::try_copy_in(&bytes, Global).unwrap();
    NullBuffer::new(BooleanBuffer::try_new(buf, 0, valid.len()).unwrap())
}

/// Int32 values with nulls where `None`.
fn ints(values: &[Option<i32>]) -> ArrayRef<'static, Global> {
    PrimitiveArray::<i32, Global>::try_from_options_in(values, Global)
        .unwrap()
        .into_array_ref()
}

fn field(nullable: bool) -> Field<'static, Global> {
    Field::new("v", DataType::Int32, nullable)
}

fn levels<'a, T: Array<'a, Global>>(a: &T) -> (Result<()>, Result<()>) {
    (
        a.validate(ValidationLevel::Full),
        a.validate(ValidationLevel::Strict),
    )
}

#[test]
fn struct_fields_may_hold_nulls_only_under_null_parents() {
    let child = ints(&[Some(1), None, Some(3), None]);
    let make = |nullable: bool, parent: Option<&[bool]>| {
        StructArray::try_new(
            SharedSlice::try_from_slice_in(&[field(nullable)], Global).unwrap(),
            SharedSlice::try_from_slice_in(core::slice::from_ref(&child), Global).unwrap(),
            parent.map(bitmap),
        )
        .unwrap()
    };
    // Nullable field: nothing to check.
    assert_eq!(levels(&make(true, None)), (Ok(()), Ok(())));
    // Non-nullable, the nulls unmasked: refused at Strict only, child 0 named.
    let bad = make(false, None);
    let (full, strict) = levels(&bad);
    assert_eq!(full, Ok(()));
    let e = strict.unwrap_err();
    assert_eq!(e, Error::NullInNonNullableField);
    assert_eq!(e.location().field_path(), [0]);
    // Masked by null parent slots 1 and 3: accepted.
    let masked = make(false, Some(&[true, false, true, false]));
    assert_eq!(levels(&masked), (Ok(()), Ok(())));
    // One null (slot 3) left unmasked.
    let half = make(false, Some(&[true, false, true, true]));
    assert_eq!(
        half.validate(ValidationLevel::Strict),
        Err(Error::NullInNonNullableField)
    );
    // A slice sees its own slots only: slots 0..1 and 2..3 are clean.
    assert_eq!(
        bad.slice(0, 1).unwrap().validate(ValidationLevel::Strict),
        Ok(())
    );
    assert_eq!(
        bad.slice(2, 1).unwrap().validate(ValidationLevel::Strict),
        Ok(())
    );
    assert!(bad
        .slice(2, 2)
        .unwrap()
        .validate(ValidationLevel::Strict)
        .is_err());
}

#[test]
fn fixed_size_list_elements_follow_their_list_slot() {
    // Two lists of two: [1, null], [3, 4].
    let child = ints(&[Some(1), None, Some(3), Some(4)]);
    let make = |parent: Option<&[bool]>| {
        FixedSizeListArray::try_new(
            SharedBox::try_new_in(field(false), Global).unwrap(),
            2,
            2,
            SharedBox::try_new_in(child.clone(), Global).unwrap(),
            parent.map(bitmap),
        )
        .unwrap()
    };
    let bad = make(None);
    assert_eq!(levels(&bad).0, Ok(()));
    assert_eq!(
        bad.validate(ValidationLevel::Strict),
        Err(Error::NullInNonNullableField)
    );
    assert_eq!(levels(&make(Some(&[false, true]))), (Ok(()), Ok(())));
    assert!(make(Some(&[true, false]))
        .validate(ValidationLevel::Strict)
        .is_err());
    // The second list alone is clean.
    assert_eq!(
        bad.slice(1, 1).unwrap().validate(ValidationLevel::Strict),
        Ok(())
    );
}

#[test]
fn list_children_of_a_non_nullable_field_hold_no_null() {
    let make = |nullable: bool, values: &[Option<i32>]| {
        ListArray::try_new(
            SharedBox::try_new_in(field(nullable), Global).unwrap(),
            OffsetBuffer::try_new(ScalarBuffer::try_copy_in(&[0i32, 2, 3], Global).unwrap())
                .unwrap(),
            SharedBox::try_new_in(ints(values), Global).unwrap(),
            None,
        )
        .unwrap()
    };
    assert_eq!(
        levels(&make(false, &[Some(1), Some(2), Some(3)])),
        (Ok(()), Ok(()))
    );
    assert_eq!(
        levels(&make(true, &[Some(1), None, Some(3)])),
        (Ok(()), Ok(()))
    );
    let bad = make(false, &[Some(1), None, Some(3)]);
    assert_eq!(levels(&bad).0, Ok(()));
    let e = bad.validate(ValidationLevel::Strict).unwrap_err();
    assert_eq!(e, Error::NullInNonNullableField);
    assert_eq!(e.location().field_path(), [0]);
}

#[test]
fn the_rule_checks_ranges_and_masks() {
    let child = bitmap(&[true, false, true, true, true, true, true, true, true, false]);
    let c = Some(&child);
    assert_eq!(check_non_nullable::<Global>(None, None, 0, 5, 2), Ok(()));
    assert_eq!(check_non_nullable::<Global>(c, None, 2, 7, 1), Ok(()));
    assert_eq!(
        check_non_nullable::<Global>(c, None, 1, 1, 1),
        Err(Error::NullInNonNullableField)
    );
    assert_eq!(
        check_non_nullable::<Global>(c, None, 9, 1, 1),
        Err(Error::NullInNonNullableField)
    );
    // Width 5: parent slot 0 covers 0..5 (a null at 1), slot 1 covers 5..10
    // (a null at 9).
    for parent in [[true, false], [false, true]] {
        let parent = bitmap(&parent);
        let r = check_non_nullable(c, Some(&parent), 0, 2, 5);
        assert_eq!(r, Err(Error::NullInNonNullableField));
    }
    let parent = bitmap(&[false, false]);
    assert_eq!(check_non_nullable(c, Some(&parent), 0, 2, 5), Ok(()));
    // A range past the child's bitmap is an error, not a read out of bounds.
    assert_eq!(
        check_non_nullable::<Global>(c, None, 8, 3, 1),
        Err(Error::LengthMismatch)
    );
    assert_eq!(
        check_non_nullable::<Global>(c, None, 1, usize::MAX, 2),
        Err(Error::LengthMismatch)
    );
}
