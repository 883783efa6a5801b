//! A prompt's argument form: one text field per argument (required ones marked and checked),
//! `completion/complete` suggestions under the field being typed in, then `prompts/get` and
//! the turns the conversation receives.
//!
//! The component reports what the user typed ([`PromptForm::set_value`]) and performs what
//! the form asks for: a completion request ([`PromptForm::completion`]), the `prompts/get`
//! ([`FormOutcome::Get`]), and adding [`PromptForm::got`]'s turns to the conversation. A late
//! completion answer for text the user has since changed is dropped, so suggestions never lag
//! behind the field.

use serde_json::{json, Map, Value};

use super::picker::PromptEntry;
use crate::display::text;
use crate::mcp::prompt_result::{completion_params, suggestions, turns, CompletionRef, PromptTurn};

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

/// What the component does after a form action.
#[derive(Debug, Clone, PartialEq)]
pub enum FormOutcome {
    /// Show the form's sentences; focus argument `focus`'s field when there is one.
    Draw { focus: Option<usize> },
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
    /// the component to put in the field) and the list closes.
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
            return FormOutcome::Draw { focus: None };
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
            return FormOutcome::Draw { focus: Some(i) };
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

    /// The `prompts/get` result: the turns the conversation receives, or the sentence the
    /// form now shows.
    pub fn got(&mut self, result: &Value) -> Result<Vec<PromptTurn>, String> {
        self.busy = false;
        match turns(result) {
            Ok(turns) => Ok(turns),
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

    /// What the form shows now: the prompt, each argument with its value, sentence and
    /// suggestions, and the form's own lines (a summary of what needs a value, why the last
    /// Insert failed, what it is waiting for).
    pub fn view(&self) -> FormView {
        let e = &self.entry;
        let bad = self.errors.iter().flatten().count();
        FormView {
            title: text::name(e.label()).into_owned(),
            name: format!("/{}", text::name(&e.name)),
            server: text::name(&e.server_name).into_owned(),
            description: (!e.description.trim().is_empty())
                .then(|| text::prose(&e.description).into_owned()),
            fields: e
                .args
                .iter()
                .enumerate()
                .map(|(i, a)| ArgView {
                    id: field_id(i),
                    name: a.name.clone(),
                    label: text::name(a.label()).into_owned(),
                    required: a.required,
                    description: (!a.description.trim().is_empty())
                        .then(|| text::prose(&a.description).into_owned()),
                    error: self.errors[i].clone(),
                    value: self.values[i].clone(),
                })
                .collect(),
            summary: (bad > 0).then(|| {
                let s = if bad == 1 {
                    "argument needs"
                } else {
                    "arguments need"
                };
                format!("{bad} {s} a value before the prompt can be used.")
            }),
            failure: self.failure.as_deref().map(|f| text::prose(f).into_owned()),
            busy: self.busy.then(|| {
                format!(
                    "Getting the prompt from {}\u{2026}",
                    text::name(&e.server_name)
                )
            }),
        }
    }

    /// Argument `i`'s suggestions as shown (the first [`SHOWN_SUGGESTIONS`]; `more` when the
    /// server has others).
    pub fn suggestions(&self, i: usize) -> SuggestView {
        let Some(s) = self.suggest.get(i) else {
            return SuggestView::default();
        };
        let label = self.entry.args.get(i).map_or("", |a| a.label());
        SuggestView {
            label: format!("Suggestions for {}", text::name(label)),
            values: s
                .values
                .iter()
                .take(SHOWN_SUGGESTIONS)
                .map(|v| text::name(v).into_owned())
                .collect(),
            more: (s.values.len() > SHOWN_SUGGESTIONS || s.more)
                .then_some("More match: keep typing to narrow them."),
        }
    }
}

/// The argument form as it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormView {
    pub title: String,
    /// `/name`.
    pub name: String,
    pub server: String,
    pub description: Option<String>,
    pub fields: Vec<ArgView>,
    /// How many arguments still need a value.
    pub summary: Option<String>,
    /// Why the last Insert did not go.
    pub failure: Option<String>,
    /// The prompt is being fetched: the status line (the buttons are off meanwhile).
    pub busy: Option<String>,
}

/// One argument's field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgView {
    /// The input's element id.
    pub id: String,
    /// The argument's name as the server gave it (the field's `data-arg`).
    pub name: String,
    pub label: String,
    pub required: bool,
    pub description: Option<String>,
    pub error: Option<String>,
    pub value: String,
}

/// An argument's suggestions, under its field. Picking the `j`th is [`PromptForm::pick`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SuggestView {
    /// The group's accessible name.
    pub label: String,
    pub values: Vec<String>,
    /// Said when there are more than are shown.
    pub more: Option<&'static str>,
}
