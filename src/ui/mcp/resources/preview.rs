//! The pane for one resource (`res_ui::view::preview_view`): name, URI, type and size, how
//! fresh the copy is, Attach / Subscribe / Read again, and each part of its content.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::base64::unbase64;
use skiff_core::display::links::download_name;
use skiff_core::mcp::res_ui::view::{preview_view, Action, PartView, PreviewInfo, PreviewView};

use super::browser::Browser;
use crate::platform::{clock, download};
use crate::stores::reactive::memo;
use crate::ui::composer::attach_files;

fn action_button(class: &'static str, act: Action, on: impl Fn() + 'static) -> impl IntoView {
    view! {
        <button type="button" class=class data-act=act.as_str() on:click=move |_| on()>
            {act.label()}
        </button>
    }
}

/// Save part `i` of what is shown, as bytes that never render (`octet-stream`).
fn download_part(b: Browser, uri: &str, i: usize) {
    let Some(p) = b.shown.with_untracked(|s| s.parts.get(i).cloned()) else {
        return;
    };
    let Some(data) = p.data.as_deref() else {
        return;
    };
    let bytes = if p.binary {
        unbase64(data).unwrap_or_default()
    } else {
        data.as_bytes().to_vec()
    };
    let name = download_name(
        if p.uri.is_empty() { uri } else { &p.uri },
        (!p.mime.is_empty()).then_some(p.mime.as_str()),
    );
    if let Err(e) = download::save_bytes(&name, &bytes) {
        b.note(e, true);
    }
}

fn part(b: Browser, uri: String, i: usize, v: PartView) -> impl IntoView {
    let downloadable = v.downloadable();
    let body = match v {
        PartView::Gone(s) => view! { <p class="res-error">{s}</p> }.into_any(),
        PartView::Text { text, cut } => view! {
            <pre class="res-text" tabindex="0" dir="auto">{text}</pre>
            {cut.map(|c| view! { <p class="res-meta">{c}</p> })}
        }
        .into_any(),
        PartView::Image { src, alt } => {
            view! { <img class="res-img" alt=alt src=src /> }.into_any()
        }
        PartView::Audio { src } => {
            view! { <audio class="res-audio" controls src=src></audio> }.into_any()
        }
        PartView::Binary(s) => view! { <p class="res-meta">{s}</p> }.into_any(),
    };
    view! {
        {body}
        {downloadable.then(|| action_button("res-download", Action::Download, move || download_part(b, &uri, i)))}
    }
}

fn draw(b: Browser, server: String, uri: String, v: PreviewView) -> AnyView {
    let PreviewView {
        title,
        server_name,
        uri: shown_uri,
        description,
        meta,
        fresh,
        note,
        can_attach,
        subscription,
        can_reload,
        parts,
    } = v;
    let (s1, u1) = (server.clone(), uri.clone());
    let attach = move || {
        let parts = b.shown.with_untracked(|s| s.parts.clone());
        let out = b
            .runner
            .files(&s1, &u1, &parts)
            .and_then(|(name, files)| attach_files(files).map(|()| name));
        match out {
            Ok(name) => b.note(
                format!("Attached {name}: it goes with your next message."),
                false,
            ),
            Err(e) => b.note(e, true),
        }
    };
    let (s2, u2) = (server.clone(), uri.clone());
    let subscribe = subscription.map(|act| {
        let on = act == Action::Subscribe;
        let class = if on {
            "res-subscribe"
        } else {
            "res-unsubscribe"
        };
        action_button(class, act, move || {
            let (server, uri) = (s2.clone(), u2.clone());
            spawn_local(async move {
                let (note, error) = b.runner.subscribe(&server, &uri, on).await;
                // The dialog may have closed while the server answered.
                b.shown.try_update(|s| {
                    s.note = note;
                    s.error = error;
                });
                if !(on && error) {
                    b.focus(if on {
                        "[data-act=\"unsubscribe\"]"
                    } else {
                        "[data-act=\"subscribe\"]"
                    });
                }
            });
        })
    });
    let (s3, u3) = (server, uri.clone());
    let reload = can_reload.then(|| {
        action_button("res-reload", Action::Reload, move || {
            b.open_resource(s3.clone(), u3.clone(), true)
        })
    });
    view! {
        {action_button("res-back", Action::Back, move || b.back())}
        <h3 class="res-name" id="res-pane-title" tabindex="-1">{title}</h3>
        <p class="res-uri"><bdi>{server_name}</bdi>" \u{b7} "<code>{shown_uri}</code></p>
        {description.map(|d| view! { <p class="res-desc" dir="auto">{d}</p> })}
        <p class="res-meta">{meta}</p>
        {(!fresh.is_empty()).then(|| view! { <p class="res-fresh">{fresh}</p> })}
        {note.map(|n| view! {
            <p class="res-note" class:res-error=n.error role=if n.error { "alert" } else { "status" }>{n.text}</p>
        })}
        <div class="res-actions">
            <button
                type="button"
                class="primary res-attach"
                data-act=Action::Attach.as_str()
                disabled=!can_attach
                on:click=move |_| attach()
            >
                {Action::Attach.label()}
            </button>
            {subscribe}
            {reload}
        </div>
        {parts
            .into_iter()
            .enumerate()
            .map(|(i, v)| part(b, uri.clone(), i, v))
            .collect_view()}
    }
    .into_any()
}

/// The pane for `uri` of `server`, redrawn only when what it shows changes.
pub(super) fn preview(b: Browser, server: String, uri: String) -> AnyView {
    let (s, u) = (server.clone(), uri.clone());
    let shown = memo(move || {
        b.runner.store.track();
        b.shown.with(|sh| {
            b.runner.store.with(|store| {
                preview_view(
                    store,
                    &PreviewInfo {
                        server: &s,
                        uri: &u,
                        parts: &sh.parts,
                        reading: sh.reading,
                        note: &sh.note,
                        error: sh.error,
                    },
                    clock::now_ms(),
                )
            })
        })
    });
    (move || draw(b, server.clone(), uri.clone(), shown.get())).into_any()
}
