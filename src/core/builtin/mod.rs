//! Built-in tools that need no server: a small persistent memory (`memory_save`,
//! `memory_search`, `memory_delete`) and `current_time`, served as an MCP server inside the
//! page.
//!
//! They exist so a fresh Skiff can already use tools, and they are an MCP server rather than
//! special cases in the agent loop so that one code path (session, tool index, approvals,
//! settings) serves every tool. Everything here is sans-IO: the page supplies the clock, the
//! time-zone offset and the stored book, and saves the book when a message changed it.

pub mod memory;
pub mod server;
pub mod tools;

pub use memory::{MemoryBook, MemoryEntry, MemoryError, MemoryRecord, MEMORY_KEY};
pub use server::{BuiltinServer, Handled};

#[cfg(test)]
mod server_tests;
