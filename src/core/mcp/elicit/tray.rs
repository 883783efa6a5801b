//! The questions on screen (the on-demand module's elicitation tray), as a sans-IO machine.
//!
//! The page holds a server's `elicitation/create` and forwards it (an `ask` event with the
//! message text); this machine decides everything after that: refuse a request the form cannot
//! show (answered at once with "invalid params", and a notice), the card's HTML on arrival and
//! after each click, the answer to send, when the link may open (only after the user's click
//! on Open) and when a card goes. `extras/page/elicit.js` performs what it returns
//! ([`Effect`]): it paints, calls the page's `answer`, opens the link, moves focus.
//!
//! Architecture invariant: nothing here performs IO; the tray never opens a link on its own
//! (an [`Effect::Open`] follows only an `accept` click on a URL-mode card).

use serde_json::{json, Value};

use super::{
    card_html, field_id, parse_create, property_order, CardState, ElicitAnswer, ElicitKind,
    ElicitRequest,
};
use crate::display::text;
use crate::html::Html;

/// JSON-RPC "invalid params": the answer to a request whose schema the form cannot show.
pub const INVALID_PARAMS: i64 = -32602;

/// What the module must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Put a new entry at the end of the tray (`html` is its inside) and move focus to it
    /// when `focus`. `mode` is `form`, `url` or `notice`.
    Add {
        id: String,
        mode: &'static str,
        server_name: String,
        html: String,
        focus: bool,
    },
    /// Replace entry `id`'s inside, then focus the element `focus` (an id), if any.
    Draw {
        id: String,
        html: String,
        focus: Option<String>,
    },
    /// Take entry `id` away (focus goes back where it was before the question came).
    Remove { id: String },
    /// Send this to the page's `answer` host op.
    Answer(Value),
    /// Open `url` in a new tab, then report with [`Tray::opened`].
    Open { id: String, url: String },
}

impl Effect {
    /// As `elicit.js` reads it: `{do, ...}`.
    pub fn to_json(&self) -> Value {
        match self {
            Effect::Add {
                id,
                mode,
                server_name,
                html,
                focus,
            } => json!({"do": "add", "id": id, "mode": mode, "server_name": server_name,
                        "html": html, "focus": focus}),
            Effect::Draw { id, html, focus } => {
                json!({"do": "draw", "id": id, "html": html, "focus": focus})
            }
            Effect::Remove { id } => json!({"do": "remove", "id": id}),
            Effect::Answer(arg) => json!({"do": "answer", "arg": arg}),
            Effect::Open { id, url } => json!({"do": "open", "id": id, "url": url}),
        }
    }
}

#[derive(Debug, Clone)]
enum Entry {
    Question(Box<Card>),
    /// A sentence for the user (a refused request), until dismissed.
    Notice,
}

#[derive(Debug, Clone)]
struct Card {
    server: String,
    server_name: String,
    /// The page's key for the question, echoed back as it came.
    key: Value,
    request: ElicitRequest,
    state: CardState,
    /// A URL-mode question the user accepted: the page opened and the server has not said yet
    /// that the step finished (`notifications/elicitation/complete`).
    waiting: bool,
}

impl Card {
    fn html(&self, id: &str) -> String {
        card_html(
            id,
            &self.server_name,
            &self.request,
            self.waiting,
            &self.state,
        )
    }
}

/// Every question and notice on screen, oldest first.
#[derive(Debug, Default)]
pub struct Tray {
    entries: Vec<(String, Entry)>,
    next: u64,
}

impl Tray {
    pub fn new() -> Tray {
        Tray::default()
    }

    /// How many entries are on screen.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn new_id(&mut self) -> String {
        self.next += 1;
        format!("elicit-{}", self.next)
    }

    fn card(&mut self, id: &str) -> Option<&mut Card> {
        self.entries.iter_mut().find_map(|(i, e)| match e {
            Entry::Question(c) if i == id => Some(&mut **c),
            _ => None,
        })
    }

    /// An `ask` event: server `server` (shown as `name`) asks `elicitation/create` with
    /// `params`; `raw` is its message text (the order of the form's fields).
    pub fn ask(
        &mut self,
        server: &str,
        name: &str,
        key: Value,
        params: &Value,
        raw: &str,
    ) -> Vec<Effect> {
        let same = |c: &Card| c.server == server && c.key == key;
        if self
            .entries
            .iter()
            .any(|(_, e)| matches!(e, Entry::Question(c) if same(c)))
        {
            // The same question twice (a replayed event): one card answers it.
            return Vec::new();
        }
        let server_name = if name.is_empty() { server } else { name }.to_string();
        match parse_create(params) {
            Ok(mut request) => {
                if let (ElicitKind::Form(form), Some(order)) =
                    (&mut request.kind, property_order(raw))
                {
                    *form = std::mem::take(form).ordered(&order);
                }
                let state = CardState {
                    inputs: match &request.kind {
                        ElicitKind::Form(m) => m.initial_inputs(),
                        ElicitKind::Url(_) => Vec::new(),
                    },
                    ..CardState::default()
                };
                let mode = match request.kind {
                    ElicitKind::Form(_) => "form",
                    ElicitKind::Url(_) => "url",
                };
                let card = Card {
                    server: server.to_string(),
                    server_name: server_name.clone(),
                    key,
                    request,
                    state,
                    waiting: false,
                };
                let id = self.new_id();
                let html = card.html(&id);
                self.entries
                    .push((id.clone(), Entry::Question(Box::new(card))));
                vec![Effect::Add {
                    id,
                    mode,
                    server_name,
                    html,
                    focus: true,
                }]
            }
            Err(why) => {
                let id = self.new_id();
                let html = notice_html(&id, &server_name, &why);
                self.entries.push((id.clone(), Entry::Notice));
                vec![
                    Effect::Answer(json!({"server": server, "key": key,
                        "error": {"code": INVALID_PARAMS, "message": why}})),
                    Effect::Add {
                        id,
                        mode: "notice",
                        server_name,
                        html,
                        focus: false,
                    },
                ]
            }
        }
    }

    /// An `ask-gone` event: the question can no longer be answered (its connection ended).
    /// A URL-mode card already answered stays: the user may still be on that page.
    pub fn gone(&mut self, server: &str, key: &Value) -> Vec<Effect> {
        self.remove_where(|c| c.server == server && c.key == *key && !c.waiting)
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
        self.entries.retain(|(id, e)| {
            let go = matches!(e, Entry::Question(c) if hit(c));
            if go {
                out.push(Effect::Remove { id: id.clone() });
            }
            !go
        });
        out
    }

    fn take(&mut self, id: &str) -> Vec<Effect> {
        self.entries.retain(|(i, _)| i != id);
        vec![Effect::Remove { id: id.to_string() }]
    }

    fn answer(&mut self, id: &str, answer: ElicitAnswer) -> Vec<Effect> {
        let Some(c) = self.card(id) else {
            return Vec::new();
        };
        let arg = json!({"server": c.server, "key": c.key, "result": answer.to_result()});
        let mut out = vec![Effect::Answer(arg)];
        out.extend(self.take(id));
        out
    }

    /// The user clicked `act` (a `data-act`: `accept`, `decline`, `cancel`, `dismiss`) on
    /// entry `id`; `pairs` are its form's values as the browser submits them.
    pub fn act(&mut self, id: &str, act: &str, pairs: &[(String, String)]) -> Vec<Effect> {
        let is_notice = self
            .entries
            .iter()
            .any(|(i, e)| i == id && matches!(e, Entry::Notice));
        if is_notice {
            return if act == "dismiss" {
                self.take(id)
            } else {
                Vec::new()
            };
        }
        let Some(card) = self.card(id) else {
            return Vec::new();
        };
        match act {
            "decline" if !card.waiting => self.answer(id, ElicitAnswer::decline()),
            "cancel" if !card.waiting => self.answer(id, ElicitAnswer::cancel()),
            // Only a finished wait is dismissed: an open question needs one of the answers.
            "dismiss" if card.waiting => self.take(id),
            "accept" if !card.waiting => {
                let checked = match &card.request.kind {
                    ElicitKind::Form(model) => {
                        let inputs = model.inputs_from_pairs(pairs);
                        model.validate(&inputs).map_err(|errors| (inputs, errors))
                    }
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
                    Err((inputs, errors)) => {
                        // The cursor goes to the first field that needs attention: the old
                        // focus went with the old HTML.
                        let focus = errors.first().map(|(i, _)| field_id(id, *i));
                        card.state.inputs = inputs;
                        card.state.errors = errors;
                        vec![Effect::Draw {
                            id: id.to_string(),
                            html: card.html(id),
                            focus,
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
        let Some(card) = self.card(id) else {
            return Vec::new();
        };
        if card.waiting {
            return Vec::new();
        }
        if !ok {
            card.state.open_failed = true;
            return vec![Effect::Draw {
                id: id.to_string(),
                html: card.html(id),
                focus: None,
            }];
        }
        card.waiting = true;
        let html = card.html(id);
        let arg = json!({"server": card.server, "key": card.key,
            "result": ElicitAnswer::accept(None).to_result()});
        vec![
            Effect::Answer(arg),
            Effect::Draw {
                id: id.to_string(),
                html,
                focus: Some(id.to_string()),
            },
        ]
    }
}

/// A refused request's notice: which server, why, and a Dismiss button.
pub fn notice_html(id: &str, server_name: &str, why: &str) -> String {
    let mut h = Html::new();
    h.open("p")
        .attr("class", "error elicit-title")
        .attr("id", &format!("{id}-title"))
        .attr("role", "alert")
        .body()
        .text("Refused ")
        .el("bdi", "elicit-server", &text::name(server_name))
        .text("’s request for input: ")
        .text(&text::prose(why))
        .text(".")
        .close("p");
    h.open("div").attr("class", "elicit-actions").body();
    h.action("elicit-dismiss", "dismiss", "Dismiss");
    h.close("div");
    h.finish()
}
