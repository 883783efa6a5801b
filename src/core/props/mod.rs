//! Property tests with generated input (issue 8, item 5): what reads bytes or text from a
//! server or a model must never panic, and what is streamed must not depend on where the
//! stream was cut.
//!
//! The example-based tests next to each module prove behaviour on recorded traffic; these
//! throw generated input at the same entry points: the SSE decoder (`sse_decoder`), every
//! provider stream decoder (`provider_streams`), MCP JSON-RPC parsing and the session that
//! acts on it (`mcp_messages`), the MCP HTTP transports that carry it (`mcp_transports`),
//! and the streaming markdown renderer (`markdown_streaming`). Each file also checks that its
//! generators reach the states its properties are about (every decoder ending, every session
//! event, every kind of block): a property over inputs that never get past the first check
//! would pass and prove nothing.
//!
//! Why `proptest`: it resolves from crates.io, runs on stable Rust inside `cargo test`, and
//! shrinks a failing input to a small one, which becomes the regression unit test next to
//! the fix. Its `fork`/`timeout` features are off (every property is a pure function of its
//! input). Failures are not persisted to files: a shrunk input belongs in a named unit test.
//!
//! Case counts are modest so `cargo test -p skiff-core` stays fast; `SKIFF_PROPTEST_CASES=N`
//! runs N cases of every property instead (see [`config`]). The seed is fixed so CI runs the
//! same cases every time; `SKIFF_PROPTEST_SEED=N` picks another, `SKIFF_PROPTEST_SEED=random`
//! a fresh one, printed so a failing run can be repeated.
//!
//! These tests must never need the network or a fixed clock, and a failing property is never
//! answered by narrowing its generator: the bug is fixed in core, and the shrunk input kept
//! as a named unit test beside the fix.

mod json_gen;
mod markdown_streaming;
mod mcp_messages;
mod mcp_transports;
mod provider_streams;
mod sse_decoder;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngSeed};

/// The seed used when `SKIFF_PROPTEST_SEED` is unset.
const DEFAULT_SEED: u64 = 0x5c1f_f00d;

/// A property's runner configuration: `default_cases` cases, or `SKIFF_PROPTEST_CASES` of
/// them when set.
pub(crate) fn config(default_cases: u32) -> Config {
    let cases = std::env::var("SKIFF_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default_cases);
    let seed = match std::env::var("SKIFF_PROPTEST_SEED").ok().as_deref() {
        Some("random") => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            eprintln!("SKIFF_PROPTEST_SEED={nanos}");
            nanos
        }
        Some(n) => n.trim().parse().unwrap_or(DEFAULT_SEED),
        None => DEFAULT_SEED,
    };
    Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Where to cut a stream, as fractions of its length (see [`chunk`]); repeats are kept, and
/// feed an empty chunk, which must change nothing. Fractions let one strategy fit any length,
/// and shrink toward few cuts.
pub(crate) fn cuts() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(any::<u16>(), 0..24)
}

/// `bytes` cut at `cuts` (as fractions of `u16::MAX`), in order; concatenated they are
/// `bytes` again.
pub(crate) fn chunk<'a>(bytes: &'a [u8], cuts: &[u16]) -> Vec<&'a [u8]> {
    let n = bytes.len();
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|&c| (c as usize * n) / u16::MAX as usize)
        .collect();
    crate::order::sort(&mut at);
    let mut chunks = Vec::with_capacity(at.len() + 1);
    let mut from = 0;
    for to in at {
        chunks.push(&bytes[from..to]);
        from = to;
    }
    chunks.push(&bytes[from..]);
    chunks
}

/// Like [`chunk`] for text: each cut moves back to the nearest character boundary, since a
/// `&str` delta is always whole characters.
pub(crate) fn chunk_str<'a>(text: &'a str, cuts: &[u16]) -> Vec<&'a str> {
    let n = text.len();
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|&c| {
            let mut i = (c as usize * n) / u16::MAX as usize;
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        })
        .collect();
    crate::order::sort(&mut at);
    let mut chunks = Vec::with_capacity(at.len() + 1);
    let mut from = 0;
    for to in at {
        chunks.push(&text[from..to]);
        from = to;
    }
    chunks.push(&text[from..]);
    chunks
}

/// Bytes built from `pieces`: mostly whole pieces (field names, separators, JSON fragments),
/// sometimes a single arbitrary byte, so generated streams look enough like the real thing to
/// reach deep states while still holding broken UTF-8 and stray control bytes.
pub(crate) fn bytes_from(
    pieces: &'static [&'static str],
    max_len: usize,
) -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        6 => prop::sample::select(pieces).prop_map(|p| p.as_bytes().to_vec()),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(piece, 0..max_len).prop_map(|v| v.concat())
}

/// `n` values drawn from `strategy` with a fixed seed, for tests that check a generator
/// reaches the states its property is meant to exercise (a property over inputs that never
/// get past the first check proves nothing).
pub(crate) fn sample<S: Strategy>(strategy: S, n: usize) -> Vec<S::Value> {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    (0..n)
        .map(|_| match strategy.new_tree(&mut runner) {
            Ok(tree) => tree.current(),
            Err(e) => panic!("the strategy gave up: {e}"),
        })
        .collect()
}

#[test]
fn chunks_add_up_to_the_input() {
    let bytes = b"data: x\n\n";
    for cuts in [vec![], vec![0, 0], vec![u16::MAX], vec![30_000, 1, 65_000]] {
        assert_eq!(chunk(bytes, &cuts).concat(), bytes);
        assert_eq!(chunk(bytes, &cuts).len(), cuts.len() + 1);
    }
    let text = "aé😊b";
    for c in 0..=u16::MAX / 512 {
        let pieces = chunk_str(text, &[c * 512]);
        assert_eq!(pieces.concat(), text);
    }
}
