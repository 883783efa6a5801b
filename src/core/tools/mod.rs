//! Tool calls as a model sees them, whichever provider carries them: the spec of a tool
//! offered (`spec`), the prompt-based protocol for models without native calls (`prompt`), and
//! what the model receives of a result (`result`).
//!
//! Architecture Invariant: below every wire format and the provider seam (`wire`), so the
//! codecs and the agent loop share one reading of a tool call; it names no provider, no MCP
//! session and no agent decision, and imports only records, display rules and leaf helpers.

pub mod chip;
pub mod discovery;
pub mod prompt;
pub mod result;
pub mod spec;
