//! The on-demand module's prompts, sampling and roots surfaces (issue 13 items 5, 8, 9), as
//! machines and HTML text: the `/` prompt picker ([`Picker`]), a prompt's argument form
//! ([`PromptForm`]), the sampling approval card ([`SamplingCard`]) and a server's roots editor
//! ([`RootsForm`]).
//!
//! Why here: `skiff-extras` only exports these to its JavaScript, which paints the HTML, reads
//! clicks on `data-act` and performs the IO (`src/extras/README.md`). Every decision — which
//! prompts match what was typed, what a form sends, whether a sampling request is shown, what
//! the server gets back, which roots are stored — is made and tested here, natively.
//!
//! Architecture invariant: nothing here performs IO or reads a clock (`now_ms` is an
//! argument). Everything a server sent and everything the user typed reaches HTML through
//! `crate::html::Html` (escaped) and, for names and prose, `display::text` (invisible and
//! direction-changing characters shown).

mod model_pick;
mod picker;
mod prompt_form;
mod roots_form;
mod sampling_card;
mod sampling_html;

pub use model_pick::{
    initial as initial_model, options as model_options, picker_html as model_picker_html,
    ModelOption,
};
pub use picker::{entries, filter, Key, Picker, PickerMove, PromptArg, PromptEntry, LIST_ID};
pub use prompt_form::{
    field_id, suggest_id, FormOutcome, PromptForm, SHOWN_SUGGESTIONS, TITLE_ID as FORM_TITLE_ID,
};
pub use roots_form::{roots_key, RootsForm, RootsOutcome, TITLE_ID as ROOTS_TITLE_ID};
pub use sampling_card::{admit, Admission, SamplingCard, Stage, METHOD as SAMPLING_METHOD};

#[cfg(test)]
mod model_pick_tests;
#[cfg(test)]
mod picker_tests;
#[cfg(test)]
mod prompt_form_tests;
#[cfg(test)]
mod roots_form_tests;
#[cfg(test)]
mod sampling_card_tests;
