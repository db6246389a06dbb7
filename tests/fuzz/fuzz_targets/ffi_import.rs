//! C Data Interface import (`alkaid::ffi`) of producer structs built from
//! the fuzz input.
//!
//! Byte 0 picks the mode. Format mode (odd): the rest is the format string
//! of a one-node `FFI_ArrowSchema` (no children), imported with
//! `import_field_in`. Array mode (even): byte 0 / 2 picks a data type; the
//! harness exports its schema with alkaid (trusted) and builds the
//! `FFI_ArrowArray` tree itself, every length, offset, null count and byte
//! of every buffer taken from the input. Each buffer is as large as the
//! layout needs for the node's `offset + length` slots (the interface's
//! contract on the producer: what cannot be checked), and the data buffers
//! of variable-size layouts as large as the input's last offset or view
//! sizes say (clamped to what the input holds). Everything else is the
//! importer's to check.
//!
//! Oracles: an accepted array validates at `Full` and exports again equal
//! to itself; the producer's `release` runs exactly once, on success and on
//! error; the import allocates within a fixed budget and leaks nothing.
#![no_main]

use std::cell::Cell;
use std::ffi::{c_void, CString};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid::array::{Array, ValidationLevel};
use alkaid::buffer::{Misaligned, SharedBox, SharedSlice};
use alkaid::datatypes::{DataType, Field, IndexType, UnionFields, UnionMode};
use alkaid::ffi::{import_field_in, FFI_ArrowArray, FFI_ArrowSchema};
use alkaid_alloc::Counting;
use alkaid_fuzz::Direct;
use libfuzzer_sys::fuzz_target;

/// The allocator of the import: counted, capped at 64 MiB.
static BUDGET: Counting<Direct> = Counting::with_limit(Direct, 64 << 20);
type A = &'static Counting<Direct>;

/// Releases of producer structs (one per top-level struct handed over).
static RELEASES: AtomicUsize = AtomicUsize::new(0);

/// Reads the input a byte at a time (zeros once it runs out).
struct Input<'a> {
    data: &'a [u8],
    at: Cell<usize>,
}

impl Input<'_> {
    fn byte(&self) -> u8 {
        let i = self.at.get();
        self.at.set(i + 1);
        self.data.get(i).copied().unwrap_or(0)
    }
    fn bytes(&self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }
    /// A small count or length; now and then a negative one. (A length
    /// the harness cannot back with memory would break the producer's side
    /// of the contract, which no importer can check.)
    fn len(&self) -> i64 {
        match self.byte() {
            250 => -1,
            b => i64::from(b % 40),
        }
    }
}

/// What one produced node owns; freed by `release`.
struct Node {
    /// The buffers the pointers point into (kept alive until `release`).
    _buffers: Vec<Vec<u64>>,
    pointers: Vec<*const c_void>,
    children: Vec<*mut FFI_ArrowArray>,
}

unsafe extern "C" fn release_node(a: *mut FFI_ArrowArray) {
    // SAFETY: called with a struct made by `node`.
    let a = unsafe { &mut *a };
    // SAFETY: `private_data` is the boxed `Node`.
    let n = unsafe { Box::from_raw(a.private_data.cast::<Node>()) };
    for &c in &n.children {
        // SAFETY: children are boxed structs made by `node`.
        let mut c = unsafe { Box::from_raw(c) };
        if let Some(r) = c.release {
            // SAFETY: a live child of ours.
            unsafe { r(&mut *c) };
        }
    }
    if !a.dictionary.is_null() {
        // SAFETY: as for the children.
        let mut d = unsafe { Box::from_raw(a.dictionary) };
        if let Some(r) = d.release {
            // SAFETY: as above.
            unsafe { r(&mut *d) };
        }
    }
    a.release = None;
}

/// Counts the top-level release.
unsafe extern "C" fn release_top(a: *mut FFI_ArrowArray) {
    RELEASES.fetch_add(1, Ordering::SeqCst);
    // SAFETY: forwarded.
    unsafe { release_node(a) };
}

/// Buffer sizes (bytes) a layout needs for `total` slots, and where the
/// variable-size data comes from.
enum Data {
    /// No variable-size data buffer.
    None,
    /// The last of `total + 1` offsets (of this width) sizes buffer 2.
    Offsets(usize),
    /// Views: the sizes buffer lists the data buffers' sizes.
    Views,
}

/// Builds a node of type `dt` from the input.
fn node(input: &Input, dt: &DataType<'static, A>, depth: usize) -> FFI_ArrowArray {
    let length = input.len();
    let offset = if input.byte() % 4 == 0 {
        input.len()
    } else {
        0
    };
    let null_count = match input.byte() % 3 {
        0 => -1,
        1 => 0,
        _ => input.len(),
    };
    let total = usize::try_from(length.saturating_add(offset)).unwrap_or(0);
    let bits = total.div_ceil(8);
    use DataType::*;
    let (mut sizes, data, children): (Vec<usize>, Data, Vec<DataType<'static, A>>) = match dt {
        Null => (vec![], Data::None, vec![]),
        Boolean => (vec![bits, bits], Data::None, vec![]),
        Int8 => (vec![bits, total], Data::None, vec![]),
        Int32 => (vec![bits, total * 4], Data::None, vec![]),
        Int64 | Float64 => (vec![bits, total * 8], Data::None, vec![]),
        FixedSizeBinary(w) => (vec![bits, total * *w as usize], Data::None, vec![]),
        Utf8 | Binary => (vec![bits, (total + 1) * 4, 0], Data::Offsets(4), vec![]),
        LargeUtf8 => (vec![bits, (total + 1) * 8, 0], Data::Offsets(8), vec![]),
        Utf8View => (vec![bits, total * 16], Data::Views, vec![]),
        List(f) => (
            vec![bits, (total + 1) * 4],
            Data::None,
            vec![f.data_type().clone()],
        ),
        FixedSizeList(f, _) => (vec![bits], Data::None, vec![f.data_type().clone()]),
        Struct(fs) => (
            vec![bits],
            Data::None,
            fs.iter().map(|f| f.data_type().clone()).collect(),
        ),
        Union(u, UnionMode::Sparse) => (
            vec![total],
            Data::None,
            u.fields().iter().map(|f| f.data_type().clone()).collect(),
        ),
        Union(u, UnionMode::Dense) => (
            vec![total, total * 4],
            Data::None,
            u.fields().iter().map(|f| f.data_type().clone()).collect(),
        ),
        Dictionary(IndexType::Int8, _, _) => (vec![bits, total], Data::None, vec![]),
        RunEndEncoded(r, v) => (
            vec![],
            Data::None,
            vec![r.data_type().clone(), v.data_type().clone()],
        ),
        _ => (vec![], Data::None, vec![]),
    };
    // Now and then a hostile buffer count or a null pointer.
    let drop_buffer = input.byte() == 255;
    let mut buffers: Vec<Vec<u64>> = Vec::new();
    let fill = |n: usize| -> Vec<u64> {
        let bytes = input.bytes(n.min(1 << 14));
        let mut words = vec![0u64; n.div_ceil(8)];
        // SAFETY: viewing the words' memory as bytes (no padding in u64).
        let out = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), n) };
        out[..bytes.len()].copy_from_slice(&bytes);
        words
    };
    let fixed = if matches!(data, Data::Offsets(_)) {
        2
    } else {
        sizes.len()
    };
    for (i, &s) in sizes.clone().iter().take(fixed).enumerate() {
        let mut b = fill(s);
        if let (Data::Offsets(w), 1) = (&data, i) {
            // Size the data buffer from the last offset (clamped).
            // SAFETY: as in `fill`.
            let raw = unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast::<u8>(), s) };
            let end = &mut raw[total * w..];
            let last = if *w == 4 {
                i64::from(i32::from_ne_bytes(end[..4].try_into().unwrap()))
            } else {
                i64::from_ne_bytes(end[..8].try_into().unwrap())
            };
            let n = usize::try_from(last).unwrap_or(0).min(4096);
            if n as i64 != last && last > 0 {
                end[..*w].copy_from_slice(&(n as u64).to_ne_bytes()[..*w]);
            }
            sizes[2] = n;
        }
        buffers.push(b);
    }
    if let Some(s) = sizes.get(2) {
        if buffers.len() == 2 {
            buffers.push(fill(*s));
        }
    }
    if let Data::Views = data {
        let k = usize::from(input.byte() % 4);
        let mut lens = Vec::new();
        for _ in 0..k {
            let n = usize::from(input.byte()) * 4;
            lens.push(n as i64);
            buffers.push(fill(n));
        }
        let mut w = vec![0u64; k];
        for (i, l) in lens.iter().enumerate() {
            w[i] = *l as u64;
        }
        buffers.push(w);
    }
    let mut pointers: Vec<*const c_void> = buffers
        .iter()
        .map(|b| b.as_ptr().cast::<c_void>())
        .collect();
    if drop_buffer && !pointers.is_empty() {
        let i = usize::from(input.byte()) % pointers.len();
        pointers[i] = ptr::null();
    }
    let mut kids: Vec<*mut FFI_ArrowArray> = Vec::new();
    if depth < 4 {
        for c in &children {
            kids.push(Box::into_raw(Box::new(node(input, c, depth + 1))));
        }
    }
    let dictionary = match dt {
        Dictionary(_, v, _) if depth < 4 => Box::into_raw(Box::new(node(input, v, depth + 1))),
        _ => ptr::null_mut(),
    };
    // One buffer fewer than the layout has (refused before any is read);
    // not for views, whose count says where the sizes buffer is: a wrong
    // count there is a producer breaking the contract, not checkable.
    let n_buffers = match input.byte() {
        253 if !matches!(data, Data::Views) => pointers.len() as i64 - 1,
        _ => pointers.len() as i64,
    }
    .max(0);
    let mut owned = Box::new(Node {
        _buffers: buffers,
        pointers,
        children: kids,
    });
    let buffers_ptr = owned.pointers.as_mut_ptr();
    let children_ptr = owned.children.as_mut_ptr();
    let n_children = owned.children.len() as i64;
    FFI_ArrowArray {
        length,
        null_count,
        offset,
        n_buffers,
        n_children,
        buffers: buffers_ptr,
        children: children_ptr,
        dictionary,
        release: Some(release_node),
        private_data: Box::into_raw(owned).cast(),
    }
}

fn boxed(f: Field<'static, A>) -> SharedBox<'static, Field<'static, A>, A> {
    SharedBox::try_new_in(f, &BUDGET).unwrap()
}

/// The data types of array mode.
fn data_type(k: u8) -> DataType<'static, A> {
    let int = || Field::new("i", DataType::Int32, true);
    let utf8 = || Field::new("s", DataType::Utf8, true);
    match k % 15 {
        0 => DataType::Int32,
        1 => DataType::Int64,
        2 => DataType::Boolean,
        3 => DataType::Utf8,
        4 => DataType::LargeUtf8,
        5 => DataType::Utf8View,
        6 => DataType::FixedSizeBinary(3),
        7 => DataType::List(boxed(int())),
        8 => DataType::FixedSizeList(boxed(int()), 2),
        9 => DataType::Struct(SharedSlice::try_from_iter_in([int(), utf8()], &BUDGET).unwrap()),
        10 => DataType::Dictionary(
            IndexType::Int8,
            SharedBox::try_new_in(DataType::Utf8, &BUDGET).unwrap(),
            false,
        ),
        11 => DataType::RunEndEncoded(
            boxed(Field::new("run_ends", DataType::Int32, false)),
            boxed(utf8()),
        ),
        12 | 13 => {
            let ids = SharedSlice::try_from_slice_in(&[2i8, 5], &BUDGET).unwrap();
            let fs = SharedSlice::try_from_iter_in([int(), utf8()], &BUDGET).unwrap();
            let mode = if k % 15 == 12 {
                UnionMode::Sparse
            } else {
                UnionMode::Dense
            };
            DataType::Union(UnionFields::try_new(ids, fs).unwrap(), mode)
        }
        _ => DataType::Null,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let baseline = BUDGET.bytes_outstanding();
    let refused = BUDGET.failed_requests();
    if mode % 2 == 1 {
        // A format string in a one-node schema.
        let Ok(format) = CString::new(
            rest.iter()
                .copied()
                .take_while(|&b| b != 0)
                .collect::<Vec<u8>>(),
        ) else {
            return;
        };
        let mut s = FFI_ArrowSchema::empty();
        s.format = format.as_ptr();
        s.release = Some(noop_schema_release);
        // SAFETY: a valid one-node struct whose format is the input.
        if let Ok(f) = unsafe { import_field_in(&s, &BUDGET) } {
            let again = FFI_ArrowSchema::try_from_field_in(&f, &BUDGET).expect("re-export");
            // SAFETY: our own export.
            let back = unsafe { import_field_in(&again, &BUDGET) }.expect("re-import");
            assert_eq!(back, f, "format {format:?}");
        }
        s.release = None;
    } else {
        let dt = data_type(mode / 2);
        let field = Field::new("x", dt.clone(), true);
        let input = Input {
            data: rest,
            at: Cell::new(0),
        };
        let mut c = node(&input, &dt, 0);
        c.release = Some(release_top);
        let before = RELEASES.load(Ordering::SeqCst);
        // SAFETY: the harness made every buffer as large as the layout
        // needs for what the struct declares (see the module doc).
        let r = unsafe { c.import_with_field_in(&field, Misaligned::Refuse, &BUDGET) };
        if let Ok(a) = &r {
            a.validate(ValidationLevel::Full)
                .expect("accepted array validates");
            let e = FFI_ArrowArray::try_from_array_in(a, &BUDGET).expect("re-export");
            // SAFETY: our own export.
            let back = unsafe { e.import_with_field_in(&field, Misaligned::Refuse, &BUDGET) }
                .expect("re-import");
            assert_eq!(&back, a);
        }
        drop(r);
        assert_eq!(RELEASES.load(Ordering::SeqCst), before + 1, "release once");
    }
    assert_eq!(
        BUDGET.failed_requests(),
        refused,
        "allocation beyond the budget"
    );
    assert_eq!(BUDGET.bytes_outstanding(), baseline, "leak");
});

unsafe extern "C" fn noop_schema_release(s: *mut FFI_ArrowSchema) {
    // SAFETY: called with the harness's struct.
    unsafe { (*s).release = None };
}
