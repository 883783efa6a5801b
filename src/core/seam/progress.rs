//! What a local server says while the answer has not begun: loading the model into memory,
//! then reading the prompt. llama.cpp's server streams the second as `prompt_progress` chunks
//! (with `return_progress`), Skiff's model worker streams both; the chat shows them in the
//! waiting answer instead of a bare "Waiting for the model…" for a minute (issue 31).

use crate::format;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// `loaded` of `total` bytes of the model file are in memory.
    Loading { loaded: u64, total: u64 },
    /// `processed` of `total` prompt tokens are in the model's cache, `cache` of them reused
    /// from the previous request, after `time_ms` of reading.
    Prompt {
        processed: u32,
        total: u32,
        cache: u32,
        time_ms: u32,
    },
}

impl Progress {
    /// The waiting answer's line: "Loading the model… 42 %", "Reading the prompt… 128 of 500
    /// tokens, about 9 s left".
    pub fn line(&self) -> String {
        match *self {
            Progress::Loading { loaded, total } => {
                let percent = if total == 0 {
                    0
                } else {
                    (u128::from(loaded.min(total)) * 100 / u128::from(total)) as u64
                };
                format!("Loading the model… {percent} %")
            }
            Progress::Prompt {
                processed,
                total,
                cache,
                time_ms,
            } => {
                let processed = processed.min(total);
                let mut line = format!("Reading the prompt… {processed} of {total} tokens");
                if let Some(s) = self.seconds_left() {
                    line.push_str(&format!(", about {s} s left"));
                } else if cache > 0 && processed == cache && time_ms == 0 {
                    line.push_str(&format!(
                        ", {} reused",
                        format::count(cache as usize, "token", "tokens")
                    ));
                }
                line
            }
        }
    }

    /// Seconds until the prompt is read, from the pace so far (the reused tokens took no
    /// time, so they do not count); `None` before any token was read or once all are.
    pub fn seconds_left(&self) -> Option<u64> {
        let Progress::Prompt {
            processed,
            total,
            cache,
            time_ms,
        } = *self
        else {
            return None;
        };
        let read = processed.saturating_sub(cache);
        let left = total.saturating_sub(processed);
        if read == 0 || left == 0 || time_ms == 0 {
            return None;
        }
        let ms = f64::from(left) * f64::from(time_ms) / f64::from(read);
        Some((ms / 1000.0).ceil().max(1.0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loading_says_its_percentage() {
        let p = Progress::Loading {
            loaded: 42,
            total: 100,
        };
        assert_eq!(p.line(), "Loading the model… 42 %");
        let odd = Progress::Loading {
            loaded: 7,
            total: 0,
        };
        assert_eq!(odd.line(), "Loading the model… 0 %");
    }

    #[test]
    fn reading_says_tokens_and_time_left_from_the_pace_of_the_read_ones() {
        // 128 read (28 reused) in 2 s: 100 tokens took 2 s, 372 are left: 7.44 s → 8.
        let p = Progress::Prompt {
            processed: 128,
            total: 500,
            cache: 28,
            time_ms: 2000,
        };
        assert_eq!(
            p.line(),
            "Reading the prompt… 128 of 500 tokens, about 8 s left"
        );
        let start = Progress::Prompt {
            processed: 182,
            total: 199,
            cache: 182,
            time_ms: 0,
        };
        assert_eq!(
            start.line(),
            "Reading the prompt… 182 of 199 tokens, 182 tokens reused"
        );
        let done = Progress::Prompt {
            processed: 500,
            total: 500,
            cache: 0,
            time_ms: 9000,
        };
        assert_eq!(done.line(), "Reading the prompt… 500 of 500 tokens");
    }
}
