//! Prompts (`/`), sampling approval and roots (issue 13 items 5, 8, 9), exported to
//! `page/asks.js`. Each type here holds a `skiff_core::mcp::ask_ui` machine and forwards to
//! it; arguments and answers cross as strings (JSON where structured) so the script stays a
//! painter and the glue stays small. No decision is made here.

use serde_json::{json, Value};
use skiff_core::mcp::ask_ui::{
    admit, entries, initial_model, model_options, model_picker_html, roots_key, suggest_id,
    Admission, FormOutcome, Key, Picker, PickerMove, PromptForm, RootsForm, RootsOutcome,
    SamplingCard,
};
use skiff_core::mcp::composer_trigger::trigger;
use skiff_core::mcp::sampling::Limiter;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

/// JSON text from the script; anything unreadable is `null` (every reader below treats a
/// missing field as absent, never as a panic).
fn parse(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

/// The `/` picker and, once a prompt is chosen, its argument form.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub struct PromptUi {
    picker: Picker,
    form: Option<PromptForm>,
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
impl PromptUi {
    /// `servers` is the host's `servers` answer (JSON), `typed` what follows the slash.
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen(constructor))]
    pub fn new(servers: &str, typed: &str) -> PromptUi {
        PromptUi {
            picker: Picker::new(entries(&parse(servers)), typed),
            form: None,
        }
    }

    pub fn set_typed(&mut self, typed: &str) {
        self.picker.set_typed(typed);
    }

    /// The servers' prompts changed (the host's `servers` answer again).
    pub fn refresh(&mut self, servers: &str) {
        self.picker.set_entries(entries(&parse(servers)));
    }

    pub fn picker_html(&self) -> String {
        self.picker.html()
    }

    pub fn status(&self) -> String {
        self.picker.status()
    }

    pub fn active_id(&self) -> Option<String> {
        self.picker.active_id()
    }

    pub fn list_id(&self) -> String {
        skiff_core::mcp::ask_ui::LIST_ID.to_string()
    }

    /// A key pressed in the message box while the list is open: `ignored` (the box keeps
    /// it), `moved`, `close`, or `chosen` (the form is open now).
    pub fn key(&mut self, key: &str) -> String {
        let Some(key) = Key::parse(key) else {
            return "ignored".into();
        };
        match self.picker.key(key) {
            PickerMove::Ignored => "ignored",
            PickerMove::Moved => "moved",
            PickerMove::Close => "close",
            PickerMove::Choose(i) => {
                self.open(i);
                "chosen"
            }
        }
        .into()
    }

    /// A click on shown option `at`: whether a prompt is now chosen.
    pub fn click(&mut self, at: usize) -> bool {
        match self.picker.click(at) {
            Some(i) => {
                self.open(i);
                true
            }
            None => false,
        }
    }

    fn open(&mut self, i: usize) {
        self.form = self.picker.entry(i).cloned().map(PromptForm::new);
    }

    pub fn needs_form(&self) -> bool {
        self.form.as_ref().is_some_and(PromptForm::needs_form)
    }

    pub fn form_html(&self) -> String {
        self.form.as_ref().map(PromptForm::html).unwrap_or_default()
    }

    pub fn set_value(&mut self, i: usize, value: &str) {
        if let Some(f) = &mut self.form {
            f.set_value(i, value);
        }
    }

    /// The host `request` argument for argument `i`'s completions (JSON), when the server
    /// offers them.
    pub fn completion(&self, i: usize) -> Option<String> {
        let f = self.form.as_ref()?;
        let params = f.completion(i)?;
        Some(
            json!({"server": f.entry().server_id, "method": "completion/complete", "params": params})
                .to_string(),
        )
    }

    /// The completion answer (JSON) for argument `i` typed as `typed`: whether to draw.
    pub fn suggested(&mut self, i: usize, typed: &str, result: &str) -> bool {
        self.form
            .as_mut()
            .is_some_and(|f| f.suggested(i, typed, &parse(result)))
    }

    pub fn suggestions_html(&self, i: usize) -> String {
        self.form
            .as_ref()
            .map(|f| f.suggestions_html(i))
            .unwrap_or_default()
    }

    pub fn suggest_id(&self, i: usize) -> String {
        suggest_id(i)
    }

    /// Suggestion `j` of argument `i` picked: the field's new value.
    pub fn pick(&mut self, i: usize, j: usize) -> Option<String> {
        self.form.as_mut()?.pick(i, j)
    }

    pub fn clear_suggestions(&mut self, i: usize) -> bool {
        self.form.as_mut().is_some_and(|f| f.clear_suggestions(i))
    }

    /// Insert: `{"draw": focus}` or `{"get": {server, method, params}}` (the host `request`).
    pub fn submit(&mut self) -> String {
        match self.form.as_mut().map(PromptForm::submit) {
            Some(FormOutcome::Get { server, params }) => json!({"get":
                {"server": server, "method": "prompts/get", "params": params}}),
            Some(FormOutcome::Draw { focus }) => json!({ "draw": focus }),
            Some(FormOutcome::Close) | None => json!({ "close": true }),
        }
        .to_string()
    }

    /// The `prompts/get` result (JSON): `{"insert": <host insert argument>}` or
    /// `{"error": sentence}` (the form shows it too).
    pub fn got(&mut self, result: &str) -> String {
        match self.form.as_mut().map(|f| f.got(&parse(result))) {
            Some(Ok(insert)) => json!({ "insert": insert }),
            Some(Err(e)) => json!({ "error": e }),
            None => json!({ "error": "The prompt's form is closed." }),
        }
        .to_string()
    }

    pub fn failed(&mut self, sentence: &str) {
        if let Some(f) = &mut self.form {
            f.failed(sentence);
        }
    }

    /// The chosen prompt's `/name`, for announcements.
    pub fn chosen_name(&self) -> String {
        self.form
            .as_ref()
            .map(|f| f.entry().name.clone())
            .unwrap_or_default()
    }
}

/// Every sampling card on screen, and the per-server budget that decides which are shown.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
#[derive(Default)]
pub struct SamplingUi {
    limiter: Limiter,
    cards: Vec<(String, SamplingCard)>,
    next: u32,
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
impl SamplingUi {
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen(constructor))]
    pub fn new() -> SamplingUi {
        SamplingUi::default()
    }

    /// An `ask` event (JSON) at `now_ms`: `{"show": card id}` or `{"refuse": <host answer
    /// argument>, "sentence": ...}`.
    pub fn ask(&mut self, event: &str, now_ms: f64) -> String {
        match admit(&parse(event), &mut self.limiter, now_ms) {
            Admission::Show(card) => {
                self.next = self.next.wrapping_add(1);
                let id = format!("ask-s{}", self.next);
                self.cards.push((id.clone(), *card));
                json!({ "show": id })
            }
            Admission::Refuse { answer, sentence } => {
                json!({"refuse": answer, "sentence": sentence})
            }
        }
        .to_string()
    }

    fn card(&mut self, id: &str) -> Option<&mut SamplingCard> {
        self.cards
            .iter_mut()
            .find(|(c, _)| c == id)
            .map(|(_, card)| card)
    }

    /// The ids of the cards, oldest first.
    pub fn ids(&self) -> Vec<String> {
        self.cards.iter().map(|(id, _)| id.clone()).collect()
    }

    pub fn html(&self, id: &str) -> String {
        self.cards
            .iter()
            .find(|(c, _)| c == id)
            .map(|(id, card)| card.html(id))
            .unwrap_or_default()
    }

    pub fn set_draft(&mut self, id: &str, text: &str) {
        if let Some(c) = self.card(id) {
            c.set_draft(text);
        }
    }

    /// Approve: the host `sample` argument (JSON, with `id`: chunks come back with it), or
    /// nothing to send.
    pub fn approve(&mut self, id: &str) -> Option<String> {
        let mut arg = self.card(id)?.approve()?;
        arg["id"] = Value::String(id.to_string());
        Some(arg.to_string())
    }

    /// A `chunk` of card `id`'s answer: its text so far, when the card is sampling.
    pub fn chunk(&mut self, id: &str, text: &str) -> Option<String> {
        self.card(id)?.chunk(text).map(str::to_string)
    }

    /// The host's `sample` answer (JSON): `{"answer": <host answer argument>}` or
    /// `{"error": sentence}`.
    pub fn sampled(&mut self, id: &str, answer: &str) -> String {
        match self.card(id).map(|c| c.sampled(&parse(answer))) {
            Some(Ok(a)) => json!({ "answer": a }),
            Some(Err(e)) => json!({ "error": e }),
            None => json!({ "error": "" }),
        }
        .to_string()
    }

    pub fn failed(&mut self, id: &str, sentence: &str) {
        if let Some(c) = self.card(id) {
            c.failed(sentence);
        }
    }

    /// Deny: the host `answer` argument (JSON).
    pub fn deny(&mut self, id: &str) -> Option<String> {
        Some(self.card(id)?.deny().to_string())
    }

    /// `ask-gone` (JSON `{server, key}`): the id of the card that now says so.
    pub fn gone(&mut self, event: &str) -> Option<String> {
        let e = parse(event);
        let server = e.get("server").and_then(Value::as_str).unwrap_or("");
        let key = e.get("key").unwrap_or(&Value::Null);
        let (id, card) = self
            .cards
            .iter_mut()
            .find(|(_, c)| c.server == server && c.key == *key)?;
        card.gone();
        Some(id.clone())
    }

    /// The id of the server that asked on card `id` (its remembered model is kept under it).
    pub fn server_id(&self, id: &str) -> String {
        self.cards
            .iter()
            .find(|(c, _)| c == id)
            .map(|(_, c)| c.server.clone())
            .unwrap_or_default()
    }

    /// The server's name on card `id` (for announcements).
    pub fn server_name(&self, id: &str) -> String {
        self.cards
            .iter()
            .find(|(c, _)| c == id)
            .map(|(_, c)| c.server_name.clone())
            .unwrap_or_default()
    }

    pub fn remove(&mut self, id: &str) {
        self.cards.retain(|(c, _)| c != id);
    }
}

/// One server's roots editor.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub struct RootsUi {
    form: RootsForm,
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
impl RootsUi {
    /// `stored` is what localStorage holds under [`roots_key`] (`None`: nothing).
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen(constructor))]
    pub fn new(server_id: &str, server_name: &str, stored: Option<String>) -> RootsUi {
        RootsUi {
            form: RootsForm::new(server_id, server_name, stored.as_deref()),
        }
    }

    pub fn html(&self) -> String {
        self.form.html()
    }

    /// `act` the clicked `data-act`, `pairs` the add fields as JSON `[[name, value], ...]`:
    /// `{"nothing"}`, `{"draw": focus}`, `{"save": {key, value, announce}}` or `{"close"}`.
    pub fn act(&mut self, act: &str, pairs: &str) -> String {
        let pairs: Vec<(String, String)> = serde_json::from_str(pairs).unwrap_or_default();
        match self.form.act(act, &pairs) {
            RootsOutcome::Nothing => json!({ "nothing": true }),
            RootsOutcome::Draw { focus } => json!({ "draw": focus }),
            RootsOutcome::Save {
                key,
                value,
                announce,
            } => json!({"save": {"key": key, "value": value, "announce": announce}}),
            RootsOutcome::Close => json!({ "close": true }),
        }
        .to_string()
    }

    pub fn stored(&mut self) {
        self.form.stored();
    }

    pub fn failed(&mut self, sentence: &str) {
        self.form.failed(sentence);
    }
}

/// What follows "/" when the message box (its text up to the caret) opens the prompt
/// picker — the page's own rule (`composer_trigger`), so the list closes exactly when the page
/// stops asking for it.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn slash_query(before_caret: &str) -> Option<String> {
    match trigger(before_caret) {
        Some(("slash", q)) => Some(q.to_string()),
        _ => None,
    }
}

/// The localStorage key of a server's roots (the page answers `roots/list` from it).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn roots_storage_key(server_id: &str) -> String {
    roots_key(server_id)
}

/// The "Answer with" list of sampling card `card_id` from the host's `models` answer (JSON):
/// `selected` when it is an index (the user's pick, kept across repaints), else where
/// `ask_ui::initial_model` starts it from `remembered` (this server's last choice, JSON).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn sampling_model_picker(
    card_id: &str,
    listing: &str,
    remembered: &str,
    selected: i32,
) -> String {
    let listing = parse(listing);
    let options = model_options(&listing);
    let at = usize::try_from(selected)
        .ok()
        .filter(|i| *i < options.len())
        .unwrap_or_else(|| initial_model(&options, &parse(remembered), &listing));
    model_picker_html(card_id, &options, at)
}

/// The `choice` (JSON `{profile_id, model}`) of entry `index` of that list, or "".
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn sampling_model_choice(listing: &str, index: usize) -> String {
    model_options(&parse(listing))
        .get(index)
        .map(|o| o.choice().to_string())
        .unwrap_or_default()
}
