//! Questions MCP servers ask the user (elicitation), as cards.
//!
//! The tray sits in the chat under the messages, so a question asked during a tool call
//! appears right below that call's card; while Settings is open it shows at the top of the
//! Settings dialog instead, so a question asked from a tool's "try" form is seen.
//!
//! A card's inside is HTML text from `skiff_core::mcp::elicit::card_html` (which decides
//! fields, defaults, validation sentences and escaping); here one listener reads which button
//! was clicked (`data-act`) and the form's values, and the card is redrawn when Accept finds
//! errors. Drawing it as text instead of views keeps a rare panel from costing the page KiBs.
//! It never opens a link on its own: only the user's click on "Open" does.

use leptos::prelude::*;
use skiff_core::mcp::elicit::{card_html, field_id, CardState, ElicitAnswer, ElicitKind};
use skiff_core::mcp::ElicitKey;

use super::context::ctx;
use super::keyed_list::keyed_list;
use super::when::When;
use crate::platform::focus::focus_first;
use crate::platform::form::{act_of, form_pairs};
use crate::platform::location::open_in_new_tab;
use crate::stores::mcp::ElicitCard;

/// Every open question, oldest first. `in_settings`: the copy inside the Settings dialog.
#[component]
pub fn ElicitTray(#[prop(optional)] in_settings: bool) -> impl IntoView {
    let ctx = ctx();
    // One place shows the questions at a time, so ids and labels stay unique on the page.
    let here = move || in_settings == ctx.show_settings.get();
    let any = move || here() && ctx.mcp.elicits.with(|c| !c.is_empty());
    view! {
        <When when=any>
            <section class="elicit-tray" aria-label="Questions from MCP servers">
                {keyed_list(
                    move || ctx.mcp.elicits.get(),
                    |c| format!("{}\u{1f}{}\u{1f}{}", c.server_id, c.key, c.waiting),
                    |c| view! { <ElicitCardView card=c /> },
                )}
            </section>
        </When>
    }
}

fn dom_id(server_id: &str, key: ElicitKey) -> String {
    let safe: String = server_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("elicit-{safe}-{key}")
}

#[component]
fn ElicitCardView(card: ElicitCard) -> impl IntoView {
    let ctx = ctx();
    let id = dom_id(&card.server_id, card.key);
    let mode = match &card.request.kind {
        ElicitKind::Form(_) => "form",
        ElicitKind::Url(_) => "url",
    };
    let state = StoredValue::new(CardState {
        inputs: match &card.request.kind {
            ElicitKind::Form(m) => m.initial_inputs(),
            ElicitKind::Url(_) => Vec::new(),
        },
        ..CardState::default()
    });
    let first = card_html(
        &id,
        &card.server_name,
        &card.request,
        card.waiting,
        &state.get_value(),
    );
    let labelled_by = format!("{id}-title");
    let server_name = card.server_name.clone();
    let card = StoredValue::new((card, id));
    let node = NodeRef::<leptos::html::Article>::new();
    let answer = move |a: ElicitAnswer| {
        card.with_value(|(c, _)| ctx.mcp_runner.answer_elicitation(&c.server_id, c.key, a))
    };
    // Redraws after Accept found errors (or the link would not open), then puts the cursor in
    // the first field that needs attention: the old focus went with the old HTML.
    let redraw = move || {
        let Some(el) = node.get_untracked() else {
            return;
        };
        card.with_value(|(c, id)| {
            let s = state.get_value();
            el.set_inner_html(&card_html(id, &c.server_name, &c.request, c.waiting, &s));
            if let Some((i, _)) = s.errors.first() {
                focus_first(&el, &format!("#{}", field_id(id, *i)));
            }
        });
    };
    let accept = move || {
        let checked = card.with_value(|(c, _)| match &c.request.kind {
            ElicitKind::Form(model) => {
                let form = node
                    .get_untracked()
                    .and_then(|el| el.query_selector("form").ok().flatten());
                let inputs =
                    model.inputs_from_pairs(&form.map(|f| form_pairs(&f)).unwrap_or_default());
                Some(model.validate(&inputs).map_err(|errors| (inputs, errors)))
            }
            ElicitKind::Url(_) => None,
        });
        match checked {
            Some(Ok(content)) => answer(ElicitAnswer::accept(Some(content))),
            Some(Err((inputs, errors))) => {
                state.update_value(|s| {
                    s.inputs = inputs;
                    s.errors = errors;
                });
                redraw();
            }
            // Only this click opens the link; the answer tells the server the user went there.
            None => {
                let url = card.with_value(|(c, _)| match &c.request.kind {
                    ElicitKind::Url(ask) => ask.url.clone(),
                    ElicitKind::Form(_) => String::new(),
                });
                if open_in_new_tab(&url) {
                    answer(ElicitAnswer::accept(None));
                } else {
                    state.update_value(|s| s.open_failed = true);
                    redraw();
                }
            }
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| match act_of(&ev).as_deref() {
        Some("accept") => accept(),
        Some("decline") => answer(ElicitAnswer::decline()),
        Some("cancel") => answer(ElicitAnswer::cancel()),
        Some("dismiss") => card.with_value(|(c, _)| ctx.mcp.elicit_dismiss(&c.server_id, c.key)),
        _ => {}
    };
    view! {
        <article
            class="elicit-card"
            data-server-name=server_name
            data-mode=mode
            aria-labelledby=labelled_by
            node_ref=node
            inner_html=first
            on:click=on_click
            on:submit=move |ev| {
                ev.prevent_default();
                accept();
            }
        ></article>
    }
}
