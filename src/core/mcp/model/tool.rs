//! `Tool`, an entry of `tools/list`, and its `annotations`.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use serde_json::Value;

use super::JsonObject;

/// A tool a server offers. `name` and `description` are `Cow` and the schemas `Arc`, as in rmcp:
/// tool lists are cloned into signals and tool indexes often, and a clone then copies no schema.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: Cow<'static, str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Cow<'static, str>>,
    /// Required by the spec; a server that omits it still gets its tool listed (as taking no
    /// arguments) rather than dropped.
    #[serde(default)]
    pub input_schema: Arc<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Arc<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
    /// `execution` (2025-11-25): `taskSupport` says whether it may or must run as a task.
    /// Kept as JSON so a malformed value costs the tool nothing (`mcp::task::task_support`
    /// reads it, defaulting to the spec's `forbidden`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
}

/// Hints about a tool's behaviour. Hints from an untrusted server decide nothing on their own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}
