//! Elicitation (MCP 2025-11-25): a server asks the user for input in the middle of a request,
//! either as a small form built from a restricted JSON Schema, or by sending the user to a URL.
//!
//! This module turns `elicitation/create` params into values the UI renders ([`ElicitRequest`]:
//! a [`FormModel`] or a [`UrlAsk`]; [`CardView`] for the card), validates what the user typed
//! (a sentence per field), and builds the answer (`{action, content}`). It decides everything a
//! card needs; the UI only renders it and reports what the user did. [`Tray`] is the cards on
//! screen as one machine: the tray component (`ui::mcp::asks`) feeds it the held requests and
//! the user's intents and performs the [`Effect`]s it returns.
//!
//! Architecture invariant: nothing here opens a URL or sends anything, and nothing writes
//! markup. A URL request only yields the domain to show; opening it is the UI's job, and only
//! after the user consents.

mod card_view;
mod form;
mod order;
mod request;
mod tray;
mod url;

pub use card_view::{
    field_id, Body, CardState, CardStatus, CardView, ChoiceView, Control, FieldView, Mode, ASKS,
    CANCEL, DECLINE, DISMISS, URL_LEAD,
};
pub use form::{Choice, Field, FieldInput, FieldKind, FormModel, TextFormat};
pub use order::property_order;
pub use request::{parse_create, ElicitAction, ElicitAnswer, ElicitKind, ElicitRequest};
pub use tray::{CardIntent, Effect, Tray, INVALID_PARAMS};
pub use url::{UrlAsk, UrlRefusal};

/// The method a server uses to ask.
pub const CREATE_METHOD: &str = "elicitation/create";
/// The notification a server sends when a URL-mode interaction finished out of band.
pub const COMPLETE_NOTIFICATION: &str = "notifications/elicitation/complete";

/// The JSON-RPC error a server answers a request with when the user must first finish one or
/// more URL steps (MCP 2025-11-25 "URL elicitation required"): its `data.elicitations` are
/// URL-mode `elicitation/create` params, and the request may be made again once they finished.
pub const URL_REQUIRED: i64 = -32042;

/// The `data` of an error that asks for URL steps before the request can succeed.
pub fn url_steps_required(error: &crate::mcp::McpError) -> Option<&serde_json::Value> {
    match error {
        crate::mcp::McpError::Rpc {
            code: URL_REQUIRED,
            data: Some(data),
            ..
        } => Some(data),
        _ => None,
    }
}

/// The capability Skiff declares: both modes.
pub fn client_capability() -> serde_json::Value {
    serde_json::json!({ "form": {}, "url": {} })
}

#[cfg(test)]
mod card_view_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tray_tests;
