//! The composer's context gauge: how full the next request will be, in words.
//!
//! Computed from a [`Plan`] of the conversation as it stands (with an empty question in the
//! place of the draft) plus the draft's own estimate, so typing costs one addition, not a new
//! plan per keystroke.

use super::context::Plan;
use super::tokens;

/// How close to the window the next request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Fine,
    /// Over 80 %: older messages are about to be left out, or already are.
    Near,
    /// Over the budget even with everything optional left out: the server may refuse.
    Over,
}

impl Level {
    /// The gauge's `data-level` in the page.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Fine => "fine",
            Level::Near => "near",
            Level::Over => "over",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gauge {
    pub used: u32,
    pub budget: u32,
    pub percent: u32,
    pub level: Level,
    /// Older messages the next request leaves out (budget or count).
    pub left_out: usize,
    /// Messages before the clear-context mark.
    pub cleared: usize,
}

/// The gauge for `plan` (planned with an empty question standing in for the draft) once the
/// draft's text is added.
pub fn gauge(plan: &Plan, draft: &str) -> Gauge {
    let used = plan.total_tokens().saturating_add(tokens::estimate(draft));
    let percent = if plan.budget == 0 {
        100
    } else {
        ((u64::from(used) * 100).div_ceil(u64::from(plan.budget))).min(u64::from(u32::MAX)) as u32
    };
    let level = if used > plan.budget {
        Level::Over
    } else if percent > 80 {
        Level::Near
    } else {
        Level::Fine
    };
    Gauge {
        used,
        budget: plan.budget,
        percent,
        level,
        left_out: plan.dropped,
        cleared: plan.cleared,
    }
}

impl Gauge {
    /// "≈2.1k of 14k tokens (15 %)", then what is left out.
    pub fn text(&self) -> String {
        let mut s = format!(
            "≈{} of {} tokens ({} %)",
            compact(self.used),
            compact(self.budget),
            self.percent
        );
        if self.left_out > 0 {
            s.push_str(&format!(
                " · {} older {} not sent",
                self.left_out,
                if self.left_out == 1 {
                    "message"
                } else {
                    "messages"
                }
            ));
        }
        if self.level == Level::Over {
            s.push_str(" · may not fit the model's context window");
        }
        s
    }
}

/// 950, 2.1k, 14k, 1.2M: a token count short enough for the gauge.
pub fn compact(n: u32) -> String {
    // Integer arithmetic throughout: truncating, as the gauge always did (9,999 is "9.9k").
    if n < 1000 {
        n.to_string()
    } else if n < 10_000 {
        format!("{}.{}k", n / 1000, n / 100 % 10)
    } else if n < 1_000_000 {
        format!("{}k", n / 1000)
    } else {
        format!("{}.{}M", n / 1_000_000, n / 100_000 % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(fixed: u32, messages: u32, budget: u32, dropped: usize) -> Plan {
        Plan {
            first: 0,
            cleared: 0,
            dropped,
            fixed_tokens: fixed,
            message_tokens: messages,
            budget,
        }
    }

    #[test]
    fn levels_and_words() {
        let g = gauge(&plan(100, 1000, 14_336, 0), "");
        assert_eq!((g.used, g.percent, g.level), (1100, 8, Level::Fine));
        assert_eq!(g.text(), "≈1.1k of 14k tokens (8 %)");
        // The draft counts: 4000 ASCII characters ≈ 1000 tokens.
        let g = gauge(&plan(100, 10_500, 14_336, 3), &"a".repeat(4000));
        assert_eq!(g.level, Level::Near);
        assert_eq!(
            g.text(),
            "≈11k of 14k tokens (81 %) · 3 older messages not sent"
        );
        let g = gauge(&plan(100, 14_300, 14_336, 1), "x");
        assert_eq!(g.level, Level::Over);
        assert!(g
            .text()
            .ends_with("· 1 older message not sent · may not fit the model's context window"));
    }

    #[test]
    fn compact_counts() {
        assert_eq!(compact(0), "0");
        assert_eq!(compact(999), "999");
        assert_eq!(compact(1000), "1.0k");
        assert_eq!(compact(2_199), "2.1k");
        assert_eq!(compact(14_336), "14k");
        assert_eq!(compact(1_250_000), "1.2M");
    }
}
