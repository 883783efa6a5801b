//! Settings → Conversation: the system prompt and template, the input template, how much of a
//! conversation a request carries, and automatic titles. What each does is decided in
//! `skiff_core::pipeline`; this only edits the values.

use leptos::prelude::*;
use skiff_core::pipeline::context::{
    DEFAULT_CONTEXT_WINDOW, DEFAULT_HISTORY_COUNT, MIN_CONTEXT_WINDOW,
};
use skiff_core::pipeline::memory::DEFAULT_THRESHOLD_CHARS;
use skiff_core::pipeline::template::DEFAULT_SYSTEM_TEMPLATE;

use super::check_field::CheckField;
use super::context::ctx;
use super::fields::{TextArea, TextField};
use super::settings::SettingNumber;
use super::when::When;

#[component]
pub fn ConversationSettings() -> impl IntoView {
    let settings = ctx().settings.settings;
    view! {
        <h3>"Conversation"</h3>
        <TextArea
            label="System prompt"
            value=move || settings.with(|s| s.system_prompt.clone())
            on_input=move |v| settings.update(|s| s.system_prompt = v)
        />
        <CheckField
            id="system-template-enabled"
            label="Open every request with the system template (today's date, time and time zone, the model, how to write math)"
            get=|s| s.system_template_enabled
            set=|s, v| s.system_template_enabled = v
        />
        <When when=move || settings.with(|s| s.system_template_enabled)>
            <TextArea
                label="System template"
                id="system-template"
                rows=5
                verbatim=true
                value=move || settings.with(|s| s.system_template.clone())
                on_input=move |v| settings.update(|s| s.system_template = v)
            />
            <div class="row">
                <button
                    class="small"
                    disabled=move || settings.with(|s| s.system_template == DEFAULT_SYSTEM_TEMPLATE)
                    on:click=move |_| settings.update(|s| s.system_template = DEFAULT_SYSTEM_TEMPLATE.to_string())
                >"Restore the default template"</button>
            </div>
        </When>
        <TextField
            label="Input template"
            id="input-template"
            verbatim=true
            hint="Templates may use {{input}} (your message), {{model}}, {{ServiceProvider}}, {{cutoff}}, {{time}} and {{lang}}. An input template without {{input}} gets your message on a line after it."
            value=move || settings.with(|s| s.input_template.clone())
            on_input=move |v| settings.update(|s| s.input_template = v)
        />
        <div class="params">
            <SettingNumber
                label="Context window (tokens)"
                min=f64::from(MIN_CONTEXT_WINDOW)
                max=10_000_000.0
                integer=true
                get=|s| Some(f64::from(s.context_window))
                set=|s, v| s.context_window = v.map_or(DEFAULT_CONTEXT_WINDOW, |v| v as u32)
            />
            <SettingNumber
                label="Messages sent at most"
                min=1.0
                max=10_000.0
                integer=true
                get=|s| Some(f64::from(s.history_count))
                set=|s, v| s.history_count = v.map_or(DEFAULT_HISTORY_COUNT as u32, |v| v as u32)
            />
        </div>
        <p class="hint">"Each request carries the newest messages that fit the model's context window (minus room for the answer, the system prompt and the tools), oldest left out first. Set the window your model really has: llama.cpp's --ctx-size, or the provider's published limit."</p>
        <CheckField
            id="auto-title"
            label="Name conversations automatically (one short request to the model after its first answer)"
            get=|s| s.auto_title
            set=|s, v| s.auto_title = v
        />
        <CheckField
            id="auto-compact"
            label="Compact long conversations: when older messages would no longer fit, the model summarizes them and receives the summary instead"
            get=|s| s.auto_compact
            set=|s, v| s.auto_compact = v
        />
        <CheckField
            id="running-memory"
            label="Keep a running summary (NextChat's memory): summarize whenever 1,000 characters have not been summarized yet"
            get=|s| s.memory_threshold_chars.is_some()
            set=|s, v| s.memory_threshold_chars = v.then_some(DEFAULT_THRESHOLD_CHARS)
        />
    }
}
