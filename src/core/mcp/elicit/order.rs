//! The order of a form's fields as the server wrote them. `serde_json::Value` keeps object
//! keys sorted, which would put a server's "name" after its "birthdate"; the form should read
//! the way the server laid it out, so the keys of `requestedSchema.properties` are read once
//! more from the message text, in order.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

/// Keys of a JSON object, in the order they appear (values skipped).
struct Keys(Vec<String>);

impl<'de> Deserialize<'de> for Keys {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Keys;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut keys = Vec::new();
                while let Some(k) = map.next_key::<String>()? {
                    map.next_value::<IgnoredAny>()?;
                    keys.push(k);
                }
                Ok(Keys(keys))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
struct Schema {
    properties: Option<Keys>,
}

#[derive(Deserialize)]
struct Params {
    #[serde(rename = "requestedSchema")]
    requested_schema: Option<Schema>,
}

#[derive(Deserialize)]
struct Message {
    params: Option<Params>,
}

/// The property names of an `elicitation/create` message's requested schema, in the order
/// the message lists them; `None` for a batch or anything else that does not read so.
pub fn property_order(raw_message: &str) -> Option<Vec<String>> {
    let m: Message = serde_json::from_str(raw_message).ok()?;
    Some(m.params?.requested_schema?.properties?.0)
}
