//! Which server answers which tool name, as the model sees it.
//!
//! Tool names only have to be unique within one server, but the model sees the tools of every
//! connected server at once, under names that must match `^[a-zA-Z0-9_-]{1,64}$`. A name used
//! by one server only is kept (sanitized if needed); a name used by several gets the server's
//! name as a prefix, `server__tool`, on every server that has it, so no server's tool silently
//! wins. The result depends only on the input order (the order of servers in Settings), never
//! on hashing or timing, so the names the model sees stay stable between turns.
//!
//! Per-conversation overrides switch servers or single tools off; they are keyed by server id
//! and the tool's own name, so they survive a rename caused by a new conflict.

use std::collections::{BTreeSet, HashMap};

use crate::mcp::model::Tool;
use crate::mcp::task;
use crate::records::tool_overrides::ToolOverrides;
use crate::tools::spec::{sanitize, ToolSpec, MAX_NAME_LEN};

const PREFIX_SEPARATOR: &str = "__";

/// One tool the model can call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEntry {
    /// The name the model sees and the UI shows.
    pub exposed_name: String,
    pub server_id: String,
    /// The name to send in `tools/call`.
    pub tool_name: String,
    pub tool: Tool,
}

/// The tools of one server, as input to the index.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTools {
    pub server_id: String,
    pub server_name: String,
    pub tools: Vec<Tool>,
    /// The server announces task-augmented `tools/call` (`mcp::task::server_runs_tool_tasks`).
    pub runs_tasks: bool,
}

impl ServerTools {
    /// The tools Skiff can call on this server: one that only runs as a task, on a server
    /// that runs none, would always fail, so the model is never offered it.
    fn callable(&self) -> impl Iterator<Item = &Tool> {
        self.tools
            .iter()
            .filter(|t| task::call_mode(task::task_support(t), self.runs_tasks).is_ok())
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolIndex {
    entries: Vec<ToolEntry>,
    by_name: HashMap<String, usize>,
}

/// FNV-1a, for a short deterministic suffix that keeps truncated names apart.
fn short_hash(s: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in s.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{:06x}", h & 0xff_ffff)
}

/// Fit a sanitized name into 64 characters; a cut name gets a hash of the full name.
fn fit(name: String) -> String {
    if name.len() <= MAX_NAME_LEN {
        return name;
    }
    let hash = short_hash(&name);
    let keep = MAX_NAME_LEN - hash.len() - 1;
    format!("{}_{hash}", &name[..keep])
}

/// The shortest a cut server name may get: a few of its characters, `_` and its hash.
const MIN_SERVER_PART: usize = 10;

/// `server__tool` in 64 characters. The tool's name is what the model reads to choose a tool,
/// the server's only tells same-named tools apart, so a long server name is cut first (keeping
/// its start and a hash of the whole, so two long names with the same start stay apart); only
/// a tool name too long to leave room for that is cut itself (`fit`).
fn fit_prefixed(server: &str, tool: &str) -> String {
    let whole = format!("{server}{PREFIX_SEPARATOR}{tool}");
    if whole.len() <= MAX_NAME_LEN {
        return whole;
    }
    let room = MAX_NAME_LEN
        .saturating_sub(PREFIX_SEPARATOR.len())
        .saturating_sub(tool.len());
    if room < MIN_SERVER_PART {
        return fit(whole);
    }
    let hash = short_hash(server);
    // Sanitized names are ASCII, so any byte index is a character boundary.
    let keep = room - hash.len() - 1;
    format!("{}_{hash}{PREFIX_SEPARATOR}{tool}", &server[..keep])
}

impl ToolIndex {
    pub fn build(servers: &[ServerTools]) -> ToolIndex {
        let mut owners: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        for s in servers {
            for t in s.callable() {
                owners
                    .entry(t.name.as_ref())
                    .or_default()
                    .insert(s.server_id.as_str());
            }
        }
        let mut index = ToolIndex::default();
        for s in servers {
            let mut seen_here = BTreeSet::new();
            for t in s.callable() {
                // A server listing a name twice keeps the first; `tools/call` could not tell
                // them apart anyway.
                if !seen_here.insert(t.name.as_ref()) {
                    continue;
                }
                let shared = owners.get(t.name.as_ref()).is_some_and(|o| o.len() > 1);
                let base = if shared {
                    fit_prefixed(&sanitize(&s.server_name), &sanitize(&t.name))
                } else {
                    fit(sanitize(&t.name))
                };
                let exposed = index.unique(base);
                index.by_name.insert(exposed.clone(), index.entries.len());
                index.entries.push(ToolEntry {
                    exposed_name: exposed,
                    server_id: s.server_id.clone(),
                    tool_name: t.name.to_string(),
                    tool: t.clone(),
                });
            }
        }
        index
    }

    /// Sanitizing or prefixing can still collide (two servers with the same name, `a.b` and
    /// `a_b`): number the later ones.
    fn unique(&self, name: String) -> String {
        if !self.by_name.contains_key(&name) {
            return name;
        }
        (2..)
            .map(|n| {
                let suffix = format!("_{n}");
                let room = MAX_NAME_LEN - suffix.len();
                let stem = if name.len() > room {
                    &name[..room]
                } else {
                    &name[..]
                };
                format!("{stem}{suffix}")
            })
            .find(|candidate| !self.by_name.contains_key(candidate))
            .unwrap_or(name)
    }

    pub fn entries(&self) -> &[ToolEntry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The server and tool behind a name the model used.
    pub fn lookup(&self, exposed_name: &str) -> Option<&ToolEntry> {
        self.by_name.get(exposed_name).map(|&i| &self.entries[i])
    }

    /// The tools a conversation may use.
    pub fn enabled<'a>(
        &'a self,
        overrides: &'a ToolOverrides,
    ) -> impl Iterator<Item = &'a ToolEntry> {
        self.entries.iter().filter(move |e| {
            overrides.server_enabled(&e.server_id)
                && overrides.tool_enabled(&e.server_id, &e.tool_name)
        })
    }
}

/// The spec a model is offered for `entry`, served by the server named `server_name`.
pub fn spec(entry: &ToolEntry, server_name: &str) -> ToolSpec {
    let tool = &entry.tool;
    ToolSpec {
        exposed_name: entry.exposed_name.clone(),
        server_id: entry.server_id.clone(),
        server_name: server_name.to_string(),
        tool_name: entry.tool_name.clone(),
        description: tool
            .description
            .as_deref()
            .map(str::to_string)
            .unwrap_or_default(),
        input_schema: (*tool.input_schema).clone(),
        read_only: tool
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false),
    }
}

/// The enabled tools of a conversation, in index order. `server_name` maps a server id to its
/// display name.
pub fn enabled_specs(
    index: &ToolIndex,
    overrides: &ToolOverrides,
    server_name: impl Fn(&str) -> String,
) -> Vec<ToolSpec> {
    index
        .enabled(overrides)
        .map(|e| spec(e, &server_name(&e.server_id)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::spec::is_valid_name;
    use serde_json::json;

    fn tool(name: &str) -> Tool {
        serde_json::from_value(json!({"name": name, "inputSchema": {"type": "object"}})).unwrap()
    }

    fn server(id: &str, name: &str, tools: &[&str]) -> ServerTools {
        ServerTools {
            server_id: id.into(),
            server_name: name.into(),
            tools: tools.iter().map(|t| tool(t)).collect(),
            runs_tasks: false,
        }
    }

    #[test]
    fn a_tool_that_only_runs_as_a_task_is_offered_only_where_tasks_run() {
        let research: Tool = serde_json::from_value(json!({"name": "simulate-research-query",
            "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}))
        .unwrap();
        let mut s = server("a", "Everything", &["echo"]);
        s.tools.push(research);
        assert_eq!(names(&ToolIndex::build(&[s.clone()])), ["echo"]);
        s.runs_tasks = true;
        assert_eq!(
            names(&ToolIndex::build(&[s])),
            ["echo", "simulate-research-query"]
        );
    }

    fn names(i: &ToolIndex) -> Vec<&str> {
        i.entries()
            .iter()
            .map(|e| e.exposed_name.as_str())
            .collect()
    }

    #[test]
    fn conflicts_get_a_server_prefix_on_every_side() {
        let i = ToolIndex::build(&[
            server("a", "Everything", &["echo", "add"]),
            server("b", "my files", &["echo", "read"]),
        ]);
        assert_eq!(
            names(&i),
            ["Everything__echo", "add", "my_files__echo", "read"]
        );
        let e = i.lookup("my_files__echo").unwrap();
        assert_eq!((e.server_id.as_str(), e.tool_name.as_str()), ("b", "echo"));
        assert!(i.lookup("echo").is_none());
        // Deterministic: the same input gives the same names.
        assert_eq!(
            i,
            ToolIndex::build(&[
                server("a", "Everything", &["echo", "add"]),
                server("b", "my files", &["echo", "read"]),
            ])
        );
    }

    #[test]
    fn every_name_fits_the_model_charset() {
        let long = "x".repeat(80);
        let i = ToolIndex::build(&[
            server(
                "a",
                "srv",
                &["get.weather", "ünïcode", &long, "a_b", "dup", "dup"],
            ),
            server("b", "srv", &["a.b", &long]),
            server("c", "srv", &["a.b"]),
        ]);
        for n in names(&i) {
            assert!(is_valid_name(n), "{n}");
        }
        let all = names(&i);
        let unique: BTreeSet<_> = all.iter().collect();
        assert_eq!(unique.len(), all.len(), "{all:?}");
        assert_eq!(
            i.len(),
            8,
            "the duplicate `dup` on one server is listed once"
        );
        assert!(all.contains(&"get_weather"));
        // Servers b and c share `a.b`, and both are called "srv": numbered apart.
        assert!(
            all.contains(&"srv__a_b") && all.contains(&"srv__a_b_2"),
            "{all:?}"
        );
    }

    #[test]
    fn a_long_server_name_is_cut_before_the_tool_name() {
        // The case: a copied server with a long descriptive name, sharing its tools
        // with the original. The tool's name survives whole; the server's start and a hash
        // of it tell the two apart.
        let long = "My Everything (copy #2): a rather long descriptive name";
        let i = ToolIndex::build(&[
            server(
                "a",
                "Everything",
                &["trigger-long-running-operation", "echo"],
            ),
            server("b", long, &["trigger-long-running-operation", "echo"]),
            server("c", &format!("{long}, again"), &["echo"]),
        ]);
        let all = names(&i);
        for n in &all {
            assert!(is_valid_name(n), "{n}");
        }
        assert_eq!(all[0], "Everything__trigger-long-running-operation");
        let copy = all[2];
        assert!(
            copy.ends_with("__trigger-long-running-operation")
                && copy.starts_with("My_Everything__copy"),
            "{copy}"
        );
        assert_eq!(copy.len(), MAX_NAME_LEN, "{copy}");
        // A short tool keeps most of the server's name; two servers whose names begin alike
        // stay apart by their hashes, not by a number.
        assert_eq!(all[3], format!("{}__echo", sanitize(long)));
        assert!(all[4].ends_with("__echo") && all[4] != all[3], "{all:?}");
        assert!(!all[4].ends_with("_2"), "{all:?}");
        // A tool name too long to leave the server a few characters is cut with its hash.
        let huge = "t".repeat(60);
        let i = ToolIndex::build(&[server("a", "A", &[&huge]), server("b", "B", &[&huge])]);
        for n in names(&i) {
            assert!(is_valid_name(n), "{n}");
        }
        assert_ne!(names(&i)[0], names(&i)[1]);
    }

    #[test]
    fn overrides_filter_by_server_and_tool() {
        let i = ToolIndex::build(&[server("a", "A", &["x", "y"]), server("b", "B", &["z"])]);
        let mut o = ToolOverrides::default();
        o.set_tool("a", "y", false);
        o.disabled_servers.insert("b".into());
        let on: Vec<_> = i.enabled(&o).map(|e| e.exposed_name.as_str()).collect();
        assert_eq!(on, ["x"]);
        let round: ToolOverrides =
            serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
        assert_eq!(round, o);
    }
}
