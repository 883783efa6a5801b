//! What a failed tool call says, to the user on its card and to the model in its result.
//!
//! A call's failure arrives typed (`McpError`), never as a string, so that what matters for
//! the next move survives the trip from the MCP connection: whether the tool was never sent,
//! or may have run although no answer came. The model reads this sentence to decide whether to
//! call again, and calling again a tool that may have run (a payment, a write) repeats it.

use crate::mcp::McpError;

/// The sentence a call's `ToolCallStatus::Error` holds for this failure.
pub fn sentence(e: &McpError) -> String {
    match e {
        // The sentence itself says the call may have run and was not re-sent.
        _ if e.tool_may_have_run() => e.to_string(),
        // Nothing reached a server: safe to call again once it is connected.
        McpError::NotConnected => format!("The call was not sent. {e}"),
        // The request went out; only the answer is missing.
        McpError::Timeout { .. } => {
            format!("{e} The tool may still have run on the server.")
        }
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_sentence_says_whether_the_tool_may_have_run() {
        let lost = McpError::ConnectionLost {
            reason: "stream ended".into(),
            in_flight_tool: true,
        };
        assert!(
            sentence(&lost).contains("may or may not have run"),
            "{}",
            sentence(&lost)
        );
        let not_connected = sentence(&McpError::NotConnected);
        assert!(
            not_connected.starts_with("The call was not sent."),
            "{not_connected}"
        );
        let timeout = sentence(&McpError::Timeout {
            method: "tools/call".into(),
            after_ms: 60_000,
        });
        assert!(
            timeout.ends_with("may still have run on the server."),
            "{timeout}"
        );
        let rpc = McpError::Rpc {
            code: -32602,
            message: "Unknown tool".into(),
            data: None,
        };
        assert_eq!(sentence(&rpc), rpc.to_string());
    }
}
