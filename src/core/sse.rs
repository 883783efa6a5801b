//! A byte-level Server-Sent Events decoder, following the WHATWG HTML "interpreting an event
//! stream" algorithm.
//!
//! Provider streams reach us as arbitrary byte chunks: a chunk may end in the middle of a line,
//! in the middle of a multi-byte UTF-8 character, or between the CR and the LF of a CRLF. This
//! decoder turns any chunking of the same bytes into the same events.
//!
//! It must never re-scan bytes it has already looked at: a long answer arrives as thousands of
//! small chunks, and a decoder that re-reads its buffer on every chunk turns a 30,000-token
//! answer into a visible stall. Each byte is examined once and copied at most once (only the
//! unfinished tail of a line is kept between calls). It must also never decode a partial
//! UTF-8 character: bytes are kept until a whole line is assembled, and only then decoded
//! (lossily, so a broken server cannot make us fail).
//!
//! It performs no IO and knows nothing about what the events mean; `openai` gives them meaning.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, or `"message"` when the event had none.
    pub event: String,
    /// The `data:` lines joined with `\n` (no trailing newline).
    pub data: String,
    /// The last event ID in force when this event was dispatched (the spec makes it persist
    /// across events until a later `id:` replaces it); `None` while it is empty.
    pub id: Option<String>,
}

const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Incremental decoder. Feed it chunks in order; it returns the events each chunk completes.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the line currently being assembled (only the part seen so far).
    line: Vec<u8>,
    /// How many bytes of a leading BOM have matched so far; `None` once the stream start is
    /// behind us. A BOM split across chunks must still be stripped, exactly once.
    bom_matched: Option<usize>,
    /// The previous chunk ended with a CR that closed a line: an LF opening the next chunk
    /// belongs to that same line end.
    after_cr: bool,
    data: String,
    event_type: String,
    last_event_id: String,
    retry_ms: Option<u64>,
    /// Bytes examined or copied, so a test can prove the work stays linear in the input.
    #[cfg(test)]
    work: usize,
}

impl SseDecoder {
    pub fn new() -> Self {
        SseDecoder {
            bom_matched: Some(0),
            ..Default::default()
        }
    }

    /// Decode the next chunk of the stream and return the events it completed, in order.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = self.strip_bom(bytes);
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            #[cfg(test)]
            {
                self.work += pos + 1;
            }
            let is_cr = rest[pos] == b'\r';
            if self.line.is_empty() {
                self.process_line(&rest[..pos], &mut events);
            } else {
                #[cfg(test)]
                {
                    self.work += pos;
                }
                self.line.extend_from_slice(&rest[..pos]);
                let line = std::mem::take(&mut self.line);
                self.process_line(&line, &mut events);
                // Reuse the allocation for the next long line.
                self.line = line;
                self.line.clear();
            }
            rest = &rest[pos + 1..];
            if is_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    // The LF of a CRLF may open the next chunk.
                    None => self.after_cr = true,
                }
            }
        }
        #[cfg(test)]
        {
            self.work += 2 * rest.len();
        }
        self.line.extend_from_slice(rest);
        events
    }

    /// End of stream. Per the spec an event whose terminating blank line never arrived is
    /// discarded, so this never returns an event: it discards the unfinished line and event
    /// and readies the decoder for a new stream (a reconnection, whose leading BOM is again
    /// stripped). `last_event_id` and `retry_ms` survive, since a reconnection needs them.
    /// The `Vec` keeps the call shape of `feed`, so callers treat end of stream as a last chunk.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        self.line.clear();
        self.data.clear();
        self.event_type.clear();
        self.after_cr = false;
        self.bom_matched = Some(0);
        Vec::new()
    }

    /// The last event ID set by an `id:` field, if any (an empty `id:` clears it).
    pub fn last_event_id(&self) -> Option<&str> {
        if self.last_event_id.is_empty() {
            None
        } else {
            Some(&self.last_event_id)
        }
    }

    /// The reconnection delay the server asked for with `retry:`, in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Whether bytes of an unfinished line or event are held (the stream stopped mid-event).
    pub fn has_pending(&self) -> bool {
        !self.line.is_empty() || !self.data.is_empty() || !self.event_type.is_empty()
    }

    /// Consume the leading BOM, if any, at stream start. Bytes that turned out not to be a
    /// BOM are content and go to the line buffer (none of them is a line terminator).
    fn strip_bom<'a>(&mut self, bytes: &'a [u8]) -> &'a [u8] {
        let Some(mut matched) = self.bom_matched else {
            return bytes;
        };
        let mut consumed = 0;
        while matched < BOM.len() {
            match bytes.get(consumed) {
                None => {
                    self.bom_matched = Some(matched);
                    return &[];
                }
                Some(&b) if b == BOM[matched] => {
                    matched += 1;
                    consumed += 1;
                }
                Some(_) => {
                    self.line.extend_from_slice(&BOM[..matched]);
                    break;
                }
            }
        }
        self.bom_matched = None;
        &bytes[consumed..]
    }

    fn process_line(&mut self, raw: &[u8], events: &mut Vec<SseEvent>) {
        if raw.is_empty() {
            self.dispatch(events);
            return;
        }
        if raw[0] == b':' {
            return; // comment, e.g. `: keep-alive` or `: OPENROUTER PROCESSING`
        }
        let line = String::from_utf8_lossy(raw);
        let (field, value) = match line.find(':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "event" => {
                self.event_type.clear();
                self.event_type.push_str(value);
            }
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            // An id containing NUL is ignored, per spec.
            "id" if !value.contains('\0') => {
                self.last_event_id.clear();
                self.last_event_id.push_str(value);
            }
            // Only ASCII digits count; too many digits for u64 is junk too.
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        if self.data.is_empty() {
            self.event_type.clear();
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        if data.ends_with('\n') {
            data.pop();
        }
        let event = if self.event_type.is_empty() {
            "message".to_string()
        } else {
            std::mem::take(&mut self.event_type)
        };
        events.push(SseEvent {
            event,
            data,
            id: self.last_event_id().map(str::to_string),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(data: &str) -> SseEvent {
        SseEvent {
            event: "message".into(),
            data: data.into(),
            id: None,
        }
    }

    fn whole(input: &[u8]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut ev = d.feed(input);
        ev.extend(d.finish());
        ev
    }

    /// Every two-chunk split and the one-byte-at-a-time feed must give the whole-feed events.
    fn assert_chunking_invariant(input: &[u8]) -> Vec<SseEvent> {
        let expected = whole(input);
        for i in 0..=input.len() {
            let mut d = SseDecoder::new();
            let mut ev = d.feed(&input[..i]);
            ev.extend(d.feed(&input[i..]));
            ev.extend(d.finish());
            assert_eq!(
                ev,
                expected,
                "split at {i} of {:?}",
                String::from_utf8_lossy(input)
            );
        }
        let mut d = SseDecoder::new();
        let mut ev = Vec::new();
        for b in input {
            ev.extend(d.feed(std::slice::from_ref(b)));
        }
        ev.extend(d.finish());
        assert_eq!(ev, expected, "byte by byte");
        expected
    }

    #[test]
    fn lf_cr_and_crlf_all_end_lines() {
        let input = b"data: a\n\ndata: b\r\rdata: c\r\n\r\ndata: d\n\r\n";
        let ev = assert_chunking_invariant(input);
        assert_eq!(ev, vec![msg("a"), msg("b"), msg("c"), msg("d")]);
    }

    #[test]
    fn cr_then_lf_across_chunks_is_one_line_end() {
        let mut d = SseDecoder::new();
        assert_eq!(d.feed(b"data: x\r"), vec![]);
        // If the LF were a second line end, this would dispatch an empty line here.
        assert_eq!(d.feed(b"\ndata: y\r"), vec![]);
        assert_eq!(d.feed(b"\n\r"), vec![msg("x\ny")]);
        assert_eq!(d.feed(b"\n"), vec![]);
        assert_eq!(d.feed(b"data: z\n\n"), vec![msg("z")]);
    }

    #[test]
    fn lone_cr_dispatches_without_waiting_for_the_next_chunk() {
        let mut d = SseDecoder::new();
        assert_eq!(d.feed(b"data: now\r\r"), vec![msg("now")]);
    }

    #[test]
    fn crlf_followed_by_cr_is_two_line_ends() {
        let ev = assert_chunking_invariant(b"data: a\r\n\rdata: b\n\n");
        assert_eq!(ev, vec![msg("a"), msg("b")]);
    }

    #[test]
    fn leading_bom_is_stripped_once_even_when_split() {
        let input = b"\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n";
        let ev = assert_chunking_invariant(input);
        // The second BOM starts a line, so the field name is "\u{FEFF}data": ignored.
        assert_eq!(ev, vec![msg("a")]);
        let mut d = SseDecoder::new();
        assert!(d.feed(b"\xEF").is_empty());
        assert!(d.feed(b"\xBB").is_empty());
        assert_eq!(d.feed(b"\xBFdata: c\n\n"), vec![msg("c")]);
    }

    #[test]
    fn partial_bom_is_content() {
        // EF BB not followed by BF: those bytes belong to the first line (an unknown field).
        let ev = assert_chunking_invariant(b"\xEF\xBBdata: a\n\ndata: b\n\n");
        assert_eq!(ev, vec![msg("b")]);
        let ev = assert_chunking_invariant(b"\xEFdata: a\n\n");
        assert_eq!(ev, vec![]);
    }

    #[test]
    fn comments_are_ignored() {
        let input = b": OPENROUTER PROCESSING\n\n:keep-alive\ndata: x\n: between\n\n";
        let ev = assert_chunking_invariant(input);
        assert_eq!(ev, vec![msg("x")]);
    }

    #[test]
    fn multi_line_data_is_joined_with_lf() {
        let ev = assert_chunking_invariant(b"data: one\ndata:two\ndata:  three\ndata\n\n");
        // One optional space is removed; a second is kept; `data` alone adds an empty line.
        assert_eq!(ev, vec![msg("one\ntwo\n three\n")]);
    }

    #[test]
    fn spec_examples() {
        // From the WHATWG spec: "data" lines, a comment, and an empty data field.
        let ev = assert_chunking_invariant(b"data\n\ndata\ndata\n\ndata:\n");
        assert_eq!(ev, vec![msg(""), msg("\n")]);
        let ev = assert_chunking_invariant(b"data:test\n\ndata: test\n\n");
        assert_eq!(ev, vec![msg("test"), msg("test")]);
        let ev = assert_chunking_invariant(
            b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
        );
        assert_eq!(
            ev,
            vec![
                SseEvent {
                    event: "message".into(),
                    data: "first event".into(),
                    id: Some("1".into())
                },
                SseEvent {
                    event: "message".into(),
                    data: "second event".into(),
                    id: None
                },
                SseEvent {
                    event: "message".into(),
                    data: " third event".into(),
                    id: None
                },
            ]
        );
    }

    #[test]
    fn event_type_applies_to_one_event_only() {
        let ev = assert_chunking_invariant(b"event: error\ndata: {}\n\ndata: plain\n\n");
        assert_eq!(
            ev,
            vec![
                SseEvent {
                    event: "error".into(),
                    data: "{}".into(),
                    id: None
                },
                msg("plain"),
            ]
        );
        // An event type without data is dropped and does not leak into the next event.
        let ev = assert_chunking_invariant(b"event: ping\n\ndata: x\n\n");
        assert_eq!(ev, vec![msg("x")]);
    }

    #[test]
    fn id_persists_and_nul_ids_are_ignored() {
        let mut d = SseDecoder::new();
        let ev = d.feed(b"id: 7\ndata: a\n\ndata: b\n\nid: bad\0id\ndata: c\n\n");
        assert_eq!(
            ev.iter().map(|e| e.id.as_deref()).collect::<Vec<_>>(),
            vec![Some("7"); 3]
        );
        assert_eq!(d.last_event_id(), Some("7"));
        d.feed(b"id\n\n");
        assert_eq!(d.last_event_id(), None);
    }

    #[test]
    fn retry_takes_only_ascii_digits() {
        let mut d = SseDecoder::new();
        assert_eq!(d.retry_ms(), None);
        d.feed(b"retry: 3000\n");
        assert_eq!(d.retry_ms(), Some(3000));
        d.feed(b"retry: 12a\nretry:\nretry: -5\nretry: 99999999999999999999999\n");
        assert_eq!(d.retry_ms(), Some(3000));
        d.feed(b"retry:250\n\n");
        assert_eq!(d.retry_ms(), Some(250));
    }

    #[test]
    fn field_without_colon_and_unknown_fields() {
        let ev = assert_chunking_invariant(b"foo: bar\nevent\ndata: x\nbogus\n\n");
        assert_eq!(ev, vec![msg("x")]);
    }

    #[test]
    fn multibyte_utf8_split_anywhere_decodes_intact() {
        let input = "data: 亚 😊 — é\n\n".as_bytes();
        let ev = assert_chunking_invariant(input);
        assert_eq!(ev, vec![msg("亚 😊 — é")]);
    }

    #[test]
    fn invalid_utf8_is_replaced_per_line() {
        let ev = assert_chunking_invariant(b"data: a\xFFb\xE2\x82\ndata: c\n\n");
        assert_eq!(ev, vec![msg("a\u{FFFD}b\u{FFFD}\nc")]);
    }

    #[test]
    fn unterminated_event_is_discarded_at_finish() {
        let mut d = SseDecoder::new();
        assert_eq!(d.feed(b"data: done\n\ndata: half"), vec![msg("done")]);
        assert!(d.has_pending());
        assert_eq!(d.finish(), vec![]);
        assert!(!d.has_pending());
        // A complete line without its blank line is an unfinished event too.
        assert_eq!(d.feed(b"data: [DONE]\n"), vec![]);
        assert_eq!(d.finish(), vec![]);
        // After finish the decoder reads a fresh stream, BOM included.
        assert_eq!(d.feed(b"\xEF\xBB\xBFdata: again\n\n"), vec![msg("again")]);
    }

    #[test]
    fn work_is_linear_in_input_whatever_the_chunking() {
        // One 200 KB line fed one byte at a time, then many small events in 7-byte chunks.
        let mut input = b"data: ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 200_000));
        input.extend_from_slice(b"\n\n");
        for i in 0..20_000 {
            input.extend_from_slice(format!("data: {i}\r\n\r\n").as_bytes());
        }
        let mut d = SseDecoder::new();
        let mut count = 0;
        for b in &input[..200_008] {
            count += d.feed(std::slice::from_ref(b)).len();
        }
        for chunk in input[200_008..].chunks(7) {
            count += d.feed(chunk).len();
        }
        assert_eq!(count, 20_001);
        assert!(
            d.work <= 3 * input.len(),
            "work {} for {} bytes",
            d.work,
            input.len()
        );
    }
}
