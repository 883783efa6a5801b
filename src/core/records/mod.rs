//! The stored records: a conversation, its messages, tool calls, attachments and thinking, and
//! the plain data of the settings that conversations and features share (a model choice, a
//! mask, model capabilities, approval rules). Plain data with the rules that keep one record
//! consistent (a tool call's transitions, two tabs' copies merged), nothing more.
//!
//! Architecture Invariant: this module imports no feature of Skiff, only std, serde and leaf
//! helpers (`names`, `format`, `number`, `order`); features import records, never the reverse
//! (`scripts/check-layers.py` fails otherwise). The serde form of each record is what the
//! current release stores: a field renamed here would lose users' data, so field names,
//! defaults and `skip_serializing_if`s stay exactly as stored (`persist`'s tests read records
//! written by earlier releases).

pub mod approval;
pub mod attachment;
pub mod branch;
pub mod capabilities;
pub mod conversation;
pub mod finish_reason;
pub mod mask;
pub mod memory;
pub mod message;
pub mod model_choice;
pub mod speed;
pub mod task;
pub mod thought;
pub mod title_source;
pub mod tool_call;
pub mod tool_mode;
pub mod tool_overrides;
