//! Where tests split captured streams in two. Every offset of a capture costs O(n²) (the
//! 28 KB llama.cpp capture alone took seconds); what a stream decoder can get wrong happens at
//! a few kinds of places, so the splits are windows around those, plus an even sample:
//! - each line boundary (`\n`, `\r`), where SSE events and fields end;
//! - the first `:` of each line, where an SSE field name ends;
//! - inside every multi-byte UTF-8 character, where a text decoder must wait for the rest;
//! - the first and last bytes, and every 29th byte in between.
//!
//! Feeding the capture one byte at a time (which the fixture tests also do) covers every
//! boundary in a single run, so together they prove what every offset proved.

use std::collections::BTreeSet;

/// Bytes either side of a boundary that a split is tried at.
const WINDOW: usize = 3;
/// Every offset of the first and last bytes is tried.
const EDGE: usize = 32;
/// An even sample between the boundaries.
const STRIDE: usize = 29;

pub(crate) fn split_points(bytes: &[u8]) -> Vec<usize> {
    let n = bytes.len();
    let mut points = BTreeSet::new();
    let mut around = |i: usize| {
        for p in i.saturating_sub(WINDOW)..=(i + WINDOW).min(n) {
            points.insert(p);
        }
    };
    let mut colon_seen = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'\n' | b'\r' => {
                around(i);
                around(i + 1);
                colon_seen = false;
            }
            b':' if !colon_seen => {
                around(i);
                colon_seen = true;
            }
            // A UTF-8 lead byte: split inside the character it starts.
            b if b >= 0xC0 => around(i + 1),
            _ => {}
        }
    }
    points.extend(0..=EDGE.min(n));
    points.extend(n.saturating_sub(EDGE)..=n);
    points.extend((0..=n).step_by(STRIDE));
    points.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::split_points;

    #[test]
    fn windows_cover_line_ends_field_names_and_multibyte_characters() {
        let mut bytes = b"data: {\"a\":1}\n\n".to_vec();
        bytes.extend(std::iter::repeat_n(b'x', 200));
        bytes.extend("é😊\n".as_bytes());
        bytes.extend(std::iter::repeat_n(b'y', 200));
        let points = split_points(&bytes);
        let n = bytes.len();
        assert!(points.contains(&0) && points.contains(&n), "both ends");
        assert!(points.contains(&4), "just before the field's colon");
        let e = bytes.iter().position(|&b| b == 0xC3).unwrap();
        assert!(points.contains(&(e + 1)), "inside é");
        let smile = e + 2;
        for k in 1..4 {
            assert!(points.contains(&(smile + k)), "inside 😊 at {k}");
        }
        assert!(
            points.len() < n / 2,
            "{} of {n} offsets: bounded",
            points.len()
        );
        assert!(points.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats");
    }
}
