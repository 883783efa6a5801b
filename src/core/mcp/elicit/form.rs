//! The form mode's schema → form model: the restricted JSON Schema subset the spec allows
//! (a flat object of primitive properties), required fields, defaults, and validation.

use serde_json::{Map, Value};

/// One selectable value with what the user sees.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: String,
    pub label: String,
}

/// The string formats the spec names; others are treated as plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextFormat {
    Plain,
    Email,
    Uri,
    Date,
    DateTime,
}

impl TextFormat {
    /// The `<input type>` that fits.
    pub fn input_type(self) -> &'static str {
        match self {
            TextFormat::Plain | TextFormat::Uri | TextFormat::DateTime => "text",
            TextFormat::Email => "email",
            TextFormat::Date => "date",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text {
        format: TextFormat,
        min_len: Option<usize>,
        max_len: Option<usize>,
    },
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// One of these (`enum`, titled `oneOf`/`anyOf` of `const`, legacy `enumNames`).
    Single(Vec<Choice>),
    /// Any number of these (an array of enum strings), within the bounds.
    Multi {
        choices: Vec<Choice>,
        min_items: Option<usize>,
        max_items: Option<usize>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name (the key in `content`).
    pub name: String,
    /// What the label says: the schema's `title`, else the name.
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    pub kind: FieldKind,
    /// The schema's default, as the input starts.
    pub default: Option<FieldInput>,
}

/// What the user has entered in one field, as the UI holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldInput {
    /// Text, number and single-choice inputs (a `<select>`'s value; empty for none).
    Text(String),
    Bool(bool),
    Many(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct FormModel {
    pub fields: Vec<Field>,
}

impl FormModel {
    /// Build the form from `requestedSchema`; a property outside the allowed subset is an
    /// error naming it (the whole request is then refused: a half form would answer wrongly).
    pub fn from_schema(schema: &Value) -> Result<FormModel, String> {
        let Some(obj) = schema.as_object() else {
            return Err("the requested schema is not an object".into());
        };
        if let Some(t) = obj.get("type").and_then(Value::as_str) {
            if t != "object" {
                return Err(format!("the requested schema has type `{t}`, not `object`"));
            }
        }
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        if let Some(props) = obj.get("properties") {
            let Some(props) = props.as_object() else {
                return Err("the requested schema's `properties` is not an object".into());
            };
            for (name, prop) in props {
                let field = field(name, prop, required.contains(&name.as_str()))
                    .map_err(|why| format!("the field `{name}` {why}"))?;
                fields.push(field);
            }
        }
        Ok(FormModel { fields })
    }

    /// Put the fields in `order` (the server's own order, see `property_order`); fields it
    /// does not name keep their place after those it does.
    pub fn ordered(mut self, order: &[String]) -> FormModel {
        crate::order::sort_by_key(&mut self.fields, |f| {
            order
                .iter()
                .position(|n| *n == f.name)
                .unwrap_or(usize::MAX)
        });
        self
    }

    /// What each input starts with: its default, else empty (unchecked, nothing chosen).
    pub fn initial_inputs(&self) -> Vec<FieldInput> {
        self.fields
            .iter()
            .map(|f| {
                f.default.clone().unwrap_or(match f.kind {
                    FieldKind::Boolean => FieldInput::Bool(false),
                    FieldKind::Multi { .. } => FieldInput::Many(Vec::new()),
                    _ => FieldInput::Text(String::new()),
                })
            })
            .collect()
    }

    /// Check `inputs` (in field order) and build `content`, or say per field what is wrong
    /// (`(field index, sentence)`). An empty optional field is left out of `content`; a
    /// boolean always has a value (a checkbox cannot be "not answered").
    pub fn validate(
        &self,
        inputs: &[FieldInput],
    ) -> Result<Map<String, Value>, Vec<(usize, String)>> {
        let mut content = Map::new();
        let mut errors = Vec::new();
        for (i, field) in self.fields.iter().enumerate() {
            let input = inputs.get(i);
            match value_of(field, input) {
                Ok(Some(v)) => {
                    content.insert(field.name.clone(), v);
                }
                Ok(None) if field.required => {
                    errors.push((i, format!("{} is required.", field.label)))
                }
                Ok(None) => {}
                Err(why) => errors.push((i, why)),
            }
        }
        if errors.is_empty() {
            Ok(content)
        } else {
            Err(errors)
        }
    }
}

fn field(name: &str, prop: &Value, required: bool) -> Result<Field, String> {
    let Some(p) = prop.as_object() else {
        return Err("is not described by an object".into());
    };
    let label = p
        .get("title")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(name)
        .to_string();
    let description = p
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_string)
        .filter(|d| !d.trim().is_empty());
    let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
    let usize_of = |k: &str| p.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let kind = match ty {
        "string" => match choices(p) {
            Some(c) => FieldKind::Single(c),
            None => FieldKind::Text {
                format: match p.get("format").and_then(Value::as_str) {
                    Some("email") => TextFormat::Email,
                    Some("uri") => TextFormat::Uri,
                    Some("date") => TextFormat::Date,
                    Some("date-time") => TextFormat::DateTime,
                    _ => TextFormat::Plain,
                },
                min_len: usize_of("minLength"),
                max_len: usize_of("maxLength"),
            },
        },
        "number" | "integer" => FieldKind::Number {
            integer: ty == "integer",
            min: p.get("minimum").and_then(Value::as_f64),
            max: p.get("maximum").and_then(Value::as_f64),
        },
        "boolean" => FieldKind::Boolean,
        "array" => {
            let items = p.get("items").and_then(Value::as_object);
            let Some(c) = items.and_then(choices) else {
                return Err("is an array whose items are not a list of choices".into());
            };
            FieldKind::Multi {
                choices: c,
                min_items: usize_of("minItems"),
                max_items: usize_of("maxItems"),
            }
        }
        "" => return Err("has no type".into()),
        other => return Err(format!("has the type `{other}`, which a form cannot ask")),
    };
    let default = p.get("default").and_then(|d| default_input(&kind, d));
    Ok(Field {
        name: name.to_string(),
        label,
        description,
        required,
        kind,
        default,
    })
}

/// The choices of an enum-like schema: `enum` (with legacy `enumNames` labels), or titled
/// `oneOf`/`anyOf` entries of `{const, title}`.
fn choices(p: &Map<String, Value>) -> Option<Vec<Choice>> {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let names = p.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let value = v.as_str()?.to_string();
                    let label = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| value.clone());
                    Some(Choice { value, label })
                })
                .collect(),
        );
    }
    let titled = p
        .get("oneOf")
        .or_else(|| p.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        titled
            .iter()
            .filter_map(|c| {
                let value = c.get("const")?.as_str()?.to_string();
                let label = c
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| value.clone());
                Some(Choice { value, label })
            })
            .collect(),
    )
}

/// A default the field can show; one that does not fit (a string for a number, a value not
/// among the choices) is ignored rather than shown wrong.
fn default_input(kind: &FieldKind, d: &Value) -> Option<FieldInput> {
    match kind {
        FieldKind::Text { .. } => d.as_str().map(|s| FieldInput::Text(s.to_string())),
        FieldKind::Number { .. } => d.as_f64().map(|_| FieldInput::Text(d.to_string())),
        FieldKind::Boolean => d.as_bool().map(FieldInput::Bool),
        FieldKind::Single(c) => d
            .as_str()
            .filter(|s| c.iter().any(|c| c.value == *s))
            .map(|s| FieldInput::Text(s.to_string())),
        FieldKind::Multi { choices, .. } => d.as_array().map(|a| {
            FieldInput::Many(
                a.iter()
                    .filter_map(Value::as_str)
                    .filter(|s| choices.iter().any(|c| c.value == *s))
                    .map(str::to_string)
                    .collect(),
            )
        }),
    }
}

/// The JSON value of one input: `Ok(None)` when it is empty.
fn value_of(field: &Field, input: Option<&FieldInput>) -> Result<Option<Value>, String> {
    let label = &field.label;
    match (&field.kind, input) {
        (FieldKind::Boolean, Some(FieldInput::Bool(b))) => Ok(Some(Value::Bool(*b))),
        (FieldKind::Boolean, _) => Ok(Some(Value::Bool(false))),
        (
            FieldKind::Multi {
                choices,
                min_items,
                max_items,
            },
            input,
        ) => {
            let picked = match input {
                Some(FieldInput::Many(v)) => v.clone(),
                _ => Vec::new(),
            };
            if picked.is_empty() && !field.required && min_items.unwrap_or(0) == 0 {
                return Ok(None);
            }
            if let Some(bad) = picked
                .iter()
                .find(|p| !choices.iter().any(|c| c.value == **p))
            {
                return Err(format!("{label}: “{bad}” is not one of the choices."));
            }
            if let Some(min) = min_items.filter(|m| picked.len() < *m) {
                return Err(format!("{label}: choose at least {min}."));
            }
            if let Some(max) = max_items.filter(|m| picked.len() > *m) {
                return Err(format!("{label}: choose at most {max}."));
            }
            if picked.is_empty() {
                return Ok(None);
            }
            Ok(Some(Value::Array(
                picked.into_iter().map(Value::String).collect(),
            )))
        }
        (kind, input) => {
            let text = match input {
                Some(FieldInput::Text(t)) => t.clone(),
                _ => String::new(),
            };
            if text.trim().is_empty() {
                return Ok(None);
            }
            match kind {
                FieldKind::Text {
                    format,
                    min_len,
                    max_len,
                } => {
                    let n = text.chars().count();
                    if let Some(min) = min_len.filter(|m| n < *m) {
                        return Err(format!("{label} must be at least {min} characters long."));
                    }
                    if let Some(max) = max_len.filter(|m| n > *m) {
                        return Err(format!("{label} must be at most {max} characters long."));
                    }
                    check_format(label, *format, text.trim())?;
                    Ok(Some(Value::String(text)))
                }
                FieldKind::Number { integer, min, max } => {
                    let t = text.trim();
                    let n = crate::number::parse_finite(t)
                        .ok_or_else(|| format!("{label} must be a number."))?;
                    if *integer && n.fract() != 0.0 {
                        return Err(format!("{label} must be a whole number."));
                    }
                    if let Some(min) = min.filter(|m| n < *m) {
                        let min = crate::format::decimal(min);
                        return Err(format!("{label} must be at least {min}."));
                    }
                    if let Some(max) = max.filter(|m| n > *m) {
                        let max = crate::format::decimal(max);
                        return Err(format!("{label} must be at most {max}."));
                    }
                    let v = if *integer {
                        Value::from(n as i64)
                    } else {
                        serde_json::Number::from_f64(n)
                            .map(Value::Number)
                            .unwrap_or(Value::Null)
                    };
                    Ok(Some(v))
                }
                FieldKind::Single(choices) => {
                    if !choices.iter().any(|c| c.value == text) {
                        return Err(format!("{label}: “{text}” is not one of the choices."));
                    }
                    Ok(Some(Value::String(text)))
                }
                FieldKind::Boolean | FieldKind::Multi { .. } => Ok(None),
            }
        }
    }
}

fn check_format(label: &str, format: TextFormat, t: &str) -> Result<(), String> {
    let ok = match format {
        TextFormat::Plain => true,
        TextFormat::Email => t.split_once('@').is_some_and(|(a, b)| {
            !a.is_empty() && b.contains('.') && !t.contains(char::is_whitespace)
        }),
        TextFormat::Uri => t.split_once(':').is_some_and(|(s, rest)| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
                && !rest.is_empty()
        }),
        TextFormat::Date => is_date(t),
        TextFormat::DateTime => {
            t.len() > 10 && is_date(&t[..10]) && matches!(t.as_bytes()[10], b'T' | b't' | b' ')
        }
    };
    if ok {
        return Ok(());
    }
    let what = match format {
        TextFormat::Email => "an email address (name@example.com)",
        TextFormat::Uri => "a URI (https://example.com)",
        TextFormat::Date => "a date (YYYY-MM-DD)",
        TextFormat::DateTime => "a date and time (YYYY-MM-DDTHH:MM:SSZ)",
        TextFormat::Plain => "text",
    };
    Err(format!("{label} must be {what}."))
}

fn is_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}
