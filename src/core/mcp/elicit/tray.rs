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
    /// The URL steps a refused tool call asked for ([`Tray::required`]) are over: `done`, the
    /// user finished every one (the call may be made again, once); not `done`, the user
    /// declined or cancelled one (the call stays failed).
    Finished { wait: u64, done: bool },
}

/// Where a card's question came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A server holds `elicitation/create` open: the card's answer goes back to it.
    Held(ElicitKey),
    /// A tool call was refused with `-32042` (URL elicitation required): nothing waits for an
    /// answer on the server; the page makes the call again once the user finished (`wait`
    /// names the call's wait).
    Required(u64),
}

#[derive(Debug, Clone)]
struct Card {
    id: String,
    server: String,
    server_name: String,
    origin: Origin,
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
    /// The waits of refused calls that still have cards on screen.
    pending_waits: Vec<u64>,
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
                ElicitKind::Url(ask) if c.waiting && matches!(c.origin, Origin::Required(_)) => {
                    Some(format!(
                        "Opened {} in a new tab (if no tab appeared, a pop-up blocker may have \
                         stopped it; the link is above). When you have finished there, choose \
                         Dismiss: Skiff then asks {} to run the tool again.",
                        text::name(&ask.domain),
                        text::name(&c.server_name)
                    ))
                }
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
            .any(|c| c.server == ask.server && c.origin == Origin::Held(ask.key))
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
                    origin: Origin::Held(ask.key),
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
        self.remove_where(|c| c.server == server && c.origin == Origin::Held(key) && !c.waiting)
    }

    /// Every tool call that was running when `server` asked `key` has its answer: the server
    /// went on. A URL step the user opened is finished then, whether or not the server ever
    /// says so (`notifications/elicitation/complete` is optional, and server-everything never
    /// sends it): its card, which said the server "will continue", goes. A question not yet
    /// answered stays: the user's answer still reaches the server.
    pub fn settled(&mut self, server: &str, key: ElicitKey) -> Vec<Effect> {
        self.remove_where(|c| c.server == server && c.origin == Origin::Held(key) && c.waiting)
    }

    /// `notifications/elicitation/complete` from `server`: the URL-mode step it names finished.
    pub fn complete(&mut self, server: &str, params: &Value) -> Vec<Effect> {
        let Some(eid) = params.get("elicitationId").and_then(Value::as_str) else {
            return Vec::new();
        };
        let mut out = self.remove_where(|c| {
            c.server == server
                && matches!(&c.request.kind, ElicitKind::Url(u) if u.elicitation_id == eid)
        });
        out.extend(self.finished_waits());
        out
    }

    /// A tool call on `server` was refused with `-32042`; `data` is the error's `data`, whose
    /// `elicitations` are the URL steps the user must finish first. Each shows as a URL card;
    /// once every one is finished (the server's `notifications/elicitation/complete`, or the
    /// user's Dismiss after opening it) [`Effect::Finished`] says `done`. Nothing usable in
    /// `data` finishes the wait at once, not done, with a notice saying why.
    pub fn required(
        &mut self,
        server: &str,
        server_name: &str,
        wait: u64,
        data: &Value,
    ) -> Vec<Effect> {
        let name = if server_name.is_empty() {
            server
        } else {
            server_name
        };
        let asks = data
            .get("elicitations")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut out = Vec::new();
        let mut refused = None;
        for params in asks {
            match parse_create(params) {
                Ok(
                    request @ ElicitRequest {
                        kind: ElicitKind::Url(_),
                        ..
                    },
                ) => {
                    self.next += 1;
                    let id = format!("elicit-{}", self.next);
                    self.cards.push(Card {
                        id: id.clone(),
                        server: server.to_string(),
                        server_name: name.to_string(),
                        origin: Origin::Required(wait),
                        request,
                        state: CardState::default(),
                        waiting: false,
                    });
                    out.push(Effect::Added { id });
                }
                Ok(_) => refused = Some("it asked for a form, where only links may be".to_string()),
                Err(why) => refused = Some(why),
            }
        }
        if refused.is_none() && !out.is_empty() && !self.pending_waits.contains(&wait) {
            self.pending_waits.push(wait);
        }
        if let Some(why) = refused {
            // One step that cannot be shown means the call cannot succeed: no card of it stays.
            out.extend(self.remove_where(|c| c.origin == Origin::Required(wait)));
            out.retain(|e| !matches!(e, Effect::Added { .. } | Effect::Removed { .. }));
            out.push(Effect::Notice(format!(
                "{} needs a step in your browser before the tool can run, but Skiff cannot show \
                 it: {}.",
                text::name(name),
                text::prose(&why)
            )));
            out.push(Effect::Finished { wait, done: false });
        } else if out.is_empty() {
            out.push(Effect::Notice(format!(
                "{} needs a step in your browser before the tool can run, but named none.",
                text::name(name)
            )));
            out.push(Effect::Finished { wait, done: false });
        }
        out
    }

    /// The waits of refused calls whose cards are all gone: finished, done.
    fn finished_waits(&mut self) -> Vec<Effect> {
        let open: Vec<u64> = self
            .cards
            .iter()
            .filter_map(|c| match c.origin {
                Origin::Required(w) => Some(w),
                Origin::Held(_) => None,
            })
            .collect();
        let over: Vec<u64> = std::mem::take(&mut self.pending_waits)
            .into_iter()
            .filter(|w| {
                let still = open.contains(w);
                if still {
                    self.pending_waits.push(*w);
                }
                !still
            })
            .collect();
        over.into_iter()
            .map(|wait| Effect::Finished { wait, done: true })
            .collect()
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
        match c.origin {
            Origin::Held(key) => {
                let reply = AskReply::result(&c.server, key, answer.to_result());
                let mut out = vec![Effect::Answer(reply)];
                out.extend(self.take(id));
                out
            }
            // Declined or cancelled: the call cannot go on, so its other steps go too.
            Origin::Required(wait) => {
                let mut out = self.remove_where(|c| c.origin == Origin::Required(wait));
                self.pending_waits.retain(|w| *w != wait);
                out.push(Effect::Finished { wait, done: false });
                out
            }
        }
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
            CardIntent::Dismiss if card.waiting => {
                // For a refused call's step, Dismiss is the user saying they finished there
                // (a server need not send `notifications/elicitation/complete`).
                let mut out = self.take(id);
                out.extend(self.finished_waits());
                out
            }
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
        let focus = Effect::Focus {
            id: id.to_string(),
            field: None,
        };
        match card.origin {
            Origin::Held(key) => {
                let reply =
                    AskReply::result(&card.server, key, ElicitAnswer::accept(None).to_result());
                vec![Effect::Answer(reply), focus]
            }
            // Nothing on the server waits for an answer: the card waits for the step's end.
            Origin::Required(_) => vec![focus],
        }
    }

    /// The element id of field `i` of card `id`.
    pub fn field_id(id: &str, i: usize) -> String {
        field_id(id, i)
    }
}
