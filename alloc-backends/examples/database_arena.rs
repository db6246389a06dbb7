//! A database's job: column memory in a region the caller lends
//! (`alkaid_alloc::Arena`), built and filtered
//! batch after batch, the region reset between batches: the arrays of a
//! batch ask the global heap for nothing.
//!
//! ```sh
//! cargo run -p alkaid-alloc --example database_arena
//! ```

use alkaid::array::{Array, BooleanBuilder, PrimitiveBuilder};
use alkaid::compute::filter_in;
use alkaid_alloc::Arena;

fn main() -> Result<(), alkaid::Error> {
    let mut region = vec![0u8; 64 * 1024];
    let mut arena = Arena::new(&mut region);
    let mut kept = 0;
    for batch in 0..4i64 {
        // A column of 1,000 prices, built in the arena.
        let mut b = PrimitiveBuilder::<i64, _>::new_in(&arena);
        for i in 0..1_000i64 {
            b.try_append_value(batch * 1_000 + i)?;
        }
        let prices = b.finish();
        // Keep every third row; the mask is built in the arena too.
        let mut m = BooleanBuilder::new_in(&arena);
        for i in 0..prices.len() {
            m.try_append_value(i % 3 == 0)?;
        }
        let mask = m.finish();
        let picked = filter_in(&prices.clone().into_array_ref(), &mask, &arena)?;
        kept += picked.len();
        let used = arena.used();
        drop((prices, mask, picked));
        // `&mut`: the borrow checker proves every array of this batch is gone.
        arena.reset();
        println!("batch {batch}: {used} bytes of the region used, then reset");
    }
    assert_eq!(kept, 4 * 334);
    println!(
        "{kept} rows kept in all; region peak {} bytes",
        arena.peak()
    );
    Ok(())
}
