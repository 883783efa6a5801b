//! Joining streamed OpenAI `tool_calls` deltas into whole calls.
//!
//! Deltas arrive as fragments keyed by `index`: the first usually carries `id` and
//! `function.name`, later ones only pieces of `function.arguments`. Some real servers repeat
//! the id and the name in every chunk; only the argument fragments are joined.

use crate::openai::ToolCallDelta;

/// A call as the model finished writing it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledCall {
    /// The provider's id, or `call_<index>` when it never sent one.
    pub id: String,
    pub name: String,
    /// The joined argument text (not validated here).
    pub arguments: String,
}

#[derive(Debug, Default)]
pub struct ToolCallAssembler {
    // helper: fill in
}

impl ToolCallAssembler {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, delta: &ToolCallDelta) {
        let _ = delta;
        todo!("helper: assembler")
    }

    pub fn is_empty(&self) -> bool {
        todo!("helper: assembler")
    }

    /// The calls in index order.
    pub fn finish(self) -> Vec<AssembledCall> {
        todo!("helper: assembler")
    }
}
