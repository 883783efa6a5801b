//! The header reader against the two real models (read in growing prefixes, as the worker
//! does), every truncation point of a header, and hostile or garbage input, which must yield
//! an error and never a panic or a huge allocation.

use super::test_models::{both, gemma3, smollm2};
use super::*;

/// A small GGUF writer for synthetic files.
struct Writer(Vec<u8>);

impl Writer {
    fn new(version: u32, tensors: u64, kvs: u64) -> Self {
        let mut w = Writer(b"GGUF".to_vec());
        w.u32(version);
        w.u64(tensors);
        w.u64(kvs);
        w
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn str(&mut self, s: &str) -> &mut Self {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn kv_str(&mut self, k: &str, v: &str) -> &mut Self {
        self.str(k).u32(8).str(v)
    }
    fn kv_u32(&mut self, k: &str, v: u32) -> &mut Self {
        self.str(k).u32(4).u32(v)
    }
    fn tensor(&mut self, name: &str, dims: &[u64], ty: u32, offset: u64) -> &mut Self {
        self.str(name).u32(dims.len() as u32);
        for &d in dims {
            self.u64(d);
        }
        self.u32(ty).u64(offset)
    }
}

/// A complete small file: every value type, a string array, a nested array, two tensors.
fn sample() -> Vec<u8> {
    let mut w = Writer::new(3, 2, 8);
    w.kv_str("general.architecture", "llama");
    w.kv_u32("general.alignment", 64);
    w.str("a.f32")
        .u32(6)
        .0
        .extend_from_slice(&1.5f32.to_le_bytes());
    w.str("a.bool").u32(7).0.push(1);
    w.str("a.i64").u32(11).u64((-5i64) as u64);
    w.str("a.strings").u32(9).u32(8).u64(2).str("x").str("yz");
    w.str("a.nested")
        .u32(9)
        .u32(9)
        .u64(1)
        .u32(4)
        .u64(2)
        .u32(7)
        .u32(8);
    w.str("a.f64")
        .u32(12)
        .0
        .extend_from_slice(&2.25f64.to_le_bytes());
    w.tensor("w", &[32, 2], 2, 0).tensor("b", &[4], 0, 64);
    w.0
}

#[test]
fn sample_file_reads_every_value_type() {
    let bytes = sample();
    let h = read_header(&bytes).expect("sample parses");
    assert_eq!(h.version, 3);
    assert_eq!(h.get_str("general.architecture"), Some("llama"));
    assert_eq!(h.get("a.f32"), Some(&MetaValue::F32(1.5)));
    assert_eq!(h.get_bool("a.bool"), Some(true));
    assert_eq!(h.get("a.i64"), Some(&MetaValue::I64(-5)));
    assert_eq!(h.get("a.f64"), Some(&MetaValue::F64(2.25)));
    assert_eq!(
        h.get_array("a.strings"),
        Some(&MetaArray::String(vec!["x".into(), "yz".into()]))
    );
    assert_eq!(
        h.get_array("a.nested"),
        Some(&MetaArray::Array(vec![MetaArray::U32(vec![7, 8])]))
    );
    assert_eq!(h.tensors.len(), 2);
    assert_eq!(h.tensors[0].dims, vec![32, 2]);
    assert_eq!(h.tensors[0].element_count(), Some(64));
    assert_eq!(h.tensors[1].offset, 64);
    assert_eq!(h.alignment, 64);
    assert_eq!(h.data_offset % 64, 0);
    assert!(h.data_offset >= bytes.len() as u64);
    assert!(h.data_offset < bytes.len() as u64 + 64);
}

#[test]
fn real_headers_parse() {
    for m in both() {
        let h = &m.header;
        assert!(h.version == 2 || h.version == 3, "{}", m.file);
        assert_eq!(h.alignment, 32, "{}", m.file);
        assert_eq!(h.data_offset % 32, 0);
        assert!(h.data_offset < m.file_size);
        assert!(!h.tensors.is_empty());
        assert!(h.get("tokenizer.ggml.tokens").is_some());
    }
    assert_eq!(
        smollm2().header.get_str("tokenizer.ggml.pre"),
        Some("smollm")
    );
    assert_eq!(smollm2().header.tensors.len(), 272);
    assert_eq!(gemma3().header.get_u64("gemma3.block_count"), Some(18));
    match gemma3().header.get_array("tokenizer.ggml.tokens") {
        Some(MetaArray::String(t)) => assert_eq!(t.len(), 262_144),
        other => panic!("tokens: {other:?}"),
    }
    // Gemma's header (~6 MiB) does not fit the first 64 KiB read.
    assert!(gemma3().reads > 1);
}

/// Every prefix of a header either asks for more (and for a length beyond what it has, within
/// the header) or, once whole, gives the same header. Every byte boundary for the sample and
/// the first 4 KiB of SmolLM2, then spread points through the rest of its 1.9 MiB header.
#[test]
fn every_truncation_asks_for_more() {
    let full = sample();
    let whole = read_header(&full).expect("sample parses");
    for len in 0..full.len() {
        match read_header(&full[..len]) {
            Err(GgufError::NeedMore { at_least }) => {
                assert!(
                    at_least > len as u64 && at_least <= full.len() as u64,
                    "{len}"
                )
            }
            other => panic!("prefix {len}: {other:?}"),
        }
    }
    assert_eq!(read_header(&full), Ok(whole));

    let m = smollm2();
    let real = &m.prefix;
    let end = real.len();
    let mut cuts: Vec<usize> = (0..4096).collect();
    cuts.extend((0..400).map(|i| 4096 + (end - 4096) * i / 400));
    cuts.extend(end - 64..end);
    for len in cuts {
        match read_header(&real[..len]) {
            Err(GgufError::NeedMore { at_least }) => {
                assert!(at_least > len as u64 && at_least <= end as u64, "{len}");
            }
            // The last bytes before the data are alignment padding: the header is whole.
            Ok(h) => assert_eq!(h, m.header, "prefix {len}"),
            Err(e) => panic!("prefix {len}: {e}"),
        }
    }
}

#[test]
fn garbage_is_refused_with_a_sentence() {
    assert_eq!(read_header(b""), Err(GgufError::NeedMore { at_least: 4 }));
    assert_eq!(read_header(b"GG"), Err(GgufError::NeedMore { at_least: 4 }));
    assert_eq!(read_header(b"\x89PNG\r\n"), Err(GgufError::NotGguf));
    assert_eq!(read_header(b"G"), Err(GgufError::NeedMore { at_least: 4 }));
    assert_eq!(read_header(b"X"), Err(GgufError::NotGguf));
    assert_eq!(
        GgufError::NotGguf.to_string(),
        "This file is not a GGUF model."
    );
    for version in [0, 1, 4, 0x0300_0000] {
        let w = Writer::new(version, 0, 0);
        assert_eq!(
            read_header(&w.0),
            Err(GgufError::UnsupportedVersion { version })
        );
    }
    assert!(GgufError::UnsupportedVersion { version: 1 }
        .to_string()
        .contains("versions 2 and 3"));
}

fn assert_malformed(bytes: &[u8], what: &str) {
    match read_header(bytes) {
        Err(e @ GgufError::Malformed { .. }) => {
            let s = e.to_string();
            assert!(s.starts_with("This GGUF file is damaged: "), "{s}");
        }
        other => panic!("{what}: {other:?}"),
    }
}

#[test]
fn hostile_counts_never_allocate_from_the_count() {
    // Counts larger than any header could hold.
    assert_malformed(&Writer::new(3, u64::MAX, 0).0, "tensor count");
    assert_malformed(&Writer::new(3, 0, u64::MAX).0, "kv count");
    // A key whose length is beyond the header bound.
    let mut w = Writer::new(3, 0, 1);
    w.u64(u64::MAX - 3);
    assert_malformed(&w.0, "key length");
    // A plausible but absent length asks for more instead of allocating.
    let mut w = Writer::new(3, 0, 1);
    w.u64(1 << 20);
    assert_eq!(
        read_header(&w.0),
        Err(GgufError::NeedMore {
            at_least: 24 + 8 + (1 << 20)
        })
    );
    // Arrays claiming 2^60 items of each kind.
    for item_type in [0u32, 4, 6, 7, 8, 9, 10, 12] {
        let mut w = Writer::new(3, 0, 1);
        w.str("k").u32(9).u32(item_type).u64(1 << 60);
        assert_malformed(&w.0, "huge array");
    }
    // A string array whose strings are claimed but absent: asks for 8 bytes per string.
    let mut w = Writer::new(3, 0, 1);
    w.str("k").u32(9).u32(8).u64(1000);
    let at = w.0.len() as u64;
    assert_eq!(
        read_header(&w.0),
        Err(GgufError::NeedMore {
            at_least: at + 8000
        })
    );
}

#[test]
fn malformed_structures_are_named() {
    let mut w = Writer::new(3, 0, 1);
    w.str("k").u32(13).u32(0);
    assert_malformed(&w.0, "unknown value type");
    let mut w = Writer::new(3, 0, 1);
    w.str("k").u32(9).u32(99).u64(1);
    assert_malformed(&w.0, "unknown item type");
    let mut w = Writer::new(3, 0, 1);
    w.str("k").u32(7).0.push(2);
    assert_malformed(&w.0, "bool 2");
    // Arrays of arrays of arrays of ...
    let mut w = Writer::new(3, 0, 1);
    w.str("k").u32(9);
    for _ in 0..5 {
        w.u32(9).u64(1);
    }
    w.u32(4).u64(0);
    assert_malformed(&w.0, "deep nesting");
    for alignment in [0u32, 3, 48] {
        let mut w = Writer::new(3, 0, 1);
        w.kv_u32("general.alignment", alignment);
        assert_malformed(&w.0, "alignment");
    }
    let mut w = Writer::new(3, 1, 0);
    w.tensor("t", &[1, 2, 3, 4, 5], 0, 0);
    assert_malformed(&w.0, "five dims");
    let mut w = Writer::new(3, 1, 0);
    w.tensor("t", &[u64::MAX, 2], 0, 0);
    assert_malformed(&w.0, "dims overflow");
}

/// Deterministic mutations of real and synthetic headers: flipped bytes and overwritten
/// lengths. Any result is fine except a panic, a hang or an allocation from a hostile count
/// (which would abort the test process).
#[test]
fn mutated_headers_never_panic() {
    let mut seed: u64 = 0x5eed;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        seed >> 33
    };
    let real = &smollm2().prefix[..64 * 1024];
    let inputs: [&[u8]; 2] = [&sample(), real];
    for input in inputs {
        for _ in 0..300 {
            let mut bytes = input.to_vec();
            for _ in 0..1 + next() % 4 {
                let at = next() as usize % bytes.len();
                match next() % 3 {
                    0 => bytes[at] ^= 1 << (next() % 8),
                    1 => bytes[at] = 0xff,
                    _ => {
                        // A length-sized field set to something large.
                        let end = (at + 8).min(bytes.len());
                        for b in &mut bytes[at..end] {
                            *b = next() as u8;
                        }
                    }
                }
            }
            let cut = next() as usize % (bytes.len() + 1);
            let _ = read_header(&bytes);
            let _ = read_header(&bytes[..cut]);
        }
    }
}
