//! Generated JSON for the decoders' property tests: arbitrary value trees, and real message
//! shapes with some of their members replaced by wrong-typed values or removed. Arbitrary
//! trees alone almost never look like a provider chunk or an MCP result, so they never reach
//! the code past the first `get`; mutated templates do.

use proptest::prelude::*;
use serde_json::{Number, Value};

/// Strings that mean something to one of the decoders, plus hostile and odd ones.
const STRINGS: &[&str] = &[
    "",
    "x",
    "stop",
    "length",
    "tool_calls",
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "text",
    "thinking",
    "tool_use",
    "text_delta",
    "input_json_delta",
    "message_stop",
    "error",
    "2026-07-28",
    "2025-11-25",
    "2025-03-26",
    "tools/list",
    "notifications/progress",
    "[DONE]",
    "{\"a\":",
    "é😊",
    "\u{202E}rtl",
    "\0",
    "<script>alert(1)</script>",
];

/// Keys real messages use, so generated objects collide with what decoders look for.
const KEYS: &[&str] = &[
    "id",
    "type",
    "index",
    "text",
    "content",
    "delta",
    "choices",
    "error",
    "message",
    "code",
    "name",
    "arguments",
    "args",
    "usage",
    "result",
    "method",
    "params",
    "tools",
    "nextCursor",
    "progressToken",
    "progress",
    "total",
    "level",
    "data",
    "uri",
    "candidates",
    "parts",
];

/// A JSON leaf, including the numbers decoders convert: huge, negative, fractional.
pub(crate) fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..12).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        Just(Value::from(u64::MAX)),
        Just(Value::from(i64::MIN)),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(STRINGS).prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ]
}

/// An arbitrary JSON tree, up to `depth` levels deep.
pub(crate) fn value(depth: u32) -> impl Strategy<Value = Value> {
    leaf().prop_recursive(depth, 48, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..5).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

/// One edit to a template: the node at a preorder position (modulo the node count) is
/// replaced by `with`, or removed from its parent when `with` is `None`.
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    at: u16,
    with: Option<Value>,
}

pub(crate) fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = (any::<u16>(), prop::option::weighted(0.8, value(2)))
        .prop_map(|(at, with)| Edit { at, with });
    prop::collection::vec(edit, 0..3)
}

/// `template` (JSON text) with `edits` applied.
pub(crate) fn edited(template: &str, edits: &[Edit]) -> Value {
    let mut v: Value = serde_json::from_str(template).expect("templates are valid JSON");
    for e in edits {
        let count = nodes(&v);
        // Node 0 is the root: replacing it gives a whole new message, removing it is a no-op.
        let mut target = e.at as usize % count;
        if target == 0 {
            if let Some(w) = &e.with {
                v = w.clone();
            }
            continue;
        }
        target -= 1;
        edit_child(&mut v, &mut target, e.with.as_ref());
    }
    v
}

fn nodes(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(nodes).sum(),
        Value::Object(o) => o.values().map(nodes).sum(),
        _ => 0,
    }
}

/// Walks the children of `v` in preorder, counting `target` down; applies the edit at zero.
/// Returns whether it was applied.
fn edit_child(v: &mut Value, target: &mut usize, with: Option<&Value>) -> bool {
    match v {
        Value::Array(a) => {
            for i in 0..a.len() {
                if *target == 0 {
                    match with {
                        Some(w) => a[i] = w.clone(),
                        None => {
                            a.remove(i);
                        }
                    }
                    return true;
                }
                *target -= 1;
                if edit_child(&mut a[i], target, with) {
                    return true;
                }
            }
            false
        }
        Value::Object(o) => {
            let keys: Vec<String> = o.keys().cloned().collect();
            for k in keys {
                if *target == 0 {
                    match with {
                        Some(w) => {
                            o.insert(k, w.clone());
                        }
                        None => {
                            o.remove(&k);
                        }
                    }
                    return true;
                }
                *target -= 1;
                if let Some(child) = o.get_mut(&k) {
                    if edit_child(child, target, with) {
                        return true;
                    }
                }
            }
            false
        }
        _ => false,
    }
}

/// A message from `templates`, edited.
pub(crate) fn shaped(templates: &'static [&'static str]) -> impl Strategy<Value = Value> {
    (prop::sample::select(templates), edits()).prop_map(|(t, e)| edited(t, &e))
}

#[test]
fn edits_reach_every_node_and_keep_the_rest() {
    let template = r#"{"a":[1,{"b":2}],"c":3}"#;
    // Preorder: root, a, 1, {b}, 2, c.
    let t = |at, with| edited(template, &[Edit { at, with }]);
    assert_eq!(t(1, None), serde_json::json!({"c": 3}));
    assert_eq!(
        t(4, Some(Value::Null)),
        serde_json::json!({"a":[1,{"b":null}],"c":3})
    );
    assert_eq!(t(2, None), serde_json::json!({"a":[{"b":2}],"c":3}));
    assert_eq!(
        t(5, Some(Value::from("x"))),
        serde_json::json!({"a":[1,{"b":2}],"c":"x"})
    );
    assert_eq!(t(6, Some(Value::Null)), Value::Null, "wraps to the root");
}
