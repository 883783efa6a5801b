//! Skiff's model worker: a separate wasm module, run in a dedicated Web Worker, that stores
//! GGUF models in the browser's Origin Private File System and answers OpenAI-style chat
//! requests with them, offline.
//!
//! Everything that can be plain Rust is (model code, generation, SSE framing, request
//! parsing, the queue, the storage rules) and is tested natively; the browser glue lives in
//! `web/`, compiled only for wasm32, and performs what these modules decide.

pub mod api_error;
pub mod completion;
pub mod engine;
pub mod generate;
pub mod model;
pub mod progress_reader;
pub mod queue;
pub mod request;
pub mod sse;
pub mod store;
pub mod text_out;

#[cfg(target_arch = "wasm32")]
mod web;
