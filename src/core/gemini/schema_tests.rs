use serde_json::json;

use super::*;

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn sentences(c: &Converted) -> Vec<String> {
    c.dropped.iter().map(|d| d.sentence("t")).collect()
}

#[test]
fn a_plain_schema_keeps_its_meaning_and_drops_nothing() {
    let c = to_gemini(&obj(json!({
        "type": "object",
        "title": "Args",
        "description": "Where",
        "properties": {
            "city": {"type": "string", "description": "City name", "minLength": 1, "maxLength": 80, "pattern": "^[A-Z]"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14, "format": "int32"},
            "when": {"type": "string", "format": "date-time"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 0, "maxItems": 5},
            "exact": {"type": "boolean", "nullable": true}
        },
        "required": ["city"]
    })));
    assert_eq!(c.dropped, vec![]);
    assert_eq!(
        Value::Object(c.schema),
        json!({
            "type": "OBJECT",
            "title": "Args",
            "description": "Where",
            "properties": {
                "city": {"type": "STRING", "description": "City name", "minLength": 1, "maxLength": 80, "pattern": "^[A-Z]"},
                "unit": {"type": "STRING", "enum": ["c", "f"]},
                "days": {"type": "INTEGER", "minimum": 1, "maximum": 14, "format": "int32"},
                "when": {"type": "STRING", "format": "date-time"},
                "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "minItems": 0, "maxItems": 5},
                "exact": {"type": "BOOLEAN", "nullable": true}
            },
            "required": ["city"]
        })
    );
}

#[test]
fn what_zod_to_json_schema_adds_is_dropped_and_said() {
    // The shape MCP TypeScript servers publish (server-everything's `add`).
    let c = to_gemini(&obj(json!({
        "type": "object",
        "properties": {"a": {"type": "number", "description": "First number"}},
        "required": ["a"],
        "additionalProperties": false,
        "$schema": "http://json-schema.org/draft-07/schema#"
    })));
    assert_eq!(
        Value::Object(c.schema.clone()),
        json!({"type": "OBJECT", "properties": {"a": {"type": "NUMBER", "description": "First number"}}, "required": ["a"]})
    );
    assert_eq!(
        sentences(&c),
        vec![
            "Tool \u{201c}t\u{201d}: left out \u{201c}$schema\u{201d} at the top level, which Gemini does not accept; it only documented the schema.",
            "Tool \u{201c}t\u{201d}: left out \u{201c}additionalProperties\u{201d} at the top level, which Gemini does not accept; Gemini may now send arguments the tool rejects.",
        ]
    );
}

#[test]
fn nullable_type_lists_become_nullable_and_several_types_any_of() {
    let c = to_gemini(&obj(json!({
        "type": "object",
        "properties": {
            "maybe": {"type": ["string", "null"]},
            "either": {"type": ["string", "integer"]},
            "nothing": {"type": "null"}
        }
    })));
    assert_eq!(c.dropped, vec![]);
    assert_eq!(
        c.schema["properties"],
        json!({
            "maybe": {"type": "STRING", "nullable": true},
            "either": {"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]},
            "nothing": {"type": "NULL"}
        })
    );
}

#[test]
fn a_string_const_is_a_one_value_enum_and_any_other_const_is_said() {
    let c = to_gemini(&obj(json!({
        "type": "object",
        "properties": {
            "kind": {"type": "string", "const": "circle"},
            "version": {"type": "integer", "const": 2},
            "level": {"type": "integer", "enum": [1, 2, 3]}
        }
    })));
    assert_eq!(
        c.schema["properties"]["kind"],
        json!({"type": "STRING", "enum": ["circle"]})
    );
    assert_eq!(
        c.schema["properties"]["version"],
        json!({"type": "INTEGER"})
    );
    assert_eq!(c.schema["properties"]["level"], json!({"type": "INTEGER"}));
    assert_eq!(
        sentences(&c),
        vec![
            "Tool \u{201c}t\u{201d}: left out \u{201c}enum\u{201d} ([1,2,3]) at /properties/level, which Gemini does not accept; Gemini may now send arguments the tool rejects.",
            "Tool \u{201c}t\u{201d}: left out \u{201c}const\u{201d} (2) at /properties/version, which Gemini does not accept; Gemini may now send arguments the tool rejects.",
        ]
    );
}

#[test]
fn local_refs_are_inlined_and_a_recursive_one_is_cut_and_said() {
    let c = to_gemini(&obj(json!({
        "type": "object",
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
            "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}
        },
        "definitions": {"Name": {"type": "string"}},
        "properties": {
            "at": {"$ref": "#/$defs/Point", "description": "Where"},
            "who": {"$ref": "#/definitions/Name"},
            "list": {"$ref": "#/$defs/Node"},
            "far": {"$ref": "https://example.com/schema.json"}
        }
    })));
    assert_eq!(
        c.schema["properties"]["at"],
        json!({"type": "OBJECT", "properties": {"x": {"type": "NUMBER"}}, "required": ["x"], "description": "Where"})
    );
    assert_eq!(c.schema["properties"]["who"], json!({"type": "STRING"}));
    assert_eq!(
        c.schema["properties"]["list"],
        json!({"type": "OBJECT", "properties": {"next": {}}})
    );
    assert_eq!(c.schema["properties"]["far"], json!({}));
    assert!(c.schema.get("$defs").is_none() && c.schema.get("definitions").is_none());
    assert_eq!(
        sentences(&c),
        vec![
            "Tool \u{201c}t\u{201d}: left out \u{201c}$ref\u{201d} (\"https://example.com/schema.json\") at /properties/far, which Gemini does not accept; Gemini may now send arguments the tool rejects.",
            "Tool \u{201c}t\u{201d}: left out \u{201c}$ref\u{201d} (\"#/$defs/Node\") at /properties/list/properties/next, which Gemini does not accept; Gemini may now send arguments the tool rejects.",
        ]
    );
}

#[test]
fn one_of_is_sent_as_any_of_and_said_and_all_of_is_dropped_and_said() {
    let c = to_gemini(&obj(json!({
        "type": "object",
        "properties": {
            "shape": {"oneOf": [{"type": "string"}, {"type": "number", "exclusiveMinimum": 0}]},
            "both": {"allOf": [{"type": "string"}]}
        }
    })));
    assert_eq!(
        c.schema["properties"]["shape"],
        json!({"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}]})
    );
    assert_eq!(c.schema["properties"]["both"], json!({}));
    assert_eq!(
        sentences(&c),
        vec![
            "Tool \u{201c}t\u{201d}: left out \u{201c}allOf\u{201d} at /properties/both, which Gemini does not accept; Gemini may now send arguments the tool rejects.",
            "Tool \u{201c}t\u{201d}: sent \u{201c}oneOf\u{201d} at /properties/shape as \u{201c}anyOf\u{201d}, which Gemini accepts; Gemini may send a value that matches more than one choice.",
            "Tool \u{201c}t\u{201d}: left out \u{201c}exclusiveMinimum\u{201d} at /properties/shape/oneOf/1, which Gemini does not accept; Gemini may now send arguments the tool rejects.",
        ]
    );
}

#[test]
fn annotations_and_unsupported_formats_are_dropped_as_annotations() {
    let c = to_gemini(&obj(json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email", "default": "a@b.c", "examples": ["x@y.z"]},
            "n": {"type": "number", "format": "int32", "deprecated": true}
        }
    })));
    assert_eq!(c.schema["properties"]["email"], json!({"type": "STRING"}));
    assert_eq!(c.schema["properties"]["n"], json!({"type": "NUMBER"}));
    assert!(
        c.dropped.iter().all(|d| d.effect == Effect::Annotation),
        "{:?}",
        c.dropped
    );
    let kept: Vec<(&str, &str)> = c
        .dropped
        .iter()
        .map(|d| (d.path.as_str(), d.keyword.as_str()))
        .collect();
    assert_eq!(
        kept,
        [
            ("/properties/email", "default"),
            ("/properties/email", "examples"),
            ("/properties/email", "format"),
            ("/properties/n", "deprecated"),
            ("/properties/n", "format"),
        ]
    );
}

#[test]
fn required_names_without_a_property_and_tuple_items_are_said() {
    let c = to_gemini(&obj(json!({
        "type": "object",
        "properties": {"a": {"type": "array", "items": [{"type": "string"}]}, "b/c": {"type": "string", "x-extra": 1}},
        "required": ["a", "ghost"]
    })));
    assert_eq!(c.schema["required"], json!(["a"]));
    assert_eq!(c.schema["properties"]["a"], json!({"type": "ARRAY"}));
    let places: Vec<(String, String)> = c
        .dropped
        .iter()
        .map(|d| (d.path.clone(), d.keyword.clone()))
        .collect();
    assert_eq!(
        places,
        [
            ("/properties/a".to_string(), "items".to_string()),
            ("/properties/b~1c".to_string(), "x-extra".to_string()),
            (String::new(), "required".to_string()),
        ]
    );
    assert_eq!(c.dropped[2].value.as_deref(), Some("[\"ghost\"]"));
}
