//! Reactive state with versioned persistence. Each store is a `Copy` handle of arena signals,
//! provided once through context; components read the fields they render and nothing more,
//! so a streamed token touches one message's signal, not the conversation list.
//!
//! Stores never talk to providers: that is `runner`'s job. They do own storage, because
//! "what is saved" and "what is shown" must never drift apart.

pub mod conversations;
pub mod cross_tab;
pub mod live_message;
pub mod mcp;
pub mod mcp_resources;
pub mod memory;
pub mod notices;
pub mod owners;
pub mod reactive;
pub mod sent_requests;
pub mod settings;
pub mod update;
pub mod whole_value;
