//! Tool calls as cards inside an assistant message, and the sources listed under the answer
//! that used them.
//!
//! Each card watches only its own record (a memo over the message's `tool_calls`), and each part
//! of a card watches only the fields it shows, so a progress tick re-renders one line of one
//! card. What a result contains comes from `skiff_core::tools::result`, and what of it may be
//! shown, and how, from `skiff_core::display` (tool output is untrusted: only allowlisted images
//! and audio, octet-stream downloads and http(s) links are made live, names are neutralised).
//! This file only lays those decisions out.

use std::time::Duration;

use crate::stores::reactive::memo;
use leptos::prelude::*;
use serde_json::Value;
use skiff_core::display::card::{self, CardStatus};
use skiff_core::display::{links, media, text};
use skiff_core::format::decimal;
use skiff_core::records::tool_call::{ToolCallRecord, ToolCallStatus, ToolProgress};
use skiff_core::tools::result;
use skiff_core::tools::result::ResultPart;

use super::clock_hook::use_timestamp_while;
use super::context::ctx;
use super::keyed_list::keyed_list;
use super::mcp::McpSurfaces;
use super::when::When;
use crate::stores::live_message::LiveMessage;

/// How often the elapsed time of a running call is redrawn.
const TICK_MS: u64 = 100;

/// The cards of one assistant message, in call order.
#[component]
pub fn ToolCards(msg: LiveMessage) -> impl IntoView {
    // A card's key is its call id plus how many earlier calls share that id: a provider that
    // repeats an id must not make two cards fight over one key.
    let keys = memo(move || {
        msg.tool_calls.with(|calls| {
            let mut keys: Vec<(String, usize)> = Vec::with_capacity(calls.len());
            for r in calls {
                let seen = keys.iter().filter(|(id, _)| *id == r.id).count();
                keys.push((r.id.clone(), seen));
            }
            keys
        })
    });
    view! {
        <When when=move || !keys.with(Vec::is_empty)>
            <div class="tool-cards">
                {keyed_list(
                    move || keys.get(),
                    |(id, nth)| format!("{id}\u{1f}{nth}"),
                    move |(id, nth)| {
                        let record = record_memo(msg, id, nth);
                        view! { <ToolCard msg=msg record=record /> }
                    },
                )}
            </div>
        </When>
    }
}

/// The record with this key, notifying only when that record changed. `new_owning` hands back
/// the previous value when it is equal, so an unrelated card's tick costs a comparison, not a
/// clone of a possibly large result.
fn record_memo(msg: LiveMessage, id: String, nth: usize) -> Memo<Option<ToolCallRecord>> {
    Memo::new_owning(move |prev: Option<Option<ToolCallRecord>>| {
        msg.tool_calls.with(|calls| {
            let current = calls.iter().filter(|r| r.id == id).nth(nth);
            match prev {
                Some(old) if old.as_ref() == current => (old, false),
                _ => (current.cloned(), true),
            }
        })
    })
}

#[component]
fn ToolCard(msg: LiveMessage, record: Memo<Option<ToolCallRecord>>) -> impl IntoView {
    let ctx = ctx();
    let field = move |f: fn(&ToolCallRecord) -> String| {
        record.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let call_id = memo(move || field(|r| r.id.clone()));
    let name = memo(move || field(|r| r.name.clone()));
    let tool = memo(move || field(card::tool_label));
    let server = memo(move || field(card::server_label));
    let status = memo(move || {
        record.with(|r| {
            r.as_ref()
                .map(|r| r.status().clone())
                .unwrap_or(ToolCallStatus::Pending)
        })
    });
    let shown = memo(move || {
        record.with(|r| {
            r.as_ref()
                .map(CardStatus::of)
                .unwrap_or(CardStatus::Pending)
        })
    });
    let running = memo(move || shown.get() == CardStatus::Running);
    // Only a change of this value moves the card's open state, so a card the user opened stays
    // open when it finishes, and one they closed stays closed while it runs.
    let should_open = memo(move || shown.get().opens_card());

    // The page's one clock, ticking for this card only while it runs.
    let now = use_timestamp_while(move || running.get(), Duration::from_millis(TICK_MS));
    let started = memo(move || record.with(|r| r.as_ref().and_then(|r| r.started_ms())));
    let duration = memo(move || record.with(|r| r.as_ref().and_then(ToolCallRecord::duration_ms)));
    let state_text = move || {
        let s = shown.get();
        // Only a running card's line moves with the clock.
        let now_ms = if s == CardStatus::Running {
            now.get()
        } else {
            0.0
        };
        s.state_text(started.get(), duration.get(), now_ms)
    };

    let arguments = memo(move || field(|r| r.arguments.clone()));
    let task_line = memo(move || record.with(|r| r.as_ref().and_then(card::task_line)));
    let task_status =
        memo(move || record.with(|r| r.as_ref().and_then(|r| r.task()).map(|t| t.status.as_str())));
    let progress = memo(move || {
        record.with(|r| {
            r.as_ref()
                .filter(|r| *r.status() == ToolCallStatus::Running)
                .and_then(|r| r.progress().cloned())
        })
    });
    let error_sentence = memo(move || match status.get() {
        ToolCallStatus::Error(sentence) => Some(text::prose(&sentence).into_owned()),
        _ => None,
    });
    let result_value = memo(move || record.with(|r| r.as_ref().and_then(|r| r.result().cloned())));
    // Resource links in the result open in the resource browser of the server that answered
    // (read there, and attached from there).
    let surfaces = use_context::<McpSurfaces>();
    let server_id = memo(move || record.with(|r| r.as_ref().and_then(|r| r.server_id.clone())));
    let links_to = move || server_id.get_untracked().zip(surfaces);
    let result_is_error = memo(move || {
        record.with(|r| {
            r.as_ref()
                .is_some_and(|r| r.result().is_some() && r.is_error())
        })
    });

    let decide = move |allow: bool, remember: bool| {
        let id = call_id.get_untracked();
        if allow {
            ctx.runner.approve_tool(&msg.id(), &id, remember);
        } else {
            ctx.runner.deny_tool(&msg.id(), &id, remember);
        }
    };

    view! {
        <details
            class="tool-card"
            data-call-id=move || call_id.get()
            data-tool=move || name.get()
            data-status=move || shown.get().as_str()
            prop:open=move || should_open.get()
        >
            <summary>
                <span class="tool-card-dot" aria-hidden="true"></span>
                <span class="tool-card-name">{move || tool.get()}</span>
                <span class="tool-card-server">{move || server.get()}</span>
                <span class="tool-card-state">{state_text}</span>
                {move || task_line.get().map(|line| view! {
                    <span class="tool-card-task" data-task-status=move || task_status.get()>{line}</span>
                })}
            </summary>
            <div class="tool-card-body">
                <pre class="tool-card-args">{move || card::pretty_arguments(&arguments.get())}</pre>
                {move || progress.get().map(progress_view)}
                <When when=move || shown.get() == CardStatus::AwaitingApproval>
                    <div class="tool-approval">
                        <p>
                            <strong>{move || { let s = server.get(); if s.is_empty() { "A server".to_string() } else { s } }}</strong>
                            " wants to run "
                            <code>{move || tool.get()}</code>
                            " with the arguments above."
                        </p>
                        <div class="tool-approval-actions">
                            <button class="primary approve-once" on:click=move |_| decide(true, false)>"Allow"</button>
                            <button class="approve-always" on:click=move |_| decide(true, true)>"Always allow"</button>
                            <button class="deny" on:click=move |_| decide(false, false)>"Deny"</button>
                            <button class="link-button small deny-always" on:click=move |_| decide(false, true)>"Never allow"</button>
                        </div>
                    </div>
                </When>
                {move || error_sentence.get().map(|s| view! { <div class="tool-error" role="alert">{s}</div> })}
                {move || result_value.get().map(|v| {
                    let class = if result_is_error.get() { "tool-result error" } else { "tool-result" };
                    view! { <div class=class>{result_parts(&v, &tool.get_untracked(), links_to())}</div> }
                })}
            </div>
        </details>
    }
}

fn progress_view(p: ToolProgress) -> impl IntoView {
    let (bar, text) = card::progress(&p);
    let bar = match bar {
        Some((value, max)) => {
            view! { <progress value=decimal(value) max=decimal(max)></progress> }.into_any()
        }
        None => view! { <progress></progress> }.into_any(),
    };
    view! {
        <div class="tool-progress">
            {bar}
            <span class="tool-progress-text">{text}</span>
        </div>
    }
}

/// Where a resource link leads: the server that answered, and the browser that shows it.
type LinksTo = Option<(String, McpSurfaces)>;

fn result_parts(v: &Value, tool: &str, links_to: LinksTo) -> AnyView {
    let parts = result::parts(v);
    if parts.is_empty() {
        return view! { <p class="tool-part-note">"The tool returned no content."</p> }.into_any();
    }
    parts
        .into_iter()
        .map(|p| part_view(p, tool, links_to.clone()))
        .collect_view()
        .into_any()
}

fn part_view(part: ResultPart, tool: &str, links_to: LinksTo) -> AnyView {
    match part {
        ResultPart::Text(t) => {
            view! { <pre class="tool-part-text">{text::prose(&t).into_owned()}</pre> }.into_any()
        }
        ResultPart::Image { mime, data } => match media::image_src(&mime, &data) {
            Some(src) => view! {
                <img class="tool-part-image" src=src alt=format!("Image returned by {tool}") />
            }
            .into_any(),
            None => note(format!(
                "An image of type {} ({}), not shown.",
                text::name(&mime),
                media::size_text(&data)
            )),
        },
        ResultPart::Audio { mime, data } => match media::audio_src(&mime, &data) {
            Some(src) => {
                view! { <audio class="tool-part-audio" controls src=src></audio> }.into_any()
            }
            None => note(format!(
                "Audio of type {} ({}), not played.",
                text::name(&mime),
                media::size_text(&data)
            )),
        },
        ResultPart::Resource {
            uri,
            mime,
            text,
            blob,
        } => {
            let body = match (text, blob) {
                (Some(t), _) => view! { <pre>{text::prose(&t).into_owned()}</pre> }.into_any(),
                (None, Some(b)) => match media::blob_href(&b) {
                    Some(href) => view! {
                        <p class="tool-part-blob">
                            {format!("Binary content, {}. ", media::size_text(&b))}
                            <a href=href download=links::download_name(&uri, mime.as_deref())>"Download"</a>
                        </p>
                    }
                    .into_any(),
                    None => note(format!(
                        "Binary content, {}, not valid base64.",
                        media::size_text(&b)
                    )),
                },
                (None, None) => note("No content.".to_string()),
            };
            view! {
                <div class="tool-part-resource">
                    <div class="tool-part-resource-head">
                        <code>{text::name(&uri).into_owned()}</code>
                        {mime.map(|m| view! { <span class="tool-part-mime">{text::name(&m).into_owned()}</span> })}
                    </div>
                    {body}
                </div>
            }
            .into_any()
        }
        ResultPart::ResourceLink {
            uri,
            name,
            title,
            description,
            mime,
        } => {
            let label = title.filter(|t| !t.trim().is_empty()).unwrap_or(name);
            let label = if label.trim().is_empty() {
                uri.clone()
            } else {
                label
            };
            let label = text::name(&label).into_owned();
            let link = match links::web_href(&uri) {
                Some(href) => view! {
                    <a class="tool-part-link" href=href target="_blank" rel="noopener noreferrer">{label}</a>
                }
                .into_any(),
                None => view! {
                    <span class="tool-part-link-text">{label}" "<code>{text::name(&uri).into_owned()}</code></span>
                }
                .into_any(),
            };
            let open = links_to.map(|(server, surfaces)| {
                view! {
                    <button
                        type="button"
                        class="link-button small tool-part-open"
                        on:click=move |_| surfaces.open_resource(server.clone(), uri.clone())
                    >
                        "Open in Resources"
                    </button>
                }
            });
            view! {
                <div class="tool-part-resource-link">
                    {link}
                    {open}
                    {mime.map(|m| view! { <span class="tool-part-mime">{text::name(&m).into_owned()}</span> })}
                    {description.filter(|d| !d.trim().is_empty()).map(|d| view! { <p class="tool-part-description">{text::prose(&d).into_owned()}</p> })}
                </div>
            }
            .into_any()
        }
        ResultPart::Structured(s) => {
            view! { <pre class="tool-part-structured">{text::prose(&s).into_owned()}</pre> }
                .into_any()
        }
        ResultPart::Other(s) => {
            view! { <pre class="tool-part-other">{text::prose(&s).into_owned()}</pre> }.into_any()
        }
    }
}

fn note(text: String) -> AnyView {
    view! { <p class="tool-part-note">{text}</p> }.into_any()
}

/// The web sources of a turn, under its final answer. Which answer lists them and what they
/// are is `result::lists_sources` and `result::turn_sources`; this only gathers the messages.
///
/// Reads the message list and the earlier messages' `tool_calls`, never `content`, so streaming
/// text does not re-run it.
#[component]
pub fn Sources(msg: LiveMessage) -> impl IntoView {
    let ctx = ctx();
    let sources = memo(move || {
        let made_calls = msg.tool_calls.with(|c| !c.is_empty());
        if !msg
            .status
            .with(|s| result::lists_sources(msg.role, made_calls, s))
        {
            return Vec::new();
        }
        let Some(conv) = ctx.convs.current.get() else {
            return Vec::new();
        };
        conv.messages.with(|ms| {
            let Some(pos) = ms
                .iter()
                .position(|m| m.id.with_value(|a| msg.id.with_value(|b| a == b)))
            else {
                return Vec::new();
            };
            result::turn_sources(ms[..pos].iter().rev().map(|m| (m.role, m.tool_calls.get())))
        })
    });
    view! {
        <When when=move || !sources.with(Vec::is_empty)>
            <div class="sources">
                <span>"Sources"</span>
                <ol>
                    {move || {
                        sources
                            .get()
                            .into_iter()
                            .map(|s| view! {
                                <li><a class="source-link" href=s.uri target="_blank" rel="noopener noreferrer">{s.title}</a></li>
                            })
                            .collect_view()
                    }}
                </ol>
            </div>
        </When>
    }
}
