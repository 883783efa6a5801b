//! The renders against the GGUF's own Jinja template as Jinja2 rendered it (captured by
//! scripts/capture-model-fixtures.py), byte for byte, and the cases the templates leave open.

use super::super::test_models::{gemma3, smollm2, TestModel};
use super::*;

fn role(name: &str) -> Role {
    match name {
        "system" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => panic!("fixture role {other}"),
    }
}

fn messages(value: &serde_json::Value) -> Vec<TemplateMessage> {
    value
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| {
            TemplateMessage::new(
                role(m["role"].as_str().expect("role")),
                m["content"].as_str().expect("content"),
            )
        })
        .collect()
}

fn check_captured(m: &TestModel) {
    let chat = &m.fixture()["chat"];
    let template = ChatTemplate::for_model(&m.header);
    let default = ChatTemplate::default_system_prompt(&m.header);
    let rendered = template.render(&messages(&chat["messages"]), true);
    assert_eq!(
        rendered,
        chat["rendered"].as_str().expect("rendered"),
        "{}",
        m.file
    );
    // Rendering with the default changes nothing when a system message is there.
    assert_eq!(
        template.render_with_default(default.as_deref(), &messages(&chat["messages"]), true),
        rendered
    );
    let no_system = &chat["no_system"];
    assert_eq!(
        template.render_with_default(default.as_deref(), &messages(&no_system["messages"]), true),
        no_system["rendered"].as_str().expect("rendered"),
        "{} without a system message",
        m.file
    );
}

#[test]
fn smollm2_render_equals_its_gguf_template() {
    check_captured(smollm2());
    // llama.cpp's built-in ChatML agrees.
    let chat = &smollm2().fixture()["chat"];
    assert_eq!(chat["builtin_render"], chat["rendered"]);
}

#[test]
fn gemma3_render_equals_the_official_template() {
    check_captured(gemma3());
    // llama.cpp's built-in "gemma" template is the same without the BOS text (llama.cpp adds
    // BOS as a token instead).
    let chat = &gemma3().fixture()["chat"];
    let rendered = chat["rendered"].as_str().expect("rendered");
    assert_eq!(
        Some(chat["builtin_render"].as_str().expect("builtin")),
        rendered.strip_prefix("<bos>")
    );
}

#[test]
fn tool_results_are_user_turns_with_a_label() {
    let msgs = vec![
        TemplateMessage::new(Role::User, "Weather in Oslo?"),
        TemplateMessage::new(Role::Assistant, "Calling the weather tool."),
        TemplateMessage::new(Role::Tool, "  {\"temp\": 3}  "),
    ];
    assert_eq!(
        ChatTemplate::ChatMl.render(&msgs, true),
        "<|im_start|>user\nWeather in Oslo?<|im_end|>\n\
         <|im_start|>assistant\nCalling the weather tool.<|im_end|>\n\
         <|im_start|>user\nTool result:\n  {\"temp\": 3}  <|im_end|>\n\
         <|im_start|>assistant\n"
    );
    assert_eq!(
        ChatTemplate::Gemma.render(&msgs, false),
        "<bos><start_of_turn>user\nWeather in Oslo?<end_of_turn>\n\
         <start_of_turn>model\nCalling the weather tool.<end_of_turn>\n\
         <start_of_turn>user\nTool result:\n{\"temp\": 3}<end_of_turn>\n"
    );
}

#[test]
fn gemma_joins_turns_that_do_not_alternate() {
    let msgs = vec![
        TemplateMessage::new(Role::System, " Be brief. "),
        TemplateMessage::new(Role::User, "Question?"),
        TemplateMessage::new(Role::Tool, "42"),
        TemplateMessage::new(Role::System, "Later rule."),
    ];
    assert_eq!(
        ChatTemplate::Gemma.render(&msgs, true),
        "<bos><start_of_turn>user\n Be brief. \n\nQuestion?\n\nTool result:\n42\n\nLater rule.\
         <end_of_turn>\n<start_of_turn>model\n"
    );
    // A lone system message is kept as a user turn, not dropped.
    let only = vec![TemplateMessage::new(Role::System, "Rules.")];
    assert_eq!(
        ChatTemplate::Gemma.render(&only, true),
        "<bos><start_of_turn>user\nRules.\n\n<end_of_turn>\n<start_of_turn>model\n"
    );
}

#[test]
fn jinja_trim_matches_python_strip() {
    assert_eq!(jinja_trim("\u{1c}\t x \n\u{3000}"), "x");
    assert_eq!(jinja_trim("\u{200b}x"), "\u{200b}x"); // zero-width space is not whitespace
}
