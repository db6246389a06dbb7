//! The parsers of the canonical extension types' `ARROW:extension:metadata`
//! (JSON for the tensors and `arrow.opaque`, empty for the others). Byte 0
//! picks the type; the rest is the metadata (UTF-8 only).
//!
//! Oracles: what parses serialises, parses back equal, and serialises to
//! the same text again (a fixed point); allocations stay within
//! `extension_cap`; no global heap.
#![no_main]

use alkaid::buffer::MutableBuffer;
use alkaid::extension::{
    Bool8Type, ExtensionType, FixedShapeTensorType, JsonType, OpaqueType, UuidType,
    VariableShapeTensorType,
};
use alkaid_alloc::Counting;
use alkaid_fuzz::*;
use libfuzzer_sys::fuzz_target;

fn check<'a, T: ExtensionType<'a, Alloc<'a>>>(text: &str, a: Alloc<'a>, oracle: Alloc<'a>) {
    let parsed = global_scope("extension metadata parse", 0, || {
        T::try_from_metadata(text, a)
    });
    let Ok(ty) = parsed else { return };
    let mut first = MutableBuffer::new_in(oracle);
    ty.write_metadata(&mut first).expect("serialise");
    let s1 = core::str::from_utf8(first.as_slice()).expect("serialised metadata is UTF-8");
    let again = match T::try_from_metadata(s1, oracle) {
        Ok(t) => t,
        Err(e) => panic!(
            "{}: serialised metadata {s1:?} does not parse: {e:?}",
            T::NAME
        ),
    };
    let mut second = MutableBuffer::new_in(oracle);
    again.write_metadata(&mut second).expect("serialise");
    assert!(
        first.as_slice() == second.as_slice(),
        "{}: serialisation is not a fixed point",
        T::NAME
    );
    // Equality across allocators: compare the serialisations of both (the
    // parsed value of the input and of its serialisation) — done above —
    // and the value itself parsed from `s1` in `a`.
    let in_a = T::try_from_metadata(s1, a).expect("parses in A");
    assert!(
        in_a == ty,
        "{}: metadata parses to another value after serialising",
        T::NAME
    );
}

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = core::str::from_utf8(rest) else {
        return;
    };
    let budget = Budget::new("extension metadata", extension_cap(rest.len()));
    let oracle = Counting::new(Direct);
    {
        let a = budget.alloc();
        match k % 6 {
            0 => check::<FixedShapeTensorType<'_, _>>(text, a, &oracle),
            1 => check::<VariableShapeTensorType<'_, _>>(text, a, &oracle),
            2 => check::<OpaqueType<'_, _>>(text, a, &oracle),
            3 => check::<JsonType>(text, a, &oracle),
            4 => check::<UuidType>(text, a, &oracle),
            _ => check::<Bool8Type>(text, a, &oracle),
        }
    }
    budget.check();
});
