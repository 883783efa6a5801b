//! A prompt's argument form: one text field per argument (required ones marked and checked),
//! `completion/complete` suggestions under the field being typed in, then `prompts/get` and
//! the turns the conversation receives.
//!
//! The script reports what the user typed ([`PromptForm::set_value`]) and performs what the
//! form asks for: a completion request ([`PromptForm::completion`]), the `prompts/get`
//! ([`FormOutcome::Get`]), the host's `insert` with [`PromptForm::got`]'s messages. A late
//! completion answer for text the user has since changed is dropped, so suggestions never lag
//! behind the field.

use serde_json::{json, Map, Value};

use super::picker::PromptEntry;
use crate::display::text;
use crate::html::Html;
use crate::mcp::prompt_result::{completion_params, suggestions, turns, CompletionRef};

/// Suggestions shown under a field at once; the rest wait for more typing.
pub const SHOWN_SUGGESTIONS: usize = 8;

/// The form's title id (the panel's `aria-labelledby`).
pub const TITLE_ID: &str = "ask-form-title";

#[derive(Debug, Clone, PartialEq, Default)]
struct Suggest {
    values: Vec<String>,
    more: bool,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PromptForm {
    entry: PromptEntry,
    values: Vec<String>,
    errors: Vec<Option<String>>,
    suggest: Vec<Suggest>,
    busy: bool,
    failure: Option<String>,
}

/// What the script does after a form action.
#[derive(Debug, Clone, PartialEq)]
pub enum FormOutcome {
    /// Draw the form again and focus what `focus` selects (`""`: leave focus alone).
    Draw { focus: String },
    /// Send `prompts/get` with these params to `server`.
    Get { server: String, params: Value },
    /// Close the form; the message box gets focus back.
    Close,
}

/// The element id of argument `i`'s field.
pub fn field_id(i: usize) -> String {
    format!("ask-arg-{i}")
}

/// The element id of argument `i`'s suggestion list.
pub fn suggest_id(i: usize) -> String {
    format!("ask-sug-{i}")
}

impl PromptForm {
    pub fn new(entry: PromptEntry) -> PromptForm {
        let n = entry.args.len();
        PromptForm {
            entry,
            values: vec![String::new(); n],
            errors: vec![None; n],
            suggest: vec![Suggest::default(); n],
            busy: false,
            failure: None,
        }
    }

    pub fn entry(&self) -> &PromptEntry {
        &self.entry
    }

    /// A prompt without arguments needs no form: it is fetched as soon as it is chosen.
    pub fn needs_form(&self) -> bool {
        !self.entry.args.is_empty()
    }

    pub fn is_busy(&self) -> bool {
        self.busy
    }

    /// The user typed in argument `i`'s field. Its sentence goes once it has text.
    pub fn set_value(&mut self, i: usize, value: &str) {
        if let Some(v) = self.values.get_mut(i) {
            *v = value.to_string();
            if !value.trim().is_empty() {
                self.errors[i] = None;
            }
        }
    }

    pub fn value(&self, i: usize) -> Option<&str> {
        self.values.get(i).map(String::as_str)
    }

    fn filled(&self) -> Vec<(String, String)> {
        self.entry
            .args
            .iter()
            .zip(&self.values)
            .map(|(a, v)| (a.name.clone(), v.clone()))
            .collect()
    }

    /// The `completion/complete` params for argument `i` as typed now, when the server offers
    /// completions (the other filled arguments go as context: a second argument's values may
    /// depend on the first).
    pub fn completion(&self, i: usize) -> Option<Value> {
        if !self.entry.completions {
            return None;
        }
        let arg = self.entry.args.get(i)?;
        Some(completion_params(
            &CompletionRef::Prompt(&self.entry.name),
            &arg.name,
            &self.values[i],
            &self.filled(),
        ))
    }

    /// The server's completion answer for argument `i` typed as `typed`. Returns whether the
    /// suggestions changed (draw them): an answer for text the field no longer holds is
    /// stale and dropped.
    pub fn suggested(&mut self, i: usize, typed: &str, result: &Value) -> bool {
        if self.values.get(i).map(String::as_str) != Some(typed) {
            return false;
        }
        let (mut values, more) = suggestions(result);
        // The value already typed in full is no suggestion.
        values.retain(|v| v != typed);
        let next = Suggest { values, more };
        if self.suggest[i] == next {
            return false;
        }
        self.suggest[i] = next;
        true
    }

    /// Suggestion `j` of argument `i` was picked: it becomes the field's value (returned, for
    /// the script to put in the field) and the list closes.
    pub fn pick(&mut self, i: usize, j: usize) -> Option<String> {
        let v = self.suggest.get(i)?.values.get(j)?.clone();
        self.set_value(i, &v);
        self.suggest[i] = Suggest::default();
        Some(v)
    }

    /// Closes argument `i`'s suggestions (its field lost focus or Escape was pressed).
    pub fn clear_suggestions(&mut self, i: usize) -> bool {
        match self.suggest.get_mut(i) {
            Some(s) if *s != Suggest::default() => {
                *s = Suggest::default();
                true
            }
            _ => false,
        }
    }

    /// Insert: every required argument must have text. Then `prompts/get` with the arguments
    /// that have text (an empty optional one is left out, not sent as "").
    pub fn submit(&mut self) -> FormOutcome {
        if self.busy {
            return FormOutcome::Draw {
                focus: String::new(),
            };
        }
        self.failure = None;
        let mut first_bad = None;
        for (i, a) in self.entry.args.iter().enumerate() {
            let empty = self.values[i].trim().is_empty();
            self.errors[i] =
                (a.required && empty).then(|| format!("{} is required.", text::name(a.label())));
            if self.errors[i].is_some() && first_bad.is_none() {
                first_bad = Some(i);
            }
        }
        if let Some(i) = first_bad {
            return FormOutcome::Draw {
                focus: format!("#{}", field_id(i)),
            };
        }
        let arguments: Map<String, Value> = self
            .filled()
            .into_iter()
            .filter(|(_, v)| !v.trim().is_empty())
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        let mut params = json!({ "name": self.entry.name });
        if !arguments.is_empty() {
            params["arguments"] = Value::Object(arguments);
        }
        self.busy = true;
        FormOutcome::Get {
            server: self.entry.server_id.clone(),
            params,
        }
    }

    /// The `prompts/get` result: the host's `insert` argument (`{messages: [{role, text,
    /// images}]}`), or the sentence the form now shows.
    pub fn got(&mut self, result: &Value) -> Result<Value, String> {
        self.busy = false;
        match turns(result) {
            Ok(turns) => {
                let messages: Vec<Value> = turns
                    .into_iter()
                    .map(|t| {
                        let images: Vec<Value> = t
                            .images
                            .into_iter()
                            .map(|(mime, b64)| json!({"mime": mime, "b64": b64}))
                            .collect();
                        json!({
                            "role": if t.assistant { "assistant" } else { "user" },
                            "text": t.text,
                            "images": images,
                        })
                    })
                    .collect();
                Ok(json!({ "messages": messages }))
            }
            Err(e) => {
                let s = e.to_string();
                self.failure = Some(s.clone());
                Err(s)
            }
        }
    }

    /// The request or the insert failed: the sentence shows in the form, which stays filled.
    pub fn failed(&mut self, sentence: &str) {
        self.busy = false;
        self.failure = Some(sentence.to_string());
    }

    /// The form, or (busy) the form with its buttons off and a status line.
    pub fn html(&self) -> String {
        let e = &self.entry;
        let mut h = Html::new();
        h.open("h2")
            .attr("class", "ask-title")
            .attr("id", TITLE_ID)
            .body()
            .el("bdi", "ask-prompt-title", &text::name(e.label()))
            .text(" ")
            .open("small")
            .attr("class", "muted")
            .body()
            .open("bdi")
            .body()
            .text(&format!("/{}", text::name(&e.name)))
            .close("bdi")
            .text(" \u{b7} ")
            .open("bdi")
            .body()
            .text(&text::name(&e.server_name))
            .close("bdi")
            .close("small")
            .close("h2");
        if !e.description.trim().is_empty() {
            h.open("p")
                .attr("class", "ask-desc muted")
                .attr("dir", "auto")
                .body()
                .text(&text::prose(&e.description))
                .close("p");
        }
        h.open("form")
            .attr("class", "ask-form")
            .flag("novalidate", true)
            .attr("autocomplete", "off")
            .body();
        for (i, a) in e.args.iter().enumerate() {
            self.field(&mut h, i, a);
        }
        let bad = self.errors.iter().flatten().count();
        if bad > 0 {
            let s = if bad == 1 {
                "argument needs"
            } else {
                "arguments need"
            };
            h.open("p")
                .attr("class", "error ask-summary")
                .attr("role", "alert")
                .body()
                .text(&format!("{bad} {s} a value before the prompt can be used."))
                .close("p");
        }
        if let Some(f) = &self.failure {
            h.open("p")
                .attr("class", "error ask-failure")
                .attr("role", "alert")
                .body()
                .text(&text::prose(f))
                .close("p");
        }
        if self.busy {
            h.open("p")
                .attr("class", "muted ask-busy")
                .attr("role", "status")
                .body()
                .text(&format!(
                    "Getting the prompt from {}\u{2026}",
                    text::name(&e.server_name)
                ))
                .close("p");
        }
        h.open("div").attr("class", "ask-actions").body();
        h.open("button")
            .attr("type", "submit")
            .attr("class", "primary ask-insert")
            .flag("disabled", self.busy)
            .body()
            .text("Insert prompt")
            .close("button");
        h.action("ask-cancel", "cancel", "Cancel");
        h.close("div").close("form");
        h.finish()
    }

    fn field(&self, h: &mut Html, i: usize, a: &super::PromptArg) {
        let id = field_id(i);
        let err_id = format!("{id}-err");
        let desc_id = format!("{id}-desc");
        let described = if a.description.trim().is_empty() {
            err_id.clone()
        } else {
            format!("{err_id} {desc_id}")
        };
        let error = self.errors[i].as_deref();
        h.open("div")
            .attr("class", "ask-field")
            .attr("data-arg", &a.name)
            .body();
        h.open("label").attr("for", &id).body();
        h.text(&text::name(a.label()));
        if a.required {
            h.open("span")
                .attr("class", "ask-required")
                .attr("aria-hidden", "true")
                .body()
                .text(" *")
                .close("span");
        } else {
            h.el("span", "ask-optional muted", " (optional)");
        }
        h.close("label");
        if !a.description.trim().is_empty() {
            h.open("small")
                .attr("class", "muted ask-arg-desc")
                .attr("id", &desc_id)
                .attr("dir", "auto")
                .body()
                .text(&text::prose(&a.description))
                .close("small");
        }
        h.open("input")
            .attr("type", "text")
            .attr("id", &id)
            .attr("name", &format!("a{i}"))
            .attr("data-arg-index", &i.to_string())
            .flag("required", a.required)
            .attr(
                "aria-invalid",
                if error.is_some() { "true" } else { "false" },
            )
            .attr("aria-describedby", &described)
            .attr("value", &self.values[i])
            .void();
        h.open("div")
            .attr("class", "ask-suggest")
            .attr("id", &suggest_id(i))
            .body();
        h.out_raw_suggestions(self, i);
        h.close("div");
        h.open("p")
            .attr("class", "error ask-error")
            .attr("id", &err_id)
            .body()
            .text(error.unwrap_or(""))
            .close("p");
        h.close("div");
    }

    /// The inside of argument `i`'s suggestion list (the script replaces only it, so the
    /// field keeps focus and caret while the user types).
    pub fn suggestions_html(&self, i: usize) -> String {
        let mut h = Html::new();
        h.out_raw_suggestions(self, i);
        h.finish()
    }
}

/// Suggestion buttons, written into the form or alone.
trait SuggestionsInto {
    fn out_raw_suggestions(&mut self, form: &PromptForm, i: usize) -> &mut Self;
}

impl SuggestionsInto for Html {
    fn out_raw_suggestions(&mut self, form: &PromptForm, i: usize) -> &mut Self {
        let Some(s) = form.suggest.get(i) else {
            return self;
        };
        if s.values.is_empty() {
            return self;
        }
        let label = form.entry.args.get(i).map_or("", |a| a.label());
        self.open("div")
            .attr("class", "ask-suggest-list")
            .attr("role", "group")
            .attr(
                "aria-label",
                &format!("Suggestions for {}", text::name(label)),
            )
            .body();
        for (j, v) in s.values.iter().take(SHOWN_SUGGESTIONS).enumerate() {
            self.action(
                "small ask-suggestion",
                &format!("pick:{i}:{j}"),
                &text::name(v),
            );
        }
        let hidden = s.values.len().saturating_sub(SHOWN_SUGGESTIONS);
        if hidden > 0 || s.more {
            self.el(
                "span",
                "muted ask-suggest-more",
                "More match: keep typing to narrow them.",
            );
        }
        self.close("div")
    }
}
