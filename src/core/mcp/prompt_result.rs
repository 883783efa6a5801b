//! What a `prompts/get` result becomes in a conversation, and the `completion/complete`
//! exchange that suggests prompt and template arguments as the user types.
//!
//! A prompt's messages are the server's words, put into the conversation in the roles the
//! prompt defines: text as it is, an embedded text resource inlined with its URI (fenced so it
//! cannot close its own block, as attached files are), an image kept as base64 for the runner
//! to store like an attachment, a resource link named rather than fetched (reading it is the
//! user's choice). Anything else is named in the text, never dropped in silence.
//!
//! Pure: no IO. The result is untrusted: malformed parts are sentences.

use serde_json::{json, Value};

use crate::seam::piece::inline_text;

/// One conversation message a prompt contributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptTurn {
    /// `user` or `assistant`, as the prompt defines it.
    pub assistant: bool,
    pub text: String,
    /// Images as `(mime, base64)`.
    pub images: Vec<(String, String)>,
}

/// Why a prompt's result cannot be used, for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptError(pub String);

impl std::fmt::Display for PromptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "The server's prompt could not be used: {}", self.0)
    }
}

/// The turns of a `prompts/get` result, consecutive parts of one role joined into one turn.
pub fn turns(result: &Value) -> Result<Vec<PromptTurn>, PromptError> {
    let messages = result
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| PromptError("it has no messages.".into()))?;
    let mut out: Vec<PromptTurn> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let assistant = match m.get("role").and_then(Value::as_str) {
            Some("user") => false,
            Some("assistant") => true,
            _ => {
                return Err(PromptError(format!(
                    "message {} has no role user or assistant.",
                    i + 1
                )))
            }
        };
        let content = m.get("content").unwrap_or(&Value::Null);
        let (text, image) = piece(content);
        match out.last_mut() {
            Some(last) if last.assistant == assistant => {
                if !text.is_empty() {
                    if !last.text.is_empty() {
                        last.text.push_str("\n\n");
                    }
                    last.text.push_str(&text);
                }
                last.images.extend(image);
            }
            _ => out.push(PromptTurn {
                assistant,
                text,
                images: image.into_iter().collect(),
            }),
        }
    }
    if out.is_empty() {
        return Err(PromptError("it has no messages.".into()));
    }
    Ok(out)
}

/// What the conversation does once a prompt's turns are in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterInsert {
    /// The prompt ends with the user's turn: it is a question, and the model answers it now,
    /// as a sent message would be (an inserted prompt that waited for nothing left the user
    /// with an empty box, Send disabled and no request made).
    Answer,
    /// The prompt ends with the model's own words (an example exchange, a primed answer):
    /// the conversation waits for what the user types next.
    WaitForUser,
}

/// Whether the model answers the inserted `turns` at once.
#[must_use]
pub fn after_insert(turns: &[PromptTurn]) -> AfterInsert {
    match turns.last() {
        Some(t) if !t.assistant => AfterInsert::Answer,
        _ => AfterInsert::WaitForUser,
    }
}

/// Said when a prompt is chosen while the conversation's answer is still being written: its
/// turns would land in the middle of that answer's turn.
pub const BUSY_SENTENCE: &str =
    "An answer is still being written: wait for it (or Stop it) before inserting a prompt.";

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One content block as text, and an image when it is one.
fn piece(c: &Value) -> (String, Option<(String, String)>) {
    match str_at(c, "type") {
        "text" => (str_at(c, "text").to_string(), None),
        "image" if !str_at(c, "data").is_empty() => (
            String::new(),
            Some((
                str_at(c, "mimeType").to_string(),
                str_at(c, "data").to_string(),
            )),
        ),
        "resource" => {
            let r = c.get("resource").unwrap_or(&Value::Null);
            let uri = str_at(r, "uri");
            match r.get("text").and_then(Value::as_str) {
                Some(text) => (inline_text(uri, text.as_bytes()), None),
                None => (format!("[Resource {uri}: binary content, not shown]"), None),
            }
        }
        "resource_link" => (
            format!(
                "[Resource link: {} ({})]",
                str_at(c, "name"),
                str_at(c, "uri")
            ),
            None,
        ),
        other => (
            format!("[Prompt content of type \u{201c}{other}\u{201d} left out]"),
            None,
        ),
    }
}

/// What is being completed: a prompt's argument or a resource template's variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionRef<'a> {
    Prompt(&'a str),
    Template(&'a str),
}

/// `completion/complete` params for `argument` with what is typed so far, and the other
/// arguments already filled (`context.arguments`, 2025-06-18 and later).
pub fn completion_params(
    reference: &CompletionRef<'_>,
    argument: &str,
    typed: &str,
    filled: &[(String, String)],
) -> Value {
    let r = match reference {
        CompletionRef::Prompt(name) => json!({"type": "ref/prompt", "name": name}),
        CompletionRef::Template(uri) => json!({"type": "ref/resource", "uri": uri}),
    };
    let mut params = json!({"ref": r, "argument": {"name": argument, "value": typed}});
    let others: serde_json::Map<String, Value> = filled
        .iter()
        .filter(|(k, v)| k != argument && !v.is_empty())
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    if !others.is_empty() {
        params["context"] = json!({ "arguments": others });
    }
    params
}

/// Longest suggestion list shown; the specification caps a response at 100 values.
pub const MAX_SUGGESTIONS: usize = 100;

/// The suggestions of a `completion/complete` result: strings only, blank ones and repeats
/// dropped, at most [`MAX_SUGGESTIONS`]; and whether the server has more than it sent.
pub fn suggestions(result: &Value) -> (Vec<String>, bool) {
    let c = result.get("completion").unwrap_or(&Value::Null);
    let mut out: Vec<String> = Vec::new();
    for v in c
        .get("values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(s) = v.as_str().filter(|s| !s.trim().is_empty()) {
            if out.len() < MAX_SUGGESTIONS && !out.iter().any(|x| x == s) {
                out.push(s.to_string());
            }
        }
    }
    let total = c.get("total").and_then(Value::as_u64).unwrap_or(0);
    let more =
        c.get("hasMore").and_then(Value::as_bool).unwrap_or(false) || total > out.len() as u64;
    (out, more)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_ending_with_the_users_turn_is_answered_and_one_ending_with_the_models_waits() {
        let user = |t: &str| PromptTurn {
            assistant: false,
            text: t.into(),
            images: vec![],
        };
        let model = |t: &str| PromptTurn {
            assistant: true,
            ..user(t)
        };
        assert_eq!(after_insert(&[user("Summarize this")]), AfterInsert::Answer);
        assert_eq!(
            after_insert(&[user("Hi"), model("Hello"), user("Go on")]),
            AfterInsert::Answer
        );
        assert_eq!(
            after_insert(&[user("Hi"), model("Hello, how can I help?")]),
            AfterInsert::WaitForUser
        );
        assert_eq!(after_insert(&[]), AfterInsert::WaitForUser);
        // What `turns` makes of a real result: server-everything's simple-prompt.
        let got = turns(&json!({"messages": [{"role": "user",
            "content": {"type": "text", "text": "This is a simple prompt without arguments."}}]}))
        .unwrap();
        assert_eq!(after_insert(&got), AfterInsert::Answer);
    }

    #[test]
    fn a_prompt_becomes_turns_in_its_roles() {
        // The shape of server-everything's `complex_prompt`: text, an image, then the
        // assistant's text; plus an embedded resource and a link.
        let result = json!({"description": "A prompt with arguments", "messages": [
            {"role": "user", "content": {"type": "text", "text": "This is a complex prompt with arguments: temperature=0.7"}},
            {"role": "assistant", "content": {"type": "text", "text": "I understand."}},
            {"role": "user", "content": {"type": "image", "data": "iVBO", "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "resource", "resource": {"uri": "test://static/resource/1", "mimeType": "text/plain", "text": "Resource 1: ```x```"}}},
            {"role": "user", "content": {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"}},
            {"role": "user", "content": {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}}
        ]});
        let t = turns(&result).unwrap_or_default();
        assert_eq!(t.len(), 3);
        assert!(!t[0].assistant && t[1].assistant && !t[2].assistant);
        assert_eq!(t[1].text, "I understand.");
        assert_eq!(t[2].images, [("image/png".to_string(), "iVBO".to_string())]);
        assert_eq!(
            t[2].text,
            "File: test://static/resource/1\n````\nResource 1: ```x```\n````\n\n[Resource link: a.txt (file:///a.txt)]\n\n[Prompt content of type \u{201c}audio\u{201d} left out]"
        );
    }

    #[test]
    fn malformed_results_are_sentences() {
        assert_eq!(
            turns(&json!({})).err().map(|e| e.to_string()),
            Some("The server's prompt could not be used: it has no messages.".into())
        );
        assert_eq!(
            turns(
                &json!({"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]})
            )
            .err()
            .map(|e| e.to_string()),
            Some(
                "The server's prompt could not be used: message 1 has no role user or assistant."
                    .into()
            )
        );
        assert!(turns(&json!({"messages": []})).is_err());
    }

    #[test]
    fn completion_asks_with_context_and_keeps_sane_suggestions() {
        assert_eq!(
            completion_params(
                &CompletionRef::Prompt("complex_prompt"),
                "style",
                "fo",
                &[
                    ("temperature".into(), "0.7".into()),
                    ("style".into(), "x".into()),
                    ("empty".into(), String::new())
                ]
            ),
            json!({"ref": {"type": "ref/prompt", "name": "complex_prompt"}, "argument": {"name": "style", "value": "fo"}, "context": {"arguments": {"temperature": "0.7"}}})
        );
        assert_eq!(
            completion_params(
                &CompletionRef::Template("test://static/resource/{id}"),
                "id",
                "",
                &[]
            ),
            json!({"ref": {"type": "ref/resource", "uri": "test://static/resource/{id}"}, "argument": {"name": "id", "value": ""}})
        );
        let many: Vec<Value> = (0..150).map(|i| json!(i.to_string())).collect();
        let (s, more) = suggestions(&json!({"completion": {"values": many, "total": 150}}));
        assert_eq!((s.len(), more), (MAX_SUGGESTIONS, true));
        let (s, more) = suggestions(
            &json!({"completion": {"values": ["a", "a", " ", 3, "b"], "hasMore": false}}),
        );
        assert_eq!((s, more), (vec!["a".to_string(), "b".to_string()], false));
        assert_eq!(suggestions(&json!({"nope": 1})), (Vec::new(), false));
    }
}
