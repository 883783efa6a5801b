//! The `/` prompt picker: the prompts of every connected server, narrowed by what follows the
//! slash, moved through with Up/Down and chosen with Enter (or Tab) or a click.
//!
//! The page keeps focus in the message box while the list is open (a combobox: the box owns
//! the keys, the list is `aria-activedescendant`), so [`Picker::key`] decides what a key does
//! and the script only performs it. Server names, titles and descriptions are untrusted: they
//! are shown through `display::text` and escaped.

use serde_json::Value;

use crate::display::text;
use crate::format::count;

/// The list's element id (the message box's `aria-controls`).
pub const LIST_ID: &str = "ask-prompt-list";

/// The list's heading: how to use it from the keyboard.
pub const HINT: &str = "Prompts \u{b7} \u{2191}\u{2193} choose \u{b7} Enter use \u{b7} Esc close";

/// One argument of a prompt, as `prompts/list` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptArg {
    pub name: String,
    pub title: String,
    pub description: String,
    pub required: bool,
}

impl PromptArg {
    /// What the form's label says: the title when the server gave one.
    pub fn label(&self) -> &str {
        if self.title.trim().is_empty() {
            &self.name
        } else {
            &self.title
        }
    }
}

/// One prompt of one connected server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptEntry {
    pub server_id: String,
    pub server_name: String,
    pub name: String,
    pub title: String,
    pub description: String,
    pub args: Vec<PromptArg>,
    /// The server declared `completions`: its arguments may be completed as the user types.
    pub completions: bool,
}

impl PromptEntry {
    /// The prompt's title, or its name when it has none.
    pub fn label(&self) -> &str {
        if self.title.trim().is_empty() {
            &self.name
        } else {
            &self.title
        }
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// One server's prompts, as it listed them (unchecked JSON), with its
/// `initialize` capabilities.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ServerPrompts {
    pub id: String,
    pub name: String,
    /// Only a connected server's prompts can be asked for.
    pub connected: bool,
    pub capabilities: Value,
    pub prompts: Vec<Value>,
}

/// The prompts of the connected servers, in server order and then the server's order. A
/// prompt without a name cannot be asked for and is left out; so is an argument without one.
pub fn entries(servers: &[ServerPrompts]) -> Vec<PromptEntry> {
    let mut out = Vec::new();
    for s in servers {
        let server_id = s.id.as_str();
        if !s.connected || server_id.is_empty() {
            continue;
        }
        let server_name = match s.name.as_str() {
            "" => server_id,
            n => n,
        };
        let completions = s
            .capabilities
            .get("completions")
            .is_some_and(|c| !c.is_null());
        for p in &s.prompts {
            let name = str_at(p, "name");
            if name.trim().is_empty() {
                continue;
            }
            let args = p
                .get("arguments")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|a| !str_at(a, "name").is_empty())
                .map(|a| PromptArg {
                    name: str_at(a, "name").to_string(),
                    title: str_at(a, "title").to_string(),
                    description: str_at(a, "description").to_string(),
                    required: a.get("required").and_then(Value::as_bool).unwrap_or(false),
                })
                .collect();
            out.push(PromptEntry {
                server_id: server_id.to_string(),
                server_name: server_name.to_string(),
                name: name.to_string(),
                title: str_at(p, "title").to_string(),
                description: str_at(p, "description").to_string(),
                args,
                completions,
            });
        }
    }
    out
}

/// The word the picker filters by: what follows the slash up to the first space.
fn word(typed: &str) -> String {
    typed.split_whitespace().next().unwrap_or("").to_lowercase()
}

/// The entries matching `typed` (indices into `entries`), best first: a name or title that
/// starts with the word, then one that contains it, then a description or server name that
/// does; the list's order within each. Nothing typed matches everything.
pub fn filter(entries: &[PromptEntry], typed: &str) -> Vec<usize> {
    let q = word(typed);
    let mut ranked: Vec<(u8, usize)> = entries
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            if q.is_empty() {
                return Some((0, i));
            }
            let name = e.name.to_lowercase();
            let title = e.title.to_lowercase();
            let rank = if name.starts_with(&q) || title.starts_with(&q) {
                0
            } else if name.contains(&q) || title.contains(&q) {
                1
            } else if e.description.to_lowercase().contains(&q)
                || e.server_name.to_lowercase().contains(&q)
            {
                2
            } else {
                return None;
            };
            Some((rank, i))
        })
        .collect();
    // Stable: the list's order stays within a rank.
    crate::order::sort_by_key(&mut ranked, |(rank, _)| *rank);
    ranked.into_iter().map(|(_, i)| i).collect()
}

/// A key the picker may take from the message box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Up,
    Down,
    Home,
    End,
    Enter,
    Tab,
    Escape,
}

impl Key {
    /// `KeyboardEvent.key`; anything else stays the message box's.
    pub fn parse(key: &str) -> Option<Key> {
        Some(match key {
            "ArrowUp" | "Up" => Key::Up,
            "ArrowDown" | "Down" => Key::Down,
            "Home" => Key::Home,
            "End" => Key::End,
            "Enter" => Key::Enter,
            "Tab" => Key::Tab,
            "Escape" | "Esc" => Key::Escape,
            _ => return None,
        })
    }
}

/// What the component does after a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerMove {
    /// Not the picker's key: the message box keeps it (its default is not prevented).
    Ignored,
    /// The highlight moved: draw again.
    Moved,
    /// Use this entry (an index into the entries).
    Choose(usize),
    /// Close the list and leave the text as it is.
    Close,
}

/// The open picker: the entries, what is typed, which of the shown is highlighted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Picker {
    entries: Vec<PromptEntry>,
    typed: String,
    shown: Vec<usize>,
    selected: usize,
}

impl Picker {
    pub fn new(entries: Vec<PromptEntry>, typed: &str) -> Picker {
        let mut p = Picker {
            entries,
            ..Picker::default()
        };
        p.set_typed(typed);
        p
    }

    /// What follows the slash changed: filter again. A new word highlights the best match
    /// (what Enter then uses); text after the word changes nothing the user chose.
    pub fn set_typed(&mut self, typed: &str) {
        let same_word = word(typed) == word(&self.typed);
        let before = self.shown.get(self.selected).copied();
        self.typed = typed.to_string();
        self.shown = filter(&self.entries, typed);
        self.selected = before
            .filter(|_| same_word)
            .and_then(|b| self.shown.iter().position(|i| *i == b))
            .unwrap_or(0);
    }

    /// The servers' prompts changed while the list is open: the highlighted prompt stays
    /// highlighted when it is still there.
    pub fn set_entries(&mut self, entries: Vec<PromptEntry>) {
        let before = self
            .highlighted()
            .and_then(|i| self.entries.get(i))
            .map(|e| (e.server_id.clone(), e.name.clone()));
        self.entries = entries;
        self.shown = filter(&self.entries, &self.typed);
        self.selected = before
            .and_then(|(server, name)| {
                self.shown.iter().position(|&i| {
                    self.entries[i].server_id == server && self.entries[i].name == name
                })
            })
            .unwrap_or(0);
    }

    pub fn entry(&self, index: usize) -> Option<&PromptEntry> {
        self.entries.get(index)
    }

    /// The entries shown, in order (indices into the entries).
    pub fn shown(&self) -> &[usize] {
        &self.shown
    }

    /// The highlighted entry's index into the entries.
    pub fn highlighted(&self) -> Option<usize> {
        self.shown.get(self.selected).copied()
    }

    /// A key pressed in the message box while the list is open. Up and Down wrap around.
    pub fn key(&mut self, key: Key) -> PickerMove {
        let n = self.shown.len();
        match key {
            Key::Escape => PickerMove::Close,
            Key::Enter | Key::Tab => match self.highlighted() {
                Some(i) => PickerMove::Choose(i),
                // Nothing to choose: Enter stays the box's (sends the text as typed), Tab
                // moves focus on.
                None => PickerMove::Ignored,
            },
            _ if n == 0 => PickerMove::Ignored,
            Key::Down => {
                self.selected = (self.selected + 1) % n;
                PickerMove::Moved
            }
            Key::Up => {
                self.selected = (self.selected + n - 1) % n;
                PickerMove::Moved
            }
            Key::Home => {
                self.selected = 0;
                PickerMove::Moved
            }
            Key::End => {
                self.selected = n - 1;
                PickerMove::Moved
            }
        }
    }

    /// A click on shown option `at`.
    pub fn click(&self, at: usize) -> Option<usize> {
        self.shown.get(at).copied()
    }

    /// The highlighted option's element id (the box's `aria-activedescendant`).
    pub fn active_id(&self) -> Option<String> {
        self.highlighted().map(|_| option_id(self.selected))
    }

    /// A sentence for screen readers: how many prompts are shown.
    pub fn status(&self) -> String {
        match self.shown.len() {
            0 => self.empty_sentence(),
            n => format!(
                "{}; Up and Down to choose, Enter to use, Escape to close.",
                count(n, "prompt", "prompts")
            ),
        }
    }

    fn empty_sentence(&self) -> String {
        if self.entries.is_empty() {
            "No connected MCP server offers prompts. Servers are added and enabled in \
             Settings \u{2192} MCP servers."
                .to_string()
        } else {
            format!(
                "No prompt matches \u{201c}{}\u{201d}.",
                text::name(&word(&self.typed))
            )
        }
    }

    /// The options shown, in order, each with what its row says.
    pub fn options(&self) -> Vec<OptionView> {
        self.shown
            .iter()
            .enumerate()
            .map(|(at, &i)| {
                let e = &self.entries[i];
                OptionView {
                    at,
                    id: option_id(at),
                    prompt: e.name.clone(),
                    title: text::name(e.label()).into_owned(),
                    name: format!("/{}", text::name(&e.name)),
                    server: text::name(&e.server_name).into_owned(),
                    description: (!e.description.trim().is_empty())
                        .then(|| text::prose(&e.description).into_owned()),
                    selected: at == self.selected,
                }
            })
            .collect()
    }

    /// What the list says when it shows nothing.
    pub fn empty(&self) -> Option<String> {
        self.shown.is_empty().then(|| self.empty_sentence())
    }
}

/// One option of the list, as its row shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionView {
    /// Its place among the shown options (what a click on it reports).
    pub at: usize,
    /// Its element id (the message box's `aria-activedescendant` when highlighted).
    pub id: String,
    /// The prompt's name as the server gave it (the row's `data-prompt`).
    pub prompt: String,
    pub title: String,
    /// `/name`, as it would be typed.
    pub name: String,
    pub server: String,
    pub description: Option<String>,
    pub selected: bool,
}

fn option_id(at: usize) -> String {
    format!("ask-opt-{at}")
}
