//! Files being stored, downloads and loads: progress with bytes and time left, and Cancel;
//! a failed one says why until dismissed.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use skiff_core::model_panel::{Intent, JobView};

use super::Shared;
use crate::ui::keyed_list::keyed_list;

pub(super) fn list(shared: Shared) -> impl IntoView {
    // A row is drawn again only when its job fails (progress changes its text in place).
    let keys = move || {
        shared.view.with(|v| {
            v.iter()
                .flat_map(|v| &v.jobs)
                .map(|j| (j.job, j.failure.is_some()))
                .collect::<Vec<_>>()
        })
    };
    keyed_list(
        keys,
        |(job, failed)| format!("{job}:{failed}"),
        move |(job, failed)| row(shared, job, failed),
    )
}

fn row(shared: Shared, job: u64, failed: bool) -> impl IntoView {
    let this = memo(move || {
        shared.view.with(|v| {
            v.as_ref()
                .and_then(|v| v.jobs.iter().find(|j| j.job == job))
                .cloned()
        })
    });
    let read =
        move |f: fn(&JobView) -> String| this.with(|j| j.as_ref().map(f).unwrap_or_default());
    let kind = this.with_untracked(|j| j.as_ref().map(|j| j.kind.as_str()).unwrap_or_default());
    if failed {
        return view! {
            <div class="lm-job" data-kind=kind>
                <p class="error" role="alert">{move || this.with(|j| j.as_ref().and_then(|j| j.failure.clone()))}</p>
                <button class="small" on:click=move |_| { shared.act.run(Intent::Dismiss { job }); }>"Dismiss"</button>
            </div>
        }
        .into_any();
    }
    view! {
        <div class="lm-job" data-kind=kind>
            <span class="lm-job-name">{move || read(|j| j.title.clone())}</span>
            <progress
                max="1000"
                value=move || this.with(|j| j.as_ref().and_then(|j| j.permille))
                aria-label=move || read(|j| j.title.clone())
            ></progress>
            <span class="muted lm-job-line">{move || read(|j| j.line.clone())}</span>
            <button
                class="small lm-cancel"
                aria-label=move || read(|j| j.cancel_label.clone())
                on:click=move |_| { shared.act.run(Intent::Cancel { job }); }
            >"Cancel"</button>
        </div>
    }
    .into_any()
}
