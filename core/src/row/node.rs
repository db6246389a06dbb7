//! The converter's tree of columns: one [`Node`] per column and nested
//! child (its type, options, the type it decodes to, and which encoding
//! family handles it: its [`Kind`]).

use allocator_api2::alloc::Allocator;

use super::{RowConverter, RowEncoding, SortOptions};
use crate::buffer::{SharedBox, SharedSlice, TryVec};
use crate::datatypes::{DataType, Field, FieldRef};
use crate::error::{Error, Result};

/// One column (or nested child) of a converter: type, options, and the
/// state its encoding needs.
pub(crate) struct Node<'a, A: Allocator> {
    pub(crate) data_type: DataType<'a, A>,
    /// The type of decoded columns when it is not `data_type` (which holds
    /// a dictionary): `data_type` with every dictionary replaced by its
    /// value type. See [`Node::decoded`].
    decoded: Option<DataType<'a, A>>,
    pub(crate) options: SortOptions,
    pub(crate) unordered: bool,
    /// Lists as the seed's canonical byte arrays ([`RowEncoding::Seed`])
    /// rather than element by element.
    pub(crate) canonical_lists: bool,
    pub(crate) kind: Kind<'a, A>,
}

/// What a node holds beside its type: child nodes and dictionary state.
pub(crate) enum Kind<'a, A: Allocator> {
    /// Encoded from the array alone.
    Leaf,
    /// Struct: one node per field.
    Struct(TryVec<Node<'a, A>, A>),
    /// List, LargeList, ListView, LargeListView, Map: one node for the
    /// elements (the entries struct of a map).
    List(TryVec<Node<'a, A>, A>),
    /// FixedSizeList: one node for the elements and the list size.
    FixedSizeList(TryVec<Node<'a, A>, A>, usize),
    /// Dictionary: with [`RowEncoding::Seed`], the slot of its mapping in a
    /// [`super::RowInterner`] (`None`: encoded by value), and one node for the
    /// values (ascending with the seed encoding: the mapping's order).
    Dictionary(Option<usize>, TryVec<Node<'a, A>, A>),
    /// RunEndEncoded: one node for the values.
    RunEnd(TryVec<Node<'a, A>, A>),
    /// Sparse or dense union: one node per field, in the fields' order.
    #[cfg(feature = "union")]
    Union(TryVec<Node<'a, A>, A>),
}

impl<'a, A: Allocator + Clone> Node<'a, A> {
    pub(super) fn try_new(
        data_type: &DataType<'a, A>,
        options: SortOptions,
        encoding: RowEncoding,
        seeds: &mut usize,
        alloc: &A,
    ) -> Result<Self> {
        use DataType::*;
        // `data_type` was validated whole by the converter (not again at
        // every level of a nested type).
        let unordered = encoding == RowEncoding::Unordered;
        let one = |dt: &DataType<'a, A>, opts: SortOptions, seeds: &mut usize| {
            TryVec::try_from_fn_in(1, alloc.clone(), |_| {
                Node::try_new(dt, opts, encoding, seeds, alloc)
            })
        };
        let kind = match data_type {
            Struct(fields) => {
                Kind::Struct(TryVec::try_from_fn_in(fields.len(), alloc.clone(), |i| {
                    let f = fields.get(i).ok_or(Error::OutOfBounds)?;
                    Node::try_new(f.data_type(), options, encoding, seeds, alloc)
                })?)
            }
            List(f) | LargeList(f) | ListView(f) | LargeListView(f) | Map(f, _) => {
                // The canonical byte array of a list is inverted as a whole
                // when descending, so the elements are encoded ascending,
                // with nulls placed so that they land as asked after inversion.
                let opts = if unordered {
                    options
                } else {
                    SortOptions::new(false, options.nulls_first != options.descending)
                };
                Kind::List(one(f.data_type(), opts, seeds)?)
            }
            FixedSizeList(f, n) => Kind::FixedSizeList(
                one(f.data_type(), options, seeds)?,
                usize::try_from(*n).map_err(|_| Error::InvalidDataType)?,
            ),
            Dictionary(_, value, _) => {
                if encoding != RowEncoding::Seed {
                    // By value: each key's row is its value's own encoding.
                    Kind::Dictionary(None, one(value, options, seeds)?)
                } else {
                    // Keys are inverted as a whole when descending (like
                    // lists), so the values are interned ascending, with
                    // nested nulls placed to land as asked after inversion.
                    let slot = *seeds;
                    *seeds = slot.checked_add(1).ok_or(Error::CapacityOverflow)?;
                    Kind::Dictionary(
                        Some(slot),
                        one(
                            value,
                            SortOptions::new(false, options.nulls_first != options.descending),
                            seeds,
                        )?,
                    )
                }
            }
            RunEndEncoded(_, values) => Kind::RunEnd(one(values.data_type(), options, seeds)?),
            #[cfg(feature = "union")]
            Union(u, _) => {
                let fields = u.fields();
                Kind::Union(TryVec::try_from_fn_in(fields.len(), alloc.clone(), |i| {
                    let f = fields.get(i).ok_or(Error::OutOfBounds)?;
                    Node::try_new(f.data_type(), options, encoding, seeds, alloc)
                })?)
            }
            dt if RowConverter::<A>::supports_leaf(dt) => Kind::Leaf,
            _ => return Err(Error::UnsupportedType),
        };
        Ok(Node {
            data_type: data_type.clone(),
            decoded: if has_dictionary(data_type) {
                Some(decoded_type(data_type, alloc)?)
            } else {
                None
            },
            options,
            unordered,
            canonical_lists: encoding == RowEncoding::Seed,
            kind,
        })
    }
}

impl<'a, A: Allocator> Node<'a, A> {
    /// The type of decoded columns: the node's type with every dictionary
    /// replaced by its value type.
    #[inline]
    pub(crate) fn decoded(&self) -> &DataType<'a, A> {
        match &self.decoded {
            Some(decoded) => decoded,
            None => &self.data_type,
        }
    }

    /// The only child node (lists, dictionaries, run-end encoded).
    pub(crate) fn child(&self) -> Result<&Node<'a, A>> {
        match &self.kind {
            Kind::List(c)
            | Kind::FixedSizeList(c, _)
            | Kind::Dictionary(_, c)
            | Kind::RunEnd(c) => c.first().ok_or(Error::UnsupportedType),
            Kind::Leaf | Kind::Struct(_) => Err(Error::UnsupportedType),
            #[cfg(feature = "union")]
            Kind::Union(_) => Err(Error::UnsupportedType),
        }
    }
}

/// `true` when `dt` is or contains a dictionary.
fn has_dictionary<A: Allocator>(dt: &DataType<'_, A>) -> bool {
    use DataType::*;
    match dt {
        Dictionary(..) => true,
        Struct(fields) => fields.iter().any(|f| has_dictionary(f.data_type())),
        List(f)
        | LargeList(f)
        | ListView(f)
        | LargeListView(f)
        | Map(f, _)
        | FixedSizeList(f, _) => has_dictionary(f.data_type()),
        RunEndEncoded(_, v) => has_dictionary(v.data_type()),
        Union(u, _) => u.fields().iter().any(|f| has_dictionary(f.data_type())),
        _ => false,
    }
}

/// `dt` with every dictionary replaced by its value type: the type that
/// [`RowConverter::convert_rows`] returns.
fn decoded_type<'a, A: Allocator + Clone>(
    dt: &DataType<'a, A>,
    alloc: &A,
) -> Result<DataType<'a, A>> {
    use DataType::*;
    if !has_dictionary(dt) {
        return Ok(dt.clone());
    }
    let field = |f: &Field<'a, A>| -> Result<Field<'a, A>> {
        Ok(Field::from_parts(
            f.name_shared().clone(),
            decoded_type(f.data_type(), alloc)?,
            f.is_nullable(),
            f.metadata().clone(),
            None,
        ))
    };
    let boxed = |f: &FieldRef<'a, A>| -> Result<FieldRef<'a, A>> {
        SharedBox::try_new_in(field(f)?, alloc.clone())
    };
    Ok(match dt {
        Dictionary(_, v, _) => decoded_type(v, alloc)?,
        Struct(fields) => Struct(SharedSlice::try_from_fn_in(
            fields.len(),
            alloc.clone(),
            |i| field(fields.get(i).ok_or(Error::OutOfBounds)?),
        )?),
        List(f) => List(boxed(f)?),
        LargeList(f) => LargeList(boxed(f)?),
        ListView(f) => ListView(boxed(f)?),
        LargeListView(f) => LargeListView(boxed(f)?),
        FixedSizeList(f, n) => FixedSizeList(boxed(f)?, *n),
        Map(f, sorted) => Map(boxed(f)?, *sorted),
        RunEndEncoded(r, v) => RunEndEncoded(r.clone(), boxed(v)?),
        Union(u, mode) => {
            let fields = u.fields();
            let fields = SharedSlice::try_from_fn_in(fields.len(), alloc.clone(), |i| {
                field(fields.get(i).ok_or(Error::OutOfBounds)?)
            })?;
            Union(
                crate::datatypes::UnionFields::try_new(
                    SharedSlice::try_from_slice_in(u.type_ids(), alloc.clone())?,
                    fields,
                )?,
                *mode,
            )
        }
        other => other.clone(),
    })
}
