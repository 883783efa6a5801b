//! What the view-models of Skiff's forms are made of: a field's text with the sentence that
//! says what is wrong with it, and one choice of a list. Core builds these (the masks and
//! projects panels, Settings → Storage, the MCP server form) and the page's form-field
//! components (`ui::fields`) lay them out.
//!
//! Plain data: never markup, never an element or an event. Which fields a form has, what
//! they hold and which sentence each shows are decided by the feature that builds them and
//! tested there natively.

use crate::format::decimal;
use crate::number::parse_finite;

/// One field as shown: the text in it and, when it cannot be used as typed, why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    pub value: String,
    pub error: Option<String>,
}

impl Field {
    pub fn new(value: impl Into<String>, error: Option<String>) -> Field {
        Field {
            value: value.into(),
            error,
        }
    }
}

/// One entry of a `<select>`: the value it stands for and the words shown for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

impl Choice {
    pub fn new(value: impl Into<String>, label: impl Into<String>) -> Choice {
        Choice {
            value: value.into(),
            label: label.into(),
        }
    }
}

/// A number setting as typed, where empty means "the default": `Ok(None)` when empty,
/// `Ok(Some(v))` for a number from `min` to `max` (a whole one when `integer`), else the
/// sentence shown beside the field. Nothing the sentence refuses is ever saved.
pub fn setting_number(
    label: &str,
    typed: &str,
    (min, max, integer): (f64, f64, bool),
) -> Result<Option<f64>, String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Ok(None);
    }
    match parse_finite(typed) {
        Some(v) if (min..=max).contains(&v) && (!integer || v.fract() == 0.0) => Ok(Some(v)),
        _ => Err(format!(
            "{label} must be {} from {} to {}; not saved.",
            if integer {
                "a whole number"
            } else {
                "a number"
            },
            decimal(min),
            decimal(max)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_setting_is_empty_a_number_in_range_or_a_sentence() {
        let temp = (0.0, 2.0, false);
        assert_eq!(setting_number("Temperature", "  ", temp), Ok(None));
        assert_eq!(setting_number("Temperature", " 0.7 ", temp), Ok(Some(0.7)));
        assert_eq!(
            setting_number("Temperature", "2.5", temp),
            Err("Temperature must be a number from 0 to 2; not saved.".into())
        );
        assert!(setting_number("Temperature", "hot", temp).is_err());
        let tokens = (1.0, 1_000_000.0, true);
        assert_eq!(setting_number("Max tokens", "512", tokens), Ok(Some(512.0)));
        assert_eq!(
            setting_number("Max tokens", "1.5", tokens),
            Err("Max tokens must be a whole number from 1 to 1000000; not saved.".into())
        );
        assert!(setting_number("Max tokens", "NaN", tokens).is_err());
    }
}
