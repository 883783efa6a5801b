//! Which servers sign in with OAuth, and the two questions the fetch path asks the MCP module
//! about them (`src/extras`, where `core::oauth::AuthMachine` runs): the `Authorization` value
//! for a request, and a fresh one after a 401. The module marks a server with `set` once it
//! holds credentials for it; the answers are its decisions, this only carries them.

use std::cell::RefCell;

use serde_json::json;
use skiff_core::http::HttpRequest;

use crate::platform::extras;

thread_local! {
    static SIGNED_IN: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Whether requests to `server` ask the module for a token.
pub fn enabled(server: &str) -> bool {
    SIGNED_IN.with(|s| s.borrow().iter().any(|x| x == server))
}

pub fn set(server: &str, on: bool) {
    SIGNED_IN.with(|s| {
        let mut s = s.borrow_mut();
        s.retain(|x| x != server);
        if on {
            s.push(server.to_string());
        }
    });
}

/// Ask the module (`op` "auth-header" or "auth-401", with the refusal's status and
/// `WWW-Authenticate`): the `Authorization` value to send, or `None` to send none / report the
/// refusal as it is. A module that cannot load answers `None`: the server then shows that it
/// wants credentials, as it would without OAuth.
pub(super) async fn ask(
    op: &str,
    server: &str,
    request: &HttpRequest,
    refused: Option<(u16, Option<String>)>,
) -> Option<String> {
    let (status, challenge) = refused.unwrap_or_default();
    let arg = json!({
        "server": server,
        "url": request.url,
        "status": status,
        "challenge": challenge,
        "authorization": request.header("authorization"),
    });
    extras::call(op, &arg.to_string())
        .await
        .ok()
        .filter(|v| !v.is_empty())
}
