//! An assistant message's markdown, rendered incrementally.
//!
//! Finished blocks are rendered once and appended to the DOM; only the growing tail is
//! re-rendered on each flush. This keeps the cost of a streamed token proportional to the tail,
//! not to the whole answer. `skiff_core::markdown` hands over a typed tree (no markup text: raw
//! HTML in the answer is a text node, links are vetted), which `markdown_dom.rs` turns into DOM
//! nodes. Nothing here parses markup.
//!
//! The renderer itself (pulldown-cmark, highlighting, math) is not needed before the message
//! box takes input, so it is an on-demand chunk of its own (`ui::lazy`): fetched when the
//! browser is idle after the first paint, or as soon as a message needs it, whichever comes
//! first. Until it is there (milliseconds from the cache; on an offline first visit that never
//! stored it, for good), a message shows its text as plain text: nothing is hidden or lost.

use std::cell::Cell;

use crate::stores::reactive::effect;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::markdown::{
    grown_code, preview_document, preview_frame_height, render_blocks, MarkdownUpdate, MdNode,
    PreviewKind, StreamingMarkdown, PREVIEW_PAGE, PREVIEW_SANDBOX,
};
use skiff_core::records::message::MessageStatus;
use wasm_bindgen::JsCast;

use crate::platform::clipboard;
use crate::stores::live_message::LiveMessage;
use crate::ui::markdown_dom::append_nodes;

/// What the markdown chunk hands back: the renderer's entry points, and the DOM builder for
/// its tree. Only these pointers reach that code, so all of it lands in the chunk.
#[derive(Clone, Copy)]
struct Engine {
    push: fn(&mut StreamingMarkdown, &str) -> MarkdownUpdate,
    finish: fn(&mut StreamingMarkdown) -> Vec<Vec<MdNode>>,
    render_blocks: fn(&str) -> Vec<Vec<MdNode>>,
    preview_document: fn(PreviewKind, &str) -> String,
    append: fn(&web_sys::Element, &[MdNode]),
    grown_code: for<'a> fn(&[MdNode], &'a [MdNode]) -> Option<&'a str>,
}

crate::split_point!(
    markdown_engine,
    markdown,
    Engine,
    Engine {
        push: StreamingMarkdown::push,
        finish: StreamingMarkdown::finish,
        render_blocks,
        preview_document,
        append: append_nodes,
        grown_code,
    }
);

#[derive(Clone, Copy, PartialEq)]
enum Load {
    Idle,
    Loading,
    Ready,
}

thread_local! {
    /// The window listener that sizes preview frames is installed (once, with the first).
    static SIZING: Cell<bool> = const { Cell::new(false) };
    static ENGINE: Cell<Option<Engine>> = const { Cell::new(None) };
    /// Whether the engine is loaded; messages shown as plain text re-render when it flips.
    static LOAD: ArcRwSignal<Load> = ArcRwSignal::new(Load::Idle);
}

/// The renderer, if its chunk is loaded (tracked: an effect that asks re-runs when it arrives).
fn engine() -> Option<Engine> {
    LOAD.with(|l| l.get());
    ENGINE.with(Cell::get)
}

/// Whether the renderer is here (tracked): every message drawn as plain text is drawn again
/// as markdown when it flips, which changes the list's height.
pub fn markdown_ready() -> bool {
    engine().is_some()
}

/// Starts fetching the markdown chunk unless it is loaded or loading. A failed load (offline
/// before it was ever stored) leaves messages as plain text; the next message that needs it
/// tries again.
pub fn preload() {
    let load = LOAD.with(Clone::clone);
    if load.get_untracked() != Load::Idle {
        return;
    }
    load.set(Load::Loading);
    spawn_local(async move {
        match markdown_engine().await {
            Ok(engine) => {
                ENGINE.with(|e| e.set(Some(engine)));
                load.set(Load::Ready);
            }
            Err(e) => {
                leptos::logging::warn!(
                    "markdown rendering is not available ({e}); messages show as plain text"
                );
                load.set(Load::Idle);
            }
        }
    });
}

struct RenderState {
    md: StreamingMarkdown,
    consumed: usize,
    revision: u32,
    finished: bool,
    /// The tail last written to the DOM, to recognise an open code block that only grew.
    shown_tail: Vec<MdNode>,
    /// The text is shown plain (the renderer was not loaded yet).
    plain: bool,
}

impl RenderState {
    fn new(revision: u32) -> Self {
        RenderState {
            md: StreamingMarkdown::new(),
            consumed: 0,
            revision,
            finished: false,
            shown_tail: Vec::new(),
            plain: false,
        }
    }
}

fn append(engine: Engine, container: &web_sys::HtmlDivElement, blocks: Vec<Vec<MdNode>>) {
    if blocks.is_empty() {
        return;
    }
    for block in &blocks {
        (engine.append)(container, block);
    }
    add_copy_buttons(container);
}

/// A Copy button on each finished code block (never on the growing tail, whose `<pre>` is
/// replaced on every flush). The button is ours, built here, not part of the rendered tree,
/// so the markdown writer's output stays exactly the document's.
fn add_copy_buttons(container: &web_sys::HtmlDivElement) {
    let Ok(blocks) = container.query_selector_all("pre:not([data-copy])") else {
        return;
    };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for i in 0..blocks.length() {
        let Some(pre) = blocks
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let _ = pre.set_attribute("data-copy", "");
        let Ok(button) = document.create_element("button") else {
            continue;
        };
        button.set_class_name("copy-code");
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("aria-label", "Copy code");
        button.set_text_content(Some("Copy"));
        let _ = pre.prepend_with_node_1(&button);
        let previewable = pre
            .query_selector("code")
            .ok()
            .flatten()
            .and_then(|code| PreviewKind::for_code_class(&code.class_name()))
            .is_some();
        if previewable {
            if let Ok(preview) = document.create_element("button") {
                preview.set_class_name("preview-code");
                let _ = preview.set_attribute("type", "button");
                let _ = preview.set_attribute("aria-expanded", "false");
                preview.set_text_content(Some("Preview"));
                let _ = button.after_with_node_1(&preview);
            }
        }
    }
}

/// A preview's document reports its height (`preview_document`'s script posts a number); the
/// frame that sent it, found by its window, takes the height core allows. Messages from
/// anything but a preview frame, or that are not a number, change nothing.
fn size_previews_from_their_reports() {
    if SIZING.with(|s| s.replace(true)) {
        return;
    }
    let listener = window_event_listener(leptos::ev::message, |ev| {
        let Some(height) = ev.data().as_f64().and_then(preview_frame_height) else {
            return;
        };
        let Some(source) = ev.source() else {
            return;
        };
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Ok(frames) = document.query_selector_all("iframe.code-preview") else {
            return;
        };
        for i in 0..frames.length() {
            let Some(frame) = frames
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::HtmlIFrameElement>().ok())
            else {
                continue;
            };
            let from_it = frame.content_window().is_some_and(|w| {
                wasm_bindgen::JsValue::from(w) == wasm_bindgen::JsValue::from(source.clone())
            });
            if from_it {
                let px = format!("{}px", skiff_core::format::fixed(height, 0));
                let _ = web_sys::HtmlElement::style(&frame).set_property("height", &px);
                return;
            }
        }
    });
    // For the page's life: previews come and go, the listener stays.
    std::mem::forget(listener);
}

/// Shows or hides the sandboxed preview frame after an `html`/`svg` block. What the frame
/// contains and how it is confined comes from `skiff_core::markdown::preview`; this only builds
/// the element.
fn toggle_preview(button: &web_sys::Element) {
    let Some(pre) = button.parent_element() else {
        return;
    };
    let open = pre
        .next_element_sibling()
        .filter(|el| el.class_list().contains("code-preview"));
    if let Some(frame) = open {
        frame.remove();
        let _ = button.set_attribute("aria-expanded", "false");
        button.set_text_content(Some("Preview"));
        return;
    }
    let Some(code) = pre.query_selector("code").ok().flatten() else {
        return;
    };
    let Some(kind) = PreviewKind::for_code_class(&code.class_name()) else {
        return;
    };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(frame) = document
        .create_element("iframe")
        .ok()
        .and_then(|el| el.dyn_into::<web_sys::HtmlIFrameElement>().ok())
    else {
        return;
    };
    frame.set_class_name("code-preview");
    size_previews_from_their_reports();
    // The sandbox is set before the source, so the page never loads unsandboxed.
    let _ = frame.set_attribute("sandbox", PREVIEW_SANDBOX);
    let _ = frame.set_attribute("title", "Preview of the code block above");
    // Preview buttons exist only on rendered blocks, so the renderer is loaded.
    let Some(engine) = ENGINE.with(Cell::get) else {
        return;
    };
    let doc = (engine.preview_document)(kind, &code.text_content().unwrap_or_default());
    // Once the preview page is up, hand it the document; its origin is opaque, hence "*" (the
    // text is the conversation's own, nothing the frame could not be shown).
    let target = frame.clone();
    let on_load = wasm_bindgen::closure::Closure::once_into_js(move || {
        // Writing the document fires `load` again; this handler runs once.
        target.set_onload(None);
        if let Some(win) = target.content_window() {
            if let Err(e) = win.post_message(&wasm_bindgen::JsValue::from_str(&doc), "*") {
                leptos::logging::warn!("could not start the preview: {e:?}");
            }
        }
    });
    frame.set_onload(Some(on_load.unchecked_ref()));
    frame.set_src(PREVIEW_PAGE);
    let _ = pre.after_with_node_1(&frame);
    let _ = button.set_attribute("aria-expanded", "true");
    button.set_text_content(Some("Hide preview"));
}

/// One listener for every code block's Copy and Preview buttons in a message (event
/// delegation).
fn on_copy_click(ev: leptos::ev::MouseEvent) {
    let target = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
    if let Some(preview) = target
        .as_ref()
        .and_then(|el| el.closest(".preview-code").ok().flatten())
    {
        toggle_preview(&preview);
        return;
    }
    let Some(button) = target.and_then(|el| el.closest(".copy-code").ok().flatten()) else {
        return;
    };
    let text = button
        .parent_element()
        .and_then(|pre| pre.query_selector("code").ok().flatten())
        .and_then(|code| code.text_content())
        .unwrap_or_default();
    leptos::task::spawn_local(async move {
        let label = match clipboard::write_text(&text).await {
            Ok(()) => "Copied",
            Err(e) => {
                leptos::logging::warn!("copy failed: {e}");
                "Copy failed"
            }
        };
        button.set_text_content(Some(label));
        let reset = button.clone();
        gloo_timers::callback::Timeout::new(1_500, move || {
            reset.set_text_content(Some("Copy"));
        })
        .forget();
    });
}

#[component]
pub fn MarkdownBody(msg: LiveMessage) -> impl IntoView {
    let blocks_ref = NodeRef::<html::Div>::new();
    let tail_ref = NodeRef::<html::Div>::new();
    let state = StoredValue::new(RenderState::new(0));

    effect(move || {
        let (Some(blocks), Some(tail)) = (blocks_ref.get(), tail_ref.get()) else {
            return;
        };
        let revision = msg.revision.get();
        let streaming = msg.status.with(|s| *s == MessageStatus::Streaming);
        let engine = engine();
        msg.content.with(|text| {
            state.update_value(|st| {
                let Some(engine) = engine else {
                    // Plain text until the renderer is here (it re-runs this effect).
                    preload();
                    tail.set_class_name("plain");
                    tail.set_text_content(Some(text));
                    st.plain = true;
                    return;
                };
                let delta_ok = text.get(st.consumed..).is_some();
                let replaced = st.revision != revision
                    || !delta_ok
                    || (st.finished && text.len() != st.consumed)
                    || st.plain;
                if replaced {
                    *st = RenderState::new(revision);
                    blocks.set_text_content(None);
                    tail.set_text_content(None);
                    tail.set_class_name("");
                }
                if st.finished {
                    return;
                }
                let delta = text.get(st.consumed..).unwrap_or("");
                if streaming {
                    let update = (engine.push)(&mut st.md, delta);
                    let had_finished = !update.finished.is_empty();
                    append(engine, &blocks, update.finished);
                    // An open code block that only gained text gets the text appended to its
                    // `<code>`; rebuilding it on every flush grew with the square of its length.
                    let grown = (!had_finished)
                        .then(|| (engine.grown_code)(&st.shown_tail, &update.tail))
                        .flatten();
                    let code = grown.and_then(|_| tail.query_selector("code").ok().flatten());
                    match (grown, code) {
                        (Some(text), Some(code)) => {
                            if !text.is_empty() {
                                if let Err(e) = code.append_with_str_1(text) {
                                    leptos::logging::warn!("could not append code text: {e:?}");
                                }
                            }
                        }
                        _ => {
                            tail.set_text_content(None);
                            (engine.append)(&tail, &update.tail);
                        }
                    }
                    st.shown_tail = update.tail;
                } else {
                    // Loaded whole from storage: one pass. Otherwise finish what streamed.
                    if st.consumed == 0 {
                        append(engine, &blocks, (engine.render_blocks)(text));
                    } else {
                        let update = (engine.push)(&mut st.md, delta);
                        append(engine, &blocks, update.finished);
                        append(engine, &blocks, (engine.finish)(&mut st.md));
                    }
                    tail.set_text_content(None);
                    st.shown_tail.clear();
                    st.finished = true;
                }
                st.consumed = text.len();
            });
        });
    });

    view! {
        <div class="markdown" on:click=on_copy_click>
            <div node_ref=blocks_ref></div>
            <div node_ref=tail_ref></div>
        </div>
    }
}
