//! Turns token bytes into text safe to send: only whole UTF-8 characters (a character split
//! across tokens is held until complete), and nothing that might be the start of a stop
//! string (held until it is known not to be one; a stop string itself is never sent).

/// What `push` decided.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Emit {
    /// Text that may be sent now (possibly empty).
    pub text: String,
    /// A stop string was reached: generation must end; `text` is everything before it.
    pub stopped: bool,
}

#[derive(Debug, Clone, Default)]
pub struct TextOut {
    /// Bytes of an incomplete UTF-8 character.
    pending_bytes: Vec<u8>,
    /// Decoded text not yet sent because it may begin a stop string.
    held: String,
    stops: Vec<String>,
}

impl TextOut {
    pub fn new(stops: Vec<String>) -> Self {
        Self {
            stops: stops.into_iter().filter(|s| !s.is_empty()).collect(),
            ..Self::default()
        }
    }

    /// Adds one token's bytes.
    pub fn push(&mut self, bytes: &[u8]) -> Emit {
        self.pending_bytes.extend_from_slice(bytes);
        let decoded = take_complete_utf8(&mut self.pending_bytes);
        self.held.push_str(&decoded);
        // A whole stop string: send what comes before it, drop the rest.
        if let Some(at) = self
            .stops
            .iter()
            .filter_map(|s| self.held.find(s.as_str()))
            .min()
        {
            let text = self.held[..at].to_string();
            self.held.clear();
            self.pending_bytes.clear();
            return Emit {
                text,
                stopped: true,
            };
        }
        // Hold the longest tail that is a prefix of some stop string.
        let keep = self
            .stops
            .iter()
            .map(|s| longest_tail_prefix(&self.held, s))
            .max()
            .unwrap_or(0);
        let send_to = self.held.len() - keep;
        let text = self.held[..send_to].to_string();
        self.held.drain(..send_to);
        Emit {
            text,
            stopped: false,
        }
    }

    /// At the end of generation: everything still held (a dangling partial character
    /// becomes U+FFFD, as a lossy decoder would show it).
    pub fn finish(&mut self) -> String {
        let mut text = std::mem::take(&mut self.held);
        if !self.pending_bytes.is_empty() {
            text.push_str(&String::from_utf8_lossy(&self.pending_bytes));
            self.pending_bytes.clear();
        }
        text
    }
}

/// Decodes and removes the longest prefix of `bytes` that ends on a character boundary;
/// invalid sequences (not merely incomplete ones) become U+FFFD.
fn take_complete_utf8(bytes: &mut Vec<u8>) -> String {
    let mut out = String::new();
    let mut rest: &[u8] = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                rest = &[];
                break;
            }
            Err(e) => {
                let (ok, after) = rest.split_at(e.valid_up_to());
                // `valid_up_to` guarantees `ok` is valid UTF-8.
                out.push_str(&String::from_utf8_lossy(ok));
                match e.error_len() {
                    Some(bad) => {
                        out.push('\u{FFFD}');
                        rest = &after[bad..];
                    }
                    // Incomplete character at the end: keep it for the next token.
                    None => {
                        rest = after;
                        break;
                    }
                }
            }
        }
    }
    let keep = rest.to_vec();
    *bytes = keep;
    out
}

/// The length of the longest suffix of `text` that is a proper prefix of `stop`, on a
/// character boundary.
fn longest_tail_prefix(text: &str, stop: &str) -> usize {
    let max = text.len().min(stop.len().saturating_sub(1));
    (1..=max)
        .rev()
        .find(|&n| {
            let start = text.len() - n;
            text.is_char_boundary(start) && stop.starts_with(&text[start..])
        })
        .unwrap_or(0)
}
