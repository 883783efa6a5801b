//! A JSON-RPC id (and progress token): a number or a string.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// A number or a string, as JSON-RPC ids and MCP progress tokens are.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NumberOrString {
    Number(i64),
    String(Arc<str>),
}

/// The id of a JSON-RPC request.
pub type RequestId = NumberOrString;

impl NumberOrString {
    pub fn into_json_value(self) -> Value {
        match self {
            NumberOrString::Number(n) => Value::from(n),
            NumberOrString::String(s) => Value::String(s.to_string()),
        }
    }

    /// Read an id from JSON. A number must be an integer; `1.0` counts as `1` because some
    /// JSON encoders write every number as a float.
    pub fn from_json_value(v: &Value) -> Option<Self> {
        match v {
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().and_then(integral_f64_to_i64))
                .map(NumberOrString::Number),
            Value::String(s) => Some(NumberOrString::String(s.as_str().into())),
            _ => None,
        }
    }
}

/// The integer a float stands for, when an `f64` holds it exactly (below 2^53).
fn integral_f64_to_i64(f: f64) -> Option<i64> {
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
    (f.fract() == 0.0 && f.abs() < MAX_EXACT).then_some(f as i64)
}

impl fmt::Display for NumberOrString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumberOrString::Number(n) => fmt::Display::fmt(n, f),
            NumberOrString::String(s) => fmt::Display::fmt(s, f),
        }
    }
}

impl Serialize for NumberOrString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            NumberOrString::Number(n) => serializer.serialize_i64(*n),
            NumberOrString::String(s) => serializer.serialize_str(s),
        }
    }
}

impl<'de> Deserialize<'de> for NumberOrString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(deserializer)?;
        NumberOrString::from_json_value(&v)
            .ok_or_else(|| serde::de::Error::custom("an id must be an integer or a string"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_read_and_write_as_json_rpc_has_them() {
        let n: RequestId = serde_json::from_value(json!(7)).unwrap();
        assert_eq!(n, RequestId::Number(7));
        assert_eq!(serde_json::to_value(&n).unwrap(), json!(7));
        let f: RequestId = serde_json::from_value(json!(7.0)).unwrap();
        assert_eq!(f, RequestId::Number(7));
        let s: RequestId = serde_json::from_value(json!("a-1")).unwrap();
        assert_eq!(s.to_string(), "a-1");
        assert_eq!(s.clone().into_json_value(), json!("a-1"));
        for bad in [json!(1.5), json!(null), json!({}), json!([1])] {
            assert!(
                serde_json::from_value::<RequestId>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }
}
