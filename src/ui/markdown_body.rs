//! An assistant message's markdown, rendered incrementally.
//!
//! Finished blocks are rendered once and appended to the DOM; only the growing tail is
//! re-rendered on each flush. This keeps the cost of a streamed token proportional to the tail,
//! not to the whole answer. The HTML comes from `skiff_core::markdown`, which escapes raw HTML
//! and neutralises dangerous links, so it is safe to insert.

use leptos::html;
use leptos::prelude::*;
use skiff_core::chat::MessageStatus;
use skiff_core::markdown::{render_blocks, StreamingMarkdown};

use crate::stores::live_message::LiveMessage;

struct RenderState {
    md: StreamingMarkdown,
    consumed: usize,
    revision: u32,
    finished: bool,
}

impl RenderState {
    fn new(revision: u32) -> Self {
        RenderState {
            md: StreamingMarkdown::new(),
            consumed: 0,
            revision,
            finished: false,
        }
    }
}

fn append(container: &web_sys::HtmlDivElement, blocks: Vec<String>) {
    for html in blocks {
        if let Err(e) = container.insert_adjacent_html("beforeend", &html) {
            leptos::logging::warn!("could not insert rendered markdown: {e:?}");
        }
    }
}

#[component]
pub fn MarkdownBody(msg: LiveMessage) -> impl IntoView {
    let blocks_ref = NodeRef::<html::Div>::new();
    let tail_ref = NodeRef::<html::Div>::new();
    let state = StoredValue::new(RenderState::new(0));

    Effect::new(move |_| {
        let (Some(blocks), Some(tail)) = (blocks_ref.get(), tail_ref.get()) else {
            return;
        };
        let revision = msg.revision.get();
        let streaming = msg.status.with(|s| *s == MessageStatus::Streaming);
        msg.content.with(|text| {
            state.update_value(|st| {
                let delta_ok = text.get(st.consumed..).is_some();
                let replaced = st.revision != revision
                    || !delta_ok
                    || (st.finished && text.len() != st.consumed);
                if replaced {
                    *st = RenderState::new(revision);
                    blocks.set_inner_html("");
                    tail.set_inner_html("");
                }
                if st.finished {
                    return;
                }
                let delta = text.get(st.consumed..).unwrap_or("");
                if streaming {
                    let update = st.md.push(delta);
                    append(&blocks, update.finished);
                    tail.set_inner_html(&update.tail);
                } else {
                    // Loaded whole from storage: one pass. Otherwise finish what streamed.
                    if st.consumed == 0 {
                        append(&blocks, render_blocks(text));
                    } else {
                        let update = st.md.push(delta);
                        append(&blocks, update.finished);
                        append(&blocks, st.md.finish());
                    }
                    tail.set_inner_html("");
                    st.finished = true;
                }
                st.consumed = text.len();
            });
        });
    });

    view! {
        <div class="markdown">
            <div node_ref=blocks_ref></div>
            <div node_ref=tail_ref></div>
        </div>
    }
}
