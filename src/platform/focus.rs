//! Focus queries a modal dialog and the keyboard shortcuts need: the focusable elements inside
//! an element, in document order, and whether the focused element is a text field.
//!
//! Queries only: where focus should go is `skiff_core::focus_trap`'s decision and which key
//! means what is `skiff_core::shortcuts`'.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement};

/// What can take focus from the keyboard (disabled controls and `tabindex="-1"` cannot).
const FOCUSABLE: &str = "a[href], button:not([disabled]), input:not([disabled]), \
    select:not([disabled]), textarea:not([disabled]), summary, [contenteditable=\"true\"], \
    [tabindex]:not([tabindex=\"-1\"])";

/// The keyboard-focusable elements inside `root`, in document order, leaving out those not
/// rendered (`display: none`, inside a closed `<details>`).
pub fn focusable_within(root: &Element) -> Vec<HtmlElement> {
    let Ok(list) = root.query_selector_all(FOCUSABLE) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<HtmlElement>().ok())
        .filter(|el| el.tab_index() >= 0 && el.get_client_rects().length() > 0)
        .collect()
}

/// The focused element, if it is not `<body>`.
pub fn active_element() -> Option<HtmlElement> {
    let doc = web_sys::window()?.document()?;
    let el = doc.active_element()?;
    if doc.body().is_some_and(|b| b.is_same_node(Some(&el))) {
        return None;
    }
    el.dyn_into::<HtmlElement>().ok()
}

/// Whether `el` takes typed characters: text-like inputs, textareas, selects (typing picks an
/// option) and editable content. Checkboxes and buttons do not.
pub fn is_text_field(el: &Element) -> bool {
    if let Some(input) = el.dyn_ref::<HtmlInputElement>() {
        return !matches!(
            input.type_().as_str(),
            "checkbox"
                | "radio"
                | "button"
                | "submit"
                | "reset"
                | "range"
                | "color"
                | "file"
                | "image"
        );
    }
    matches!(el.tag_name().as_str(), "TEXTAREA" | "SELECT")
        || el
            .dyn_ref::<HtmlElement>()
            .is_some_and(HtmlElement::is_content_editable)
}

/// Apple systems name the command modifier ⌘ and use it where others use Ctrl. Read from
/// `navigator.userAgentData.platform` where the browser has it, else `navigator.platform`.
pub fn is_apple() -> bool {
    let Some(nav) = web_sys::window().map(|w| w.navigator()) else {
        return false;
    };
    let from_hints = js_sys::Reflect::get(&nav, &"userAgentData".into())
        .ok()
        .filter(|v| v.is_object())
        .and_then(|data| js_sys::Reflect::get(&data, &"platform".into()).ok())
        .and_then(|p| p.as_string())
        .filter(|p| !p.is_empty());
    let platform = from_hints
        .or_else(|| nav.platform().ok())
        .unwrap_or_default();
    ["mac", "iphone", "ipad", "ipod", "ios"]
        .iter()
        .any(|name| platform.to_ascii_lowercase().contains(name))
}

/// Focus the first element inside `root` matching `selector`, if there is one.
pub fn focus_first(root: &Element, selector: &str) {
    if let Some(el) = root
        .query_selector(selector)
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}

/// Focus the element with `id`; false when the document has no such element.
pub fn focus_id(id: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<HtmlElement>().ok())
        .is_some_and(|el| el.focus().is_ok())
}
