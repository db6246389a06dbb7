//! Issue #19's scenario, timed and weighed against arrow-select 60: keep 1 %
//! of the rows of a 120,000-row string-view column whose strings live in 50
//! data buffers, three ways a user writes it:
//!
//! - `filter` by a predicate keeping 1 % of the rows;
//! - `take` of the same rows by index;
//! - slicing each kept row and `concat`-ing the one-row slices (the way that
//!   never finished before views were shared: every slice brought all 50
//!   buffers along and each was copied).
//!
//! Target: time within 2× of arrow-rs (speed-up ≥ 0.5×), and the result's
//! memory bounded by the input's buffers plus the views: the bytes our
//! kernels allocated are counted by a counting allocator and printed beside
//! the size of the kept views, with the number of data buffers the result
//! points at (shared, not copied).
//!
//! `cargo bench -p alkaid-tests-arrow-rs --bench select_views`

mod util;

use std::alloc::Layout;
use std::hint::black_box;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use alkaid::allocator_api2::alloc::{AllocError, Allocator};
use alkaid::array::{Array, ArrayRef, BooleanBuilder, PrimitiveArray, StringViewArray};
use alkaid::compute::{concat, filter_in, take_in};
use alkaid::Global as G;
use arrow_array as aa;
use util::{compare, verdict, vs, Budget, Rng, Table};

const ROWS: usize = 120_000;
const BUFFERS: usize = 50;

type Ours = ArrayRef<'static, Counting>;

/// Bytes handed out by [`Counting`] since the last reset.
static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

/// The global heap, counting the bytes it hands out in [`ALLOCATED`]; every
/// array of this bench (ours) lives in it, so the kernels' own allocations
/// can be read off around each call.
#[derive(Clone, Copy, Debug)]
struct Counting;

// SAFETY: every call is forwarded to `Global`, which upholds the contract;
// the counter only observes sizes.
unsafe impl Allocator for Counting {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        G.allocate(layout)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: `ptr` came from `allocate` above, i.e. from `Global`, with
        // this layout (the caller's promise).
        unsafe { G.deallocate(ptr, layout) }
    }
}

fn to_rs(a: &Ours) -> aa::ArrayRef {
    util::to_rs(a, &arrow_schema::DataType::Utf8View, Counting)
}

/// 120,000 strings of 13–40 bytes (none inline), 1 in 20 null, in 50
/// blocks of 2,400 rows whose data buffers `concat` keeps apart.
fn column() -> Ours {
    let mut rng = Rng::new(19);
    let per = ROWS / BUFFERS;
    let blocks: Vec<Ours> = (0..BUFFERS)
        .map(|_| {
            let s: Vec<Option<String>> = (0..per)
                .map(|_| {
                    let len = 13 + rng.below(28) as usize;
                    (!rng.chance(0.05)).then(|| rng.alnum(len))
                })
                .collect();
            let s: Vec<Option<&str>> = s.iter().map(|s| s.as_deref()).collect();
            StringViewArray::<Counting>::try_from_options_in(&s, Counting)
                .unwrap()
                .into_array_ref()
        })
        .collect();
    let refs: Vec<&Ours> = blocks.iter().collect();
    concat(&refs, Counting).unwrap()
}

fn data_buffers(a: &Ours) -> usize {
    match a {
        ArrayRef::Utf8View(v) => v.data_buffers().len(),
        other => panic!("not Utf8View: {:?}", other.data_type()),
    }
}

fn main() {
    let started = std::time::Instant::now();
    let input = column();
    assert_eq!(data_buffers(&input), BUFFERS);
    let theirs = to_rs(&input);
    let mut rng = Rng::new(7);
    let keep: Vec<bool> = (0..ROWS).map(|_| rng.chance(0.01)).collect();
    let rows: Vec<u32> = (0..ROWS as u32).filter(|&i| keep[i as usize]).collect();
    let (op, tp) = (
        {
            let mut b = BooleanBuilder::new_in(Counting);
            for &k in &keep {
                b.try_append_value(k).unwrap();
            }
            b.finish()
        },
        aa::BooleanArray::from(keep),
    );
    let (oi, ti) = (
        {
            let r: Vec<Option<u32>> = rows.iter().map(|&r| Some(r)).collect();
            PrimitiveArray::<u32, Counting>::try_from_options_in(&r, Counting).unwrap()
        },
        aa::UInt32Array::from(rows.clone()),
    );
    let input_data: usize = match &input {
        ArrayRef::Utf8View(v) => v.data_buffers().iter().map(|b| b.len()).sum(),
        _ => 0,
    };
    println!(
        "Issue #19's scenario: keep {} of {ROWS} rows of a Utf8View column with {BUFFERS} data \
         buffers ({input_data} bytes of string data); median thread CPU time of interleaved \
         samples, speed-up = arrow-rs time / alkaid time (wall-clock in parentheses); target: \
         within 2× of arrow-rs (≥ 0.5×)\n",
        rows.len()
    );

    let slices = |a: &Ours| -> Ours {
        let parts: Vec<Ours> = rows
            .iter()
            .map(|&r| a.slice(r as usize, 1).unwrap())
            .collect();
        let refs: Vec<&Ours> = parts.iter().collect();
        concat(&refs, Counting).unwrap()
    };

    // Memory: bytes our kernels allocate for the result, against the kept
    // views (16 bytes each) and the validity bitmap.
    let views_bytes = rows.len() * 16;
    let mem = Table::new(
        &[
            "way",
            "bytes allocated",
            "kept views + bitmap",
            "data buffers in result",
        ],
        &[28, 15, 19, 22],
    );
    let weigh = |name: &str, f: &dyn Fn() -> Ours| {
        let before = ALLOCATED.load(Ordering::Relaxed);
        let out = f();
        let n = ALLOCATED.load(Ordering::Relaxed) - before;
        mem.row(&[
            name.to_string(),
            n.to_string(),
            format!("{views_bytes} + {}", rows.len().div_ceil(8)),
            data_buffers(&out).to_string(),
        ]);
    };
    weigh("filter", &|| filter_in(&input, &op, Counting).unwrap());
    weigh("take", &|| take_in(&input, &oi, Counting).unwrap());
    weigh("slice + concat", &|| slices(&input));
    println!();

    // Time.
    let slices_rs = |a: &aa::ArrayRef| -> aa::ArrayRef {
        let parts: Vec<aa::ArrayRef> = rows.iter().map(|&r| a.slice(r as usize, 1)).collect();
        let refs: Vec<&dyn aa::Array> = parts.iter().map(|p| p.as_ref()).collect();
        arrow_select::concat::concat(&refs).unwrap()
    };
    // Same values on both sides before timing.
    for (way, ours, theirs_out) in [
        (
            "filter",
            filter_in(&input, &op, Counting).unwrap(),
            arrow_select::filter::filter(&theirs, &tp).unwrap(),
        ),
        (
            "take",
            take_in(&input, &oi, Counting).unwrap(),
            arrow_select::take::take(&theirs, &ti, None).unwrap(),
        ),
        ("slice + concat", slices(&input), slices_rs(&theirs)),
    ] {
        let a = to_rs(&ours);
        let (a, b) = (
            a.as_any().downcast_ref::<aa::StringViewArray>().unwrap(),
            theirs_out
                .as_any()
                .downcast_ref::<aa::StringViewArray>()
                .unwrap(),
        );
        assert!(a.iter().eq(b.iter()), "{way}: values differ");
        assert!(data_buffers(&ours) <= BUFFERS, "{way}: buffers copied");
    }
    let t = Table::new(
        &["way", "alkaid", "arrow-rs", "speed-up (wall)", "target"],
        &[16, 9, 9, 15, 16],
    );
    let r = compare(
        &mut [
            &mut || {
                black_box(filter_in(&input, &op, Counting).unwrap());
            },
            &mut || {
                black_box(arrow_select::filter::filter(&theirs, &tp).unwrap());
            },
            &mut || {
                black_box(take_in(&input, &oi, Counting).unwrap());
            },
            &mut || {
                black_box(arrow_select::take::take(&theirs, &ti, None).unwrap());
            },
            &mut || {
                black_box(slices(&input));
            },
            &mut || {
                black_box(slices_rs(&theirs));
            },
        ],
        Budget::default(),
    );
    for (way, o, th) in [
        ("filter", r[0], r[1]),
        ("take", r[2], r[3]),
        ("slice + concat", r[4], r[5]),
    ] {
        let [a, b, s] = vs(o, th);
        let ratio = th.cpu.as_secs_f64() / o.cpu.as_secs_f64();
        t.row(&[way.to_string(), a, b, s, verdict(ratio, 0.5)]);
    }
    println!(
        "\ntotal bench time {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
