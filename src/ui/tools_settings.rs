//! The "Tools" settings tab: how tools are offered to the model, how far one turn may go, how
//! much of a result the model reads, and the approval choices the user asked Skiff to remember.
//!
//! Like the Provider tab, every field applies as it is edited, and an invalid number is
//! reported beside its field and never saved.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use skiff_core::display::text;
use skiff_core::records::approval::ApprovalRule;
use skiff_core::records::approval::RuleEntry;
use skiff_core::records::tool_mode::{ToolMode, ToolModeSetting};
use skiff_core::settings::ChatSettings;

use super::check_field::CheckField;
use super::context::ctx;
use super::fields::EnumSelect;
use super::when::When;

/// The longest a turn may be allowed to run; past this a loop is more likely than a task.
const MAX_STEP_LIMIT: u32 = 100;
/// Below this a result is cut before most tools have said anything useful.
const MIN_RESULT_LIMIT: usize = 500;
/// Far beyond any context window; only there to keep the number sane.
const MAX_RESULT_LIMIT: usize = 10_000_000;

#[component]
pub fn ToolsSettings() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;

    // What the current conversation (or a new one) uses.
    let resolved = move || {
        let choice = ctx
            .convs
            .current
            .get()
            .and_then(|c| c.meta.with(|m| m.model.clone()));
        settings.with(|s| s.for_conversation(choice.as_ref()))
    };
    let learned = move || {
        let s = resolved();
        s.learned_tool_modes.get(&s.model_key()).copied()
    };
    let forget = move |_| {
        let key = resolved().model_key();
        settings.update(|s| {
            s.learned_tool_modes.remove(&key);
        })
    };

    view! {
        <div class="tools-settings">
            <h3>"Tool calls"</h3>
            <EnumSelect<ToolModeSetting>
                label="How tools are offered to the model"
                id="tool-mode"
                value=move || settings.with(|s| s.tool_mode)
                on_change=move |mode: ToolModeSetting| settings.update(|s| s.tool_mode = mode)
            />
            <p class="hint learned-tool-mode">
                {move || {
                    let model = resolved().target.model;
                    let model = if model.is_empty() { "the server's default model".to_string() } else { model };
                    match learned() {
                        Some(mode) => view! {
                            <span>
                                {format!("{} ", learned_text(mode, &model))}
                                <button class="link-button forget-tool-mode" on:click=forget>"Forget"</button>
                            </span>
                        }
                        .into_any(),
                        None => view! {
                            <span>{format!("Auto has not seen {model} call a tool yet: it offers tools natively, and switches to prompt-based tools if the server refuses them.")}</span>
                        }
                        .into_any(),
                    }
                }}
            </p>

            <div class="params">
                <IntField
                    id="step-limit"
                    label="Step limit"
                    min=1
                    max=MAX_STEP_LIMIT as usize
                    get=|s| s.step_limit as usize
                    set=|s, v| s.step_limit = v as u32
                />
                <IntField
                    id="result-limit"
                    label="Result limit (characters)"
                    min=MIN_RESULT_LIMIT
                    max=MAX_RESULT_LIMIT
                    get=|s| s.result_char_limit
                    set=|s, v| s.result_char_limit = v
                />
            </div>
            <p class="hint">
                "The step limit is how many model requests one turn may make before Skiff stops and asks you to continue. "
                "The result limit is how much of one tool result is sent to the model; you always see the whole result."
            </p>

            <CheckField
                id="tool-images"
                label="Send images from tool results to the model (for vision models)"
                get=|s| s.tool_images_to_model
                set=|s, v| s.tool_images_to_model = v
            />
            <CheckField
                id="allow-read-only"
                label="Run tools their server marks read-only without asking"
                get=|s| s.approvals.allow_read_only
                set=|s, v| s.approvals.allow_read_only = v
            />

            <h3>"Remembered approvals"</h3>
            <ApprovalRules />
        </div>
    }
}

/// Only what auto mode observed: a real native call, or the server refusing `tools`.
fn learned_text(mode: ToolMode, model: &str) -> String {
    match mode {
        ToolMode::Native => format!("Auto saw {model} call a tool with native function calling."),
        ToolMode::Prompt => {
            format!("The server refused native tools for {model}, so Auto uses prompt-based tools.")
        }
        ToolMode::Off => format!("Auto offers no tools to {model}."),
    }
}

/// A whole-number setting with bounds. Unlike the Provider tab's fields it has no "default"
/// empty state: these settings always hold a value, so an empty field is just not saved.
#[component]
fn IntField(
    id: &'static str,
    label: &'static str,
    min: usize,
    max: usize,
    get: fn(&ChatSettings) -> usize,
    set: fn(&mut ChatSettings, usize),
) -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let error = RwSignal::new(None::<String>);
    let initial = settings.with_untracked(get).to_string();
    view! {
        <label class="field number">
            <span>{label}</span>
            <input
                id=id
                type="number"
                inputmode="numeric"
                min=min.to_string()
                max=(max != MAX_RESULT_LIMIT).then(|| max.to_string())
                step="1"
                value=initial
                on:input=move |ev| {
                    let raw = event_target_value(&ev);
                    match raw.trim().parse::<usize>() {
                        Ok(v) if (min..=max).contains(&v) => {
                            error.set(None);
                            settings.update(|s| set(s, v));
                        }
                        _ => error.set(Some(if max == MAX_RESULT_LIMIT {
                            format!("{label} must be a whole number of at least {min}; not saved.")
                        } else {
                            format!("{label} must be a whole number from {min} to {max}; not saved.")
                        })),
                    }
                }
            />
            {move || error.get().map(|e| view! { <small class="error">{e}</small> })}
        </label>
    }
}

/// The rules "Always allow" and "Never allow" stored, one row per server and tool. Rules are
/// listed, changed and forgotten through `ApprovalPolicy`'s own methods, by their stored key.
#[component]
fn ApprovalRules() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let entries = memo(move || settings.with(|s| s.approvals.list_rules()));
    view! {
        <When
            when=move || !entries.with(Vec::is_empty)
            fallback=|| view! {
                <p class="muted approval-rules-empty">
                    "No remembered choices. \"Always allow\" and \"Never allow\" on a tool call add one here."
                </p>
            }
        >
            <table class="approval-rules">
                <thead>
                    <tr><th>"Server"</th><th>"Tool"</th><th>"Rule"</th><th></th></tr>
                </thead>
                <tbody>
                    // Redrawn whole when a rule changes: a few rows with no state of their own,
                    // cheaper in page bytes than a keyed <For>.
                    {move || entries.get().into_iter().map(|entry| view! { <ApprovalRuleRow entry=entry /> }).collect_view()}
                </tbody>
            </table>
        </When>
    }
}

#[component]
fn ApprovalRuleRow(entry: RuleEntry) -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let server = ctx
        .mcp
        .server_name(&entry.server_id)
        .unwrap_or_else(|| entry.server_id.clone());
    let key = StoredValue::new(entry.key);
    let rule = move || settings.with(|s| key.with_value(|k| s.approvals.rule_for_key(k)));
    let set_rule = move |r: ApprovalRule| {
        settings.update(|s| key.with_value(|k| s.approvals.set_rule_for_key(k, r)))
    };
    view! {
        <tr class="approval-rule-row" data-server-id=entry.server_id data-tool=entry.tool_name.clone()>
            <td class="approval-rule-server">{text::name(&server).into_owned()}</td>
            <td><code>{text::name(&entry.tool_name).into_owned()}</code></td>
            <td>
                <select class="approval-rule" on:change=move |ev| {
                    set_rule(event_target_value(&ev).parse().unwrap_or_default());
                }>
                    {ApprovalRule::ALL
                        .iter()
                        .map(|&r| view! { <option value=r.as_str() selected=move || rule() == r>{r.label()}</option> })
                        .collect_view()}
                </select>
            </td>
            <td>
                <button class="small remove-rule" on:click=move |_| set_rule(ApprovalRule::Ask)>"Remove"</button>
            </td>
        </tr>
    }
}
