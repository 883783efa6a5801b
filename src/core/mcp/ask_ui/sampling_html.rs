//! The sampling card's inside, as HTML text (see `crate::html` for why): who asks, what the
//! model would see (system prompt, every message, the tools it may call), the limits and
//! preferences, then Approve and Deny — or, once approved, the answer as it streams.
//!
//! Everything here came from a server and is untrusted: names through `display::text::name`,
//! prose through `display::text::prose`, all of it escaped; media are named, never shown.

use super::sampling_card::{message_text, SamplingCard, Stage};
use crate::display::text;
use crate::format::decimal_f32;
use crate::html::Html;
use crate::mcp::sampling::{IncludeContext, Part, Role, ToolChoice};

fn role_label(role: Role) -> &'static str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
    }
}

impl SamplingCard {
    /// The card's inside. `card_id` prefixes every id in it (unique on the page).
    pub fn html(&self, card_id: &str) -> String {
        let name = text::name(&self.server_name);
        let r = &self.request;
        let mut h = Html::new();
        h.open("h2")
            .attr("class", "ask-title")
            .attr("id", &format!("{card_id}-title"))
            .body()
            .el("bdi", "ask-server", &name)
            .text(" wants to use your model")
            .close("h2");
        if self.stage == Stage::Gone {
            h.open("p")
                .attr("class", "ask-gone")
                .attr("role", "status")
                .body()
                .text(&format!(
                    "{name} no longer waits for this answer (its connection ended), so nothing \
                     was sent."
                ))
                .close("p");
            h.open("div").attr("class", "ask-actions").body();
            h.action("ask-dismiss", "dismiss", "Dismiss");
            h.close("div");
            return h.finish();
        }
        h.el(
            "p",
            "muted ask-lead",
            "Nothing reaches your model unless you approve. The server receives only the answer.",
        );
        if !r.system_prompt.trim().is_empty() {
            h.el("h3", "ask-sub", "System prompt");
            h.open("div")
                .attr("class", "ask-text ask-system")
                .attr("dir", "auto")
                .body()
                .text(&text::prose(&r.system_prompt))
                .close("div");
        }
        h.el("h3", "ask-sub", "Messages");
        h.open("ol").attr("class", "ask-messages").body();
        let editing = self.can_edit();
        for (i, m) in r.messages.iter().enumerate() {
            let role = role_label(m.role);
            h.open("li")
                .attr("class", "ask-msg")
                .attr(
                    "data-role",
                    if m.role == Role::User {
                        "user"
                    } else {
                        "assistant"
                    },
                )
                .body();
            if editing && self.editable == Some(i) {
                let box_id = format!("{card_id}-last");
                h.open("label")
                    .attr("class", "ask-role")
                    .attr("for", &box_id)
                    .body()
                    .text(&format!("{role} (you may edit this before approving)"))
                    .close("label");
                h.open("textarea")
                    .attr("id", &box_id)
                    .attr("class", "ask-edit")
                    .attr("name", "last")
                    .attr("dir", "auto")
                    .attr("rows", "3")
                    .attr(
                        "aria-invalid",
                        if self.problem.is_some() {
                            "true"
                        } else {
                            "false"
                        },
                    )
                    .attr("aria-describedby", &format!("{card_id}-problem"))
                    .body()
                    // The parser drops one newline right after `<textarea>`: this one, so a
                    // message that starts with a newline keeps it.
                    .text("\n")
                    .text(&self.draft)
                    .close("textarea");
                h.open("p")
                    .attr("class", "error ask-error")
                    .attr("id", &format!("{card_id}-problem"))
                    .body()
                    .text(self.problem.as_deref().unwrap_or(""))
                    .close("p");
            } else {
                h.el("span", "ask-role", role);
                let shown = if self.editable == Some(i) {
                    // Approved: what was sent, the user's edit included.
                    self.draft.clone()
                } else {
                    message_text(&m.parts)
                };
                h.open("div")
                    .attr("class", "ask-text")
                    .attr("dir", "auto")
                    .body()
                    .text(&text::prose(&shown))
                    .close("div");
            }
            h.close("li");
        }
        h.close("ol");
        if !r.tools.is_empty() {
            // Collapsed: a server may offer many tools, and the messages matter first.
            h.open("details").attr("class", "ask-tools-box").body();
            h.open("summary")
                .attr("class", "ask-sub")
                .body()
                .text(&format!("Tools the model may call ({})", r.tools.len()))
                .close("summary");
            h.open("ul").attr("class", "ask-tools").body();
            for t in &r.tools {
                h.open("li")
                    .body()
                    .el("bdi", "ask-tool", &text::name(&t.name));
                if !t.description.trim().is_empty() {
                    h.text(": ").text(&text::prose(&t.description));
                }
                h.close("li");
            }
            h.close("ul");
            h.close("details");
        }
        self.details(&mut h, &name);
        match &self.stage {
            Stage::Sampling { text: so_far } => {
                h.el("h3", "ask-sub", "Answer");
                h.open("div")
                    .attr("class", "ask-text ask-stream")
                    .attr("id", &format!("{card_id}-stream"))
                    .attr("dir", "auto")
                    .body()
                    .text(so_far)
                    .close("div");
                h.open("p")
                    .attr("class", "muted ask-busy")
                    .attr("role", "status")
                    .body()
                    .text("Your model is writing the answer\u{2026}")
                    .close("p");
                h.open("div").attr("class", "ask-actions").body();
                h.action("ask-deny", "deny", "Stop and deny");
                h.close("div");
            }
            Stage::Failed(why) => {
                h.open("p")
                    .attr("class", "error ask-failure")
                    .attr("role", "alert")
                    .body()
                    .text(&text::prose(why))
                    .close("p");
                buttons(&mut h, "Try again");
            }
            _ => buttons(&mut h, "Approve"),
        }
        h.finish()
    }

    fn details(&self, h: &mut Html, name: &str) {
        let r = &self.request;
        h.open("dl").attr("class", "ask-details").body();
        let mut row = |term: &str, value: &str| {
            h.open("dt")
                .body()
                .text(term)
                .close("dt")
                .open("dd")
                .body()
                .text(value)
                .close("dd");
        };
        row("Max tokens", &r.max_tokens.to_string());
        if let Some(t) = r.temperature {
            row("Temperature", &decimal_f32(t));
        }
        if !r.stop_sequences.is_empty() {
            let quoted: Vec<String> = r
                .stop_sequences
                .iter()
                .map(|s| format!("\u{201c}{}\u{201d}", text::name(s)))
                .collect();
            row("Stops at", &quoted.join(", "));
        }
        if !r.hints.is_empty() {
            let hints: Vec<String> = r.hints.iter().map(|s| text::name(s).into_owned()).collect();
            row("Preferred models", &hints.join(", "));
        }
        let priorities: Vec<String> = ["cost", "speed", "intelligence"]
            .iter()
            .zip(r.priorities)
            .filter_map(|(k, v)| v.map(|v| format!("{k} {}", decimal_f32(v))))
            .collect();
        if !priorities.is_empty() {
            row("Priorities", &priorities.join(" \u{b7} "));
        }
        match r.tool_choice {
            ToolChoice::Required if !r.tools.is_empty() => row("Tool use", "required"),
            ToolChoice::None if !r.tools.is_empty() => row("Tool use", "none"),
            _ => {}
        }
        // What Skiff cannot pass on is said before the user approves, not discovered after.
        let media = r
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .any(|p| matches!(p, Part::Media { .. }));
        if media {
            row(
                "Images and audio",
                "named to your model in the text; Skiff sends it text only.",
            );
        }
        if !r.tools.is_empty() {
            row(
                "Tools",
                match r.tool_choice {
                    ToolChoice::None => "not offered to your model: the server asks for text.",
                    _ => {
                        "offered to your model. Skiff never runs them: a call your model \
                         asks for goes back to the server, which runs it."
                    }
                },
            );
        }
        match r.include_context {
            IncludeContext::None => {}
            IncludeContext::ThisServer | IncludeContext::AllServers => row(
                "Context",
                &format!(
                    "{name} asked for context from your conversations; Skiff sends only the \
                     messages above."
                ),
            ),
        }
        h.close("dl");
    }
}

fn buttons(h: &mut Html, approve: &str) {
    h.open("div").attr("class", "ask-actions").body();
    h.action("primary ask-approve", "approve", approve);
    h.action("ask-deny", "deny", "Deny");
    h.close("div");
}
