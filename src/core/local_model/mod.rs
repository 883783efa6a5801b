//! Running a model in the page, the sans-IO part: reading a GGUF file's header, deciding
//! whether the in-page engine can run it, turning text into the model's token ids and back,
//! and writing the chat prompt the model was trained on.
//!
//! The worker (`src/worker`, candle in a Web Worker) does the IO and the arithmetic: it reads
//! the file from OPFS in growing prefixes until [`read_header`] stops answering
//! [`GgufError::NeedMore`], checks [`ModelInfo::from_header`], builds one [`Tokenizer`], renders
//! the conversation with [`ChatTemplate`], and feeds the ids to candle. Every decision that can
//! be made without the tensors is made here, where `cargo test -p skiff-core` checks it natively
//! against the two test models and against ids captured from llama.cpp
//! (`scripts/capture-model-fixtures.py`, `tests/fixtures/local_model/`).
//!
//! Architecture Invariant: nothing here reads tensor data, runs inference or samples tokens,
//! and nothing performs IO; the tests are the only code that opens a model file.

mod gguf;
mod info;
mod template;
mod tokenizer;
mod types;

pub use gguf::{
    read_header, GgufError, GgufHeader, MetaArray, MetaValue, TensorInfo, MAX_ARRAY_DEPTH,
    MAX_HEADER_BYTES,
};
pub use info::{Architecture, ModelInfo, UnsupportedModel};
pub use template::{ChatTemplate, Role, TemplateMessage};
pub use tokenizer::Tokenizer;
pub use types::type_name;

#[cfg(test)]
#[path = "gguf_tests.rs"]
mod gguf_tests;
#[cfg(test)]
mod test_models;
