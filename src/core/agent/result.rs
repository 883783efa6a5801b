//! MCP tool results, two ways: in full for the user (typed parts the UI renders), and as what
//! the model receives (text, plus images for vision models), cut to a limit that says so.

use serde_json::Value;

use super::record::ToolCallRecord;

/// Default cap on the characters of one result sent to the model.
pub const DEFAULT_RESULT_CHAR_LIMIT: usize = 16_000;

/// One piece of a `CallToolResult`, for display.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultPart {
    Text(String),
    /// Base64 data with its MIME type.
    Image { mime: String, data: String },
    Audio { mime: String, data: String },
    /// An embedded resource: text, or a base64 blob.
    Resource {
        uri: String,
        mime: Option<String>,
        text: Option<String>,
        blob: Option<String>,
    },
    ResourceLink {
        uri: String,
        name: String,
        title: Option<String>,
        description: Option<String>,
        mime: Option<String>,
    },
    /// `structuredContent`, pretty-printed.
    Structured(String),
    /// A content item of a type Skiff does not know, pretty-printed.
    Other(String),
}

/// The parts of a raw `CallToolResult`, in order, `structuredContent` last.
pub fn parts(result: &Value) -> Vec<ResultPart> {
    let _ = result;
    todo!("helper: result parts")
}

/// An image to hand a vision model.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageData {
    pub mime: String,
    pub data: String,
}

/// What the model receives for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResult {
    pub text: String,
    pub images: Vec<ImageData>,
    pub is_error: bool,
}

/// The model's view of a finished call (any status: denied, cancelled and errors become
/// sentences the model can act on), text cut to `char_limit` characters with a note saying how
/// much was cut.
pub fn for_model(record: &ToolCallRecord, char_limit: usize) -> ModelResult {
    let _ = (record, char_limit);
    todo!("helper: for_model")
}

/// A link or resource worth listing under the final answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub title: String,
    pub uri: String,
}

/// Sources from the results of these calls, first occurrence of each URI kept.
pub fn sources<'a>(records: impl IntoIterator<Item = &'a ToolCallRecord>) -> Vec<Source> {
    let _ = records.into_iter();
    todo!("helper: sources")
}
