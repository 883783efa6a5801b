//! What a model can take: images, tools, reasoning, PDF files. Each flag says where it came
//! from — the provider's model list reported it, the user set it, or nobody knows — because a
//! flag the API reported may be corrected by the user, and a refreshed list must not undo that.
//!
//! Stored in the provider profiles (`ProviderProfile::models`). The model lists that report
//! anything are read by their wire formats (`openai::models`, `gemini::models`); plain OpenAI,
//! llama.cpp and Anthropic lists report none of these, so their flags stay unknown until the
//! user sets them.

use serde::{Deserialize, Serialize};

/// One capability's value and its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Flag {
    #[default]
    Unknown,
    /// The provider's model list said so.
    Reported(bool),
    /// The user said so; wins over what the list reports.
    User(bool),
}

impl Flag {
    pub fn value(self) -> Option<bool> {
        match self {
            Flag::Unknown => None,
            Flag::Reported(v) | Flag::User(v) => Some(v),
        }
    }

    pub(crate) fn is_unknown(&self) -> bool {
        *self == Flag::Unknown
    }

    /// How the picker names the flag's state.
    pub fn describe(self) -> &'static str {
        match self {
            Flag::Unknown => "unknown",
            Flag::Reported(true) => "yes (reported by the API)",
            Flag::Reported(false) => "no (reported by the API)",
            Flag::User(true) => "yes (set by you)",
            Flag::User(false) => "no (set by you)",
        }
    }
}

/// Which capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Vision,
    Tools,
    Reasoning,
    Pdf,
}

crate::names::named_enum!(Which, "capability", {
    Vision => "vision",
    Tools => "tools",
    Reasoning => "reasoning",
    Pdf => "pdf",
});

impl Which {
    pub fn label(self) -> &'static str {
        match self {
            Which::Vision => "Images (vision)",
            Which::Tools => "Tools",
            Which::Reasoning => "Reasoning",
            Which::Pdf => "PDF input",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Capabilities {
    #[serde(skip_serializing_if = "Flag::is_unknown")]
    pub vision: Flag,
    #[serde(skip_serializing_if = "Flag::is_unknown")]
    pub tools: Flag,
    #[serde(skip_serializing_if = "Flag::is_unknown")]
    pub reasoning: Flag,
    #[serde(skip_serializing_if = "Flag::is_unknown")]
    pub pdf: Flag,
    /// The tokens the model runs with, when its server says (the in-page model's context,
    /// at most what its GGUF was trained for): the context gauge and trimming use it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// Its parameter count, when its file says: a small model gets short instructions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<u64>,
    /// Whether its file carries a chat template; `Some(false)` is a base model, which
    /// continues text rather than answering, and is named so before use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template: Option<bool>,
}

/// Models up to this many parameters get the short system template and no tool instructions
/// unless the user says they take tools: 135M–1B models lose the question under a
/// thousand tokens of instructions (issue 31: SmolLM2-135M answered in French, 10× slower).
pub const SMALL_MODEL_PARAMETERS: u64 = 1_000_000_000;

impl Capabilities {
    pub fn get(&self, which: Which) -> Flag {
        match which {
            Which::Vision => self.vision,
            Which::Tools => self.tools,
            Which::Reasoning => self.reasoning,
            Which::Pdf => self.pdf,
        }
    }

    pub(crate) fn get_mut(&mut self, which: Which) -> &mut Flag {
        match which {
            Which::Vision => &mut self.vision,
            Which::Tools => &mut self.tools,
            Which::Reasoning => &mut self.reasoning,
            Which::Pdf => &mut self.pdf,
        }
    }

    fn is_empty(&self) -> bool {
        *self == Capabilities::default()
    }

    /// Whether its file says it is small ([`SMALL_MODEL_PARAMETERS`]); unknown is not small.
    pub fn is_small(&self) -> bool {
        self.parameters.is_some_and(|n| n <= SMALL_MODEL_PARAMETERS)
    }

    pub(crate) fn any_user(&self) -> bool {
        Which::ALL
            .iter()
            .any(|&w| matches!(self.get(w), Flag::User(_)))
    }

    /// These (freshly reported) flags, with every flag the user set in `prev` kept.
    pub(crate) fn keeping_user(mut self, prev: Capabilities) -> Capabilities {
        for &w in Which::ALL {
            if let f @ Flag::User(_) = prev.get(w) {
                *self.get_mut(w) = f;
            }
        }
        self
    }

    /// Known flags of `other` fill the unknown ones here (two list entries naming one model).
    fn fill_from(&mut self, other: Capabilities) {
        for &w in Which::ALL {
            if self.get(w).is_unknown() {
                *self.get_mut(w) = other.get(w);
            }
        }
        self.window = self.window.or(other.window);
        self.parameters = self.parameters.or(other.parameters);
        self.chat_template = self.chat_template.or(other.chat_template);
    }
}

/// A model a profile's list named (or one the user set flags on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelEntry {
    pub id: String,
    #[serde(default, skip_serializing_if = "Capabilities::is_empty")]
    pub caps: Capabilities,
    /// Whether the API's last list named it (the picker lists only those).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub listed: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl ModelEntry {
    pub fn new(id: impl Into<String>, caps: Capabilities) -> Self {
        ModelEntry {
            id: id.into(),
            caps,
            listed: true,
        }
    }
}

/// Sorted by id, one entry per id (known flags of duplicates combined). Sorts the ids, not
/// the entries: `Vec<String>::sort` is already in the page, a sort of entries would be another
/// copy of the sort code (model lists are hundreds long at most).
pub fn sorted_unique(entries: Vec<ModelEntry>) -> Vec<ModelEntry> {
    let mut ids: Vec<String> = entries.iter().map(|e| e.id.clone()).collect();
    crate::order::sort(&mut ids);
    ids.dedup();
    ids.into_iter()
        .map(|id| {
            let mut caps = Capabilities::default();
            for e in entries.iter().filter(|e| e.id == id) {
                caps.fill_from(e.caps);
            }
            ModelEntry::new(id, caps)
        })
        .collect()
}
