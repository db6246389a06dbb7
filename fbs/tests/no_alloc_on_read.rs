//! Which reads allocate. Verifying and reading a well-formed message
//! allocates nothing; verification errors nested inside tables do. Counted
//! with a global allocator wrapper, per thread (the harness allocates on
//! other threads).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use alkaid_fbs::flatbuf::{
    root_as_footer, root_as_message, Block, Field, FieldArgs, Footer, FooterArgs, Int, IntArgs,
    Message, MessageArgs, MessageHeader, MetadataVersion, Schema, SchemaArgs, Type,
};
use alkaid_fbs::flatbuffers::FlatBufferBuilder;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

// SAFETY: forwards every call unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counter touches no allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: same layout contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let r = f();
    (r, ALLOCATIONS.with(Cell::get) - before)
}

fn schema_and_footer() -> (Vec<u8>, Vec<u8>) {
    let mut out = Vec::new();
    for as_footer in [false, true] {
        let mut fbb = FlatBufferBuilder::new();
        let int = Int::create(
            &mut fbb,
            &IntArgs {
                bitWidth: 32,
                is_signed: true,
            },
        );
        let name = fbb.create_string("id");
        let field = Field::create(
            &mut fbb,
            &FieldArgs {
                name: Some(name),
                nullable: true,
                type_type: Type::Int,
                type_: Some(int.as_union_value()),
                ..Default::default()
            },
        );
        let fields = fbb.create_vector(&[field]);
        let schema = Schema::create(
            &mut fbb,
            &SchemaArgs {
                fields: Some(fields),
                ..Default::default()
            },
        );
        if as_footer {
            let blocks = fbb.create_vector(&[Block::new(8, 136, 64)]);
            let footer = Footer::create(
                &mut fbb,
                &FooterArgs {
                    version: MetadataVersion::V5,
                    schema: Some(schema),
                    recordBatches: Some(blocks),
                    ..Default::default()
                },
            );
            fbb.finish(footer, None);
        } else {
            let message = Message::create(
                &mut fbb,
                &MessageArgs {
                    version: MetadataVersion::V5,
                    header_type: MessageHeader::Schema,
                    header: Some(schema.as_union_value()),
                    ..Default::default()
                },
            );
            fbb.finish(message, None);
        }
        out.push(fbb.finished_data().to_vec());
    }
    let footer = out.pop().unwrap();
    (out.pop().unwrap(), footer)
}

#[test]
fn verifying_and_reading_valid_metadata_does_not_allocate() {
    let (message, footer) = schema_and_footer();

    let (bits, n) = allocations_during(|| {
        let message = root_as_message(&message).expect("valid message");
        let schema = message.header_as_schema().expect("schema");
        let field = schema.fields().expect("fields").get(0);
        assert_eq!(field.name(), Some("id"));
        field.type__as_int().expect("int").bitWidth()
    });
    assert_eq!(bits, 32);
    assert_eq!(n, 0, "reading a message allocated");

    let (body, n) = allocations_during(|| {
        let footer = root_as_footer(&footer).expect("valid footer");
        footer.recordBatches().expect("blocks").get(0).bodyLength()
    });
    assert_eq!(body, 64);
    assert_eq!(n, 0, "reading a footer allocated");

    // The counter works: the builder does allocate.
    let (_, n) = allocations_during(schema_and_footer);
    assert!(n > 0);
}

/// The limit of the above, recorded so that it is not forgotten: the
/// verifier returns errors found at the root without allocating, but an
/// error found inside a table or vector carries an error trace (`Vec`) and
/// allocates. On a target whose global allocator always fails, such input
/// would reach the allocation error handler; an IPC reader for heapless
/// targets must not hand untrusted bytes to this verifier.
#[test]
fn verifier_errors_inside_tables_allocate_an_error_trace() {
    let (root_err, n) = allocations_during(|| root_as_message(&[0xFF; 64]).is_err());
    assert!(root_err);
    assert_eq!(n, 0, "error at the root");
    let (empty_err, n) = allocations_during(|| root_as_message(&[]).is_err());
    assert!(empty_err);
    assert_eq!(n, 0, "empty buffer");

    // Give the field name "id" a length of 65535 bytes.
    let (mut bad, _) = schema_and_footer();
    let pos = bad.windows(3).position(|w| w == b"id\0").expect("name");
    bad[pos - 4..pos].copy_from_slice(&[0xFF, 0xFF, 0, 0]);
    let (nested_err, n) = allocations_during(|| root_as_message(&bad).is_err());
    assert!(nested_err);
    assert!(n > 0, "nested errors build an error trace");
}
