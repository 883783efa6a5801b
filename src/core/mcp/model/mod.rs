//! The MCP payload types Skiff reads, owned here instead of taken from `rmcp::model`.
//!
//! Skiff's session logic is its own (rmcp's client needs a tokio reactor and a clock), so all it
//! took from rmcp was about ten plain structs, at the price of rmcp's whole model (hundreds of
//! types, `chrono`, `sha2`, `indexmap`, `futures`) in every build and its leniency choices in
//! every decode. These types keep rmcp's names, field names, field types and JSON shapes
//! (camelCase, `_meta`), so code written against rmcp reads them unchanged; what differs is that
//! we choose how tolerant a client is:
//! - unknown fields are ignored (a newer server adds fields all the time);
//! - a missing optional field is `None`, a missing list or map is empty, a missing
//!   `version` or `inputSchema` is empty rather than a reason to drop the whole server or tool;
//! - only what identifies an entry is required: a tool's or prompt's `name`, a resource's `uri`,
//!   a template's `uriTemplate`. `decode_page` then skips that one entry and says so.
//!
//! What Skiff never reads is left out on purpose (icons of tools and resources, resource annotations, sampling and
//! elicitation types): every derived field is decoder code on the page. Add a field here when
//! a feature reads it, with a fixture test.
//!
//! This module only describes data: no IO, no session logic.

mod call_result;
mod capabilities;
mod listing;
mod request_id;
mod tool;

pub use call_result::{CallToolResult, ContentBlock, ResourceContents};
pub use capabilities::{
    Implementation, PromptsCapability, ResourcesCapability, ServerCapabilities, ToolsCapability,
};
pub use listing::{Prompt, PromptArgument, Resource, ResourceTemplate};
pub use request_id::{NumberOrString, RequestId};
pub use tool::{Tool, ToolAnnotations};

/// A JSON object, as MCP's schemas and `_meta` use it.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

#[cfg(test)]
mod fixture_tests;
