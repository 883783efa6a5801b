//! Settings → Masks: the list of masks (the user's, then the built-in ones) and the editor.
//!
//! `skiff_core::masks::MaskPanel` decides everything (what each click does, what the editor's
//! values amount to, what is wrong with them) and writes the panel as HTML text; here one
//! listener hands it the click and the form's values and performs the outcome. A rare,
//! form-like panel costs the page far less this way than as views. Masks are saved with the
//! settings.

use leptos::prelude::*;
use skiff_core::masks::{MaskPanel, Outcome};

use super::context::ctx;
use crate::platform::form::{act_of, inner_form_pairs, redraw};
use crate::platform::ids::new_id;
use crate::stores::reactive::effect;

#[component]
pub fn MasksSettings() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let panel = StoredValue::new(MaskPanel::default());
    let node = NodeRef::<leptos::html::Section>::new();

    // Draws the panel as it now is and puts the cursor at `focus` (a selector inside it): the
    // old focus went with the old HTML.
    let draw = move |focus: &str| {
        let Some(el) = node.get_untracked() else {
            return;
        };
        let html = panel.with_value(|p| settings.with_untracked(|s| p.html(s)));
        redraw(&el, &html, focus);
    };
    // The list follows the stored masks (another tab may change them); an open editor keeps
    // what is being typed.
    effect(move || {
        settings.with(|s| s.masks.len());
        if !panel.with_value(MaskPanel::is_editing) {
            draw("");
        }
    });

    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(act) = act_of(&ev) else {
            return;
        };
        let pairs = match node.get_untracked() {
            Some(el) if panel.with_value(MaskPanel::is_editing) => inner_form_pairs(&el),
            _ => Vec::new(),
        };
        let masks = settings.with_untracked(|s| s.masks.clone());
        let outcome = panel
            .try_update_value(|p| p.act(&act, &pairs, &masks, new_id))
            .unwrap_or(Outcome::Nothing);
        match outcome {
            Outcome::Nothing => {}
            Outcome::Draw { focus } => draw(&focus),
            Outcome::Store { masks, focus } => {
                settings.update(|s| s.masks = masks);
                draw(&focus);
            }
            Outcome::Chat(mask) => {
                ctx.convs.draft_mask.set(Some(mask.id));
                ctx.convs.select_none();
                ctx.show_settings.set(false);
            }
        }
    };
    view! {
        <section
            class="masks"
            aria-label="Masks"
            node_ref=node
            on:click=on_click
            on:submit=|ev| ev.prevent_default()
        ></section>
    }
}
