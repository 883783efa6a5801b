//! The chat prompt a small in-page model expects, written in Rust instead of evaluating the
//! GGUF's Jinja template: a Jinja engine would cost the page far more than these two formats,
//! and the tests check the output against the GGUF's own template rendered by Jinja2 byte for
//! byte (`tests/fixtures/local_model/`).
//!
//! The format is chosen from `tokenizer.chat_template` when the file has one (ChatML if it
//! writes `<|im_start|>`, Gemma if it writes `<start_of_turn>`), otherwise by architecture.
//! A Llama-architecture file with no recognisable template gets ChatML: it is what SmolLM2 and
//! most small instruction-tuned Llama-architecture models on the hubs were trained with, and a
//! wrong guess degrades answers rather than failing.

use super::gguf::GgufHeader;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatTemplate {
    /// `<|im_start|>role\n…<|im_end|>\n` (SmolLM2, Qwen, many others).
    ChatMl,
    /// Gemma's `<start_of_turn>user\n…<end_of_turn>\n` with `model` for the assistant, the
    /// system message folded into the first user turn, and `<bos>` written first.
    Gemma,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    /// A tool's result. Neither format has a tool role the small models were trained on, so it
    /// is rendered as a user turn opened by a "Tool result:" line: the model reads it as
    /// information handed to it, and the line keeps it from mistaking the result for the
    /// user's own words.
    Tool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateMessage {
    pub role: Role,
    pub content: String,
}

impl TemplateMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        TemplateMessage {
            role,
            content: content.into(),
        }
    }
}

const TOOL_PREFIX: &str = "Tool result:\n";

impl ChatTemplate {
    pub fn for_model(header: &GgufHeader) -> ChatTemplate {
        if let Some(t) = header.get_str("tokenizer.chat_template") {
            if t.contains("<|im_start|>") {
                return ChatTemplate::ChatMl;
            }
            if t.contains("<start_of_turn>") {
                return ChatTemplate::Gemma;
            }
        }
        match header.get_str("general.architecture") {
            Some("gemma3") => ChatTemplate::Gemma,
            _ => ChatTemplate::ChatMl,
        }
    }

    /// The system prompt the GGUF's template inserts when a conversation has none (SmolLM2's
    /// "You are a helpful AI assistant named SmolLM, trained by Hugging Face"), found as the
    /// literal text of a ChatML system turn in the template. `None` when it has no such text.
    pub fn default_system_prompt(header: &GgufHeader) -> Option<String> {
        let template = header.get_str("tokenizer.chat_template")?;
        // Real newlines in most templates; some converters keep Jinja's `\n` escape.
        for opener in ["<|im_start|>system\n", "<|im_start|>system\\n"] {
            let mut rest = template;
            while let Some(at) = rest.find(opener) {
                rest = &rest[at + opener.len()..];
                let Some(end) = rest.find("<|im_end|>") else {
                    break;
                };
                let text = &rest[..end];
                // A literal, not an expression such as `' + message['content'] + '`.
                if !text.is_empty() && !text.contains(['\'', '"', '{', '}', '+']) {
                    return Some(text.replace("\\n", "\n"));
                }
            }
        }
        None
    }

    /// The prompt for `messages`, ending with the assistant's opening when
    /// `add_generation_prompt`. Renders exactly what the format's Jinja template renders for
    /// the conversations it accepts; where Gemma's would refuse a conversation (turns that do
    /// not alternate) or drop text (a lone system message), see `render_gemma`.
    pub fn render(&self, messages: &[TemplateMessage], add_generation_prompt: bool) -> String {
        match self {
            ChatTemplate::ChatMl => render_chatml(messages, add_generation_prompt),
            ChatTemplate::Gemma => render_gemma(messages, add_generation_prompt),
        }
    }

    /// [`ChatTemplate::render`], with `default_system` (from
    /// [`ChatTemplate::default_system_prompt`]) first when the conversation does not start with
    /// a system message: what the GGUF's template does.
    pub fn render_with_default(
        &self,
        default_system: Option<&str>,
        messages: &[TemplateMessage],
        add_generation_prompt: bool,
    ) -> String {
        match default_system {
            Some(system) if messages.first().map(|m| m.role) != Some(Role::System) => {
                let mut all = Vec::with_capacity(messages.len() + 1);
                all.push(TemplateMessage::new(Role::System, system));
                all.extend_from_slice(messages);
                self.render(&all, add_generation_prompt)
            }
            _ => self.render(messages, add_generation_prompt),
        }
    }
}

fn render_chatml(messages: &[TemplateMessage], add_generation_prompt: bool) -> String {
    let mut out = String::new();
    for m in messages {
        let (role, prefix) = match m.role {
            Role::System => ("system", ""),
            Role::User => ("user", ""),
            Role::Assistant => ("assistant", ""),
            Role::Tool => ("user", TOOL_PREFIX),
        };
        out.push_str("<|im_start|>");
        out.push_str(role);
        out.push('\n');
        out.push_str(prefix);
        out.push_str(&m.content);
        out.push_str("<|im_end|>\n");
    }
    if add_generation_prompt {
        out.push_str("<|im_start|>assistant\n");
    }
    out
}

/// Gemma's template refuses a conversation whose turns do not alternate user/model. Skiff's
/// conversations can have two user-side messages in a row (a tool result after a question, a
/// second system message), so those are joined into one turn with a blank line rather than
/// refused; for alternating conversations the output is the template's.
fn render_gemma(messages: &[TemplateMessage], add_generation_prompt: bool) -> String {
    let mut rest = messages;
    // The template takes the first system message untrimmed and puts it, with a blank line,
    // at the start of the first turn.
    let mut first_prefix = String::new();
    if let Some((first, tail)) = messages.split_first() {
        if first.role == Role::System {
            first_prefix = format!("{}\n\n", first.content);
            rest = tail;
        }
    }

    // (is_model, content) turns, consecutive same-side messages joined.
    let mut turns: Vec<(bool, String)> = Vec::new();
    for m in rest {
        let is_model = m.role == Role::Assistant;
        let text = match m.role {
            Role::Tool => format!("{TOOL_PREFIX}{}", jinja_trim(&m.content)),
            _ => jinja_trim(&m.content).to_string(),
        };
        match turns.last_mut() {
            Some((last_is_model, content)) if *last_is_model == is_model => {
                content.push_str("\n\n");
                content.push_str(&text);
            }
            _ => turns.push((is_model, text)),
        }
    }

    let mut out = String::from("<bos>");
    for (i, (is_model, content)) in turns.iter().enumerate() {
        out.push_str("<start_of_turn>");
        out.push_str(if *is_model { "model" } else { "user" });
        out.push('\n');
        if i == 0 {
            out.push_str(&first_prefix);
        }
        out.push_str(content);
        out.push_str("<end_of_turn>\n");
    }
    if turns.is_empty() && !first_prefix.is_empty() {
        // Only a system message: the template would loop over nothing and drop it; keeping it
        // as a user turn lets a "system only" prompt still say something.
        out.push_str("<start_of_turn>user\n");
        out.push_str(&first_prefix);
        out.push_str("<end_of_turn>\n");
    }
    if add_generation_prompt {
        out.push_str("<start_of_turn>model\n");
    }
    out
}

/// Jinja's `trim` is Python's `str.strip()`, whose whitespace also includes the information
/// separators U+001C..U+001F that Rust's `trim` keeps.
fn jinja_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

#[cfg(test)]
#[path = "template_tests.rs"]
mod tests;
