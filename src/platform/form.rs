//! Reading panels drawn as HTML text (`skiff_core::html`): which action a click was on, and
//! a form's values as the browser would submit them.

use wasm_bindgen::JsCast;

/// The `data-act` of the element the event happened on or its nearest ancestor that has one
/// (a click on a button's icon counts as the button).
pub fn act_of(ev: &web_sys::Event) -> Option<String> {
    let target = ev.target()?.dyn_into::<web_sys::Element>().ok()?;
    target
        .closest("[data-act]")
        .ok()??
        .get_attribute("data-act")
}

/// The form's `(name, value)` pairs as `FormData` has them: text-like controls always,
/// checkboxes only when checked, a `<select>`'s chosen value. Files are left out.
pub fn form_pairs(form: &web_sys::Element) -> Vec<(String, String)> {
    let Some(form) = form.dyn_ref::<web_sys::HtmlFormElement>() else {
        return Vec::new();
    };
    let Ok(data) = web_sys::FormData::new_with_form(form) else {
        return Vec::new();
    };
    let Ok(Some(entries)) = js_sys::try_iter(&data) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pair: js_sys::Array = entry.dyn_into().ok()?;
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect()
}

/// The values of the first form inside `panel` (none when it holds no form): what a panel's
/// one click listener hands its core machine.
pub fn inner_form_pairs(panel: &web_sys::Element) -> Vec<(String, String)> {
    panel
        .query_selector("form")
        .ok()
        .flatten()
        .map(|f| form_pairs(&f))
        .unwrap_or_default()
}

/// Draw `html` as `panel`'s content and put the cursor at `focus`, a selector inside it (`""`
/// leaves focus alone): the old focus went with the old HTML.
pub fn redraw(panel: &web_sys::Element, html: &str, focus: &str) {
    panel.set_inner_html(html);
    if !focus.is_empty() {
        crate::platform::focus::focus_first(panel, focus);
    }
}
