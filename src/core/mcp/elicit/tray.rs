//! The questions on screen (the elicitation tray), as a sans-IO machine.
//!
//! The page holds a server's `elicitation/create` and hands it over as a `HeldAsk`; this
//! machine decides everything after that: refuse a request the form cannot show (answered at
//! once with "invalid params", and a notice), what each card shows and holds, each answer, when
//! the link may open (only after the user's click on Open) and when a card goes. The tray
//! component performs what it returns ([`Effect`]): it answers through the connection runner,
//! opens the link, moves focus, shows the notice.
//!
//! Architecture invariant: nothing here performs IO; the tray never opens a link on its own
//! (an [`Effect::Open`] follows only an Accept on a URL-mode card).

use serde_json::Value;

use super::card_view::{card_view, field_id, CardState, CardStatus, CardView};
use super::{
    parse_create, property_order, ElicitAnswer, ElicitKind, ElicitRequest, FieldInput, FieldKind,
};
use crate::display::text;
use crate::mcp::held_ask::{AskReply, HeldAsk};
use crate::mcp::ElicitKey;

/// JSON-RPC "invalid params": the answer to a request whose schema the form cannot show.
pub const INVALID_PARAMS: i64 = -32602;

/// What the user did on a card.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardIntent {
    /// Accept the form as filled in, or (URL mode) open the link.
    Accept,
    Decline,
    Cancel,
    /// Take away a URL-mode card whose link was opened.
    Dismiss,
}

/// What the component must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// A new card shows at the end of the tray.
    Added { id: String },
    /// Move focus to field `field` of card `id` (`None`: the card itself).
    Focus { id: String, field: Option<usize> },
    /// Card `id` goes (focus goes back where it was before the question came).
    Removed { id: String },
    /// Send this to the server.
    Answer(AskReply),
    /// Open `url` in a new tab, then report with [`Tray::opened`].
    Open { id: String, url: String },
    /// Say this where the user sees it until dismissed (a refused request).
    Notice(String),
}

#[derive(Debug, Clone)]
struct Card {
    id: String,
    server: String,
    server_name: String,
    /// The session's key for the question, echoed back as it came.
    key: ElicitKey,
    request: ElicitRequest,
    state: CardState,
    /// A URL-mode question the user accepted: the page opened and the server has not said yet
    /// that the step finished (`notifications/elicitation/complete`).
    waiting: bool,
}

/// Every question on screen, oldest first.
#[derive(Debug, Default)]
pub struct Tray {
    cards: Vec<Card>,
    next: u64,
}

impl Tray {
    pub fn new() -> Tray {
        Tray::default()
    }

    /// How many questions are on screen.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// The cards' ids, oldest first.
    pub fn ids(&self) -> Vec<String> {
        self.cards.iter().map(|c| c.id.clone()).collect()
    }

    fn card(&self, id: &str) -> Option<&Card> {
        self.cards.iter().find(|c| c.id == id)
    }

    fn card_mut(&mut self, id: &str) -> Option<&mut Card> {
        self.cards.iter_mut().find(|c| c.id == id)
    }

    /// What card `id` shows (the parts that do not change).
    pub fn view(&self, id: &str) -> Option<CardView> {
        self.card(id).map(|c| card_view(&c.server_name, &c.request))
    }

    /// What card `id`'s inputs hold: the defaults at first, then what the user entered.
    pub fn inputs(&self, id: &str) -> Vec<FieldInput> {
        self.card(id)
            .map(|c| c.state.inputs.clone())
            .unwrap_or_default()
    }

    /// What card `id` says about itself now (sentences per field, the URL mode's states).
    pub fn status(&self, id: &str) -> CardStatus {
        let Some(c) = self.card(id) else {
            return CardStatus::default();
        };
        let n = c.state.errors.len();
        let fields = match &c.request.kind {
            ElicitKind::Form(m) => m.fields.len(),
            ElicitKind::Url(_) => 0,
        };
        CardStatus {
            errors: (0..fields)
                .map(|i| {
                    c.state
                        .errors
                        .iter()
                        .find(|(j, _)| *j == i)
                        .map(|(_, s)| s.clone())
                })
                .collect(),
            summary: (n > 0).then(|| {
                let s = if n == 1 { "field needs" } else { "fields need" };
                format!("{n} {s} attention before the answer can be sent.")
            }),
            open_failed: c
                .state
                .open_failed
                .then_some("The browser refused to open the link. Copy it from above instead."),
            waiting: match &c.request.kind {
                ElicitKind::Url(ask) if c.waiting => Some(format!(
                    "Opened {} in a new tab (if no tab appeared, a pop-up blocker may have \
                     stopped it; the link is above). {} will continue once the step there is \
                     finished.",
                    text::name(&ask.domain),
                    text::name(&c.server_name)
                )),
                _ => None,
            },
        }
    }

    /// The user entered `input` in field `field` of card `id`.
    pub fn set_input(&mut self, id: &str, field: usize, input: FieldInput) {
        if let Some(slot) = self
            .card_mut(id)
            .and_then(|c| c.state.inputs.get_mut(field))
        {
            *slot = input;
        }
    }

    /// The user ticked (or cleared) `value` in field `field`'s group of checkboxes: the field
    /// holds its ticked values in the form's order.
    pub fn set_choice(&mut self, id: &str, field: usize, value: &str, on: bool) {
        let Some(c) = self.card_mut(id) else { return };
        let ElicitKind::Form(model) = &c.request.kind else {
            return;
        };
        let Some(FieldKind::Multi { choices, .. }) = model.fields.get(field).map(|f| &f.kind)
        else {
            return;
        };
        let mut picked = match c.state.inputs.get(field) {
            Some(FieldInput::Many(v)) => v.clone(),
            _ => Vec::new(),
        };
        picked.retain(|p| p != value);
        if on {
            picked.push(value.to_string());
        }
        let order: Vec<&str> = choices.iter().map(|c| c.value.as_str()).collect();
        crate::order::sort_by_key(&mut picked, |p| {
            order.iter().position(|v| v == p).unwrap_or(usize::MAX)
        });
        if let Some(slot) = c.state.inputs.get_mut(field) {
            *slot = FieldInput::Many(picked);
        }
    }

    /// A server asks (`elicitation/create`, held open by the page).
    pub fn ask(&mut self, ask: &HeldAsk) -> Vec<Effect> {
        if self
            .cards
            .iter()
            .any(|c| c.server == ask.server && c.key == ask.key)
        {
            // The same question twice (a replayed event): one card answers it.
            return Vec::new();
        }
        let server_name = if ask.name.is_empty() {
            &ask.server
        } else {
            &ask.name
        };
        match parse_create(&ask.params) {
            Ok(mut request) => {
                if let (ElicitKind::Form(form), Some(order)) =
                    (&mut request.kind, property_order(&ask.raw))
                {
                    *form = std::mem::take(form).ordered(&order);
                }
                let inputs = match &request.kind {
                    ElicitKind::Form(m) => m.initial_inputs(),
                    ElicitKind::Url(_) => Vec::new(),
                };
                self.next += 1;
                let id = format!("elicit-{}", self.next);
                self.cards.push(Card {
                    id: id.clone(),
                    server: ask.server.clone(),
                    server_name: server_name.clone(),
                    key: ask.key,
                    request,
                    state: CardState {
                        inputs,
                        ..CardState::default()
                    },
                    waiting: false,
                });
                vec![Effect::Added { id }]
            }
            Err(why) => vec![
                Effect::Answer(AskReply::error(&ask.server, ask.key, INVALID_PARAMS, &why)),
                Effect::Notice(format!(
                    "Refused {}\u{2019}s request for input: {}.",
                    text::name(server_name),
                    text::prose(&why)
                )),
            ],
        }
    }

    /// The question can no longer be answered (its connection ended). A URL-mode card already
    /// answered stays: the user may still be on that page.
    pub fn gone(&mut self, server: &str, key: ElicitKey) -> Vec<Effect> {
        self.remove_where(|c| c.server == server && c.key == key && !c.waiting)
    }

    /// `notifications/elicitation/complete` from `server`: the URL-mode step it names finished.
    pub fn complete(&mut self, server: &str, params: &Value) -> Vec<Effect> {
        let Some(eid) = params.get("elicitationId").and_then(Value::as_str) else {
            return Vec::new();
        };
        self.remove_where(|c| {
            c.server == server
                && matches!(&c.request.kind, ElicitKind::Url(u) if u.elicitation_id == eid)
        })
    }

    fn remove_where(&mut self, mut hit: impl FnMut(&Card) -> bool) -> Vec<Effect> {
        let mut out = Vec::new();
        self.cards.retain(|c| {
            let go = hit(c);
            if go {
                out.push(Effect::Removed { id: c.id.clone() });
            }
            !go
        });
        out
    }

    fn take(&mut self, id: &str) -> Vec<Effect> {
        self.cards.retain(|c| c.id != id);
        vec![Effect::Removed { id: id.to_string() }]
    }

    fn answer(&mut self, id: &str, answer: ElicitAnswer) -> Vec<Effect> {
        let Some(c) = self.card(id) else {
            return Vec::new();
        };
        let reply = AskReply::result(&c.server, c.key, answer.to_result());
        let mut out = vec![Effect::Answer(reply)];
        out.extend(self.take(id));
        out
    }

    /// The user acted on card `id`.
    pub fn act(&mut self, id: &str, intent: CardIntent) -> Vec<Effect> {
        let Some(card) = self.card_mut(id) else {
            return Vec::new();
        };
        match intent {
            CardIntent::Decline if !card.waiting => self.answer(id, ElicitAnswer::decline()),
            CardIntent::Cancel if !card.waiting => self.answer(id, ElicitAnswer::cancel()),
            // Only a finished wait is dismissed: an open question needs one of the answers.
            CardIntent::Dismiss if card.waiting => self.take(id),
            CardIntent::Accept if !card.waiting => {
                let checked = match &card.request.kind {
                    ElicitKind::Form(model) => model.validate(&card.state.inputs),
                    // Only this click opens the link; the answer follows once it opened.
                    ElicitKind::Url(ask) => {
                        return vec![Effect::Open {
                            id: id.to_string(),
                            url: ask.url.clone(),
                        }]
                    }
                };
                match checked {
                    Ok(content) => self.answer(id, ElicitAnswer::accept(Some(content))),
                    Err(errors) => {
                        // The cursor goes to the first field that needs attention.
                        let field = errors.first().map(|(i, _)| *i);
                        card.state.errors = errors;
                        vec![Effect::Focus {
                            id: id.to_string(),
                            field,
                        }]
                    }
                }
            }
            _ => Vec::new(),
        }
    }

    /// After [`Effect::Open`]: whether the browser opened the tab. Opened: the server hears
    /// accept and the card waits for its word; refused: the card says so and stays open.
    pub fn opened(&mut self, id: &str, ok: bool) -> Vec<Effect> {
        let Some(card) = self.card_mut(id) else {
            return Vec::new();
        };
        if card.waiting {
            return Vec::new();
        }
        if !ok {
            card.state.open_failed = true;
            return Vec::new();
        }
        card.waiting = true;
        let reply = AskReply::result(
            &card.server,
            card.key,
            ElicitAnswer::accept(None).to_result(),
        );
        vec![
            Effect::Answer(reply),
            Effect::Focus {
                id: id.to_string(),
                field: None,
            },
        ]
    }

    /// The element id of field `i` of card `id`.
    pub fn field_id(id: &str, i: usize) -> String {
        field_id(id, i)
    }
}
