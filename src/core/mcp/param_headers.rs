//! `Mcp-Param-*` headers (MCP 2026-07-28, SEP-2243): a tool may mark input properties with
//! `x-mcp-header: "Region"`, and every `tools/call` over Streamable HTTP then mirrors that
//! argument into `Mcp-Param-Region`, so gateways can route without reading the body.
//!
//! What this decides: which declarations a tool's schema makes ([`scan`]) — a declaration
//! that breaks the SEP's rules (a name that is not an RFC 9110 token, a name used twice
//! ignoring case, a non-primitive property, a declaration under anything but a chain of
//! `properties`) makes the tool unusable, with a sentence, rather than silently unmirrored
//! (the server would refuse the call for a missing header); and the headers one call carries
//! ([`headers_for`]): absent and null arguments send none, strings go through the value
//! encoding of `streamable_http::header_value`, integers in decimal, booleans as
//! `true`/`false`.
//!
//! A browser only sends these when the server's CORS allows them; the names also tell the
//! user which headers that must be. Pure: no IO.

use serde_json::{Map, Value};

use super::streamable_http::header_value;

/// One declaration: the header's name part and the path of properties to the argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    pub name: String,
    pub path: Vec<String>,
}

impl Declaration {
    pub fn header(&self) -> String {
        format!("Mcp-Param-{}", self.name)
    }
}

/// Keywords whose subschemas an argument path cannot reach by properties alone.
const UNREACHABLE: [&str; 12] = [
    "items",
    "prefixItems",
    "contains",
    "additionalProperties",
    "patternProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
];

/// The declarations of a tool's `inputSchema`, or why the tool cannot be called.
pub fn scan(tool: &str, schema: &Map<String, Value>) -> Result<Vec<Declaration>, String> {
    let mut out = Vec::new();
    walk(tool, schema, &mut Vec::new(), &mut out, true)?;
    Ok(out)
}

fn walk(
    tool: &str,
    schema: &Map<String, Value>,
    path: &mut Vec<String>,
    out: &mut Vec<Declaration>,
    reachable: bool,
) -> Result<(), String> {
    if let Some(name) = schema.get("x-mcp-header") {
        let bad = |why: &str| {
            Err(format!(
                "The tool {tool} cannot be called: its parameter {} {why}.",
                path.join(".")
            ))
        };
        if !reachable || path.is_empty() {
            return bad("declares a header where no single argument is");
        }
        let Some(name) = name.as_str().filter(|n| is_token(n)) else {
            return bad("names a header that is not a valid HTTP field name");
        };
        let ty = schema.get("type").and_then(Value::as_str).unwrap_or("");
        if !matches!(ty, "string" | "integer" | "boolean" | "number") {
            return bad("mirrors a value that is not a string, number or boolean into a header");
        }
        if out
            .iter()
            .any(|d: &Declaration| d.name.eq_ignore_ascii_case(name))
        {
            return bad("uses a header name another parameter already uses");
        }
        out.push(Declaration {
            name: name.to_string(),
            path: path.clone(),
        });
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (key, sub) in props {
            if let Some(sub) = sub.as_object() {
                path.push(key.clone());
                walk(tool, sub, path, out, reachable)?;
                path.pop();
            }
        }
    }
    for keyword in UNREACHABLE {
        let subs: Vec<&Map<String, Value>> = match schema.get(keyword) {
            Some(Value::Object(o)) if keyword == "patternProperties" => {
                o.values().filter_map(Value::as_object).collect()
            }
            Some(Value::Object(o)) => vec![o],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_object).collect(),
            _ => Vec::new(),
        };
        for sub in subs {
            walk(tool, sub, path, out, false)?;
        }
    }
    Ok(())
}

/// RFC 9110 token: 1*tchar.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// The `Mcp-Param-*` headers one call with `arguments` carries.
pub fn headers_for(decls: &[Declaration], arguments: &Map<String, Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for d in decls {
        let mut v: Option<&Value> = None;
        let mut here = arguments;
        for (i, key) in d.path.iter().enumerate() {
            v = here.get(key);
            if i + 1 < d.path.len() {
                match v.and_then(Value::as_object) {
                    Some(o) => here = o,
                    None => {
                        v = None;
                        break;
                    }
                }
            }
        }
        let text = match v {
            Some(Value::String(s)) => header_value(s),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue,
        };
        out.push((d.header(), text));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn declared_arguments_are_mirrored_and_absent_ones_are_not() {
        let schema = obj(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"},
            "opts": {"type": "object", "properties": {
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry-Run"}
            }}
        }}));
        let d = scan("execute_sql", &schema).unwrap_or_default();
        assert_eq!(d.len(), 3);
        let mut h = headers_for(
            &d,
            &obj(
                json!({"region": "us-west1", "query": "select 1", "opts": {"priority": 3, "dry": false}}),
            ),
        );
        crate::order::sort_by(&mut h, |a, b| a.cmp(b));
        assert_eq!(
            h,
            [
                ("Mcp-Param-Dry-Run".to_string(), "false".to_string()),
                ("Mcp-Param-Priority".to_string(), "3".to_string()),
                ("Mcp-Param-Region".to_string(), "us-west1".to_string()),
            ]
        );
        // Non-ASCII goes base64; null and absent send nothing.
        let h = headers_for(
            &d,
            &obj(json!({"region": "Zürich", "opts": {"priority": null}})),
        );
        assert_eq!(
            h,
            [(
                "Mcp-Param-Region".to_string(),
                "=?base64?WsO8cmljaA==?=".to_string()
            )]
        );
        assert!(headers_for(&d, &Map::new()).is_empty());
    }

    #[test]
    fn a_broken_declaration_makes_the_tool_unusable_with_a_sentence() {
        let cases = [
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "Bad Name"}}}),
                "names a header that is not a valid HTTP field name",
            ),
            (
                json!({"properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
                "mirrors a value that is not a string, number or boolean",
            ),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "Same"}, "b": {"type": "string", "x-mcp-header": "same"}}}),
                "uses a header name another parameter already uses",
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "declares a header where no single argument is",
            ),
            (
                json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                "declares a header where no single argument is",
            ),
        ];
        for (schema, why) in cases {
            let e = scan("t", &obj(schema)).err().unwrap_or_default();
            assert!(
                e.starts_with("The tool t cannot be called: its parameter "),
                "{e}"
            );
            assert!(e.contains(why), "{e}");
        }
        assert_eq!(scan("t", &obj(json!({"type": "object"}))), Ok(Vec::new()));
    }
}
