//! Every provider stream decoder on generated bodies and on mutated recordings: nothing
//! panics, any chunking gives the events and the ending of feeding the body whole, a body
//! ends either whole (only after the provider's end marker) or in a typed error, and a
//! failed decoder stays failed with the same error.

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;

use super::json_gen::shaped;
use super::{bytes_from, chunk, config, cuts, sample};
use crate::anthropic::AnthropicStream;
use crate::gemini::GeminiStream;
use crate::openai::ChatStream;
use crate::provider::{Decoder, ProviderError, StreamEvent};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    OpenAi,
    Anthropic,
    Gemini,
}

const KINDS: [Kind; 3] = [Kind::OpenAi, Kind::Anthropic, Kind::Gemini];

impl Kind {
    fn decoder(self) -> Decoder {
        match self {
            Kind::OpenAi => Decoder::OpenAiCompatible(ChatStream::new()),
            Kind::Anthropic => Decoder::Anthropic(AnthropicStream::new()),
            Kind::Gemini => Decoder::Gemini(GeminiStream::new()),
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Kind::OpenAi => "openai",
            Kind::Anthropic => "anthropic",
            Kind::Gemini => "gemini",
        }
    }
}

/// What a body decoded to: every event, then how it ended (the first error from `feed`, or
/// what `finish` said).
#[derive(Debug, PartialEq)]
struct Run {
    events: Vec<StreamEvent>,
    end: Result<(), ProviderError>,
}

/// Decodes `chunks`, checking the decoder's contract on the way.
fn run(kind: Kind, chunks: &[&[u8]]) -> Result<Run, TestCaseError> {
    let mut d = kind.decoder();
    let mut events = Vec::new();
    let mut end = None;
    for c in chunks {
        match d.feed(c) {
            Ok(e) => events.extend(e),
            Err(e) => {
                end = Some(e);
                break;
            }
        }
    }
    let from_feed = end.is_some();
    let end = match end {
        Some(e) => Err(e),
        None => d.finish().map(|e| events.extend(e)),
    };
    match &end {
        // Only the provider's end marker makes an answer whole.
        Ok(()) => prop_assert!(d.is_complete(), "finished Ok without an end marker"),
        // A failed decoder stays failed: more bytes, even a valid end, change nothing.
        Err(e) if from_feed => {
            let more = d.feed(b"data: [DONE]\n\nevent: message_stop\ndata: {}\n\n");
            prop_assert_eq!(more.err(), Some(e.clone()), "feed after failing");
            prop_assert_eq!(d.finish().err(), Some(e.clone()), "finish after failing");
        }
        // A cut body is said to be cut; any other error at the end is kept.
        Err(ProviderError::StreamCut) => prop_assert!(!d.is_complete()),
        Err(e) => prop_assert_eq!(d.finish().err(), Some(e.clone()), "finish again"),
    }
    Ok(Run { events, end })
}

/// The body decoded whole, in the given chunks and one byte at a time must agree.
fn check(kind: Kind, bytes: &[u8], cuts: &[u16]) -> Result<(), TestCaseError> {
    let whole = run(kind, &[bytes])?;
    prop_assert_eq!(
        &run(kind, &chunk(bytes, cuts))?,
        &whole,
        "{:?} chunked",
        kind
    );
    let byte_by_byte: Vec<&[u8]> = bytes.chunks(1).collect();
    prop_assert_eq!(
        &run(kind, &byte_by_byte)?,
        &whole,
        "{:?} byte by byte",
        kind
    );
    Ok(())
}

/// A recorded stream: its file name and bytes.
type Recording = (String, Vec<u8>);

/// The recorded streams of one provider (`tests/fixtures/<provider>/*.sse`), read once.
fn fixtures(kind: Kind) -> &'static [Recording] {
    static ALL: OnceLock<Vec<Vec<Recording>>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        KINDS
            .iter()
            .map(|k| {
                let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../../tests/fixtures")
                    .join(k.dir());
                let mut files: Vec<Recording> = std::fs::read_dir(&dir)
                    .expect("fixture directory")
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "sse"))
                    .map(|p| {
                        let name = p.file_name().unwrap_or_default().to_string_lossy().into();
                        (name, std::fs::read(&p).expect("fixture"))
                    })
                    .collect();
                crate::order::sort(&mut files);
                files
            })
            .collect()
    });
    &all[KINDS.iter().position(|k| *k == kind).unwrap_or(0)]
}

#[test]
fn every_provider_has_recorded_streams() {
    for kind in KINDS {
        assert!(fixtures(kind).len() >= 4, "{kind:?}: {:?}", fixtures(kind));
    }
}

/// Bytes of SSE framing and of the providers' JSON, for bodies that are almost right.
const PIECES: &[&str] = &[
    "data: ",
    "data:",
    "event: ",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    ": keep-alive\n",
    "[DONE]",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "0",
    "-1",
    "4294967296",
    "1e999",
    "123456789012345678901234567890",
    "\"choices\"",
    "\"delta\"",
    "\"content\"",
    "\"tool_calls\"",
    "\"finish_reason\"",
    "\"error\"",
    "\"type\"",
    "\"index\"",
    "\"text\"",
    "\"candidates\"",
    "\"parts\"",
    "\"finishReason\"",
    "message_stop",
    "content_block_delta",
    "error",
    "é",
    "😊",
    " ",
];

const OPENAI_CHUNKS: &[&str] = &[
    r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"reasoning":"hm"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":{"a":1}}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
    r#"{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"completion_tokens_details":{"reasoning_tokens":1}}}"#,
    r#"{"error":{"message":"boom","code":502,"metadata":{"raw":"x"}}}"#,
    r#"{"object":"error","message":"bad","type":"BadRequestError","code":400}"#,
];

/// A whole non-streamed answer, which `ChatStream` accepts in place of a stream.
const OPENAI_BODIES: &[&str] = &[
    r#"{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"x","reasoning_content":"r","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
    r#"{"error":{"message":"nope","type":"invalid_request_error","code":"x"}}"#,
];

const ANTHROPIC_EVENTS: &[&str] = &[
    r#"{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":5,"output_tokens":1}}}"#,
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}"#,
    r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}"#,
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hm"}}"#,
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"s"}}"#,
    r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
    r#"{"type":"content_block_stop","index":0}"#,
    r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":7}}"#,
    r#"{"type":"message_stop"}"#,
    r#"{"type":"ping"}"#,
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
];

const ANTHROPIC_NAMES: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

const GEMINI_EVENTS: &[&str] = &[
    r#"{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":2,"totalTokenCount":3},"modelVersion":"g"}"#,
    r#"{"candidates":[{"content":{"parts":[{"text":"hm","thought":true}],"role":"model"}}]}"#,
    r#"{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"a":1},"id":"x"},"thoughtSignature":"s"}],"role":"model"}}]}"#,
    r#"{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":2,"thoughtsTokenCount":4,"totalTokenCount":7}}"#,
    r#"{"candidates":[{"finishReason":"SAFETY","safetyRatings":[]}]}"#,
    r#"{"candidates":[{"finishReason":"MAX_TOKENS"}]}"#,
    r#"{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL","finishMessage":"bad call"}]}"#,
    r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"}}"#,
    r#"{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}"#,
];

/// One SSE event of a provider's kind, its JSON edited, optionally named.
fn frame(kind: Kind) -> BoxedStrategy<Vec<u8>> {
    let (events, names): (&'static [&'static str], &'static [&'static str]) = match kind {
        Kind::OpenAi => (OPENAI_CHUNKS, &["error"]),
        Kind::Anthropic => (ANTHROPIC_EVENTS, ANTHROPIC_NAMES),
        Kind::Gemini => (GEMINI_EVENTS, &[]),
    };
    let name = if names.is_empty() {
        Just(None).boxed()
    } else {
        prop::option::weighted(0.5, prop::sample::select(names)).boxed()
    };
    let event = (name, shaped(events)).prop_map(|(name, json)| {
        let mut f = String::new();
        if let Some(n) = name {
            f.push_str(&format!("event: {n}\n"));
        }
        f.push_str(&format!("data: {json}\n\n"));
        f.into_bytes()
    });
    prop_oneof![
        8 => event,
        1 => Just(b"data: [DONE]\n\n".to_vec()),
        1 => bytes_from(PIECES, 6),
    ]
    .boxed()
}

/// A body of a provider's kind: a few generated events, sometimes a whole JSON answer.
fn body(kind: Kind) -> BoxedStrategy<Vec<u8>> {
    let stream = prop::collection::vec(frame(kind), 0..8).prop_map(|f| f.concat());
    match kind {
        Kind::OpenAi => prop_oneof![
            6 => stream,
            1 => shaped(OPENAI_BODIES).prop_map(|v| v.to_string().into_bytes()),
        ]
        .boxed(),
        _ => stream.boxed(),
    }
}

/// A change to a recorded stream, as a fraction of its length where it applies.
#[derive(Debug, Clone)]
enum Mutation {
    /// XOR one byte with a non-zero mask.
    Flip(u16, u8),
    /// Cut the body short.
    Truncate(u16),
    /// Repeat the line holding this offset.
    DuplicateLine(u16),
    /// Remove the line holding this offset.
    DeleteLine(u16),
    /// Insert bytes at this offset.
    Insert(u16, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<u16>(), 1..=255u8).prop_map(|(at, m)| Mutation::Flip(at, m)),
        1 => any::<u16>().prop_map(Mutation::Truncate),
        2 => any::<u16>().prop_map(Mutation::DuplicateLine),
        2 => any::<u16>().prop_map(Mutation::DeleteLine),
        2 => (any::<u16>(), bytes_from(PIECES, 4)).prop_map(|(at, b)| Mutation::Insert(at, b)),
    ]
}

fn mutate(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |f: u16, n: usize| f as usize * n / (u16::MAX as usize + 1);
    let line_around = |bytes: &[u8], i: usize| {
        let start = bytes[..i]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let end = bytes[i..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| i + p + 1);
        start..end
    };
    let n = bytes.len();
    match *m {
        Mutation::Flip(f, mask) if n > 0 => bytes[at(f, n)] ^= mask,
        Mutation::Truncate(f) => bytes.truncate(at(f, n + 1)),
        Mutation::DuplicateLine(f) if n > 0 => {
            let line = line_around(bytes, at(f, n));
            let copy = bytes[line.clone()].to_vec();
            bytes.splice(line.end..line.end, copy);
        }
        Mutation::DeleteLine(f) if n > 0 => {
            let line = line_around(bytes, at(f, n));
            bytes.drain(line);
        }
        Mutation::Insert(f, ref b) => {
            let i = at(f, n + 1);
            bytes.splice(i..i, b.iter().copied());
        }
        _ => {}
    }
}

fn kind() -> impl Strategy<Value = Kind> {
    prop::sample::select(KINDS.to_vec())
}

/// How a run ended and what it held, as short names, for checking what generators reach.
fn tally(kind: Kind, bodies: &[Vec<u8>]) -> std::collections::BTreeMap<String, usize> {
    let mut seen = std::collections::BTreeMap::new();
    for b in bodies {
        let Ok(r) = run(kind, &[b]) else {
            panic!("contract broken on {:?}", String::from_utf8_lossy(b));
        };
        let end = match &r.end {
            Ok(()) => "Ok".to_string(),
            Err(e) => format!("{e:?}")
                .split(['(', ' '])
                .next()
                .unwrap_or("")
                .to_string(),
        };
        *seen.entry(end).or_default() += 1;
        for e in r.events {
            let name = format!("{e:?}")
                .split(['(', ' '])
                .next()
                .unwrap_or("")
                .to_string();
            *seen.entry(name).or_default() += 1;
        }
    }
    seen
}

#[test]
fn generated_bodies_reach_every_ending_and_event() {
    for kind in KINDS {
        let seen = tally(kind, &sample(body(kind), 400));
        let mut expected = vec![
            "Ok",
            "StreamCut",
            "Malformed",
            "InStream",
            "Content",
            "Reasoning",
        ];
        expected.extend(match kind {
            Kind::OpenAi => vec!["ToolCall", "Usage", "Finish", "Done"],
            Kind::Anthropic => vec!["ToolCall", "Usage", "Finish", "Done"],
            Kind::Gemini => vec!["ToolCall", "Usage", "Finish", "Blocked"],
        });
        for name in expected {
            assert!(seen.contains_key(name), "{kind:?}: no {name} in {seen:?}");
        }
    }
}

#[test]
fn mutated_recordings_still_reach_whole_answers_and_errors() {
    for kind in KINDS {
        let files = fixtures(kind);
        let bodies: Vec<Vec<u8>> = sample(
            (
                any::<prop::sample::Index>(),
                prop::collection::vec(mutation(), 1..5),
            ),
            300,
        )
        .into_iter()
        .map(|(pick, mutations)| {
            let mut bytes = files[pick.index(files.len())].1.clone();
            for m in &mutations {
                mutate(&mut bytes, m);
            }
            bytes
        })
        .collect();
        let seen = tally(kind, &bodies);
        for name in ["Ok", "StreamCut", "Malformed", "Content"] {
            assert!(seen.contains_key(name), "{kind:?}: no {name} in {seen:?}");
        }
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn any_bytes_never_panic_and_decode_the_same_in_any_chunking(
        kind in kind(),
        bytes in any::<Vec<u8>>(),
        cuts in cuts(),
    ) {
        check(kind, &bytes, &cuts)?;
    }

    #[test]
    fn sse_like_bytes_decode_the_same_in_any_chunking(
        kind in kind(),
        bytes in bytes_from(PIECES, 80),
        cuts in cuts(),
    ) {
        check(kind, &bytes, &cuts)?;
    }

    #[test]
    fn generated_provider_bodies_decode_the_same_in_any_chunking(
        (kind, bytes) in kind().prop_flat_map(|k| (Just(k), body(k))),
        cuts in cuts(),
    ) {
        check(kind, &bytes, &cuts)?;
    }

    /// Any provider's bodies fed to another provider's decoder: wrong, but never a panic.
    #[test]
    fn bodies_of_another_provider_end_in_a_typed_error_or_whole(
        to in kind(),
        bytes in kind().prop_flat_map(body),
        cuts in cuts(),
    ) {
        check(to, &bytes, &cuts)?;
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// The recorded streams at random split points (the fixture tests use windows around
    /// line ends, colons and multi-byte characters; these land anywhere).
    #[test]
    fn recordings_split_anywhere_decode_as_whole(
        kind in kind(),
        pick in any::<prop::sample::Index>(),
        cuts in cuts(),
    ) {
        let files = fixtures(kind);
        let (name, bytes) = &files[pick.index(files.len())];
        let whole = run(kind, &[bytes])?;
        let chunked = run(kind, &chunk(bytes, &cuts))?;
        prop_assert_eq!(chunked, whole, "{}", name);
    }

    /// Recordings with bytes flipped, lines repeated or removed, bytes inserted or the body
    /// cut short: never a panic, the same outcome in any chunking, and an end that is either
    /// whole (after the end marker) or a typed error (checked in `run`).
    #[test]
    fn mutated_recordings_end_in_a_typed_error_or_whole(
        kind in kind(),
        pick in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..5),
        cuts in cuts(),
    ) {
        let files = fixtures(kind);
        let mut bytes = files[pick.index(files.len())].1.clone();
        for m in &mutations {
            mutate(&mut bytes, m);
        }
        let whole = run(kind, &[&bytes])?;
        prop_assert_eq!(run(kind, &chunk(&bytes, &cuts))?, whole);
    }
}
