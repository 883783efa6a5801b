//! `CallToolResult`, the answer to `tools/call`, and its content blocks.
//!
//! The agent loop reads a tool's answer from the raw JSON (`tools::result`), so that nothing a
//! server sends is lost on the way to the user; this typed form is for code and tests that want
//! a checked shape.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::listing::Resource;
use super::JsonObject;

/// The result of a tool call that completed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// `"complete"` or absent (legacy servers); any other value is not a `CallToolResult`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    pub content: Vec<ContentBlock>,
    /// Any JSON value, `null` included: `Some(Value::Null)` is a present `null`, `None` absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl<'de> Deserialize<'de> for CallToolResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Wire {
            #[serde(default)]
            result_type: Option<String>,
            #[serde(default)]
            content: Option<Vec<ContentBlock>>,
            #[serde(default, deserialize_with = "present")]
            structured_content: Option<Value>,
            #[serde(default)]
            is_error: Option<bool>,
            #[serde(default, rename = "_meta")]
            meta: Option<JsonObject>,
        }
        let w = Wire::deserialize(deserializer)?;
        if w.result_type.as_deref().is_some_and(|t| t != "complete") {
            // `input_required` and later kinds carry no content: reading one as an empty
            // success would tell the model the tool said nothing.
            return Err(serde::de::Error::custom(
                "a tool result's resultType must be \"complete\"",
            ));
        }
        if w.content.is_none() && w.structured_content.is_none() && w.is_error.is_none() {
            return Err(serde::de::Error::custom(
                "a tool result needs content, structuredContent or isError",
            ));
        }
        Ok(CallToolResult {
            result_type: w.result_type,
            content: w.content.unwrap_or_default(),
            structured_content: w.structured_content,
            is_error: w.is_error,
            meta: w.meta,
        })
    }
}

/// Keeps a present `null` as `Some(Value::Null)`; an absent field stays `None` (serde default).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// One block of a tool result (or prompt message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text {
        text: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    ResourceLink(Resource),
    Resource {
        resource: ResourceContents,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    /// A block of a kind this build does not know (or a known kind with a broken shape): kept
    /// whole so it can still be shown, instead of failing the whole result.
    #[serde(untagged)]
    Other(Value),
}

/// The contents of a resource: text or base64 bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    #[serde(rename_all = "camelCase")]
    TextResourceContents {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        text: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
    #[serde(rename_all = "camelCase")]
    BlobResourceContents {
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        blob: String,
        #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
        meta: Option<JsonObject>,
    },
}
