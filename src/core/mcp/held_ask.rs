//! A request a server holds open until the user answers it (`sampling/createMessage`,
//! `elicitation/create`), as the page hands it to the MCP surfaces, and the answer that goes
//! back. Plain data: the connection runner fills [`HeldAsk`] from the supervisor's
//! `Action::Ask`, and performs an [`AskReply`] by handing it to the server's session.

use serde_json::Value;

use super::supervisor_types::ElicitKey;

/// A server asks and waits.
#[derive(Debug, Clone, PartialEq)]
pub struct HeldAsk {
    /// The server's id (where the answer goes).
    pub server: String,
    /// The server's name as the user knows it.
    pub name: String,
    /// The session's key for the held request, echoed back as it came.
    pub key: ElicitKey,
    pub method: String,
    pub params: Value,
    /// The message as it arrived (the order of an elicitation form's fields is read from it:
    /// `elicit::property_order`); empty when there is none.
    pub raw: String,
}

/// What goes back to a held request: its result, or a JSON-RPC error `(code, message)`.
#[derive(Debug, Clone, PartialEq)]
pub struct AskReply {
    pub server: String,
    pub key: ElicitKey,
    pub answer: Result<Value, (i64, String)>,
}

impl AskReply {
    pub fn result(server: &str, key: ElicitKey, result: Value) -> AskReply {
        AskReply {
            server: server.to_string(),
            key,
            answer: Ok(result),
        }
    }

    pub fn error(server: &str, key: ElicitKey, code: i64, message: &str) -> AskReply {
        AskReply {
            server: server.to_string(),
            key,
            answer: Err((code, message.to_string())),
        }
    }
}
