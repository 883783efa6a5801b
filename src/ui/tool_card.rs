//! Tool calls as cards inside an assistant message, and the sources listed under the answer
//! that used them.
//!
//! Each card watches only its own record (a memo over the message's `tool_calls`), and each part
//! of a card watches only the fields it shows, so a progress tick re-renders one line of one
//! card. What a result contains comes from `skiff_core::agent::result`; this file only decides
//! how to show it safely: tool output is untrusted, so only raster images, audio and http(s)
//! links are made live, and everything else is shown as text.

use std::time::Duration;

use leptos::prelude::*;
use serde_json::Value;
use skiff_core::agent::result::{self, ResultPart};
use skiff_core::agent::{ToolCallRecord, ToolCallStatus, ToolProgress};
use skiff_core::chat::{MessageStatus, Role};

use super::context::ctx;
use crate::platform::clock;
use crate::stores::live_message::LiveMessage;

/// How often the elapsed time of a running call is redrawn.
const TICK_MS: u64 = 100;

/// Raster formats only: an SVG can carry script, and a format the browser cannot decode would
/// show a broken image instead of a useful note.
const IMAGE_MIMES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The cards of one assistant message, in call order.
#[component]
pub fn ToolCards(msg: LiveMessage) -> impl IntoView {
    // A card's key is its call id plus how many earlier calls share that id: a provider that
    // repeats an id must not make two cards fight over one key.
    let keys = Memo::new(move |_| {
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
        <Show when=move || !keys.with(Vec::is_empty)>
            <div class="tool-cards">
                <For
                    each=move || keys.get()
                    key=|k| k.clone()
                    children=move |(id, nth)| {
                        let record = record_memo(msg, id, nth);
                        view! { <ToolCard msg=msg record=record /> }
                    }
                />
            </div>
        </Show>
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

/// The card's `data-status`: the record's status, with an answered call whose result says
/// `isError` shown as an error.
fn status_name(r: &ToolCallRecord) -> &'static str {
    match &r.status {
        ToolCallStatus::Pending => "pending",
        ToolCallStatus::AwaitingApproval => "awaiting_approval",
        ToolCallStatus::Running => "running",
        ToolCallStatus::Done if r.is_error() => "error",
        ToolCallStatus::Done => "done",
        ToolCallStatus::Error(_) => "error",
        ToolCallStatus::Cancelled => "cancelled",
        ToolCallStatus::Denied => "denied",
    }
}

fn format_ms(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{} ms", ms.max(0.0).round())
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

/// The arguments as the user should read them: indented when they are JSON, as written when
/// they are not (the model's broken JSON is worth seeing as is).
fn pretty_arguments(raw: &str) -> String {
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| raw.to_string()),
        Err(_) => raw.to_string(),
    }
}

/// A MIME type reduced to `type/subtype` in lowercase, or `None` when it has characters that
/// could change the meaning of the data: URL it is put into.
fn clean_mime(mime: &str) -> Option<String> {
    let base = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (kind, sub) = base.split_once('/')?;
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_'))
    };
    (token(kind) && token(sub)).then_some(base)
}

/// Base64 as a server should send it; anything else is not put into a data: URL.
fn is_base64(data: &str) -> bool {
    data.bytes().all(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\r' | b'\n' | b' ')
    })
}

fn data_url(mime: &str, data: &str) -> String {
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    format!("data:{mime};base64,{compact}")
}

fn size_text(data: &str) -> String {
    skiff_core::format::human_bytes(result::base64_decoded_len(data) as u64)
}

/// The link target for a URI from a tool, or `None` unless it is http or https. The browser's
/// own URL parser decides, so the scheme checked is the scheme the browser will follow (tabs,
/// newlines and leading controls removed, case folded), and the href is its serialisation.
pub(crate) fn web_href(uri: &str) -> Option<String> {
    let url = web_sys::Url::new(uri).ok()?;
    matches!(url.protocol().as_str(), "http:" | "https:").then(|| url.href())
}

/// A file name for a downloaded blob: the URI's last path segment, reduced to safe characters.
fn download_name(uri: &str) -> String {
    let last = uri
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or("");
    let name: String = last
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .take(80)
        .collect();
    if name.trim_matches('.').is_empty() {
        "resource".to_string()
    } else {
        name
    }
}

#[component]
fn ToolCard(msg: LiveMessage, record: Memo<Option<ToolCallRecord>>) -> impl IntoView {
    let ctx = ctx();
    let field = move |f: fn(&ToolCallRecord) -> String| {
        record.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let call_id = Memo::new(move |_| field(|r| r.id.clone()));
    let name = Memo::new(move |_| field(|r| r.name.clone()));
    let tool = Memo::new(move |_| {
        field(|r| {
            if r.tool_name.is_empty() {
                r.name.clone()
            } else {
                r.tool_name.clone()
            }
        })
    });
    let server = Memo::new(move |_| {
        field(|r| match (&r.server_name, &r.server_id) {
            (n, _) if !n.is_empty() => n.clone(),
            (_, Some(id)) => id.clone(),
            _ => String::new(),
        })
    });
    let status = Memo::new(move |_| {
        record.with(|r| {
            r.as_ref()
                .map(|r| r.status.clone())
                .unwrap_or(ToolCallStatus::Pending)
        })
    });
    let status_attr =
        Memo::new(move |_| record.with(|r| r.as_ref().map(status_name).unwrap_or("pending")));
    let running = Memo::new(move |_| status.with(|s| *s == ToolCallStatus::Running));
    // Only a change of this value moves the card's open state, so a card the user opened stays
    // open when it finishes, and one they closed stays closed while it runs.
    let should_open =
        Memo::new(move |_| matches!(status_attr.get(), "awaiting_approval" | "error"));

    // One interval per running card, cleared when it stops running or the card goes away.
    let now = RwSignal::new(clock::now_ms());
    Effect::new(move |_| {
        if running.get() {
            now.set(clock::now_ms());
            if let Ok(handle) = set_interval_with_handle(
                move || now.set(clock::now_ms()),
                Duration::from_millis(TICK_MS),
            ) {
                on_cleanup(move || handle.clear());
            }
        }
    });
    let started = Memo::new(move |_| record.with(|r| r.as_ref().and_then(|r| r.started_ms)));
    let duration =
        Memo::new(move |_| record.with(|r| r.as_ref().and_then(ToolCallRecord::duration_ms)));
    let state_text = move || match status_attr.get() {
        "awaiting_approval" => "Waiting for approval".to_string(),
        "running" => match started.get() {
            Some(start) => format!("Running… {:.1} s", ((now.get() - start) / 1000.0).max(0.0)),
            None => "Running…".to_string(),
        },
        "done" => match duration.get() {
            Some(ms) => format!("Done in {}", format_ms(ms)),
            None => "Done".to_string(),
        },
        "error" => "Error".to_string(),
        "cancelled" => "Cancelled".to_string(),
        "denied" => "Denied".to_string(),
        _ => "Pending".to_string(),
    };

    let arguments = Memo::new(move |_| field(|r| r.arguments.clone()));
    let progress = Memo::new(move |_| {
        record.with(|r| {
            r.as_ref()
                .filter(|r| r.status == ToolCallStatus::Running)
                .and_then(|r| r.progress.clone())
        })
    });
    let error_sentence = Memo::new(move |_| match status.get() {
        ToolCallStatus::Error(sentence) => Some(sentence),
        _ => None,
    });
    let result_value =
        Memo::new(move |_| record.with(|r| r.as_ref().and_then(|r| r.result.clone())));
    let result_is_error = Memo::new(move |_| {
        record.with(|r| {
            r.as_ref()
                .is_some_and(|r| r.result.is_some() && r.is_error())
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
            data-status=move || status_attr.get()
            prop:open=move || should_open.get()
        >
            <summary>
                <span class="tool-card-dot" aria-hidden="true"></span>
                <span class="tool-card-name">{move || tool.get()}</span>
                <span class="tool-card-server">{move || server.get()}</span>
                <span class="tool-card-state">{state_text}</span>
            </summary>
            <div class="tool-card-body">
                <pre class="tool-card-args">{move || pretty_arguments(&arguments.get())}</pre>
                {move || progress.get().map(progress_view)}
                <Show when=move || status_attr.get() == "awaiting_approval">
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
                </Show>
                {move || error_sentence.get().map(|s| view! { <div class="tool-error" role="alert">{s}</div> })}
                {move || result_value.get().map(|v| {
                    let class = if result_is_error.get() { "tool-result error" } else { "tool-result" };
                    view! { <div class=class>{result_parts(&v, &tool.get_untracked())}</div> }
                })}
            </div>
        </details>
    }
}

fn progress_view(p: ToolProgress) -> impl IntoView {
    // A total of zero or less cannot be a fraction; the bar is shown indeterminate instead.
    let bar = match p.total.filter(|t| *t > 0.0) {
        Some(total) => {
            view! { <progress value=p.progress.to_string() max=total.to_string()></progress> }
                .into_any()
        }
        None => view! { <progress></progress> }.into_any(),
    };
    let text = match (p.message, p.total.filter(|t| *t > 0.0)) {
        (Some(m), _) if !m.trim().is_empty() => m,
        (_, Some(total)) => format!("{} of {}", p.progress, total),
        _ => format!("{}", p.progress),
    };
    view! {
        <div class="tool-progress">
            {bar}
            <span class="tool-progress-text">{text}</span>
        </div>
    }
}

fn result_parts(v: &Value, tool: &str) -> AnyView {
    let parts = result::parts(v);
    if parts.is_empty() {
        return view! { <p class="tool-part-note">"The tool returned no content."</p> }.into_any();
    }
    parts
        .into_iter()
        .map(|p| part_view(p, tool))
        .collect_view()
        .into_any()
}

fn part_view(part: ResultPart, tool: &str) -> AnyView {
    match part {
        ResultPart::Text(t) => view! { <pre class="tool-part-text">{t}</pre> }.into_any(),
        ResultPart::Image { mime, data } => {
            match clean_mime(&mime).filter(|m| IMAGE_MIMES.contains(&m.as_str()) && is_base64(&data)) {
                Some(m) => view! {
                    <img class="tool-part-image" src=data_url(&m, &data) alt=format!("Image returned by {tool}") />
                }
                .into_any(),
                None => note(format!("An image of type {mime} ({}), not shown.", size_text(&data))),
            }
        }
        ResultPart::Audio { mime, data } => {
            match clean_mime(&mime).filter(|m| m.starts_with("audio/") && is_base64(&data)) {
                Some(m) => view! {
                    <audio class="tool-part-audio" controls src=data_url(&m, &data)></audio>
                }
                .into_any(),
                None => note(format!(
                    "Audio of type {mime} ({}), not played.",
                    size_text(&data)
                )),
            }
        }
        ResultPart::Resource {
            uri,
            mime,
            text,
            blob,
        } => {
            let body = match (text, blob) {
                (Some(t), _) => view! { <pre>{t}</pre> }.into_any(),
                (None, Some(b)) if is_base64(&b) => {
                    // Always downloaded as octet-stream: a data: URL typed text/html or SVG must
                    // never be something the browser could render.
                    let href = data_url("application/octet-stream", &b);
                    view! {
                        <p class="tool-part-blob">
                            {format!("Binary content, {}. ", size_text(&b))}
                            <a href=href download=download_name(&uri)>"Download"</a>
                        </p>
                    }
                    .into_any()
                }
                (None, Some(b)) => note(format!(
                    "Binary content, {}, not valid base64.",
                    size_text(&b)
                )),
                (None, None) => note("No content.".to_string()),
            };
            view! {
                <div class="tool-part-resource">
                    <div class="tool-part-resource-head">
                        <code>{uri}</code>
                        {mime.map(|m| view! { <span class="tool-part-mime">{m}</span> })}
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
            let link = match web_href(&uri) {
                Some(href) => view! {
                    <a class="tool-part-link" href=href target="_blank" rel="noopener noreferrer">{label}</a>
                }
                .into_any(),
                None => view! {
                    <span class="tool-part-link-text">{label}" "<code>{uri}</code></span>
                }
                .into_any(),
            };
            view! {
                <div class="tool-part-resource-link">
                    {link}
                    {mime.map(|m| view! { <span class="tool-part-mime">{m}</span> })}
                    {description.filter(|d| !d.trim().is_empty()).map(|d| view! { <p class="tool-part-description">{d}</p> })}
                </div>
            }
            .into_any()
        }
        ResultPart::Structured(s) => {
            view! { <pre class="tool-part-structured">{s}</pre> }.into_any()
        }
        ResultPart::Other(s) => view! { <pre class="tool-part-other">{s}</pre> }.into_any(),
    }
}

fn note(text: String) -> AnyView {
    view! { <p class="tool-part-note">{text}</p> }.into_any()
}

/// The web sources of a turn, under its final answer: the assistant message without tool calls
/// that follows one or more messages with tool calls since the user last wrote.
///
/// Reads the message list and the earlier messages' `tool_calls`, never `content`, so streaming
/// text does not re-run it.
#[component]
pub fn Sources(msg: LiveMessage) -> impl IntoView {
    let ctx = ctx();
    let sources = Memo::new(move |_| {
        if msg.role != Role::Assistant
            || msg.tool_calls.with(|c| !c.is_empty())
            // While it streams, this message may still turn out to call tools.
            || msg.status.with(|s| *s == MessageStatus::Streaming)
        {
            return Vec::new();
        }
        let Some(conv) = ctx.convs.current.get() else {
            return Vec::new();
        };
        let calls: Vec<ToolCallRecord> = conv.messages.with(|ms| {
            let Some(pos) = ms
                .iter()
                .position(|m| m.id.with_value(|a| msg.id.with_value(|b| a == b)))
            else {
                return Vec::new();
            };
            let mut calls = Vec::new();
            for m in ms[..pos].iter().rev() {
                if m.role == Role::User {
                    break;
                }
                if m.role == Role::Assistant {
                    m.tool_calls.with(|c| {
                        calls.splice(0..0, c.iter().cloned());
                    });
                }
            }
            calls
        });
        result::sources(calls.iter())
            .into_iter()
            .filter_map(|s| web_href(&s.uri).map(|href| (href, s.title)))
            .collect::<Vec<_>>()
    });
    view! {
        <Show when=move || !sources.with(Vec::is_empty)>
            <div class="sources">
                <span>"Sources"</span>
                <ol>
                    {move || {
                        sources
                            .get()
                            .into_iter()
                            .map(|(href, title)| view! {
                                <li><a class="source-link" href=href target="_blank" rel="noopener noreferrer">{title}</a></li>
                            })
                            .collect_view()
                    }}
                </ol>
            </div>
        </Show>
    }
}
