//! A stored model's sampling defaults (used when a chat does not set them): which there are,
//! their names and ranges, and reading what a person typed into one.

use serde::{Deserialize, Serialize};

use super::failure::Refusal;
use super::wire::StoredModel;
use crate::format::fixed;
use crate::number::parse_finite;

/// One sampling default the panel offers per model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    TopK,
    RepeatPenalty,
    Seed,
}

crate::names::named_enum!(Sampling, "sampling setting", {
    TopK => "top_k",
    RepeatPenalty => "repeat_penalty",
    Seed => "seed",
});

/// A checked sampling default; `None` is "the engine's default".
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "setting", content = "value", rename_all = "snake_case")]
pub enum SamplingValue {
    TopK(Option<u64>),
    RepeatPenalty(Option<f64>),
    Seed(Option<u64>),
}

impl Sampling {
    /// The field's label.
    pub fn label(self) -> &'static str {
        match self {
            Sampling::TopK => "Top k",
            Sampling::RepeatPenalty => "Repeat penalty",
            Sampling::Seed => "Seed",
        }
    }

    pub(crate) fn is_whole(self) -> bool {
        !matches!(self, Sampling::RepeatPenalty)
    }

    fn range(self) -> (f64, f64) {
        match self {
            Sampling::TopK => (1.0, 1000.0),
            Sampling::RepeatPenalty => (1.0, 2.0),
            Sampling::Seed => (0.0, 4_294_967_295.0),
        }
    }

    /// The range as the sentence spells it (written out: no float printing in the page).
    pub(crate) fn range_text(self) -> (&'static str, &'static str) {
        match self {
            Sampling::TopK => ("1", "1000"),
            Sampling::RepeatPenalty => ("1", "2"),
            Sampling::Seed => ("0", "4294967295"),
        }
    }

    /// What was typed, checked: empty is the default; anything outside the range, or not
    /// whole where it must be, is refused with the sentence that says so.
    pub fn parse(self, text: &str) -> Result<SamplingValue, Refusal> {
        let text = text.trim();
        let number = if text.is_empty() {
            None
        } else {
            let (min, max) = self.range();
            let n = parse_finite(text)
                .filter(|n| *n >= min && *n <= max && (!self.is_whole() || n.fract() == 0.0))
                .ok_or(Refusal::OutOfRange { setting: self })?;
            Some(n)
        };
        Ok(match self {
            Sampling::TopK => SamplingValue::TopK(number.map(|n| n as u64)),
            Sampling::RepeatPenalty => SamplingValue::RepeatPenalty(number),
            Sampling::Seed => SamplingValue::Seed(number.map(|n| n as u64)),
        })
    }

    /// The model's value as its field shows it (empty: the default).
    pub fn shown(self, m: &StoredModel) -> String {
        match self {
            Sampling::TopK => m.top_k.map(|v| v.to_string()),
            Sampling::RepeatPenalty => m.repeat_penalty.map(|v| fixed(v, 2)),
            Sampling::Seed => m.seed.map(|v| v.to_string()),
        }
        .unwrap_or_default()
    }
}
