//! An MCP prompt's turns into the open conversation (a new one when none is open, as sending
//! does), in the roles the prompt gave them. Its images join their message as a model's own
//! images do: checked (`image_out`), stored once by hash, shown as chips and sent to vision
//! models. A prompt that ends with the user's turn is then answered by the model, as a sent
//! message is. What a prompt's result becomes, and whether it is answered, is
//! `skiff_core::mcp::prompt_result`'s decision.

use leptos::prelude::*;
use skiff_core::mcp::prompt_result::{after_insert, AfterInsert, PromptTurn, BUSY_SENTENCE};
use skiff_core::provider::StreamEvent;
use skiff_core::records::message::{Message, Role};
use skiff_core::seam::image_out;

use crate::platform::{clock, ids};
use crate::runner::attach;
use crate::runner::chat::ChatRunner;
use crate::stores::conversations::ConversationsStore;

/// Add `turns` to the open conversation, and have the model answer them when they end with
/// the user's turn. `Err` is the sentence when they could not be added.
pub fn insert(
    convs: ConversationsStore,
    runner: ChatRunner,
    turns: Vec<PromptTurn>,
) -> Result<(), String> {
    if let Some(open) = convs.current.get_untracked() {
        if runner.is_sending(&open.id()) {
            return Err(BUSY_SENTENCE.into());
        }
    }
    let after = after_insert(&turns);
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
    if after == AfterInsert::Answer {
        runner.answer_current(convs, runner.settings_now());
    }
    Ok(())
}
