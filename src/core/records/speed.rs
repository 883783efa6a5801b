//! How fast one answer came, stored with the message so its speed stays under it after the
//! stream ends and after a reload (issue 31: tok/s used to vanish with the last token).
//!
//! Counted as llama.cpp's server reports them in its `timings` (and as Skiff's model worker
//! does): the prompt tokens read for this answer, those reused from the server's cache, and
//! how long each part took. A server that times nothing gets the decode half from the page's
//! own clock (`measured`). Milliseconds are whole numbers: a rate needs no finer clock, and
//! whole numbers keep the stream's events comparable with `Eq`.

use serde::{Deserialize, Serialize};

use crate::format;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerSpeed {
    /// Prompt tokens read for this answer (not counting `cache_n`).
    #[serde(default)]
    pub prompt_n: u32,
    /// Prompt tokens the server reused from its cache of the conversation.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_n: u32,
    /// From the request reaching the model to the first token.
    #[serde(default)]
    pub prompt_ms: u32,
    /// Tokens generated.
    #[serde(default)]
    pub predicted_n: u32,
    /// From the first token to the last.
    #[serde(default)]
    pub predicted_ms: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn rate(n: u32, ms: u32) -> Option<f64> {
    (n > 0 && ms > 0).then(|| f64::from(n) * 1000.0 / f64::from(ms))
}

impl AnswerSpeed {
    /// Only the decode half, timed by the page: `tokens` arrived over `ms` after the first.
    pub fn measured(tokens: u32, ms: f64) -> Option<Self> {
        let ms = ms.round();
        (tokens > 1 && ms >= 1.0).then(|| AnswerSpeed {
            predicted_n: tokens,
            predicted_ms: ms.min(f64::from(u32::MAX)) as u32,
            ..AnswerSpeed::default()
        })
    }

    /// Tokens generated per second, when it can be said.
    pub fn decode_per_second(&self) -> Option<f64> {
        rate(self.predicted_n, self.predicted_ms)
    }

    /// Prompt tokens read per second (the reused ones cost nothing, so they are not counted).
    pub fn prompt_per_second(&self) -> Option<f64> {
        rate(self.prompt_n, self.prompt_ms)
    }

    /// The line under a finished answer: "11.8 tok/s · prompt 52.3 tok/s · 182 tokens reused
    /// · first token after 0.6 s". Parts the server did not time are left out; `None` when
    /// nothing is known.
    pub fn line(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(r) = self.decode_per_second() {
            parts.push(format!("{} tok/s", format::fixed(r, 1)));
        }
        if let Some(r) = self.prompt_per_second() {
            parts.push(format!("prompt {} tok/s", format::fixed(r, 1)));
        }
        if self.cache_n > 0 {
            parts.push(format!(
                "{} reused",
                format::count(self.cache_n as usize, "token", "tokens")
            ));
        }
        if self.prompt_n > 0 || self.cache_n > 0 {
            parts.push(format!(
                "first token after {} s",
                format::fixed(f64::from(self.prompt_ms) / 1000.0, 1)
            ));
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timed_answer_says_both_speeds_and_what_was_reused() {
        let s = AnswerSpeed {
            prompt_n: 17,
            cache_n: 182,
            prompt_ms: 600,
            predicted_n: 40,
            predicted_ms: 4000,
        };
        assert_eq!(
            s.line().as_deref(),
            Some("10.0 tok/s · prompt 28.3 tok/s · 182 tokens reused · first token after 0.6 s")
        );
    }

    #[test]
    fn a_page_timed_answer_says_only_its_decode_speed() {
        let s = AnswerSpeed::measured(30, 2000.4).expect("timed");
        assert_eq!(s.line().as_deref(), Some("15.0 tok/s"));
        assert_eq!(
            AnswerSpeed::measured(1, 2000.0),
            None,
            "one token has no rate"
        );
        assert_eq!(AnswerSpeed::measured(5, 0.2), None);
        assert_eq!(AnswerSpeed::default().line(), None);
    }

    #[test]
    fn stored_form_leaves_out_an_empty_cache_and_reads_missing_fields_as_zero() {
        let s = AnswerSpeed::measured(30, 2000.0).expect("timed");
        let json = serde_json::to_string(&s).expect("serialize");
        assert_eq!(
            json,
            r#"{"prompt_n":0,"prompt_ms":0,"predicted_n":30,"predicted_ms":2000}"#
        );
        let back: AnswerSpeed = serde_json::from_str(r#"{"predicted_n":3}"#).expect("read");
        assert_eq!(back.predicted_n, 3);
    }
}
