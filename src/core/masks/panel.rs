//! Settings → Masks as a machine: what the panel shows ([`MaskPanel::view`]: the list, or the
//! editor with what its last Save found wrong) and what each intent does
//! ([`MaskPanel::act`]). The page lays out the view, sends the user's intents and performs
//! the [`Outcome`]. Never markup: the view is plain data, tested here.

use super::form::{FieldError, MaskDraft, MaskEdit, MaskField, PROMPT_ROLES};
use super::{builtins, find};
use crate::display::text;
use crate::form::{Choice, Field};
use crate::format::count;
use crate::records::mask::{ContextPrompt, Mask};
use crate::records::message::Role;
use crate::settings::ChatSettings;

#[derive(Debug, Clone, PartialEq)]
struct Editing {
    id: String,
    draft: MaskDraft,
    is_new: bool,
    errors: Vec<FieldError>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct MaskPanel {
    editing: Option<Editing>,
    /// A mask whose Delete was clicked once: its row asks again.
    confirming: Option<String>,
}

/// What the user asks of the panel. Ids are mask ids; the editor's intents do nothing while
/// the list shows, and the list's while the editor is open.
#[derive(Debug, Clone, PartialEq)]
pub enum MaskIntent {
    New,
    Edit(String),
    Duplicate(String),
    /// The first click on Delete: the row asks again.
    Delete(String),
    /// "Keep": the row stops asking.
    Keep,
    DeleteForGood(String),
    Chat(String),
    Change(MaskEdit),
    AddPrompt,
    RemovePrompt(usize),
    Save,
    Cancel,
}

/// Where the cursor goes after an intent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskFocus {
    Field(MaskField),
    /// The list's "New mask" button.
    New,
    /// The asking row's "Keep" button.
    Keep,
}

impl MaskFocus {
    /// The element id the component puts the cursor on.
    pub fn id(self) -> String {
        match self {
            MaskFocus::Field(f) => f.id(),
            MaskFocus::New => "mask-new".into(),
            MaskFocus::Keep => "mask-keep".into(),
        }
    }
}

/// What the page does after an intent.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Show the panel as it now is, with the cursor at `focus` (`None`: where it is).
    Show { focus: Option<MaskFocus> },
    /// Store these as the user's masks, then show the list.
    Store { masks: Vec<Mask>, focus: MaskFocus },
    /// Start a new chat from this mask (and close Settings).
    Chat(Mask),
}

const STAY: Outcome = Outcome::Show { focus: None };

fn show(focus: MaskFocus) -> Outcome {
    Outcome::Show { focus: Some(focus) }
}

/// A button of a list row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowAction {
    Chat,
    Edit,
    Duplicate,
    Delete,
    DeleteForGood,
    Keep,
}

impl RowAction {
    /// The stable name the button's class carries (`row-edit`).
    pub fn name(self) -> &'static str {
        match self {
            RowAction::Chat => "chat",
            RowAction::Edit => "edit",
            RowAction::Duplicate => "duplicate",
            RowAction::Delete => "delete",
            RowAction::DeleteForGood => "delete-for-good",
            RowAction::Keep => "keep",
        }
    }

    /// The button's text.
    pub fn label(self) -> &'static str {
        match self {
            RowAction::Chat => "New chat",
            RowAction::Edit => "Edit",
            RowAction::Duplicate => "Duplicate",
            RowAction::Delete | RowAction::DeleteForGood => "Delete",
            RowAction::Keep => "Keep",
        }
    }

    /// The button's accessible name in the row of `mask` (the rows' buttons look alike).
    pub fn aria(self, mask: &str) -> String {
        match self {
            RowAction::Chat => format!("New chat with {mask}"),
            RowAction::Edit => format!("Edit {mask}"),
            RowAction::Duplicate => format!("Duplicate {mask}"),
            RowAction::Delete => format!("Delete {mask}"),
            RowAction::DeleteForGood => format!("Delete {mask} for good"),
            RowAction::Keep => format!("Keep {mask}"),
        }
    }

    /// Whether the button destroys something (drawn in the danger colour).
    pub fn danger(self) -> bool {
        matches!(self, RowAction::Delete | RowAction::DeleteForGood)
    }

    /// What a click on it in the row of mask `id` asks.
    pub fn intent(self, id: &str) -> MaskIntent {
        let id = id.to_string();
        match self {
            RowAction::Chat => MaskIntent::Chat(id),
            RowAction::Edit => MaskIntent::Edit(id),
            RowAction::Duplicate => MaskIntent::Duplicate(id),
            RowAction::Delete => MaskIntent::Delete(id),
            RowAction::DeleteForGood => MaskIntent::DeleteForGood(id),
            RowAction::Keep => MaskIntent::Keep,
        }
    }
}

/// One mask in the list.
#[derive(Debug, Clone, PartialEq)]
pub struct MaskRow {
    pub id: String,
    /// "🌐 Translator", neutralised for display.
    pub label: String,
    /// "3 prompts", "1 prompt · built in".
    pub about: String,
    /// "Delete Mine?" while the row asks before deleting.
    pub question: Option<String>,
    /// Its buttons, in order.
    pub actions: &'static [RowAction],
}

/// One context prompt in the editor.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptRow {
    pub role: Role,
    pub content: Field,
}

/// The editor as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct MaskEditor {
    /// "New mask" or "Edit mask".
    pub title: &'static str,
    pub name: Field,
    pub emoji: Field,
    /// The chosen profile's id ("" for the chat's own choice) among `profiles`.
    pub profile: Field,
    pub profiles: Vec<Choice>,
    pub model: Field,
    pub temperature: Field,
    pub top_p: Field,
    pub max_tokens: Field,
    pub input_template: Field,
    pub prompts: Vec<PromptRow>,
    /// What is wrong with the list of prompts as a whole (too many).
    pub prompts_error: Option<String>,
    /// "2 fields need attention before the mask can be saved." after a Save that failed.
    pub summary: Option<String>,
}

/// What the panel shows.
#[derive(Debug, Clone, PartialEq)]
pub enum MaskView {
    List(Vec<MaskRow>),
    Editor(Box<MaskEditor>),
}

const USER_ROW: &[RowAction] = &[
    RowAction::Chat,
    RowAction::Edit,
    RowAction::Duplicate,
    RowAction::Delete,
];
const BUILTIN_ROW: &[RowAction] = &[RowAction::Chat, RowAction::Duplicate];
const ASKING_ROW: &[RowAction] = &[RowAction::DeleteForGood, RowAction::Keep];

impl MaskEditor {
    /// The field of `f` (an empty one for a prompt that is not there).
    pub fn field(&self, f: MaskField) -> &Field {
        static EMPTY: Field = Field {
            value: String::new(),
            error: None,
        };
        match f {
            MaskField::Name => &self.name,
            MaskField::Emoji => &self.emoji,
            MaskField::Profile => &self.profile,
            MaskField::Model => &self.model,
            MaskField::Temperature => &self.temperature,
            MaskField::TopP => &self.top_p,
            MaskField::MaxTokens => &self.max_tokens,
            MaskField::InputTemplate => &self.input_template,
            MaskField::Prompt(i) => self.prompts.get(i).map_or(&EMPTY, |p| &p.content),
            MaskField::Prompts => &EMPTY,
        }
    }
}

impl MaskView {
    pub fn editor(&self) -> Option<&MaskEditor> {
        match self {
            MaskView::Editor(e) => Some(e),
            MaskView::List(_) => None,
        }
    }
}

fn editor_view(e: &Editing, settings: &ChatSettings) -> MaskEditor {
    let field = |f: MaskField| {
        let error = e
            .errors
            .iter()
            .find(|x| x.field == f)
            .map(|x| x.message.clone());
        Field::new(e.draft.text(f), error)
    };
    let chosen = e.draft.profile.trim();
    let mut profiles = vec![Choice::new("", "The chat's own choice")];
    profiles.extend(
        settings
            .profiles
            .iter()
            .map(|p| Choice::new(p.id.clone(), p.name.clone())),
    );
    if !profiles.iter().any(|c| c.value == chosen) {
        // A profile deleted since: kept, so saving does not silently drop the choice.
        profiles.push(Choice::new(chosen, "A provider that no longer exists"));
    }
    MaskEditor {
        title: if e.is_new { "New mask" } else { "Edit mask" },
        name: field(MaskField::Name),
        emoji: field(MaskField::Emoji),
        profile: Field::new(chosen, None),
        profiles,
        model: field(MaskField::Model),
        temperature: field(MaskField::Temperature),
        top_p: field(MaskField::TopP),
        max_tokens: field(MaskField::MaxTokens),
        input_template: field(MaskField::InputTemplate),
        prompts: (0..e.draft.prompts.len())
            .map(|i| PromptRow {
                role: e.draft.prompts[i].role,
                content: field(MaskField::Prompt(i)),
            })
            .collect(),
        prompts_error: field(MaskField::Prompts).error,
        summary: (!e.errors.is_empty()).then(|| {
            format!(
                "{} attention before the mask can be saved.",
                count(e.errors.len(), "field needs", "fields need")
            )
        }),
    }
}

impl MaskPanel {
    /// Whether the editor is open.
    pub fn is_editing(&self) -> bool {
        self.editing.is_some()
    }

    /// What the panel shows: the editor, or the user's masks then the built-in ones.
    pub fn view(&self, settings: &ChatSettings) -> MaskView {
        if let Some(e) = &self.editing {
            return MaskView::Editor(Box::new(editor_view(e, settings)));
        }
        let builtins = builtins();
        let rows = settings.masks.iter().chain(&builtins).map(|m| {
            let label = text::name(&m.label()).into_owned();
            let mut about = count(m.context.len(), "prompt", "prompts");
            if m.is_builtin() {
                about.push_str(" · built in");
            }
            let asking = self.confirming.as_deref() == Some(m.id.as_str());
            MaskRow {
                id: m.id.clone(),
                question: asking.then(|| format!("Delete {label}?")),
                label,
                about,
                actions: match (asking, m.is_builtin()) {
                    (true, _) => ASKING_ROW,
                    (false, true) => BUILTIN_ROW,
                    (false, false) => USER_ROW,
                },
            }
        });
        MaskView::List(rows.collect())
    }

    fn open(&mut self, mask: &Mask, is_new: bool) -> Outcome {
        self.editing = Some(Editing {
            id: mask.id.clone(),
            draft: MaskDraft::of(mask),
            is_new,
            errors: Vec::new(),
        });
        show(MaskFocus::Field(MaskField::Name))
    }

    /// Performs `intent`; `user` are the stored masks, `new_id` makes the id of a new mask.
    pub fn act(
        &mut self,
        intent: MaskIntent,
        user: &[Mask],
        new_id: impl FnOnce() -> String,
    ) -> Outcome {
        let Some(mut e) = self.editing.take() else {
            return self.act_on_list(intent, user, new_id);
        };
        let outcome = match intent {
            MaskIntent::Change(edit) => {
                // The errors stay as the last Save (or Add/Remove) found them until the next.
                e.draft.apply(edit);
                STAY
            }
            MaskIntent::AddPrompt | MaskIntent::RemovePrompt(_) => {
                // What cannot be saved yet keeps its sentence and its typed text; a removed
                // prompt's row numbers shift, so prompt errors wait for the next Save.
                let focus = if let MaskIntent::RemovePrompt(i) = intent {
                    if i < e.draft.prompts.len() {
                        e.draft.prompts.remove(i);
                    }
                    MaskFocus::Field(MaskField::Prompts)
                } else {
                    let role = if e.draft.prompts.is_empty() {
                        Role::System
                    } else {
                        Role::User
                    };
                    e.draft.prompts.push(ContextPrompt {
                        role,
                        content: String::new(),
                    });
                    MaskFocus::Field(MaskField::Prompt(e.draft.prompts.len() - 1))
                };
                let (_, mut errors) = e.draft.read(&e.id);
                if matches!(focus, MaskFocus::Field(MaskField::Prompts)) {
                    errors.retain(|x| !matches!(x.field, MaskField::Prompt(_)));
                }
                e.errors = errors;
                show(focus)
            }
            MaskIntent::Save => {
                let (mask, errors) = e.draft.read(&e.id);
                if let Some(first) = errors.first() {
                    let focus = MaskFocus::Field(first.field);
                    e.errors = errors;
                    self.editing = Some(e);
                    return show(focus);
                }
                let mask = mask.tidy();
                let mut masks = user.to_vec();
                match masks.iter_mut().find(|m| m.id == mask.id) {
                    Some(m) => *m = mask,
                    None => masks.insert(0, mask),
                }
                return Outcome::Store {
                    masks,
                    focus: MaskFocus::New,
                };
            }
            MaskIntent::Cancel => return show(MaskFocus::New),
            // The list's intents: not while the editor is open.
            _ => STAY,
        };
        self.editing = Some(e);
        outcome
    }

    fn act_on_list(
        &mut self,
        intent: MaskIntent,
        user: &[Mask],
        new_id: impl FnOnce() -> String,
    ) -> Outcome {
        match intent {
            MaskIntent::New => {
                let mask = Mask {
                    id: new_id(),
                    context: vec![ContextPrompt {
                        role: PROMPT_ROLES[0],
                        content: String::new(),
                    }],
                    ..Mask::default()
                };
                self.open(&mask, true)
            }
            MaskIntent::Edit(id) => match user.iter().find(|m| m.id == id) {
                Some(m) => self.open(m, false),
                None => STAY,
            },
            MaskIntent::Duplicate(id) => match find(user, &id) {
                Some(m) => self.open(&m.duplicate(new_id()), true),
                None => STAY,
            },
            MaskIntent::Delete(id) => {
                self.confirming = Some(id);
                show(MaskFocus::Keep)
            }
            MaskIntent::Keep => {
                self.confirming = None;
                STAY
            }
            MaskIntent::DeleteForGood(id) => {
                self.confirming = None;
                Outcome::Store {
                    masks: user.iter().filter(|m| m.id != id).cloned().collect(),
                    focus: MaskFocus::New,
                }
            }
            MaskIntent::Chat(id) => find(user, &id).map_or(STAY, Outcome::Chat),
            // The editor's intents: not while the list shows.
            _ => STAY,
        }
    }
}
