//! A project as stored JSON, read and written by hand through `serde_json::Value` like a mask
//! (`masks::record`): absent fields take their defaults and empty ones are left out, and a
//! record without an id is refused rather than given one that matches no conversation.

use serde_json::{Map, Value};

use super::Project;

impl TryFrom<Value> for Project {
    type Error = String;

    fn try_from(v: Value) -> Result<Project, String> {
        let Value::Object(o) = v else {
            return Err("a project is not a JSON object".into());
        };
        let text = |key: &str| o.get(key).and_then(Value::as_str).unwrap_or("").to_string();
        let id = text("id");
        if id.is_empty() {
            return Err("a project has no id".into());
        }
        let mask = Some(text("mask")).filter(|m| !m.is_empty());
        Ok(Project {
            id,
            name: text("name"),
            instructions: text("instructions"),
            mask,
            collapsed: o.get("collapsed").and_then(Value::as_bool).unwrap_or(false),
        })
    }
}

impl From<Project> for Value {
    fn from(p: Project) -> Value {
        let mut o = Map::new();
        o.insert("id".into(), p.id.into());
        o.insert("name".into(), p.name.into());
        if !p.instructions.is_empty() {
            o.insert("instructions".into(), p.instructions.into());
        }
        if let Some(m) = p.mask {
            o.insert("mask".into(), m.into());
        }
        if p.collapsed {
            o.insert("collapsed".into(), true.into());
        }
        Value::Object(o)
    }
}
