//! The input box: Enter sends, Shift+Enter adds a line; while a reply streams the button
//! becomes Stop and Enter queues the message (shown above the box, with Cancel) until the
//! answer ends. The draft survives a failed send, and queued text that is not sent comes back.
//!
//! The box is where typing goes: it takes focus on load and whenever an action removes the
//! element that had it (Stop, choosing a server, switching conversations), through
//! [`focus_composer`]. What happens to queued text is `skiff_core::send_queue`'s decision.

use crate::stores::reactive::{effect, memo};
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::records::attachment::Attachment;

use crate::platform::storage;
use skiff_core::send_queue::{back_beside_draft, back_into_draft, QueueOutcome, Queued, SendQueue};
use wasm_bindgen::JsCast;

use super::attachment_chip::chips;
use super::context::ctx;
use super::context_gauge::ContextGauge;
use super::lazy::Lazy;
use super::mcp::{self as mcp_ui, PickerSlot};
use super::when::When;

/// The message box's element id, for [`focus_composer`].
const INPUT_ID: &str = "composer-input";
/// Where the next message's attachment records wait across reloads.
const PENDING_KEY: &str = "skiff:pending-attachments";

/// Whether this key press sends the box's text (`skiff_core::shortcuts::sends_message`): the
/// composer's rule, shared by the box that edits a sent message.
pub fn sends_message(ev: &leptos::ev::KeyboardEvent) -> bool {
    let key = ev.key();
    skiff_core::shortcuts::sends_message(skiff_core::shortcuts::KeyPress {
        key: &key,
        ctrl: ev.ctrl_key(),
        meta: ev.meta_key(),
        shift: ev.shift_key(),
        alt: ev.alt_key(),
        composing: ev.is_composing(),
        // The box's own listener: nothing before it handled the key.
        handled: false,
    })
}

/// How files join the next message (the composer owns the pending attachments).
type AttachFn = Box<dyn Fn(Vec<web_sys::File>)>;

thread_local! {
    static ATTACH: std::cell::RefCell<Option<AttachFn>> = const { std::cell::RefCell::new(None) };
}

/// Attach `files` to the next message, through the checks a picked file meets (an MCP
/// resource the user chose). A refusal shows beside the message box, as for a picked file.
pub fn attach_files(files: Vec<web_sys::File>) -> Result<(), String> {
    ATTACH.with(|a| match &*a.borrow() {
        Some(add) => {
            add(files);
            Ok(())
        }
        None => Err("Open a conversation first: attachments join the message box.".into()),
    })
}

/// Puts the caret in the message box, so the next keystroke is not lost on `<body>`.
///
/// Not on touch screens: there focus opens the on-screen keyboard over the conversation the
/// user just picked; they tap the box when they want to type.
pub fn focus_composer() {
    let coarse = window()
        .match_media("(pointer: coarse)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches());
    if coarse {
        return;
    }
    let input = document()
        .get_element_by_id(INPUT_ID)
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(el) = input {
        if let Err(e) = el.focus() {
            leptos::logging::warn!("could not focus the message box: {e:?}");
        }
    }
}

#[component]
pub fn Composer() -> impl IntoView {
    let ctx = ctx();
    let draft = RwSignal::new(String::new());
    let queue = RwSignal::new(SendQueue::default());
    // Why queued text came back instead of being sent; cleared by the next edit or send.
    // Also a file or a send refused (too large, unsupported, storage full, a provider that
    // cannot take it): one line for both, so the page holds one such view.
    let hint = RwSignal::new(None::<String>);
    let input = NodeRef::<html::Textarea>::new();
    // Files attached to the next message (stored already; `data` kept for the thumbnails).
    // The records (not the bytes, which are in the blob store by hash) outlive a reload, so a
    // file or an MCP resource attached and not yet sent is not lost.
    let kept: Vec<Attachment> = storage::get(PENDING_KEY)
        .ok()
        .flatten()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    let pending = RwSignal::new(kept);
    crate::stores::reactive::effect(move || {
        let records = pending.with(|p| serde_json::to_string(p).unwrap_or_default());
        let _ = if records == "[]" {
            storage::remove(PENDING_KEY)
        } else {
            storage::set(PENDING_KEY, &records)
        };
    });
    let add_files = move |files: Vec<web_sys::File>| {
        hint.set(None);
        spawn_local(async move {
            for f in files {
                match crate::runner::attach::prepare(ctx.convs, f).await {
                    Ok(a) => {
                        pending.try_update(|v| {
                            if !v.iter().any(|x| x.hash == a.hash) {
                                v.push(a)
                            }
                        });
                    }
                    Err(e) => {
                        hint.try_set(Some(e));
                    }
                }
            }
        });
    };
    let add = move |list: Option<web_sys::FileList>| {
        add_files(
            list.map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
                .unwrap_or_default(),
        )
    };
    // An MCP resource the user picked (its runner reads it and hands over files).
    ATTACH.with(|a| *a.borrow_mut() = Some(Box::new(add_files)));
    let has_mcp = move || ctx.mcp.servers.with(|s| !s.is_empty());
    let surfaces = mcp_ui::surfaces();
    let slot = PickerSlot::new(draft);
    // The pickers (on-demand chunks) find the box's slot here.
    provide_context(slot);
    // The text up to the caret: the pickers' signs are read from it (the caret counts UTF-16
    // units: sliced on the JS side).
    let track = move |el: &web_sys::HtmlTextAreaElement| {
        if !has_mcp() {
            return;
        }
        let text = el.value();
        let caret = el.selection_start().ok().flatten().unwrap_or(0);
        let before = String::from(js_sys::JsString::from(text.as_str()).slice(0, caret));
        slot.typed_in(&text, &before);
    };
    let owner = Owner::current();
    let configured = move || ctx.settings.settings.with(|s| s.is_configured());
    let current_id = memo(move || ctx.convs.current.get().map(|l| l.id()));
    let sending = move || {
        current_id
            .get()
            .map(|id| ctx.runner.is_sending(&id))
            .unwrap_or(false)
    };
    let queued = move || {
        current_id
            .get()
            .and_then(|id| queue.with(|q| q.get(&id).map(Queued::shown)))
    };
    // Queued words and files back in the box (Cancel, a stopped answer, a refused send).
    let restore = move |q: Queued| {
        draft.update(|d| *d = back_into_draft(&q.text, d));
        pending.update(|p| back_beside_draft(p, q.files));
        focus_composer();
    };

    let send = move || {
        if !configured() {
            return;
        }
        let text = draft.get_untracked();
        let files = pending.get_untracked();
        if text.trim().is_empty() && files.is_empty() {
            return;
        }
        hint.set(None);
        if sending() {
            // An answer is arriving: hold the message and its files until it ends (see
            // send_queue).
            if let Some(id) = current_id.get_untracked() {
                queue.update(|q| q.push(&id, &text, files));
                draft.set(String::new());
                pending.set(Vec::new());
            }
            return;
        }
        match ctx.runner.send(
            ctx.convs,
            ctx.settings.settings.get_untracked(),
            text,
            files,
        ) {
            Ok(note) => {
                draft.set(String::new());
                pending.set(Vec::new());
                hint.set(note);
            }
            Err(e) => hint.set(Some(e)),
        }
        focus_composer();
    };

    // The open conversation's turn ended (or the user came back to a conversation whose turn
    // ended meanwhile): send what was queued for it, or hand it back with the reason.
    effect(move || {
        let Some(conv) = ctx.convs.current.get() else {
            return;
        };
        let id = conv.id();
        if ctx.runner.is_sending(&id) || queue.with(|q| q.get(&id).is_none()) {
            return;
        }
        let last = conv.messages.with(|ms| ms.last().map(|m| m.status.get()));
        let Some(outcome) = queue
            .try_update(|q| q.take_when_idle(&id, last.as_ref()))
            .flatten()
        else {
            return;
        };
        untrack(|| match outcome {
            QueueOutcome::Send(q) => {
                // Not under this effect's owner: the new messages' signals would be created
                // under it and disposed when the effect re-runs (sending changes at once),
                // which panicked on the next read. The composer lives as long as the page.
                let send = || {
                    ctx.runner.send(
                        ctx.convs,
                        ctx.settings.settings.get_untracked(),
                        q.text.clone(),
                        q.files.clone(),
                    )
                };
                let sent = match &owner {
                    Some(o) => o.with(send),
                    None => send(),
                };
                // A refusal (the model cannot take a queued file) loses nothing.
                if sent.is_err() {
                    restore(q);
                }
                hint.set(sent.unwrap_or_else(Some));
            }
            QueueOutcome::BackToDraft { queued, reason } => {
                restore(queued);
                hint.set(Some(reason.into()));
            }
        });
    });
    // A deleted conversation's queued text has nowhere to go.
    effect(move || {
        ctx.convs.index.with(|index| {
            if queue.with_untracked(|q| q != &SendQueue::default()) {
                queue.update(|q| q.retain_conversations(|id| index.iter().any(|s| s.id == id)));
            }
        });
    });

    let cancel_queued = move |_| {
        let Some(id) = current_id.get_untracked() else {
            return;
        };
        match queue.try_update(|q| q.cancel(&id)).flatten() {
            Some(q) => restore(q),
            None => focus_composer(),
        }
    };
    let stop = move |_| {
        if let Some(id) = ctx.convs.current_id() {
            ctx.runner.stop(&id);
        }
        // The Stop button is about to be replaced by Send; without this, focus falls to <body>.
        focus_composer();
    };
    // Typing starts here when the page opens.
    effect(move || {
        if input.get().is_some() {
            focus_composer();
        }
    });

    let placeholder = move || {
        if !configured() {
            "Set up a provider in Settings to start chatting"
        } else if sending() {
            "Answer in progress… Enter queues your next message"
        } else {
            "Message (Enter to send, Shift+Enter for a new line)"
        }
    };
    let aria = move |f: fn(&mcp_ui::BoxAria) -> Option<String>| move || slot.aria.with(f);
    view! {
        // The `/` panel sits right above the composer.
        <When when=move || slot.prompt_open.get() && has_mcp()>
            <Lazy load=mcp_ui::prompt_surface surface="Prompts" />
        </When>
        <When when=move || slot.mention_open.get() && has_mcp()>
            <Lazy load=mcp_ui::mention_surface surface="MCP resources" />
        </When>
        <form class="composer" on:submit=move |ev| {
            ev.prevent_default();
            send();
        }
            on:dragover=move |ev: leptos::ev::DragEvent| ev.prevent_default()
            on:drop=move |ev: leptos::ev::DragEvent| {
                ev.prevent_default();
                add(ev.data_transfer().and_then(|d| d.files()));
            }
        >
            {move || queued().map(|text| view! {
                <div class="queued" role="status">
                    <div class="queued-label">"Queued: sends when this answer ends"</div>
                    <div class="queued-text">{text}</div>
                    <button type="button" class="small queued-cancel" title="Don't send it; put the text back in the box" on:click=cancel_queued>"Cancel"</button>
                </div>
            })}
            {move || hint.get().map(|h| view! { <div class="composer-hint" role="status">{h}</div> })}
            {move || chips(pending.get(), Some(pending))}
            // The input is visually hidden, not `hidden`: it keeps keyboard focus and the
            // picker opens with Space or Enter; the label draws the ring.
            <label class="attach-button" title="Attach images, PDFs or text files">
                {super::icons::paperclip()}
                <input type="file" multiple class="visually-hidden" aria-label="Attach files"
                    on:change=move |ev| {
                        let el: web_sys::HtmlInputElement = event_target(&ev);
                        add(el.files());
                        el.set_value("");
                    } />
            </label>
            {move || has_mcp().then(|| view! {
                <button type="button" class="attach-button mcp-button" title="MCP resources and prompts"
                    aria-label="MCP resources and prompts"
                    on:click=move |_| surfaces.open_browser(String::new())>"@"</button>
            })}
            <textarea
                id=INPUT_ID
                node_ref=input
                rows="1"
                aria-label="Message"
                placeholder=placeholder
                aria-controls=aria(|a| a.controls.map(str::to_string))
                aria-activedescendant=aria(|a| a.active.clone())
                aria-expanded=aria(|a| a.expanded.then(|| "true".to_string()))
                aria-autocomplete=aria(|a| a.autocomplete.then(|| "list".to_string()))
                prop:value=move || draft.get()
                on:input=move |ev| {
                    hint.set(None);
                    let el: web_sys::HtmlTextAreaElement = event_target(&ev);
                    draft.set(el.value());
                    // `/prompt` or `@resource`: the MCP pickers (only with servers).
                    track(&el);
                }
                on:click=move |ev| track(&event_target(&ev))
                on:focusout=move |_| slot.blurred()
                on:paste=move |ev: leptos::ev::ClipboardEvent| {
                    let files = ev.clipboard_data().and_then(|d| d.files());
                    // Pasted text stays the textarea's; only files become attachments.
                    if files.as_ref().is_some_and(|f| f.length() > 0) {
                        ev.prevent_default();
                        add(files);
                    }
                }
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    // An open picker's keys first: Enter chooses there, it does not send.
                    if slot.key(&ev) {
                        ev.prevent_default();
                        return;
                    }
                    if sends_message(&ev) {
                        ev.prevent_default();
                        send();
                    }
                }
            ></textarea>
            <When
                when=sending
                fallback=move || view! {
                    <button
                        type="submit"
                        class="primary send"
                        disabled=move || {
                            !configured()
                                || (draft.with(|d| d.trim().is_empty()) && pending.with(Vec::is_empty))
                        }
                    >
                        "Send"
                    </button>
                }
            >
                <button type="button" class="danger stop" on:click=stop>"Stop"</button>
            </When>
            <ContextGauge draft=draft />
        </form>
    }
}
