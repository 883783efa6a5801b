//! An MCP prompt's turns into the open conversation (a new one when none is open, as sending
//! does), in the roles the prompt gave them. Its images join their message as a model's own
//! images do: checked (`image_out`), stored once by hash, shown as chips and sent to vision
//! models. What a prompt's result becomes is `skiff_core::mcp::prompt_result`'s decision.

use leptos::prelude::*;
use skiff_core::mcp::prompt_result::PromptTurn;
use skiff_core::provider::StreamEvent;
use skiff_core::records::message::{Message, Role};
use skiff_core::seam::image_out;

use crate::platform::{clock, ids};
use crate::runner::attach;
use crate::stores::conversations::ConversationsStore;

/// Add `turns` to the open conversation. `Err` is the sentence when they could not be.
pub fn insert(convs: ConversationsStore, turns: Vec<PromptTurn>) -> Result<(), String> {
    let conv = convs
        .current
        .get_untracked()
        .unwrap_or_else(|| convs.create(None));
    let now = clock::now_ms();
    for turn in turns {
        let role = if turn.assistant {
            Role::Assistant
        } else {
            Role::User
        };
        let m = Message::new(ids::new_id(), role, turn.text, now);
        let live = convs
            .push_message(&conv, &m)
            .ok_or("The conversation was deleted meanwhile.")?;
        for (mime, b64) in turn.images {
            let event = image_out::from_base64(&mime, &b64);
            leptos::task::spawn_local(async move {
                let note = match event {
                    StreamEvent::Image(image) => {
                        attach::keep_returned(convs, conv, live, image).await.err()
                    }
                    StreamEvent::Content(note) => Some(note),
                    _ => None,
                };
                // What could not be kept is said in the message, as for a model's image.
                if let Some(note) = note {
                    live.content.update(|t| t.push_str(&note));
                    convs.save_throttled(&conv);
                }
            });
        }
    }
    convs.save(&conv);
    Ok(())
}
