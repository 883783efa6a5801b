//! The prompts, sampling and roots surfaces (issue 13 items 5, 8, 9) as machines and
//! view-models: the `/` prompt picker ([`Picker`]), a prompt's argument form ([`PromptForm`]),
//! the sampling approval card ([`SamplingCard`]) and a server's roots editor ([`RootsForm`]).
//!
//! Why here: the page's components (`ui::mcp`) lay out what these return and report what the
//! user did; the runners perform the IO. Every decision — which prompts match what was typed,
//! what a form sends, whether a sampling request is shown, what the server gets back, which
//! roots are stored — is made and tested here, natively.
//!
//! Architecture Invariant: nothing here performs IO, reads a clock (`now_ms` is an argument)
//! or writes markup. Everything a server sent reaches a view-model through `display::text`
//! (invisible and direction-changing characters shown).

mod model_pick;
mod picker;
mod prompt_form;
mod roots_form;
mod sampling_card;
mod sampling_view;

pub use model_pick::{
    initial as initial_model, options as model_options, remembered_key as model_key, ModelOption,
    LABEL as MODEL_LABEL,
};
pub use picker::{
    entries, filter, Key, OptionView, Picker, PickerMove, PromptArg, PromptEntry, ServerPrompts,
    HINT as PICKER_HINT, LIST_ID,
};
pub use prompt_form::{
    field_id, suggest_id, ArgView, FormOutcome, FormView, PromptForm, SuggestView,
    SHOWN_SUGGESTIONS, TITLE_ID as FORM_TITLE_ID,
};
pub use roots_form::{
    roots_key, RootView, RootsFocus, RootsForm, RootsIntent, RootsOutcome, RootsView,
    TITLE_ID as ROOTS_TITLE_ID,
};
pub use sampling_card::{admit, Admission, SamplingCard, Stage, METHOD as SAMPLING_METHOD};
pub use sampling_view::{
    could_not_answer, CardView, MessageView, StageView, ToolView, STOP_AND_DENY, WRITING,
};

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
