//! The agent loop: a model that calls MCP tools inside a conversation, sans-IO.
//!
//! One loop serves every provider (`crate::provider::Provider`). A provider plugs in two
//! things: a request builder that turns the conversation (with its tool calls and results)
//! into its wire format (`openai::step_request`, `anthropic::step_request`), and a stream decoder
//! that yields `provider::StreamEvent`s, tool-call fragments included. Everything else is
//! shared: assembling calls (`assemble`), prompt-based tool use for models without native
//! calls (`prompt`), approval rules (`approval`), what the model receives of a result
//! (`result`), and the decisions of the loop itself (`machine`):
//! which calls to ask about, run, or refuse, when to send the next request, when to stop.
//!
//! Nothing here performs IO or reads the clock; the runner (`src/runner/agent.rs`) performs
//! the machine's actions and feeds back what happened, with `now_ms`.

pub mod assemble;
pub mod call_error;
pub mod machine;
pub mod resume;
pub mod turn_end;

pub use machine::{Action, AgentConfig, AgentRun};
pub use turn_end::TurnEnd;
