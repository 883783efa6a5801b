//! The order of a form's fields as the server wrote them. `serde_json::Value` keeps object
//! keys sorted, which would put a server's "name" after its "birthdate"; the form should read
//! the way the server laid it out, so the keys of `requestedSchema.properties` are read once
//! more from the message text, in order.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

/// Walks `path` down nested objects and returns the keys of the object at its end, in the
/// order they appear (values skipped); `None` when a step is missing or not an object.
///
/// One seed type that recurses on itself, rather than a derived struct per level
/// (`Message { params: Option<Params> }`, ...): each derived level compiled its own
/// deserializer for the message text: 3 KB of wasm (0.4 KiB gzip) for three field names.
struct Descend<'p>(&'p [&'p str]);

impl<'de> DeserializeSeed<'de> for Descend<'_> {
    type Value = Option<Vec<String>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Descend<'_> {
    type Value = Option<Vec<String>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = Vec::new();
        let mut found = None;
        while let Some(k) = map.next_key::<String>()? {
            match self.0.split_first() {
                None => {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(k);
                }
                Some((step, rest)) if *step == k => {
                    // Refused, as a derived struct refuses a duplicate field.
                    if found.is_some() {
                        return Err(serde::de::Error::custom(format_args!("duplicate `{k}`")));
                    }
                    found = Some(map.next_value_seed(Descend(rest))?);
                }
                Some(_) => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(if self.0.is_empty() {
            Some(keys)
        } else {
            found.flatten()
        })
    }
    // Anything but an object: nothing to descend into. The value's contents are not needed.
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// The property names of an `elicitation/create` message's requested schema, in the order
/// the message lists them; `None` for a batch or anything else that does not read so.
pub fn property_order(raw_message: &str) -> Option<Vec<String>> {
    let mut de = serde_json::Deserializer::from_str(raw_message);
    let keys = Descend(&["params", "requestedSchema", "properties"])
        .deserialize(&mut de)
        .ok()?;
    de.end().ok()?;
    keys
}

#[cfg(test)]
mod tests {
    use super::property_order;

    #[test]
    fn reads_the_properties_in_the_message_order() {
        let raw = r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","enum":["a","b"]},"birthdate":{"type":"string"},"age":{"type":"integer","minimum":1.5}},"required":["name"]}}}"#;
        assert_eq!(
            property_order(raw),
            Some(vec!["name".into(), "birthdate".into(), "age".into()])
        );
        let empty = r#"{"params":{"requestedSchema":{"properties":{}}}}"#;
        assert_eq!(property_order(empty), Some(vec![]));
    }

    #[test]
    fn anything_else_reads_as_none() {
        for raw in [
            r#"[{"params":{"requestedSchema":{"properties":{"a":1}}}}]"#,
            r#"{"params":{"requestedSchema":{}}}"#,
            r#"{"params":{"requestedSchema":{"properties":[1,2]}}}"#,
            r#"{"params":{"requestedSchema":{"properties":null}}}"#,
            r#"{"params":null}"#,
            r#"{"params":"x"}"#,
            r#"{}"#,
            r#"{"params":{"requestedSchema":{"properties":{"a":1}}}} trailing"#,
            r#"{"params":{"requestedSchema":{"properties":{"a":1}"#,
            r#"{"params":{"requestedSchema":{"properties":{"a":1}}},"params":{}}"#,
            "not json",
        ] {
            assert_eq!(property_order(raw), None, "{raw}");
        }
    }
}
