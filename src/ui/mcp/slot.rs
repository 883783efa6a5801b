//! What the message box and the MCP pickers share (always loaded; the pickers are not): the
//! box's text, what is typed after `/` or `@` (`skiff_core::mcp::composer_trigger`), whether
//! each picker is open, the box's combobox attributes while a list shows, and the open
//! picker's hold on the box's keys and focus.
//!
//! Why: the pickers keep focus in the message box (a combobox: the box owns the keys, the list
//! is its `aria-activedescendant`), so Enter, Up, Down, Tab and Escape typed in the box must
//! reach an open picker before the box sends the message or the page stops an answer. The
//! composer asks [`PickerSlot::key`] first and sends only when no picker took the key.
//!
//! It decides nothing about what a key does: that is each picker's machine (core).

use std::rc::Rc;

use leptos::prelude::*;
use skiff_core::mcp::composer_trigger::{trigger, Trigger};

/// What follows the sign typed in the box (up to the caret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Typed {
    pub trigger: Trigger,
    pub query: String,
}

/// The message box's combobox attributes while a picker's list shows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BoxAria {
    pub controls: Option<&'static str>,
    pub active: Option<String>,
    pub expanded: bool,
    pub autocomplete: bool,
}

/// An open picker's hold on the box: its keys first, and what a lost focus means to it.
#[derive(Clone)]
pub struct Hold {
    /// A key pressed in the box: true when the picker took it (the box then does nothing).
    pub key: Rc<dyn Fn(&web_sys::KeyboardEvent) -> bool>,
    /// Focus left the box for somewhere outside the picker.
    pub blur: Rc<dyn Fn()>,
}

#[derive(Clone, Copy)]
pub struct PickerSlot {
    /// The message box's text (the composer's draft): a picker removes what it consumed.
    pub draft: RwSignal<String>,
    pub typed: RwSignal<Option<Typed>>,
    /// The `/` panel shows (its list, or a chosen prompt's form).
    pub prompt_open: RwSignal<bool>,
    /// The `@` picker shows.
    pub mention_open: RwSignal<bool>,
    pub aria: RwSignal<BoxAria>,
    /// Escape closed the `/` list: it stays closed until the box no longer starts with "/".
    dismissed: StoredValue<bool>,
    holds: StoredValue<[Option<Hold>; 2], LocalStorage>,
}

fn at(trigger: Trigger) -> usize {
    match trigger {
        Trigger::Slash => 0,
        Trigger::Mention => 1,
    }
}

impl PickerSlot {
    pub fn new(draft: RwSignal<String>) -> Self {
        PickerSlot {
            draft,
            typed: RwSignal::new(None),
            prompt_open: RwSignal::new(false),
            mention_open: RwSignal::new(false),
            aria: RwSignal::new(BoxAria::default()),
            dismissed: StoredValue::new(false),
            holds: StoredValue::new_local([None, None]),
        }
    }

    /// The box's text changed, or its caret moved: `before_caret` is its text up to the caret.
    /// Opens the picker its sign asks for; a picker whose sign is gone closes itself.
    pub fn typed_in(&self, value: &str, before_caret: &str) {
        let now = trigger(before_caret).map(|(t, q)| Typed {
            trigger: t,
            query: q.to_string(),
        });
        if !value.starts_with('/') {
            self.dismissed.set_value(false);
        }
        match now.as_ref().map(|t| t.trigger) {
            Some(Trigger::Slash) if !self.dismissed.get_value() => self.prompt_open.set(true),
            Some(Trigger::Mention) => self.mention_open.set(true),
            _ => {}
        }
        if self.typed.with_untracked(|t| *t != now) {
            self.typed.set(now);
        }
    }

    /// Escape closed the `/` list: it stays closed while the box starts with "/".
    pub fn dismiss_prompts(&self) {
        self.dismissed.set_value(true);
    }

    /// Allow the `/` list again (a prompt went in).
    pub fn allow_prompts(&self) {
        self.dismissed.set_value(false);
    }

    /// An open picker takes the box's keys and blur (until [`PickerSlot::release`]).
    pub fn hold(&self, picker: Trigger, hold: Hold) {
        self.holds.update_value(|h| h[at(picker)] = Some(hold));
    }

    pub fn release(&self, picker: Trigger) {
        self.holds.try_update_value(|h| h[at(picker)] = None);
    }

    /// A key pressed in the box: whether an open picker took it.
    pub fn key(&self, ev: &web_sys::KeyboardEvent) -> bool {
        let holds = self.holds.with_value(|h| h.clone());
        // The `@` picker first: it can show while a prompt's form is open above the box.
        holds.iter().rev().flatten().any(|hold| (hold.key)(ev))
    }

    /// Focus left the box.
    pub fn blurred(&self) {
        let holds = self.holds.with_value(|h| h.clone());
        for hold in holds.iter().flatten() {
            (hold.blur)();
        }
    }
}

/// Scroll the option `id` into its list's view (no further than needed), once drawn.
pub fn scroll_nearest(id: String) {
    request_animation_frame(move || {
        if let Some(el) = document().get_element_by_id(&id) {
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            el.scroll_into_view_with_scroll_into_view_options(&options);
        }
    });
}
