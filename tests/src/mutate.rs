//! A seeded, structure-aware mutator of IPC streams and files, for the
//! differential tests against pyarrow (`tests/differential_pyarrow.rs`) and
//! arrow-rs (`tests/arrow-rs/tests/differential_arrow_rs.rs`).
//!
//! [`Layout::parse`] splits a well-formed input into its encapsulated
//! messages (Arrow columnar format, "Encapsulated message format": a
//! `0xFFFFFFFF` continuation, an `int32` metadata length, the `Message`
//! flatbuffer, padding, the body) and, for the file format, the footer
//! ("IPC File Format": magic, stream, `Footer` flatbuffer, `int32` footer
//! length, magic). It walks the flatbuffers just enough to find the position
//! of every interesting scalar ([`Site`]): the `Message` version, header type
//! and `bodyLength`, the `RecordBatch` length, each `FieldNode` length and
//! null count, each `Buffer` offset and length, the compression codec,
//! variadic buffer counts, dictionary ids and delta flags, schema fields'
//! nullability, type tags and type parameters, dictionary encodings, the
//! footer's `Block`s. [`mutate`] then draws one mutation from a [`Rng`]:
//! byte flips (anywhere, in metadata, in body buffers), changed scalars,
//! truncations (at and inside message boundaries), and dropped, duplicated,
//! swapped and reordered messages or footer blocks.
//!
//! The walker only ever parses the unmutated golden inputs; it returns
//! `None` rather than panicking on anything unexpected.

use std::ops::Range;

/// xorshift64* (Vigna): a small deterministic generator, enough to draw
/// mutations reproducibly from a fixed seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> Self {
        // One round of splitmix64 so that nearby seeds diverge at once.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(if z == 0 { 1 } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// A random element of `items`, if any.
    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> Option<&'t T> {
        let i = self.below(items.len());
        items.get(i)
    }
}

/// A little-endian scalar of the metadata (or a length prefix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Site {
    /// Byte position in the input.
    pub pos: usize,
    /// Width in bytes: 1, 2, 4 or 8.
    pub width: usize,
    /// What it is (`FieldNode.null_count`, `Block.bodyLength`, …).
    pub what: &'static str,
}

/// One encapsulated message of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Msg {
    /// From its continuation marker (or length, in legacy framing) to the
    /// end of its body.
    pub span: Range<usize>,
    /// Its `Message` flatbuffer, with its padding.
    pub meta: Range<usize>,
    /// `MessageHeader` type: 1 schema, 2 dictionary batch, 3 record batch.
    pub header_type: u8,
    /// Each body buffer's bytes (for batches), in the input.
    pub buffers: Vec<Range<usize>>,
    /// The batch's `RecordBatch.length` (record and dictionary batches).
    pub rows: Option<i64>,
}

/// Where things are in a well-formed stream or file.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Input length.
    pub len: usize,
    /// The messages, in order (the end-of-stream marker is not one).
    pub msgs: Vec<Msg>,
    /// Every scalar site found.
    pub sites: Vec<Site>,
    /// The footer flatbuffer (file format).
    pub footer: Option<Range<usize>>,
    /// The footer's blocks (file format): 24-byte structs.
    pub blocks: Vec<Range<usize>>,
    /// String payloads (field names, metadata keys and values, time zones).
    pub strings: Vec<Range<usize>>,
    /// Where each string's terminating NUL is.
    pub nuls: Vec<usize>,
}

impl Layout {
    /// What a flipped byte at `pos` hits, when notable: `" (string NUL)"`
    /// for a string's terminator, `" (zero-row batch)"` for a body buffer of
    /// a batch without rows; else `""`.
    fn note(&self, pos: usize) -> &'static str {
        if self.nuls.contains(&pos) {
            " (string NUL)"
        } else if self
            .msgs
            .iter()
            .any(|m| m.rows == Some(0) && m.buffers.iter().any(|b| b.contains(&pos)))
        {
            " (zero-row batch)"
        } else {
            ""
        }
    }
}

fn rd<const N: usize>(b: &[u8], pos: usize) -> Option<[u8; N]> {
    b.get(pos..pos.checked_add(N)?)?.try_into().ok()
}
fn u16_at(b: &[u8], pos: usize) -> Option<usize> {
    rd::<2>(b, pos).map(|x| u16::from_le_bytes(x) as usize)
}
fn u32_at(b: &[u8], pos: usize) -> Option<usize> {
    rd::<4>(b, pos).map(|x| u32::from_le_bytes(x) as usize)
}
fn i32_at(b: &[u8], pos: usize) -> Option<i64> {
    rd::<4>(b, pos).map(|x| i64::from(i32::from_le_bytes(x)))
}
fn i64_at(b: &[u8], pos: usize) -> Option<i64> {
    rd::<8>(b, pos).map(i64::from_le_bytes)
}

/// A flatbuffer table at absolute position `pos` of `buf`.
#[derive(Clone, Copy)]
struct Table<'b> {
    buf: &'b [u8],
    pos: usize,
}

impl<'b> Table<'b> {
    /// The root table of a flatbuffer that starts at `base`.
    fn root(buf: &'b [u8], base: usize) -> Option<Self> {
        let pos = base.checked_add(u32_at(buf, base)?)?;
        Some(Table { buf, pos })
    }

    /// The absolute position of field `id`, when present.
    fn field(&self, id: usize) -> Option<usize> {
        let vt = usize::try_from(self.pos as i64 - i32_at(self.buf, self.pos)?).ok()?;
        let vt_len = u16_at(self.buf, vt)?;
        let slot = 4 + 2 * id;
        if slot + 2 > vt_len {
            return None;
        }
        match u16_at(self.buf, vt + slot)? {
            0 => None,
            off => self.pos.checked_add(off),
        }
    }

    /// The target of the offset field `id`.
    fn indirect(&self, id: usize) -> Option<usize> {
        let at = self.field(id)?;
        at.checked_add(u32_at(self.buf, at)?)
    }

    fn table(&self, id: usize) -> Option<Table<'b>> {
        Some(Table {
            buf: self.buf,
            pos: self.indirect(id)?,
        })
    }

    /// A vector field: (first element, element count).
    fn vector(&self, id: usize) -> Option<(usize, usize)> {
        let v = self.indirect(id)?;
        Some((v + 4, u32_at(self.buf, v)?))
    }

    /// The tables of a vector-of-tables field.
    fn tables(&self, id: usize) -> Vec<Table<'b>> {
        let Some((first, n)) = self.vector(id) else {
            return Vec::new();
        };
        (0..n.min(10_000))
            .filter_map(|i| {
                let at = first + 4 * i;
                Some(Table {
                    buf: self.buf,
                    pos: at.checked_add(u32_at(self.buf, at)?)?,
                })
            })
            .collect()
    }

    /// The payload of a string field.
    fn string(&self, id: usize) -> Option<Range<usize>> {
        let (first, n) = self.vector(id)?;
        (first + n <= self.buf.len()).then_some(first..first + n)
    }
}

struct Walker<'b> {
    buf: &'b [u8],
    out: Layout,
    /// The length of the last batch walked.
    rows: Option<i64>,
}

impl<'b> Walker<'b> {
    fn site(&mut self, t: &Table<'b>, id: usize, width: usize, what: &'static str) {
        if let Some(pos) = t.field(id) {
            if pos + width <= self.buf.len() {
                self.out.sites.push(Site { pos, width, what });
            }
        }
    }

    fn string(&mut self, t: &Table<'b>, id: usize) {
        if let Some(r) = t.string(id) {
            if let Some(len_at) = r.start.checked_sub(4) {
                self.out.sites.push(Site {
                    pos: len_at,
                    width: 4,
                    what: "string length",
                });
            }
            self.out.nuls.push(r.end);
            if !r.is_empty() {
                self.out.strings.push(r);
            }
        }
    }

    fn key_values(&mut self, t: &Table<'b>, id: usize) {
        for kv in t.tables(id) {
            self.string(&kv, 0);
            self.string(&kv, 1);
        }
    }

    fn schema(&mut self, s: &Table<'b>) {
        self.site(s, 0, 2, "Schema.endianness");
        self.key_values(s, 2);
        for f in s.tables(1) {
            self.field(&f, 0);
        }
    }

    fn field(&mut self, f: &Table<'b>, depth: usize) {
        if depth > 64 {
            return;
        }
        self.string(f, 0);
        self.site(f, 1, 1, "Field.nullable");
        self.site(f, 2, 1, "Field.type_type");
        let type_type = f.field(2).and_then(|p| self.buf.get(p).copied());
        if let (Some(tt), Some(ty)) = (type_type, f.table(3)) {
            self.type_params(tt, &ty);
        }
        if let Some(d) = f.table(4) {
            self.site(&d, 0, 8, "DictionaryEncoding.id");
            if let Some(it) = d.table(1) {
                self.site(&it, 0, 4, "DictionaryEncoding.indexType.bitWidth");
                self.site(&it, 1, 1, "DictionaryEncoding.indexType.is_signed");
            }
            self.site(&d, 2, 1, "DictionaryEncoding.isOrdered");
        }
        self.key_values(f, 6);
        for c in f.tables(5) {
            self.field(&c, depth + 1);
        }
    }

    /// The scalar parameters of a `Type` union member (Schema.fbs).
    fn type_params(&mut self, type_type: u8, t: &Table<'b>) {
        match type_type {
            2 => {
                self.site(t, 0, 4, "Int.bitWidth");
                self.site(t, 1, 1, "Int.is_signed");
            }
            3 => self.site(t, 0, 2, "FloatingPoint.precision"),
            7 => {
                self.site(t, 0, 4, "Decimal.precision");
                self.site(t, 1, 4, "Decimal.scale");
                self.site(t, 2, 4, "Decimal.bitWidth");
            }
            8 => self.site(t, 0, 2, "Date.unit"),
            9 => {
                self.site(t, 0, 2, "Time.unit");
                self.site(t, 1, 4, "Time.bitWidth");
            }
            10 => {
                self.site(t, 0, 2, "Timestamp.unit");
                self.string(t, 1);
            }
            11 => self.site(t, 0, 2, "Interval.unit"),
            14 => {
                self.site(t, 0, 2, "Union.mode");
                if let Some((first, n)) = t.vector(1) {
                    for i in 0..n.min(256) {
                        self.out.sites.push(Site {
                            pos: first + 4 * i,
                            width: 4,
                            what: "Union.typeIds[i]",
                        });
                    }
                }
            }
            15 => self.site(t, 0, 4, "FixedSizeBinary.byteWidth"),
            16 => self.site(t, 0, 4, "FixedSizeList.listSize"),
            17 => self.site(t, 0, 1, "Map.keysSorted"),
            18 => self.site(t, 0, 2, "Duration.unit"),
            _ => {}
        }
    }

    /// A `RecordBatch` table whose body starts at `body`: its sites and the
    /// extents of its buffers.
    fn record_batch(&mut self, rb: &Table<'b>, body: usize) -> Vec<Range<usize>> {
        self.site(rb, 0, 8, "RecordBatch.length");
        self.rows = Some(rb.field(0).and_then(|p| i64_at(self.buf, p)).unwrap_or(0));
        if let Some((first, n)) = rb.vector(1) {
            for i in 0..n.min(4096) {
                let at = first + 16 * i;
                for (off, what) in [(0, "FieldNode.length"), (8, "FieldNode.null_count")] {
                    self.out.sites.push(Site {
                        pos: at + off,
                        width: 8,
                        what,
                    });
                }
            }
        }
        let mut buffers = Vec::new();
        if let Some((first, n)) = rb.vector(2) {
            for i in 0..n.min(4096) {
                let at = first + 16 * i;
                for (off, what) in [(0, "Buffer.offset"), (8, "Buffer.length")] {
                    self.out.sites.push(Site {
                        pos: at + off,
                        width: 8,
                        what,
                    });
                }
                let (Some(o), Some(l)) = (i64_at(self.buf, at), i64_at(self.buf, at + 8)) else {
                    continue;
                };
                let start = body.saturating_add(o as usize);
                let end = start.saturating_add(l as usize);
                if l > 0 && o >= 0 && end <= self.buf.len() {
                    buffers.push(start..end);
                }
            }
        }
        if let Some(c) = rb.table(3) {
            self.site(&c, 0, 1, "BodyCompression.codec");
            self.site(&c, 1, 1, "BodyCompression.method");
        }
        if let Some((first, n)) = rb.vector(4) {
            for i in 0..n.min(4096) {
                self.out.sites.push(Site {
                    pos: first + 8 * i,
                    width: 8,
                    what: "variadicBufferCounts[i]",
                });
            }
        }
        buffers
    }

    /// The message whose metadata flatbuffer is `meta` and body `body`.
    fn message(&mut self, meta: usize, body: usize) -> Option<(u8, Vec<Range<usize>>)> {
        let m = Table::root(self.buf, meta)?;
        self.site(&m, 0, 2, "Message.version");
        self.site(&m, 1, 1, "Message.header_type");
        self.site(&m, 3, 8, "Message.bodyLength");
        self.key_values(&m, 4);
        let header_type = *self.buf.get(m.field(1)?)?;
        let header = m.table(2)?;
        let buffers = match header_type {
            1 => {
                self.schema(&header);
                Vec::new()
            }
            2 => {
                self.site(&header, 0, 8, "DictionaryBatch.id");
                self.site(&header, 2, 1, "DictionaryBatch.isDelta");
                match header.table(1) {
                    Some(rb) => self.record_batch(&rb, body),
                    None => Vec::new(),
                }
            }
            3 => self.record_batch(&header, body),
            _ => Vec::new(),
        };
        Some((header_type, buffers))
    }

    /// The encapsulated messages from `pos` to `end` (or the end-of-stream
    /// marker).
    fn messages(&mut self, mut pos: usize, end: usize) -> Option<()> {
        while pos < end {
            let start = pos;
            let mut len_at = pos;
            if u32_at(self.buf, pos)? == 0xFFFF_FFFF {
                self.out.sites.push(Site {
                    pos,
                    width: 4,
                    what: "continuation marker",
                });
                len_at += 4;
            }
            let meta_len = u32_at(self.buf, len_at)?;
            if meta_len == 0 {
                return Some(()); // end of stream
            }
            self.out.sites.push(Site {
                pos: len_at,
                width: 4,
                what: "metadata length prefix",
            });
            let meta = len_at + 4;
            let body = meta.checked_add(meta_len)?;
            let m = Table::root(self.buf, meta)?;
            let body_len = m.field(3).and_then(|p| i64_at(self.buf, p)).unwrap_or(0);
            let body_len = usize::try_from(body_len).ok()?;
            self.rows = None;
            let (header_type, buffers) = self.message(meta, body)?;
            let stop = body.checked_add(body_len)?;
            if stop > self.buf.len() {
                return None;
            }
            self.out.msgs.push(Msg {
                span: start..stop,
                meta: meta..body,
                header_type,
                buffers,
                rows: self.rows,
            });
            pos = stop;
        }
        Some(())
    }

    fn footer(&mut self) -> Option<()> {
        let n = self.buf.len();
        let len_at = n.checked_sub(10)?;
        let flen = u32_at(self.buf, len_at)?;
        self.out.sites.push(Site {
            pos: len_at,
            width: 4,
            what: "footer length",
        });
        let start = len_at.checked_sub(flen)?;
        self.out.footer = Some(start..len_at);
        let f = Table::root(self.buf, start)?;
        self.site(&f, 0, 2, "Footer.version");
        if let Some(s) = f.table(1) {
            self.schema(&s);
        }
        for id in [2, 3] {
            if let Some((first, k)) = f.vector(id) {
                for i in 0..k.min(4096) {
                    let at = first + 24 * i;
                    self.out.blocks.push(at..at + 24);
                    for (off, width, what) in [
                        (0, 8, "Block.offset"),
                        (8, 4, "Block.metaDataLength"),
                        (16, 8, "Block.bodyLength"),
                    ] {
                        self.out.sites.push(Site {
                            pos: at + off,
                            width,
                            what,
                        });
                    }
                }
            }
        }
        Some(())
    }
}

/// The file format's magic, padded (`ARROW1\0\0`).
pub const FILE_MAGIC: &[u8] = b"ARROW1\0\0";

impl Layout {
    /// Parses a well-formed stream (`file == false`) or file.
    ///
    /// Returns `None` when the input does not parse (the walker is not a
    /// validator: it is only meant for the golden inputs).
    pub fn parse(buf: &[u8], file: bool) -> Option<Layout> {
        let mut w = Walker {
            buf,
            out: Layout {
                len: buf.len(),
                ..Layout::default()
            },
            rows: None,
        };
        if file {
            if !buf.starts_with(FILE_MAGIC) {
                return None;
            }
            w.footer()?;
            let body_end = w.out.footer.as_ref()?.start;
            w.messages(FILE_MAGIC.len(), body_end)?;
        } else {
            w.messages(0, buf.len())?;
        }
        Some(w.out)
    }
}

/// A new value for a scalar of `width` bytes holding `v`.
fn new_value(rng: &mut Rng, v: i64, width: usize) -> (i64, &'static str) {
    let bits = 8 * width as u32;
    let max = if bits == 64 {
        i64::MAX
    } else {
        (1i64 << (bits - 1)) - 1
    };
    match rng.below(13) {
        0 => (v.wrapping_add(1), "+1"),
        1 => (v.wrapping_sub(1), "-1"),
        2 => (v.wrapping_add(8), "+8"),
        3 => (v.wrapping_sub(8), "-8"),
        4 => (0, "=0"),
        5 => (-1, "=-1"),
        6 => (v.wrapping_mul(2), "*2"),
        7 => (v / 2, "/2"),
        8 => (max, "=max"),
        9 => (-max - 1, "=min"),
        10 => (rng.below(256) as i64, "=small"),
        11 => (v ^ (1i64 << rng.below(bits as usize)), "^bit"),
        _ => (v.wrapping_add(64), "+64"),
    }
}

fn read_site(b: &[u8], s: &Site) -> i64 {
    let mut x = [0u8; 8];
    if let Some(src) = b.get(s.pos..s.pos + s.width) {
        x[..s.width].copy_from_slice(src);
    }
    // Sign-extend from the site's width.
    let shift = 64 - 8 * s.width as u32;
    (i64::from_le_bytes(x) << shift) >> shift
}

fn write_site(b: &mut [u8], s: &Site, v: i64) {
    if let Some(dst) = b.get_mut(s.pos..s.pos + s.width) {
        dst.copy_from_slice(&v.to_le_bytes()[..s.width]);
    }
}

fn xor_byte(rng: &mut Rng, b: &mut [u8], pos: usize) {
    let x = 1 + rng.below(255) as u8;
    if let Some(p) = b.get_mut(pos) {
        *p ^= x;
    }
}

fn in_range(rng: &mut Rng, r: &Range<usize>) -> usize {
    r.start + rng.below(r.len())
}

/// Rebuilds the input with the messages `order` (indices into
/// `layout.msgs`) in place of the original run of messages.
fn reorder(orig: &[u8], layout: &Layout, order: &[usize]) -> Vec<u8> {
    let (Some(first), Some(last)) = (layout.msgs.first(), layout.msgs.last()) else {
        return orig.to_vec();
    };
    let mut out = orig[..first.span.start].to_vec();
    for &i in order {
        out.extend_from_slice(&orig[layout.msgs[i].span.clone()]);
    }
    out.extend_from_slice(&orig[last.span.end..]);
    out
}

/// One mutation of `orig` (whose layout is `layout`): the new bytes and a
/// short description (`Buffer.length@1234 +8`, `truncate@100 (message 2)`…).
pub fn mutate(rng: &mut Rng, orig: &[u8], layout: &Layout) -> (Vec<u8>, String) {
    let mut b = orig.to_vec();
    let n_msgs = layout.msgs.len();
    // Each body buffer, and a note when its batch has no rows.
    let buffers: Vec<(&Range<usize>, &str)> = layout
        .msgs
        .iter()
        .flat_map(|m| {
            let note = if m.rows == Some(0) {
                " (zero-row batch)"
            } else {
                ""
            };
            m.buffers.iter().map(move |b| (b, note))
        })
        .collect();
    // Weighted choice of the operator; fall back to a plain flip when the
    // input lacks what the operator needs.
    let op = rng.below(40);
    match op {
        0..=11 => {
            if let Some(s) = rng.pick(&layout.sites).copied() {
                let v = read_site(&b, &s);
                let (nv, how) = new_value(rng, v, s.width);
                if nv != v {
                    write_site(&mut b, &s, nv);
                    return (b, format!("{}@{} {how} ({v} -> {nv})", s.what, s.pos));
                }
            }
        }
        12..=16 => {
            if let Some(m) = rng.pick(&layout.msgs) {
                let pos = in_range(rng, &m.meta);
                xor_byte(rng, &mut b, pos);
                return (b, format!("flip metadata byte @{pos}{}", layout.note(pos)));
            }
        }
        17..=22 => {
            if let Some(&(r, note)) = rng.pick(&buffers) {
                let r = r.clone();
                if rng.below(2) == 0 {
                    let pos = in_range(rng, &r);
                    xor_byte(rng, &mut b, pos);
                    return (b, format!("flip body byte @{pos}{note}"));
                }
                // An aligned 32-bit word (offsets, run ends, type ids, view
                // lengths) set to an edge value.
                let words = r.len() / 4;
                if words > 0 {
                    let pos = r.start + 4 * rng.below(words);
                    let s = Site {
                        pos,
                        width: 4,
                        what: "body word",
                    };
                    let v = read_site(&b, &s);
                    let (nv, how) = new_value(rng, v, 4);
                    write_site(&mut b, &s, nv);
                    return (b, format!("body word@{pos} {how} ({v} -> {nv}){note}"));
                }
            }
        }
        23..=24 => {
            if let Some(r) = rng.pick(&layout.strings).cloned() {
                let pos = in_range(rng, &r);
                let v = [0x00, 0xFF, 0xC3, b'x'][rng.below(4)];
                b[pos] = v;
                return (b, format!("string byte@{pos} = {v:#04x}"));
            }
        }
        25..=26 if n_msgs > 0 => {
            // Cut at a message boundary.
            let i = rng.below(n_msgs);
            let cut = layout.msgs[i].span.start;
            b.truncate(cut);
            return (b, format!("truncate@{cut} (before message {i})"));
        }
        27..=28 => {
            let cut = rng.below(orig.len());
            b.truncate(cut);
            return (b, format!("truncate@{cut}"));
        }
        29 => {
            let k = 1 + rng.below(8);
            b.truncate(orig.len().saturating_sub(k));
            return (b, format!("truncate last {k} bytes"));
        }
        30 if n_msgs > 1 => {
            let i = rng.below(n_msgs);
            let order: Vec<usize> = (0..n_msgs).filter(|&j| j != i).collect();
            return (reorder(orig, layout, &order), format!("drop message {i}"));
        }
        31 if n_msgs > 0 => {
            let i = rng.below(n_msgs);
            let mut order: Vec<usize> = (0..n_msgs).collect();
            order.insert(i, i);
            return (
                reorder(orig, layout, &order),
                format!("duplicate message {i}"),
            );
        }
        32..=33 if n_msgs > 1 => {
            let i = rng.below(n_msgs - 1);
            let j = if op == 32 { i + 1 } else { rng.below(n_msgs) };
            let mut order: Vec<usize> = (0..n_msgs).collect();
            order.swap(i, j);
            return (
                reorder(orig, layout, &order),
                format!("swap messages {i} and {j}"),
            );
        }
        34 if n_msgs > 1 => {
            // The schema message last.
            let mut order: Vec<usize> = (1..n_msgs).collect();
            order.push(0);
            return (reorder(orig, layout, &order), "schema moved last".into());
        }
        35..=36 if layout.blocks.len() > 1 => {
            let i = rng.below(layout.blocks.len());
            let j = rng.below(layout.blocks.len());
            if i != j {
                let (a, c) = (layout.blocks[i].clone(), layout.blocks[j].clone());
                let (x, y) = (orig[a.clone()].to_vec(), orig[c.clone()].to_vec());
                b[a].copy_from_slice(&y);
                b[c].copy_from_slice(&x);
                return (b, format!("swap footer blocks {i} and {j}"));
            }
        }
        37 => {
            if let Some(f) = layout.footer.clone() {
                let pos = in_range(rng, &f);
                xor_byte(rng, &mut b, pos);
                return (b, format!("flip footer byte @{pos}{}", layout.note(pos)));
            }
        }
        38 => {
            // Bytes appended after the end.
            let k = 1 + rng.below(16);
            b.extend((0..k).map(|_| rng.below(256) as u8));
            return (b, format!("append {k} bytes"));
        }
        _ => {}
    }
    let pos = rng.below(orig.len());
    xor_byte(rng, &mut b, pos);
    (b, format!("flip byte @{pos}{}", layout.note(pos)))
}
