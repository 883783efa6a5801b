//! The browser's list: per server its resources and templates (`res_ui::view::list_view`),
//! the locked store's sentence with "Start afresh", and what the search found nothing for.

use leptos::prelude::*;
use skiff_core::mcp::res_ui::view::{list_view, Action, ListView, ServerSection};

use super::browser::{Browser, Pane};
use crate::stores::reactive::memo;

fn section(b: Browser, s: ServerSection) -> impl IntoView {
    let ServerSection {
        id,
        name,
        offline,
        empty,
        resources,
        templates,
    } = s;
    let has_templates = !templates.is_empty();
    let resource_rows = (!resources.is_empty()).then(|| {
        let rows = resources
            .into_iter()
            .map(|r| {
                let (server, uri) = (id.clone(), r.uri.clone());
                view! {
                    <li>
                        <button
                            type="button"
                            class="res-item"
                            data-act="open"
                            aria-current=r.current.then_some("true")
                            disabled=r.disabled
                            on:click=move |_| b.open_resource(server.clone(), uri.clone(), false)
                        >
                            <span class="res-item-name">{r.label}</span>
                            <span class="res-item-meta">{r.meta}</span>
                            {r.description.map(|d| view! { <span class="res-item-desc">{d}</span> })}
                        </button>
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="res-items">{rows}</ul> }
    });
    let template_rows = has_templates.then(|| {
        let rows = templates
            .into_iter()
            .map(|t| {
                let (server, index) = (id.clone(), t.index);
                view! {
                    <li>
                        <button
                            type="button"
                            class="res-item res-template"
                            data-act="template"
                            disabled=t.disabled
                            on:click=move |_| b.open_template(server.clone(), index)
                        >
                            <span class="res-item-name">{t.label}</span>
                            <span class="res-item-meta">{t.uri_template}</span>
                        </button>
                    </li>
                }
            })
            .collect_view();
        view! {
            <h4 class="res-subhead">"Templates"</h4>
            <ul class="res-items">{rows}</ul>
        }
    });
    view! {
        <section class="res-server">
            <h3 class="res-server-name">
                <bdi>{name}</bdi>
                <span class="res-state" class:res-offline=offline.is_some()>{offline.unwrap_or("")}</span>
            </h3>
            {empty.map(|e| view! { <p class="res-empty">{e}</p> })}
            {resource_rows}
            {template_rows}
        </section>
    }
}

fn draw(b: Browser, v: ListView) -> AnyView {
    let ListView {
        locked,
        empty,
        sections,
        quiet,
        no_match,
    } = v;
    view! {
        {locked.map(|why| view! {
            <div class="res-locked" role="alert">
                <p class="res-locked-text">{why}</p>
                <button type="button" class="res-reset" data-act=Action::Reset.as_str() on:click=move |_| b.reset()>
                    {Action::Reset.label()}
                </button>
            </div>
        })}
        {empty.map(|e| view! { <p class="res-empty">{e}</p> })}
        {sections.into_iter().map(|s| section(b, s)).collect_view()}
        {quiet.map(|q| view! { <p class="res-empty res-quiet">{q}</p> })}
        {no_match.map(|q| view! { <p class="res-empty">{q}</p> })}
    }
    .into_any()
}

/// The list for `filter` and `query`, redrawn only when what it shows changes.
pub(super) fn list(b: Browser, filter: RwSignal<String>, query: RwSignal<String>) -> impl IntoView {
    let shown = memo(move || {
        b.runner.store.track();
        let selected = b.pane.with(|p| match p {
            Some(Pane::Resource { server, uri }) => Some((server.clone(), uri.clone())),
            _ => None,
        });
        let (f, q) = (filter.get(), query.get());
        b.runner.store.with(|s| {
            list_view(
                s,
                &f,
                &q,
                selected.as_ref().map(|(s, u)| (s.as_str(), u.as_str())),
            )
        })
    });
    move || draw(b, shown.get())
}
