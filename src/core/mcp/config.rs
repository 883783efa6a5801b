//! MCP server settings as stored, and import/export of the `mcpServers` JSON that Claude
//! Desktop, Cursor and friends use.
//!
//! Import is forgiving per entry: a stdio entry (`command`) cannot run in a browser and is
//! reported with a one-line reason (unless it is the `mcp-remote` bridge to a remote server,
//! which imports as that server's URL), an entry without a usable URL is reported too, and
//! every other entry still imports. Stored records are versioned envelopes (see `crate::persist`);
//! a newer record is refused rather than overwritten.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::envelope;
use crate::persist::PersistError;

mod form;
mod form_view;
mod try_view;
pub use form::{read_header_lines, FormError, HeaderLineError, ServerForm};
pub use form_view::{submit_label, ServerField, TRANSPORT_LABEL};
pub use try_view::{read_arguments, TryState, TryTool};

pub const SERVERS_KEY: &str = "skiff:mcp-servers";
pub const SERVERS_VERSION: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportChoice {
    /// Streamable HTTP, falling back to HTTP+SSE per the spec's back-compat rule; `ws(s)://`
    /// URLs use WebSocket.
    #[default]
    Auto,
    StreamableHttp,
    Sse,
    WebSocket,
}

// The names are the form's `<select>` values (the stored names are serde's).
crate::names::named_enum!(TransportChoice, "transport", {
    Auto => "auto",
    StreamableHttp => "streamable",
    Sse => "sse",
    WebSocket => "websocket",
});

impl TransportChoice {
    /// What the transport `<select>` says.
    pub fn label(self) -> &'static str {
        match self {
            TransportChoice::Auto => {
                "Automatic (Streamable HTTP, then HTTP+SSE; WebSocket for ws://)"
            }
            TransportChoice::StreamableHttp => "Streamable HTTP",
            TransportChoice::Sse => "HTTP+SSE (deprecated)",
            TransportChoice::WebSocket => "WebSocket",
        }
    }
}

fn default_true() -> bool {
    true
}
fn default_request_timeout() -> u64 {
    60_000
}
fn default_ping() -> Option<u64> {
    Some(30_000)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerConfig {
    pub id: String,
    pub name: String,
    pub url: String,
    #[serde(default)]
    pub transport: TransportChoice,
    /// Sent on every request, e.g. `Authorization: Bearer ...`. Order is kept.
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    /// A CORS proxy prefix; the server URL is appended to it.
    #[serde(default)]
    pub proxy: Option<String>,
    #[serde(default = "default_true")]
    pub enabled: bool,
    /// Reconnect attempts before giving up; `None` retries forever.
    #[serde(default)]
    pub max_attempts: Option<u32>,
    #[serde(default = "default_request_timeout")]
    pub request_timeout_ms: u64,
    #[serde(default = "default_ping")]
    pub ping_interval_ms: Option<u64>,
    /// Whether the server's `instructions` go to the model with its tools
    /// (`pipeline::instructions`). On by default: the protocol meant them for the model.
    #[serde(default = "default_true")]
    pub send_instructions: bool,
}

impl ServerConfig {
    pub fn new(id: &str, name: &str, url: &str) -> Self {
        ServerConfig {
            id: id.into(),
            name: name.into(),
            url: url.trim().into(),
            transport: TransportChoice::Auto,
            headers: Vec::new(),
            proxy: None,
            enabled: true,
            max_attempts: None,
            request_timeout_ms: default_request_timeout(),
            ping_interval_ms: default_ping(),
            send_instructions: true,
        }
    }

    /// The transport to open, resolving `Auto` by the URL scheme.
    pub fn effective_transport(&self) -> TransportChoice {
        match self.transport {
            TransportChoice::Auto if is_ws(&self.url) => TransportChoice::WebSocket,
            t => t,
        }
    }
}

impl ServerConfig {
    /// Whether the server can be reached while the browser reports no network: its first hop
    /// (the CORS proxy, when one is set and the transport uses it) is on this machine or the
    /// local network. Such a server keeps connecting offline; one on the internet waits for
    /// the network.
    pub fn reachable_offline(&self) -> bool {
        let proxy = self
            .proxy
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty());
        let first_hop = match (self.effective_transport(), proxy) {
            (TransportChoice::WebSocket, _) | (_, None) => self.url.as_str(),
            (_, Some(proxy)) => proxy,
        };
        crate::address::reachable_offline(first_hop)
    }
}

fn is_ws(url: &str) -> bool {
    let u = url.trim().to_ascii_lowercase();
    u.starts_with("ws://") || u.starts_with("wss://")
}

fn is_http(url: &str) -> bool {
    let u = url.trim().to_ascii_lowercase();
    u.starts_with("http://") || u.starts_with("https://")
}

/// All configured servers, in the order Settings shows them (which also orders tool prefixes).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerList {
    pub servers: Vec<ServerConfig>,
}

impl ServerList {
    pub fn encode(&self) -> String {
        envelope::encode(SERVERS_VERSION, self)
    }

    pub fn decode(raw: &str) -> Result<ServerList, PersistError> {
        envelope::decode(raw, "MCP server list", SERVERS_VERSION)
    }

    /// An id for a new server named `name`, unique in this list and stable for a given list.
    pub fn fresh_id(&self, name: &str) -> String {
        let base: String = name
            .to_ascii_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>()
            .trim_matches('-')
            .to_string();
        let base = if base.is_empty() {
            "server".into()
        } else {
            base
        };
        let taken = |id: &str| self.servers.iter().any(|s| s.id == id);
        if !taken(&base) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|id| !taken(id))
            .unwrap_or(base)
    }
}

/// An `mcpServers` entry that was not imported, and why, in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEntry {
    pub name: String,
    pub reason: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImportReport {
    pub imported: Vec<ServerConfig>,
    pub skipped: Vec<SkippedEntry>,
}

/// Why a whole import failed (as opposed to single entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError(pub String);

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Could not import the MCP servers: {}", self.0)
    }
}

impl std::error::Error for ImportError {}

/// Import `{"mcpServers": {name: entry}}` (VS Code's `{"servers": ...}` is accepted too).
/// New ids are made unique against `existing`.
pub fn import_mcp_servers(text: &str, existing: &ServerList) -> Result<ImportReport, ImportError> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| ImportError(format!("the text is not valid JSON ({e}).")))?;
    let servers = root
        .get("mcpServers")
        .or_else(|| root.get("servers"))
        .and_then(Value::as_object)
        .ok_or_else(|| ImportError("there is no \"mcpServers\" object in it.".into()))?;
    let mut list = existing.clone();
    let mut report = ImportReport::default();
    for (name, entry) in servers {
        match import_entry(name, entry, &list) {
            Ok(cfg) => {
                list.servers.push(cfg.clone());
                report.imported.push(cfg);
            }
            Err(reason) => report.skipped.push(SkippedEntry {
                name: name.clone(),
                reason,
            }),
        }
    }
    Ok(report)
}

/// What an entry that runs `mcp-remote` (the stdio bridge desktop apps use to reach a remote
/// server: `npx -y mcp-remote <url> [--header Name:value] [--transport sse-only]`) stands for:
/// the remote server itself, which a page reaches directly. `${VAR}` in a header is filled
/// from the entry's `env`; a header still naming a variable then is left out (sending the
/// placeholder would be wrong, and the user can add it in Settings).
struct RemoteBridge {
    url: String,
    headers: Vec<(String, String)>,
    transport: TransportChoice,
}

fn remote_bridge(obj: &Map<String, Value>) -> Option<RemoteBridge> {
    let command = obj.get("command").and_then(Value::as_str)?;
    let args: Vec<&str> = obj
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let is_bridge = |s: &str| {
        let base = s.rsplit(['/', '\\']).next().unwrap_or(s);
        base == "mcp-remote" || base.starts_with("mcp-remote@")
    };
    let rest: &[&str] = if is_bridge(command) {
        &args
    } else {
        let at = args.iter().position(|a| is_bridge(a))?;
        &args[at + 1..]
    };
    let url = rest.iter().find(|a| is_http(a.trim()))?.trim().to_string();
    let env = obj.get("env").and_then(Value::as_object);
    let mut headers = Vec::new();
    let mut transport = TransportChoice::Auto;
    let mut it = rest.iter();
    while let Some(arg) = it.next() {
        match *arg {
            "--header" => {
                let Some((k, v)) = it.next().and_then(|h| h.split_once(':')) else {
                    continue;
                };
                let value = fill_env(v.trim(), env);
                if !value.contains("${") && !k.trim().is_empty() {
                    headers.push((k.trim().to_string(), value));
                }
            }
            "--transport" => {
                transport = match it.next().copied() {
                    Some("sse-only") => TransportChoice::Sse,
                    Some("http-only") => TransportChoice::StreamableHttp,
                    _ => TransportChoice::Auto,
                }
            }
            _ => {}
        }
    }
    Some(RemoteBridge {
        url,
        headers,
        transport,
    })
}

/// `${NAME}` replaced by the entry's `env` value for NAME, where there is one.
fn fill_env(value: &str, env: Option<&Map<String, Value>>) -> String {
    let mut out = value.to_string();
    if let Some(env) = env {
        for (k, v) in env {
            if let Some(v) = v.as_str() {
                out = out.replace(&format!("${{{k}}}"), v);
            }
        }
    }
    out
}

fn import_entry(name: &str, entry: &Value, list: &ServerList) -> Result<ServerConfig, String> {
    let Some(obj) = entry.as_object() else {
        return Err("the entry is not a JSON object.".into());
    };
    if obj.get("url").or_else(|| obj.get("serverUrl")).is_none() {
        if let Some(bridge) = remote_bridge(obj) {
            // Imported as the server it bridges to, as if written `{"url": …}`.
            let mut direct = Map::new();
            direct.insert("url".into(), json!(bridge.url));
            let mut headers = Map::new();
            for (k, v) in &bridge.headers {
                headers.insert(k.clone(), json!(v));
            }
            direct.insert("headers".into(), Value::Object(headers));
            match bridge.transport {
                TransportChoice::Sse => {
                    direct.insert("type".into(), json!("sse"));
                }
                TransportChoice::StreamableHttp => {
                    direct.insert("type".into(), json!("http"));
                }
                _ => {}
            }
            if let Some(disabled) = obj.get("disabled") {
                direct.insert("disabled".into(), disabled.clone());
            }
            return import_entry(name, &Value::Object(direct), list);
        }
    }
    let url = obj
        .get("url")
        .or_else(|| obj.get("serverUrl"))
        .and_then(Value::as_str)
        .map(str::trim);
    if url.is_none() {
        if let Some(cmd) = obj.get("command").and_then(Value::as_str) {
            return Err(format!(
                "runs a local program (`{cmd}`) over stdio, which a web page cannot start; expose it over HTTP (for example with an MCP proxy) and add its URL."
            ));
        }
        return Err("it has no \"url\".".into());
    }
    let url = url.unwrap_or_default();
    if !(is_http(url) || is_ws(url)) {
        return Err(format!("its URL `{url}` is not http(s):// or ws(s)://."));
    }
    // One server, one entry: a second one would connect twice and double every tool.
    if let Some(other) = list.servers.iter().find(|c| form::same_url(&c.url, url)) {
        return Err(format!(
            "its URL is already configured (as \"{}\"), so it was not added twice.",
            other.name
        ));
    }
    let declared = obj.get("type").or_else(|| obj.get("transport"));
    let transport = match declared
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
    {
        None => TransportChoice::Auto,
        Some(t) => match t.as_str() {
            "sse" => TransportChoice::Sse,
            "http" | "streamable-http" | "streamablehttp" | "streamable_http" => {
                TransportChoice::StreamableHttp
            }
            "ws" | "websocket" => TransportChoice::WebSocket,
            "stdio" => return Err("its type is stdio, which a web page cannot start.".into()),
            other => return Err(format!("its type `{other}` is not one Skiff knows.")),
        },
    };
    let mut headers: Vec<(String, String)> = obj
        .get("headers")
        .and_then(Value::as_object)
        .map(|h| {
            h.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        })
        .unwrap_or_default();
    crate::order::sort(&mut headers);
    let mut cfg = ServerConfig::new(&list.fresh_id(name), name, url);
    cfg.transport = transport;
    cfg.headers = headers;
    if obj.get("disabled").and_then(Value::as_bool) == Some(true) {
        cfg.enabled = false;
    }
    Ok(cfg)
}

/// Export the servers as `{"mcpServers": {...}}` with url, headers and type.
pub fn export_mcp_servers(list: &ServerList) -> String {
    let mut servers = Map::new();
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for s in &list.servers {
        // Keys must be unique; two servers with one name get the id appended.
        let n = used.entry(s.name.clone()).or_default();
        *n += 1;
        let key = if *n == 1 {
            s.name.clone()
        } else {
            format!("{} ({})", s.name, s.id)
        };
        let mut entry = Map::new();
        entry.insert("url".into(), json!(s.url));
        match s.transport {
            TransportChoice::Auto => {}
            TransportChoice::StreamableHttp => {
                entry.insert("type".into(), json!("http"));
            }
            TransportChoice::Sse => {
                entry.insert("type".into(), json!("sse"));
            }
            TransportChoice::WebSocket => {
                entry.insert("type".into(), json!("websocket"));
            }
        }
        if !s.headers.is_empty() {
            // Inserted one by one: collecting into a Map would build a BTreeMap from a sorted
            // Vec, a second copy of the standard sort in the page (see crate::order).
            let mut h = Map::new();
            for (k, v) in &s.headers {
                h.insert(k.clone(), json!(v));
            }
            entry.insert("headers".into(), Value::Object(h));
        }
        if !s.enabled {
            entry.insert("disabled".into(), json!(true));
        }
        servers.insert(key, Value::Object(entry));
    }
    serde_json::to_string_pretty(&json!({ "mcpServers": servers }))
        .unwrap_or_else(|_| "{\"mcpServers\":{}}".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE_DESKTOP: &str = r#"{
      "mcpServers": {
        "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
        "everything": {"url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer abc"}},
        "legacy": {"type": "sse", "url": "http://127.0.0.1:3002/sse"},
        "socket": {"url": "ws://127.0.0.1:3003/"},
        "broken": {"url": "ftp://x"},
        "nothing": {}
      }
    }"#;

    #[test]
    fn a_url_already_configured_is_not_imported_twice() {
        let mut existing = ServerList::default();
        existing
            .servers
            .push(ServerConfig::new("a", "mine", "http://127.0.0.1:3001/mcp/"));
        let r = import_mcp_servers(CLAUDE_DESKTOP, &existing).unwrap();
        assert!(!r.imported.iter().any(|s| s.name == "everything"));
        let skip = r.skipped.iter().find(|s| s.name == "everything").unwrap();
        assert!(
            skip.reason.contains("already configured") && skip.reason.contains("mine"),
            "{}",
            skip.reason
        );
        // Twice in one import: the second is refused the same way.
        let twice =
            r#"{"mcpServers": {"a": {"url": "http://h/mcp"}, "b": {"url": "HTTP://H/mcp"}}}"#;
        let r = import_mcp_servers(twice, &ServerList::default()).unwrap();
        assert_eq!(r.imported.len(), 1);
        assert!(
            r.skipped[0].reason.contains("(as \"a\")"),
            "{}",
            r.skipped[0].reason
        );
    }

    #[test]
    fn stdio_entries_are_skipped_with_a_reason_and_the_rest_import() {
        let r = import_mcp_servers(CLAUDE_DESKTOP, &ServerList::default()).unwrap();
        let names: Vec<_> = r.imported.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["everything", "legacy", "socket"]);
        assert_eq!(
            r.imported[0].headers,
            [("Authorization".into(), "Bearer abc".into())]
        );
        assert_eq!(r.imported[1].transport, TransportChoice::Sse);
        assert_eq!(
            r.imported[2].effective_transport(),
            TransportChoice::WebSocket
        );
        let skipped: Vec<_> = r.skipped.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(skipped, ["broken", "filesystem", "nothing"]);
        let fs = &r.skipped[1].reason;
        assert!(fs.contains("npx") && fs.contains("web page"), "{fs}");
        assert!(!fs.contains('\n'));
    }

    #[test]
    fn an_mcp_remote_bridge_is_imported_as_the_server_it_reaches() {
        // Claude Desktop's way to a remote server: a local stdio bridge. A page reaches the
        // server itself.
        let text = r#"{"mcpServers": {
          "linear": {"command": "npx", "args": ["-y", "mcp-remote", "https://mcp.linear.app/sse"]},
          "tokened": {"command": "npx", "args": ["mcp-remote@0.1.29", "https://example.com/mcp",
              "--header", "Authorization:${AUTH_HEADER}", "--header", "X-Team: blue",
              "--header", "X-Missing:${NOPE}", "--transport", "http-only"],
            "env": {"AUTH_HEADER": "Bearer s3cret"}},
          "direct": {"command": "mcp-remote", "args": ["http://127.0.0.1:9/sse", "--transport", "sse-only"]},
          "local": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}
        }}"#;
        let r = import_mcp_servers(text, &ServerList::default()).unwrap();
        let by = |n: &str| r.imported.iter().find(|s| s.name == n).unwrap();
        assert_eq!(by("linear").url, "https://mcp.linear.app/sse");
        assert_eq!(by("linear").transport, TransportChoice::Auto);
        let t = by("tokened");
        assert_eq!(t.url, "https://example.com/mcp");
        assert_eq!(
            t.headers,
            [
                ("Authorization".into(), "Bearer s3cret".into()),
                ("X-Team".into(), "blue".into())
            ],
            "filled from env; one naming a missing variable is left out"
        );
        assert_eq!(t.transport, TransportChoice::StreamableHttp);
        assert_eq!(by("direct").transport, TransportChoice::Sse);
        // A real local program is still one a page cannot start.
        assert_eq!(r.skipped.len(), 1);
        assert_eq!(r.skipped[0].name, "local");
        // The bridge to a URL already configured is refused like the URL itself.
        let again = import_mcp_servers(
            text,
            &ServerList {
                servers: r.imported.clone(),
            },
        )
        .unwrap();
        assert!(again.imported.is_empty());
    }

    #[test]
    fn ids_stay_unique_and_export_round_trips() {
        let mut list = ServerList::default();
        list.servers.push(ServerConfig::new(
            "everything",
            "everything",
            "http://a/mcp",
        ));
        let r = import_mcp_servers(CLAUDE_DESKTOP, &list).unwrap();
        assert_eq!(r.imported[0].id, "everything-2");
        list.servers.extend(r.imported);
        let again = import_mcp_servers(&export_mcp_servers(&list), &ServerList::default()).unwrap();
        assert!(again.skipped.is_empty(), "{:?}", again.skipped);
        let urls: Vec<_> = again.imported.iter().map(|s| s.url.as_str()).collect();
        assert_eq!(urls.len(), 4);
        assert!(urls.contains(&"http://a/mcp") && urls.contains(&"http://127.0.0.1:3001/mcp"));
    }

    #[test]
    fn stored_list_is_versioned() {
        let mut list = ServerList::default();
        let mut s = ServerConfig::new("a", "A", " http://x/mcp ");
        s.proxy = Some("http://127.0.0.1:8080/".into());
        list.servers.push(s);
        assert_eq!(list.servers[0].url, "http://x/mcp");
        assert_eq!(ServerList::decode(&list.encode()).unwrap(), list);
        // Fields added later get defaults when reading an older record.
        let old = r#"{"v":1,"data":{"servers":[{"id":"a","name":"A","url":"http://x"}]}}"#;
        let read = ServerList::decode(old).unwrap();
        assert!(read.servers[0].enabled);
        assert_eq!(read.servers[0].request_timeout_ms, 60_000);
        assert!(matches!(
            ServerList::decode(r#"{"v":2,"data":{}}"#),
            Err(PersistError::TooNew { .. })
        ));
        assert!(import_mcp_servers("[]", &ServerList::default()).is_err());
    }

    #[test]
    fn a_server_whose_first_hop_is_local_is_reachable_offline() {
        let local = ServerConfig::new("a", "A", "http://127.0.0.1:3001/mcp");
        assert!(local.reachable_offline());
        let mut remote = ServerConfig::new("b", "B", "https://mcp.example.com/mcp");
        assert!(!remote.reachable_offline());
        // Through a proxy on this machine, the proxy is what must answer.
        remote.proxy = Some("http://127.0.0.1:8080/".into());
        assert!(remote.reachable_offline());
        let mut proxied = local.clone();
        proxied.proxy = Some("https://proxy.example.com/".into());
        assert!(!proxied.reachable_offline());
        // A WebSocket never goes through the CORS proxy.
        let mut ws = ServerConfig::new("c", "C", "ws://192.168.1.5:3003/");
        ws.proxy = Some("https://proxy.example.com/".into());
        assert!(ws.reachable_offline());
    }
}

/// Parse the settings form's header box: one `Name: value` per line, blank lines ignored.
/// A line without a colon or with an invalid header name is refused with its line number,
/// so a typo never silently drops an `Authorization` header. [`read_header_lines`] gives the
/// typed error.
pub fn parse_header_lines(text: &str) -> Result<Vec<(String, String)>, String> {
    read_header_lines(text).map_err(|e| e.to_string())
}

/// The inverse of [`parse_header_lines`], for editing.
pub fn format_header_lines(headers: &[(String, String)]) -> String {
    headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod header_line_tests {
    use super::*;

    #[test]
    fn parses_and_round_trips() {
        let h = parse_header_lines("Authorization: Bearer a:b\n\n  X-Team : red ").unwrap();
        assert_eq!(
            h,
            vec![
                ("Authorization".to_string(), "Bearer a:b".to_string()),
                ("X-Team".to_string(), "red".to_string())
            ]
        );
        assert_eq!(parse_header_lines(&format_header_lines(&h)).unwrap(), h);
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        assert_eq!(
            parse_header_lines("Bearer abc").unwrap_err(),
            "Line 1: expected \"Name: value\"."
        );
        assert!(parse_header_lines("ok: 1\nbad name: 2")
            .unwrap_err()
            .starts_with("Line 2"));
    }
}
