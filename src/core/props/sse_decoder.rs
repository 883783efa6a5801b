//! The SSE decoder on generated streams: any chunking gives the events of feeding the whole
//! input at once, and those are the events a direct reading of the WHATWG algorithm gives.

use proptest::prelude::*;

use super::{bytes_from, chunk, config, cuts};
use crate::sse::{SseDecoder, SseEvent};

/// What SSE bytes are made of, plus the places decoders go wrong: CR/LF pairs, a BOM, NUL in
/// an id, multi-byte and broken UTF-8, a colon without a space, digits for `retry`.
const PIECES: &[&str] = &[
    "data",
    "data:",
    "data: ",
    "event:",
    "event: ",
    "id:",
    "id: ",
    "retry:",
    "retry: ",
    ":",
    " ",
    ": comment",
    "\n",
    "\r",
    "\r\n",
    "\n\n",
    "\u{FEFF}",
    "\0",
    "x",
    "hello",
    "é",
    "😊",
    "42",
    "1000",
    "99999999999999999999999",
    "message",
    "error",
    "[DONE]",
    "{\"a\":1}",
];

/// Everything observable after a stream: the events, then the decoder's remembered state.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<SseEvent>,
    last_event_id: Option<String>,
    retry_ms: Option<u64>,
    pending: bool,
}

fn decode(chunks: &[&[u8]]) -> Outcome {
    let mut d = SseDecoder::new();
    let mut events = Vec::new();
    for c in chunks {
        events.extend(d.feed(c));
    }
    let pending = d.has_pending();
    events.extend(d.finish());
    Outcome {
        events,
        last_event_id: d.last_event_id().map(str::to_string),
        retry_ms: d.retry_ms(),
        pending,
    }
}

/// The WHATWG "interpreting an event stream" steps, read literally over the whole input: an
/// oracle written without any of the decoder's incremental bookkeeping. (`pending` is not
/// modelled: it is checked against the decoder's own whole-input run.)
fn oracle(bytes: &[u8], initial_id: &str) -> (Vec<SseEvent>, Option<String>, Option<u64>) {
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    // Split into lines ending in CRLF, LF or CR; the last, unterminated line is dropped.
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' => {
                lines.push(&bytes[start..i]);
                i += if bytes.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                start = i;
            }
            b'\n' => {
                lines.push(&bytes[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    let (mut data, mut event_type) = (String::new(), String::new());
    let mut last_id = initial_id.to_string();
    let mut retry = None;
    let mut events = Vec::new();
    for raw in lines {
        let line = String::from_utf8_lossy(raw);
        if line.is_empty() {
            if !data.is_empty() {
                data.pop(); // the LF after the last data line
                events.push(SseEvent {
                    event: if event_type.is_empty() {
                        "message".into()
                    } else {
                        event_type.clone()
                    },
                    data: std::mem::take(&mut data),
                    id: (!last_id.is_empty()).then(|| last_id.clone()),
                });
            }
            data.clear();
            event_type.clear();
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (&*line, ""),
        };
        match field {
            "event" => event_type = value.into(),
            "data" => {
                data.push_str(value);
                data.push('\n');
            }
            "id" if !value.contains('\0') => last_id = value.into(),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    retry = Some(ms);
                }
            }
            _ => {}
        }
    }
    (events, (!last_id.is_empty()).then_some(last_id), retry)
}

fn check(bytes: &[u8], cuts: &[u16]) -> Result<(), TestCaseError> {
    let whole = decode(&[bytes]);
    let chunked = decode(&chunk(bytes, cuts));
    prop_assert_eq!(&chunked, &whole, "chunked vs whole");
    let byte_by_byte: Vec<&[u8]> = bytes.chunks(1).collect();
    prop_assert_eq!(&decode(&byte_by_byte), &whole, "byte by byte vs whole");
    let (events, last_id, retry) = oracle(bytes, "");
    prop_assert_eq!(&whole.events, &events, "decoder vs the spec's steps");
    prop_assert_eq!(&whole.last_event_id, &last_id);
    prop_assert_eq!(whole.retry_ms, retry);
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn any_bytes_in_any_chunking_decode_as_whole(bytes in any::<Vec<u8>>(), cuts in cuts()) {
        check(&bytes, &cuts)?;
    }

    #[test]
    fn sse_like_bytes_in_any_chunking_decode_as_whole(
        bytes in bytes_from(PIECES, 120),
        cuts in cuts(),
    ) {
        check(&bytes, &cuts)?;
    }

    /// A reconnection reuses the decoder after `finish`: the second stream decodes as if on a
    /// fresh decoder, except that the last event id and retry survive.
    #[test]
    fn a_second_stream_after_finish_decodes_as_fresh(
        first in bytes_from(PIECES, 40),
        second in bytes_from(PIECES, 40),
        cuts in cuts(),
    ) {
        let mut d = SseDecoder::new();
        d.feed(&first);
        d.finish();
        let mut events = Vec::new();
        for c in chunk(&second, &cuts) {
            events.extend(d.feed(c));
        }
        // Events carry the id in force, which the first stream may have set.
        let (_, first_id, _) = oracle(&first, "");
        let (expected, _, _) = oracle(&second, first_id.as_deref().unwrap_or(""));
        prop_assert_eq!(events, expected);
    }
}
