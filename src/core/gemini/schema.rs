//! MCP tools describe their arguments in JSON Schema; Gemini's `FunctionDeclaration.parameters`
//! takes only its `Schema` object, a subset of OpenAPI 3.0, and refuses the whole request
//! (HTTP 400) over one keyword it does not know. This module converts one into the other.
//!
//! What it keeps: `type` (upper-cased; a list of types becomes `nullable` and/or `anyOf`),
//! `format` where Gemini accepts the value, `title`, `description`, `nullable`, string `enum`s,
//! `properties`, `required`, `items`, `anyOf`, and the numeric and length bounds. Local
//! `$ref`s (`#/$defs/..`, `#/definitions/..`) are inlined; a string `const` becomes a
//! one-value `enum`, which means the same.
//!
//! What it must never do: change what the schema means without saying so. Everything left out
//! or rewritten is returned as a [`Dropped`] with a sentence for the log, saying whether it
//! only documented the schema or loosened it (so Gemini may now send arguments the tool
//! rejects, which the tool's own error then tells the model).

use std::fmt;

use serde_json::{Map, Value};

/// How deep `$ref`s are followed; a schema that refers to itself deeper is cut there (said).
const MAX_REF_DEPTH: usize = 8;

/// The schema Gemini receives and what did not survive the conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Converted {
    pub schema: Map<String, Value>,
    pub dropped: Vec<Dropped>,
}

/// One keyword that was left out or rewritten, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// JSON Pointer to the schema that held it (`""` is the top level).
    pub path: String,
    pub keyword: String,
    /// The value, compact, when it matters to the reader (a `const`, a non-string `enum`).
    pub value: Option<String>,
    pub effect: Effect,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// It only documented the schema (`$schema`, `default`, `examples`...).
    Annotation,
    /// It constrained the arguments; without it Gemini may send values the tool rejects.
    Loosened,
    /// `oneOf` sent as `anyOf`: Gemini may send a value that matches more than one choice.
    OneOfAsAnyOf,
}

impl Dropped {
    /// The log line for this keyword of `tool`'s schema.
    pub fn sentence(&self, tool: &str) -> String {
        format!("Tool \u{201c}{tool}\u{201d}: {self}")
    }
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = if self.path.is_empty() {
            "at the top level".to_string()
        } else {
            format!("at {}", self.path)
        };
        let what = match &self.value {
            Some(v) => format!("\u{201c}{}\u{201d} ({v})", self.keyword),
            None => format!("\u{201c}{}\u{201d}", self.keyword),
        };
        match self.effect {
            Effect::Annotation => write!(
                f,
                "left out {what} {place}, which Gemini does not accept; it only documented the schema."
            ),
            Effect::Loosened => write!(
                f,
                "left out {what} {place}, which Gemini does not accept; Gemini may now send arguments the tool rejects."
            ),
            Effect::OneOfAsAnyOf => write!(
                f,
                "sent {what} {place} as \u{201c}anyOf\u{201d}, which Gemini accepts; Gemini may send a value that matches more than one choice."
            ),
        }
    }
}

/// Keywords that only document a schema: leaving them out changes no valid value.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$comment",
    "default",
    "examples",
    "example",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
];

/// Kept as they are: Gemini's `Schema` has these with JSON Schema's meaning.
const KEPT: &[&str] = &[
    "title",
    "description",
    "nullable",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "pattern",
];

/// Convert an MCP tool's input schema (an object schema).
pub fn to_gemini(schema: &Map<String, Value>) -> Converted {
    let mut c = Converter {
        root: schema,
        dropped: Vec::new(),
        refs: Vec::new(),
    };
    let schema = c.node(schema, "");
    Converted {
        schema,
        dropped: c.dropped,
    }
}

struct Converter<'a> {
    root: &'a Map<String, Value>,
    dropped: Vec<Dropped>,
    /// `$ref`s being inlined, outermost first, to stop at recursion.
    refs: Vec<String>,
}

impl Converter<'_> {
    fn drop(&mut self, path: &str, keyword: &str, value: Option<&Value>, effect: Effect) {
        self.dropped.push(Dropped {
            path: path.to_string(),
            keyword: keyword.to_string(),
            value: value.map(|v| serde_json::to_string(v).unwrap_or_default()),
            effect,
        });
    }

    /// A sub-schema given as any JSON value (`true`, an object, or something invalid).
    fn value(&mut self, v: &Value, path: &str) -> Map<String, Value> {
        match v {
            Value::Object(m) => self.node(m, path),
            // `true` accepts anything, as does an empty schema.
            Value::Bool(true) => Map::new(),
            other => {
                self.drop(path, "schema", Some(other), Effect::Loosened);
                Map::new()
            }
        }
    }

    fn node(&mut self, m: &Map<String, Value>, path: &str) -> Map<String, Value> {
        if let Some(Value::String(r)) = m.get("$ref") {
            return self.reference(r, m, path);
        }
        let mut out = Map::new();
        let mut type_names: Vec<String> = Vec::new();
        if let Some(t) = m.get("type") {
            match t {
                Value::String(s) => type_names.push(s.clone()),
                Value::Array(list) => {
                    type_names.extend(list.iter().filter_map(Value::as_str).map(str::to_string))
                }
                other => self.drop(path, "type", Some(other), Effect::Loosened),
            }
        }
        // `["string", "null"]` is Gemini's `nullable`; several other types become `anyOf`.
        if type_names.iter().any(|t| t == "null") && type_names.len() > 1 {
            type_names.retain(|t| t != "null");
            out.insert("nullable".into(), Value::Bool(true));
        }
        match type_names.as_slice() {
            [] => {}
            [one] => {
                out.insert("type".into(), Value::String(one.to_ascii_uppercase()));
            }
            many => {
                let choices = many
                    .iter()
                    .map(|t| {
                        let mut c = Map::new();
                        c.insert("type".into(), Value::String(t.to_ascii_uppercase()));
                        Value::Object(c)
                    })
                    .collect();
                out.insert("anyOf".into(), Value::Array(choices));
            }
        }
        let single_type = match type_names.as_slice() {
            [one] => Some(one.as_str()),
            _ => None,
        };

        for (key, v) in m {
            let here = format!("{path}/{}", escape(key));
            match key.as_str() {
                "type" => {}
                "$defs" | "definitions" if path.is_empty() => {} // inlined where referred to
                k if KEPT.contains(&k) => {
                    out.insert(key.clone(), v.clone());
                }
                k if ANNOTATIONS.contains(&k) => self.drop(path, k, None, Effect::Annotation),
                "format" => match v.as_str() {
                    Some(f) if format_allowed(single_type, f) => {
                        out.insert(key.clone(), v.clone());
                    }
                    // JSON Schema validators treat `format` as an annotation by default.
                    _ => self.drop(path, "format", Some(v), Effect::Annotation),
                },
                "enum" => match v.as_array() {
                    Some(values) if values.iter().all(Value::is_string) => {
                        out.insert(key.clone(), v.clone());
                    }
                    _ => self.drop(path, "enum", Some(v), Effect::Loosened),
                },
                "const" => match v {
                    Value::String(_) => {
                        out.insert("enum".into(), Value::Array(vec![v.clone()]));
                    }
                    _ => self.drop(path, "const", Some(v), Effect::Loosened),
                },
                "properties" => match v.as_object() {
                    Some(props) => {
                        let mut converted = Map::new();
                        for (name, sub) in props {
                            let sub_path = format!("{here}/{}", escape(name));
                            converted
                                .insert(name.clone(), Value::Object(self.value(sub, &sub_path)));
                        }
                        out.insert(key.clone(), Value::Object(converted));
                    }
                    None => self.drop(path, key, Some(v), Effect::Loosened),
                },
                "required" => {
                    let props = m.get("properties").and_then(Value::as_object);
                    let names: Vec<Value> = v
                        .as_array()
                        .map(|a| a.iter().filter(|n| n.is_string()).cloned().collect())
                        .unwrap_or_default();
                    // Gemini refuses a required name that is not among the properties.
                    let (known, unknown): (Vec<Value>, Vec<Value>) =
                        names.into_iter().partition(|n| {
                            n.as_str()
                                .is_some_and(|n| props.is_some_and(|p| p.contains_key(n)))
                        });
                    if !unknown.is_empty() {
                        self.drop(
                            path,
                            "required",
                            Some(&Value::Array(unknown)),
                            Effect::Loosened,
                        );
                    }
                    if !known.is_empty() {
                        out.insert(key.clone(), Value::Array(known));
                    }
                }
                "items" => match v {
                    Value::Object(_) | Value::Bool(true) => {
                        out.insert(key.clone(), Value::Object(self.value(v, &here)));
                    }
                    // The old tuple form (a list of schemas) has no Gemini equivalent.
                    _ => self.drop(path, "items", Some(v), Effect::Loosened),
                },
                "anyOf" | "oneOf" => match v.as_array() {
                    Some(choices) => {
                        if key == "oneOf" {
                            self.drop(path, "oneOf", None, Effect::OneOfAsAnyOf);
                        }
                        let converted: Vec<Value> = choices
                            .iter()
                            .enumerate()
                            .map(|(i, c)| Value::Object(self.value(c, &format!("{here}/{i}"))))
                            .collect();
                        out.insert("anyOf".into(), Value::Array(converted));
                    }
                    None => self.drop(path, key, Some(v), Effect::Loosened),
                },
                // `true` is the default; `false` or a schema constrained the extra arguments.
                "additionalProperties" if v == &Value::Bool(true) => {}
                other => self.drop(path, other, None, Effect::Loosened),
            }
        }
        out
    }

    /// Inline a local `$ref`. Keywords beside it are ignored, as JSON Schema drafts before
    /// 2019-09 do, except a `description`, which is kept over the target's.
    fn reference(&mut self, r: &str, m: &Map<String, Value>, path: &str) -> Map<String, Value> {
        let target = r
            .strip_prefix("#/$defs/")
            .map(|name| ("$defs", name))
            .or_else(|| {
                r.strip_prefix("#/definitions/")
                    .map(|name| ("definitions", name))
            })
            .and_then(|(defs, name)| self.root.get(defs)?.get(unescape(name).as_str()));
        let reference = Value::String(r.to_string());
        let Some(target) = target.cloned() else {
            self.drop(path, "$ref", Some(&reference), Effect::Loosened);
            return Map::new();
        };
        if self.refs.iter().any(|seen| seen == r) || self.refs.len() >= MAX_REF_DEPTH {
            // A recursive schema has no finite inline form: cut here, and say so.
            self.drop(path, "$ref", Some(&reference), Effect::Loosened);
            return Map::new();
        }
        self.refs.push(r.to_string());
        let mut out = self.value(&target, path);
        self.refs.pop();
        if let Some(d) = m.get("description").filter(|d| d.is_string()) {
            out.insert("description".into(), d.clone());
        }
        out
    }
}

/// Gemini accepts only these `format`s (others fail the request): `enum` and `date-time` for
/// strings, `float`/`double` for numbers, `int32`/`int64` for integers.
fn format_allowed(single_type: Option<&str>, format: &str) -> bool {
    match single_type {
        Some("string") => matches!(format, "enum" | "date-time"),
        Some("number") => matches!(format, "float" | "double"),
        Some("integer") => matches!(format, "int32" | "int64"),
        _ => false,
    }
}

/// A property name as a JSON Pointer token.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
