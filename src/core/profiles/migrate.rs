//! Settings format 1 → 2: the one provider that format 1 held in flat fields (`provider`,
//! `base_url`, `api_key`, `model`, `temperature`, `top_p`, `max_tokens`) becomes the first
//! provider profile. Its kind is kept as stored (format 1 could already say Anthropic or
//! Gemini); its name is the address's host. Every other field is left exactly as it was.
//!
//! Works on the JSON value before it is typed, so nothing a newer field of format 1 held is
//! dropped by a typed round trip.

use serde_json::{Map, Value};

use super::name_from_url;
use crate::provider::ProviderKind;

/// The id the migrated profile gets (core invents no random ids; one profile needs none).
pub const MIGRATED_PROFILE_ID: &str = "migrated";

const FLAT: [&str; 7] = [
    "provider",
    "base_url",
    "api_key",
    "model",
    "temperature",
    "top_p",
    "max_tokens",
];

/// Turn a format-1 settings object into format 2. A value with no provider configured
/// (every flat field empty or absent) gets no profile; one that already has `profiles` only
/// loses the flat fields it should not have.
pub fn settings_v1_to_v2(mut data: Value) -> Value {
    let Value::Object(map) = &mut data else {
        return data;
    };
    let mut flat = Map::new();
    for key in FLAT {
        if let Some(v) = map.remove(key) {
            flat.insert(key.to_string(), v);
        }
    }
    if map.contains_key("profiles") {
        return data;
    }
    let text = |k: &str| {
        flat.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let (base_url, api_key, model) = (text("base_url"), text("api_key"), text("model"));
    let set = |k: &str| flat.get(k).is_some_and(|v| !v.is_null());
    let configured = [&base_url, &api_key, &model]
        .iter()
        .any(|s| !s.trim().is_empty())
        || ["temperature", "top_p", "max_tokens"]
            .iter()
            .any(|k| set(k));
    let mut profiles = Vec::new();
    if configured {
        let kind = flat
            .get("provider")
            .cloned()
            .unwrap_or_else(|| Value::String(ProviderKind::OpenAiCompatible.as_str().into()));
        let kind_label = crate::persist::typed::<ProviderKind>(kind.clone())
            .map(|k| k.label())
            .unwrap_or("Provider");
        let name = name_from_url(&base_url).unwrap_or_else(|| kind_label.to_string());
        let num = |k: &str| flat.get(k).cloned().unwrap_or(Value::Null);
        let mut p = Map::new();
        p.insert("id".into(), MIGRATED_PROFILE_ID.into());
        p.insert("name".into(), name.into());
        p.insert("kind".into(), kind);
        p.insert("base_url".into(), base_url.into());
        p.insert("api_key".into(), api_key.into());
        p.insert("default_model".into(), model.into());
        p.insert("temperature".into(), num("temperature"));
        p.insert("top_p".into(), num("top_p"));
        p.insert("max_tokens".into(), num("max_tokens"));
        profiles.push(Value::Object(p));
    }
    map.insert("profiles".into(), Value::Array(profiles));
    data
}
