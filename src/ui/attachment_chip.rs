//! One attached file as a chip: a thumbnail for images, the name, the size (of a scaled
//! image, what is sent, and the original's dimensions), and × while it is still pending in
//! the composer. A sent message's chip
//! reads its bytes back from the blob store; when they are gone it says so instead, and the
//! conversation goes on. Images a model returned use the same loading and placeholder, shown
//! as the image itself under the answer ([`figures`]).

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::base64::base64;
use skiff_core::records::attachment::{Attachment, Kind};

use crate::runner::attach::load;

/// The chips of `files` in one row, or nothing; `pending` as for [`chip`]. Erased to
/// `AnyView`, so the composer and every message share one rendering of the row.
pub fn chips(
    files: Vec<Attachment>,
    pending: Option<RwSignal<Vec<Attachment>>>,
) -> Option<AnyView> {
    (!files.is_empty()).then(|| {
        view! {
            <div class="attachments">{files.into_iter().map(|a| chip(a, pending)).collect_view()}</div>
        }
        .into_any()
    })
}

/// The images a model returned, each under the answer's text, or nothing.
pub fn figures(files: Vec<Attachment>) -> Option<AnyView> {
    (!files.is_empty()).then(|| files.into_iter().map(figure).collect_view().into_any())
}

/// One returned image fitted to the column; a click shows it at full size (the answer scrolls
/// sideways) and another fits it again. Its alt text is its name. Until its bytes are read, and
/// when they are gone, it is the chip's label, and the placeholder the same.
fn figure(a: Attachment) -> impl IntoView {
    let (url, gone) = read(&a);
    let full = RwSignal::new(false);
    let name = a.name.clone();
    view! {
        <figure class="returned-image" class:full=full data-missing=move || gone.get().then_some("")>
            {move || url.get().map(|u| view! {
                <button type="button" aria-pressed=move || full.get().to_string()
                    on:click=move |_| full.update(|f| *f = !*f)><img src=u alt=name.clone() /></button>
            })}
            {move || url.with(Option::is_none).then(|| a.label(gone.get()))}
        </figure>
    }
}

/// `a`'s bytes as a `data:` URL once read (images only), and whether they are gone.
fn read(a: &Attachment) -> (RwSignal<Option<String>>, RwSignal<bool>) {
    let url = RwSignal::new(None::<String>);
    let gone = RwSignal::new(false);
    let image = a.kind() == Kind::Image;
    let store = super::context::ctx().convs;
    let (hash, mime, data) = (a.hash.clone(), a.mime.clone(), a.data.clone());
    // The thumbnail is a `data:` URL (the page's policy allows them): nothing to revoke, and
    // no second copy of the bytes in a browser blob.
    spawn_local(async move {
        let bytes = match data {
            Some(d) => Some(d.to_vec()),
            None => load(store, &hash).await,
        };
        match bytes {
            Some(b) if image => {
                // The chip may be gone already (conversation switched while loading).
                url.try_set(Some(format!("data:{mime};base64,{}", base64(&b))));
            }
            Some(_) => {}
            None => {
                gone.try_set(true);
            }
        }
    });
    (url, gone)
}

/// The chip for `a`; `pending` is the composer's list, which × removes it from.
fn chip(a: Attachment, pending: Option<RwSignal<Vec<Attachment>>>) -> impl IntoView {
    let (url, gone) = read(&a);
    let name = a.name.clone();
    let remove = pending.map(|p| {
        let hash = a.hash.clone();
        view! {
            <button type="button" class="attachment-remove" aria-label=format!("Remove {name}")
                on:click=move |_| p.update(|v| v.retain(|x| x.hash != hash))>"×"</button>
        }
    });
    let kind = a.kind().as_str();
    view! {
        <span class="attachment" data-kind=kind data-missing=move || gone.get().then_some("")>
            {move || url.get().map(|u| view! { <img src=u alt="" /> })}
            <span>{move || a.label(gone.get())}</span>
            {remove}
        </span>
    }
}
