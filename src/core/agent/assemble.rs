//! Joining streamed tool-call fragments (`provider::ToolCallDelta`) into whole calls.
//!
//! Deltas arrive keyed by `index` (OpenAI's `tool_calls[]` entries, Anthropic's `tool_use`
//! blocks): the first usually carries the id and the name, later ones only pieces of the
//! arguments. Some real servers repeat the id and the name in every chunk; only the argument
//! fragments are joined.

use crate::provider::ToolCallDelta;

/// A call as the model finished writing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledCall {
    /// The provider's id, or `call_<index>` when it never sent one.
    pub id: String,
    pub name: String,
    /// The joined argument text (not validated here).
    pub arguments: String,
}

#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    /// One entry per index seen, in order of first arrival (sorted in `finish`).
    calls: Vec<Partial>,
}

#[derive(Debug)]
struct Partial {
    index: u32,
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

impl ToolCallAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, delta: &ToolCallDelta) {
        let pos = match self.calls.iter().position(|c| c.index == delta.index) {
            Some(pos) => pos,
            None => {
                self.calls.push(Partial {
                    index: delta.index,
                    id: None,
                    name: None,
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[pos];
        // Servers that repeat the id and name in every chunk would otherwise produce
        // `get_weatherget_weather`; the first value is the real one.
        if call.id.is_none() {
            call.id = delta.id.clone().filter(|s| !s.is_empty());
        }
        if call.name.is_none() {
            call.name = delta.name.clone().filter(|s| !s.is_empty());
        }
        call.arguments.push_str(&delta.arguments);
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls in index order.
    pub fn finish(self) -> Vec<AssembledCall> {
        let mut calls = self.calls;
        crate::order::sort_by_key(&mut calls, |c| c.index);
        calls
            .into_iter()
            .map(|c| AssembledCall {
                id: c.id.unwrap_or_else(|| format!("call_{}", c.index)),
                name: c.name.unwrap_or_default(),
                arguments: c.arguments,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(index: u32, id: Option<&str>, name: Option<&str>, arguments: &str) -> ToolCallDelta {
        ToolCallDelta {
            index,
            id: id.map(str::to_string),
            name: name.map(str::to_string),
            arguments: arguments.to_string(),
        }
    }

    fn call(id: &str, name: &str, arguments: &str) -> AssembledCall {
        AssembledCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn interleaved_calls_come_out_in_index_order() {
        let mut a = ToolCallAssembler::new();
        assert!(a.is_empty());
        for delta in [
            d(1, Some("call_b"), Some("search"), ""),
            d(0, Some("call_a"), Some("echo"), "{\"m\""),
            d(1, None, None, "{\"q\":1}"),
            d(0, None, None, ":\"hi\"}"),
        ] {
            a.push(&delta);
        }
        assert!(!a.is_empty());
        assert_eq!(
            a.finish(),
            vec![
                call("call_a", "echo", "{\"m\":\"hi\"}"),
                call("call_b", "search", "{\"q\":1}"),
            ]
        );
    }

    #[test]
    fn repeated_id_and_name_are_not_joined() {
        let mut a = ToolCallAssembler::new();
        for part in ["{\"city\"", ":\"Paris\"", "}"] {
            a.push(&d(0, Some("call_1"), Some("get_weather"), part));
        }
        assert_eq!(
            a.finish(),
            vec![call("call_1", "get_weather", "{\"city\":\"Paris\"}")]
        );
    }

    #[test]
    fn first_id_and_name_win_and_blanks_do_not_count() {
        let mut a = ToolCallAssembler::new();
        a.push(&d(0, Some(""), Some(""), "{"));
        a.push(&d(0, Some("first"), Some("one"), ""));
        a.push(&d(0, Some("second"), Some("two"), "}"));
        assert_eq!(a.finish(), vec![call("first", "one", "{}")]);
    }

    #[test]
    fn missing_id_becomes_call_index() {
        let mut a = ToolCallAssembler::new();
        a.push(&d(3, None, Some("t"), "{}"));
        a.push(&d(0, None, None, ""));
        assert_eq!(
            a.finish(),
            vec![call("call_0", "", ""), call("call_3", "t", "{}")]
        );
    }
}
