//! Test helpers: reading the captured MCP traffic under `tests/fixtures/mcp/captured/` and
//! draining a session's outputs.

use std::path::PathBuf;

use serde_json::Value;

use super::session::McpSession;
use super::session_types::{Output, SendMeta, SessionEvent};

pub(crate) fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mcp")
}

/// One recorded HTTP exchange: what was sent and what came back.
pub(crate) struct Exchange {
    pub(crate) request_body: String,
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

/// Read `captured/<server>/<name>.{req,headers,body}`; `None` when the capture is absent.
pub(crate) fn exchange(server: &str, name: &str) -> Option<Exchange> {
    let dir = fixture_dir().join("captured").join(server);
    let req = std::fs::read_to_string(dir.join(format!("{name}.req"))).ok()?;
    let head = std::fs::read_to_string(dir.join(format!("{name}.headers"))).unwrap_or_default();
    let body = std::fs::read(dir.join(format!("{name}.body"))).unwrap_or_default();
    let request_body = req
        .split_once("\n\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    Some(Exchange {
        request_body,
        status,
        headers,
        body,
    })
}

/// Everything the session produced so far, split by kind.
#[derive(Default)]
pub(crate) struct Drained {
    pub(crate) sent: Vec<(Value, SendMeta)>,
    pub(crate) aborted: Vec<super::messages::RequestId>,
    pub(crate) events: Vec<SessionEvent>,
}

pub(crate) fn drain(s: &mut McpSession) -> Drained {
    let mut d = Drained::default();
    while let Some(o) = s.poll_output() {
        match o {
            Output::Send(body, meta) => {
                let v = serde_json::from_str(&body).expect("the session sends valid JSON");
                d.sent.push((v, meta));
            }
            Output::Abort(id) => d.aborted.push(id),
            Output::Event(e) => d.events.push(e),
        }
    }
    d
}

impl Drained {
    pub(crate) fn methods(&self) -> Vec<String> {
        self.sent
            .iter()
            .map(|(v, _)| {
                v.get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("<response>")
                    .to_string()
            })
            .collect()
    }

    /// The id of the last request sent with `method`.
    pub(crate) fn id_of(&self, method: &str) -> Value {
        self.sent
            .iter()
            .rev()
            .find(|(v, _)| v["method"] == method)
            .map(|(v, _)| v["id"].clone())
            .unwrap_or_else(|| panic!("no {method} sent; sent {:?}", self.methods()))
    }
}
