//! The system and input templates (NextChat's convention): `{{input}}`, `{{model}}`,
//! `{{ServiceProvider}}`, `{{cutoff}}`, `{{time}}` and `{{lang}}` are filled from plain values.
//!
//! The time arrives as numbers (epoch ms, the user's UTC offset and zone name) because core
//! has no clock; [`local_time_text`] turns them into the words the model reads.

use crate::calendar::{civil_time, month_name};
pub use crate::settings::{DEFAULT_INPUT_TEMPLATE, DEFAULT_SYSTEM_TEMPLATE};

const INPUT_VAR: &str = "{{input}}";

/// The values a template is filled with. Any may be empty.
#[derive(Debug, Clone, Copy, Default)]
pub struct TemplateValues<'a> {
    pub input: &'a str,
    pub model: &'a str,
    /// The provider's name as the user knows it ("OpenAI-compatible", "Anthropic", ...).
    pub provider: &'a str,
    pub cutoff: &'a str,
    /// Already in words (see [`local_time_text`]).
    pub time: &'a str,
    /// A BCP 47 tag from the browser, e.g. `en-GB`.
    pub lang: &'a str,
}

/// Fills every known placeholder; unknown `{{…}}` text is left as written (a template may
/// legitimately talk about braces).
pub fn fill(template: &str, v: &TemplateValues<'_>) -> String {
    let model = if v.model.trim().is_empty() {
        "the server's default model"
    } else {
        v.model
    };
    let mut out = String::with_capacity(template.len() + v.input.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &after[..end];
        let value = match name {
            "input" => Some(v.input),
            "model" => Some(model),
            "ServiceProvider" => Some(v.provider),
            "cutoff" => Some(v.cutoff),
            "time" => Some(v.time),
            "lang" => Some(v.lang),
            _ => None,
        };
        match value {
            Some(value) => out.push_str(value),
            None => out.push_str(&rest[start..start + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A user message as the model receives it: the input template filled with its words. A
/// template that forgot `{{input}}` still carries them, on a line of their own after it (as
/// NextChat does), so no setting can make Skiff drop what the user typed.
pub fn fill_input(template: &str, v: &TemplateValues<'_>) -> String {
    if template.trim().is_empty() || template == INPUT_VAR {
        return v.input.to_string();
    }
    let filled = fill(template, v);
    if template.contains(INPUT_VAR) {
        filled
    } else {
        format!("{filled}\n{}", v.input)
    }
}

/// A known model family's training cutoff, or "unknown". The table holds only what the
/// providers publish; an unlisted model is not guessed at.
pub fn knowledge_cutoff(model: &str) -> &'static str {
    const TABLE: &[(&str, &str)] = &[
        ("gpt-4o", "2023-10"),
        ("gpt-4.1", "2024-06"),
        ("gpt-4-turbo", "2023-12"),
        ("gpt-4", "2021-09"),
        ("gpt-3.5", "2021-09"),
        ("o1", "2023-10"),
        ("o3", "2024-06"),
        ("o4-mini", "2024-06"),
        ("claude-3-5", "2024-04"),
        ("claude-3-7", "2024-10"),
        ("claude-sonnet-4", "2025-03"),
        ("claude-opus-4", "2025-03"),
        ("claude-3", "2023-08"),
        ("gemini-2.5", "2025-01"),
        ("gemini-2.0", "2024-08"),
        ("gemini-1.5", "2023-11"),
    ];
    let m = model.trim().to_ascii_lowercase();
    // The model id may carry a vendor prefix (`openai/gpt-4o` on OpenRouter).
    let m = m.rsplit('/').next().unwrap_or("");
    TABLE
        .iter()
        .find(|(prefix, _)| m.starts_with(prefix))
        .map_or("unknown", |(_, cutoff)| cutoff)
}

/// "Tuesday, 24 November 2026, 09:05 (UTC+01:00, Europe/Berlin)": the local date and time at
/// `now_ms` (Unix epoch, UTC) for a user `offset_minutes` east of UTC, with the zone's name
/// when the browser gave one.
pub fn local_time_text(now_ms: f64, offset_minutes: i32, zone: &str) -> String {
    let t = civil_time(now_ms, offset_minutes);
    let sign = if t.offset_minutes < 0 { '-' } else { '+' };
    let off = t.offset_minutes.unsigned_abs();
    let zone = zone.trim();
    let zone = if zone.is_empty() {
        String::new()
    } else {
        format!(", {zone}")
    };
    format!(
        "{}, {} {} {}, {:02}:{:02} (UTC{sign}{:02}:{:02}{zone})",
        t.weekday.name(),
        t.day,
        month_name(t.month),
        t.year,
        t.hour,
        t.minute,
        off / 60,
        off % 60
    )
}
