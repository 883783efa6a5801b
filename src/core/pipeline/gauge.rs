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
    /// Tokens of the tool definitions every request carries, and their share of the budget.
    pub tools: u32,
    pub tools_percent: u32,
    /// The tools take more than [`TOOLS_WARN_PERCENT`] of the budget, and discovery is off.
    pub tools_warning: bool,
}

/// Above this share of the window, the tools' definitions crowd out the conversation: the
/// gauge says so and suggests loading tools on demand (`tools::discovery`).
pub const TOOLS_WARN_PERCENT: u32 = 25;

/// The gauge for `plan` (planned with an empty question standing in for the draft) once the
/// draft's text is added. `discovery`: the conversation already loads tools on demand (no
/// warning then: it is the remedy).
pub fn gauge(plan: &Plan, draft: &str, discovery: bool) -> Gauge {
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
    let tools_percent = share(plan.tool_tokens, plan.budget);
    Gauge {
        used,
        budget: plan.budget,
        percent,
        level,
        left_out: plan.dropped,
        cleared: plan.cleared,
        tools: plan.tool_tokens,
        tools_percent,
        tools_warning: !discovery && tools_percent > TOOLS_WARN_PERCENT,
    }
}

fn share(part: u32, budget: u32) -> u32 {
    if budget == 0 {
        return 100;
    }
    ((u64::from(part) * 100).div_ceil(u64::from(budget))).min(u64::from(u32::MAX)) as u32
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
        if self.tools > 0 {
            s.push_str(&format!(
                " · tools ≈{} ({} %)",
                compact(self.tools),
                self.tools_percent
            ));
        }
        if self.level == Level::Over {
            s.push_str(" · may not fit the model's context window");
        }
        s
    }

    /// The warning shown when the tools take too much of the window, with its remedy.
    pub fn tools_warning_text(&self) -> Option<String> {
        self.tools_warning.then(|| {
            format!(
                "The tools' definitions take {} % of the context window on every request. Turn on \"Load tools on demand\" in Tools: the model then gets a short list and loads the schemas it needs.",
                self.tools_percent
            )
        })
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
            tool_tokens: 0,
            message_tokens: messages,
            budget,
        }
    }

    #[test]
    fn the_tools_share_shows_and_warns_above_the_threshold_unless_discovery_is_on() {
        let mut p = plan(5_000, 1_000, 14_336, 0);
        p.tool_tokens = 4_000;
        let g = gauge(&p, "", false);
        assert_eq!(
            (g.tools, g.tools_percent, g.tools_warning),
            (4_000, 28, true)
        );
        assert!(g.text().ends_with("· tools ≈4.0k (28 %)"), "{}", g.text());
        assert!(g.tools_warning_text().unwrap().contains("28 %"));
        assert!(
            !gauge(&p, "", true).tools_warning,
            "discovery is the remedy"
        );
        p.tool_tokens = 3_000;
        assert!(!gauge(&p, "", false).tools_warning, "21 % is fine");
        assert!(!gauge(&plan(100, 1000, 14_336, 0), "", false)
            .text()
            .contains("tools"));
    }

    #[test]
    fn levels_and_words() {
        let g = gauge(&plan(100, 1000, 14_336, 0), "", false);
        assert_eq!((g.used, g.percent, g.level), (1100, 8, Level::Fine));
        assert_eq!(g.text(), "≈1.1k of 14k tokens (8 %)");
        // The draft counts: 4000 ASCII characters ≈ 1000 tokens.
        let g = gauge(&plan(100, 10_500, 14_336, 3), &"a".repeat(4000), false);
        assert_eq!(g.level, Level::Near);
        assert_eq!(
            g.text(),
            "≈11k of 14k tokens (81 %) · 3 older messages not sent"
        );
        let g = gauge(&plan(100, 14_300, 14_336, 1), "x", false);
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
