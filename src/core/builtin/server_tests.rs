use serde_json::{json, Value};

use super::memory::{MemoryBook, MAX_ENTRIES};
use super::server::{
    BuiltinServer, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
};
use crate::calendar::days_from_civil;
use crate::mcp::era::LEGACY_VERSIONS;
use crate::mcp::{McpSession, Output, Phase, SessionConfig, SessionEvent};

/// 2024-02-29T08:15:07.250Z, a Thursday.
const LEAP_DAY_MS: f64 = 1_709_194_507_250.0;

struct Harness {
    server: BuiltinServer,
    book: MemoryBook,
    now_ms: f64,
    tz: i32,
    next_id: u64,
}

impl Harness {
    fn new() -> Self {
        Harness {
            server: BuiltinServer::new(),
            book: MemoryBook::default(),
            now_ms: LEAP_DAY_MS,
            tz: 0,
            next_id: 1,
        }
    }

    fn initialized(version: &str) -> Self {
        let mut h = Harness::new();
        let r = h.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert_eq!(r["result"]["protocolVersion"], version);
        assert!(h
            .raw(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
            .0
            .is_empty());
        h
    }

    /// Replies (parsed) and whether the book changed.
    fn raw(&mut self, text: &str) -> (Vec<Value>, bool) {
        let handled = self
            .server
            .handle(text, &mut self.book, self.now_ms, self.tz);
        let replies = handled
            .replies
            .iter()
            .map(|r| serde_json::from_str(r).expect("replies are JSON"))
            .collect();
        (replies, handled.book_changed)
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let (mut replies, _) = self.raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        assert_eq!(replies.len(), 1, "{method}: {replies:?}");
        let reply = replies.remove(0);
        assert_eq!(reply["id"], id);
        assert_eq!(reply["jsonrpc"], "2.0");
        reply
    }

    /// A `tools/call` result (never a protocol error) and whether the book changed.
    fn call(&mut self, name: &str, args: Value) -> (Value, bool) {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": args}});
        let (replies, changed) = self.raw(&msg.to_string());
        assert_eq!(replies.len(), 1);
        let result = replies[0].get("result").cloned();
        (
            result.unwrap_or_else(|| panic!("{name}: {:?}", replies[0])),
            changed,
        )
    }

    fn ok(&mut self, name: &str, args: Value) -> Value {
        let (r, _) = self.call(name, args.clone());
        assert_eq!(r["isError"], false, "{name} {args}: {r}");
        r
    }

    fn refused(&mut self, name: &str, args: Value) -> String {
        let (r, changed) = self.call(name, args.clone());
        assert_eq!(r["isError"], true, "{name} {args}: {r}");
        assert!(!changed, "a refused call changes nothing");
        assert!(r.get("structuredContent").is_none());
        text(&r)
    }
}

fn text(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn tool<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == name))
        .unwrap_or_else(|| panic!("{name} is listed"))
}

#[test]
fn handshake_list_and_every_tool() {
    let mut h = Harness::new();
    let init = h.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "skiff", "version": "0"}}),
    );
    let r = &init["result"];
    assert_eq!(r["protocolVersion"], "2025-11-25");
    assert_eq!(r["capabilities"]["tools"], json!({"listChanged": false}));
    assert_eq!(r["serverInfo"]["name"], "skiff-builtin");
    assert!(r["instructions"]
        .as_str()
        .is_some_and(|s| s.contains("memory")));
    let (replies, _) = h.raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert!(replies.is_empty(), "notifications get no reply");
    assert_eq!(h.request("ping", Value::Null)["result"], json!({}));

    let list = h.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "memory_save",
            "memory_search",
            "memory_delete",
            "current_time"
        ]
    );
    // What the session will make of them: the model's Tool type.
    let typed: Vec<crate::mcp::model::Tool> =
        serde_json::from_value(list["result"]["tools"].clone()).expect("valid MCP tools");
    assert_eq!(typed.len(), 4);
    for t in &typed {
        assert_eq!(
            t.input_schema.get("type"),
            Some(&json!("object")),
            "{}",
            t.name
        );
        assert!(t.output_schema.is_some(), "{}", t.name);
        assert!(t.description.as_deref().is_some_and(|d| d.len() > 40));
    }
    let ann = |n: &str| tool(&list, n)["annotations"].clone();
    assert_eq!(ann("memory_search")["readOnlyHint"], true);
    assert_eq!(ann("current_time")["readOnlyHint"], true);
    assert_eq!(ann("memory_delete")["destructiveHint"], true);
    assert_eq!(ann("memory_save")["readOnlyHint"], false);
    assert_eq!(
        tool(&list, "memory_save")["inputSchema"]["required"],
        json!(["text"])
    );
    assert_eq!(
        tool(&list, "memory_delete")["inputSchema"]["required"],
        json!(["id"])
    );

    // save
    let (saved, changed) = h.call(
        "memory_save",
        json!({"text": "The user is vegetarian.", "tags": ["Food"]}),
    );
    assert!(changed);
    assert_eq!(saved["isError"], false);
    assert_eq!(text(&saved), "Saved as m1.");
    assert_eq!(
        saved["structuredContent"],
        json!({"id": "m1", "duplicate": false})
    );
    let (again, changed) = h.call("memory_save", json!({"text": "the user is vegetarian."}));
    assert!(!changed);
    assert_eq!(
        again["structuredContent"],
        json!({"id": "m1", "duplicate": true})
    );
    h.now_ms += 60_000.0;
    h.ok(
        "memory_save",
        json!({"text": "Lives in Lisbon.", "tags": "home, places"}),
    );

    // search
    let (found, changed) = h.call("memory_search", json!({"query": "VEGETARIAN"}));
    assert!(!changed);
    assert_eq!(found["structuredContent"]["total"], 1);
    let m = &found["structuredContent"]["memories"][0];
    assert_eq!(m["id"], "m1");
    assert_eq!(m["text"], "The user is vegetarian.");
    assert_eq!(m["tags"], json!(["food"]));
    assert_eq!(m["created"], "2024-02-29T08:15:07+00:00");
    assert_eq!(
        text(&found),
        "1 of 1 matching memories, best match first:\n- m1 (2024-02-29; tags: food): The user is vegetarian."
    );
    let all = h.ok("memory_search", json!({}));
    assert_eq!(all["structuredContent"]["returned"], 2);
    assert_eq!(
        all["structuredContent"]["memories"][0]["id"], "m2",
        "newest first"
    );
    assert!(text(&all).contains("newest first"));
    let by_tag = h.ok("memory_search", json!({"tag": "places", "query": null}));
    assert_eq!(by_tag["structuredContent"]["memories"][0]["id"], "m2");
    assert_eq!(by_tag["structuredContent"]["total"], 1);

    // delete
    let (deleted, changed) = h.call("memory_delete", json!({"id": "m1"}));
    assert!(changed);
    assert_eq!(text(&deleted), "Deleted m1: \"The user is vegetarian.\".");
    assert_eq!(
        deleted["structuredContent"],
        json!({"id": "m1", "deleted": true})
    );
    let none = h.ok("memory_search", json!({"query": "vegetarian"}));
    assert_eq!(text(&none), "No memory matches \"vegetarian\".");
    assert_eq!(
        none["structuredContent"],
        json!({"memories": [], "total": 0, "returned": 0})
    );
    assert_eq!(h.book.len(), 1);

    // time
    let (now, changed) = h.call("current_time", json!({}));
    assert!(!changed);
    assert_eq!(
        now["structuredContent"]["local"],
        "2024-02-29T08:16:07+00:00"
    );
    assert_eq!(now["structuredContent"]["weekday"], "Thursday");
}

#[test]
fn the_session_connects_lists_and_calls_through_the_same_code_as_remote_servers() {
    let mut book = MemoryBook::default();
    let mut server = BuiltinServer::new();
    let mut session = McpSession::new(SessionConfig {
        legacy_only: true,
        ping_interval_ms: None,
        ..SessionConfig::default()
    });
    let now = LEAP_DAY_MS;
    let mut events = Vec::new();
    let mut pump =
        |session: &mut McpSession, book: &mut MemoryBook, events: &mut Vec<SessionEvent>| {
            for _ in 0..50 {
                let mut replies = Vec::new();
                while let Some(out) = session.poll_output() {
                    match out {
                        Output::Send(body, _) => {
                            replies.extend(server.handle(&body, book, now, 60).replies)
                        }
                        Output::Abort(_) => {}
                        Output::Event(e) => events.push(e),
                    }
                }
                if replies.is_empty() {
                    return;
                }
                for r in replies {
                    session.handle_message(&r, now);
                }
            }
            panic!("the session and the server never settled");
        };
    session.connect(now);
    pump(&mut session, &mut book, &mut events);
    match session.phase() {
        Phase::Ready {
            version,
            server_info,
            ..
        } => {
            assert_eq!(version, LEGACY_VERSIONS[0]);
            assert_eq!(
                server_info.as_ref().map(|i| i.name.as_str()),
                Some("skiff-builtin")
            );
        }
        other => panic!("not ready: {other:?}"),
    }
    let listed = events.iter().find_map(|e| match e {
        SessionEvent::ToolsListed(t) => Some(t.len()),
        _ => None,
    });
    assert_eq!(listed, Some(4));
    assert!(!events
        .iter()
        .any(|e| matches!(e, SessionEvent::ListEntriesSkipped { .. })));

    let args = json!({"text": "Prefers short answers."});
    let id = session.call_tool("memory_save", args.as_object().cloned(), true, now);
    events.clear();
    pump(&mut session, &mut book, &mut events);
    let result = events.iter().find_map(|e| match e {
        SessionEvent::Response {
            id: rid, result, ..
        } if *rid == id => Some(result.clone()),
        _ => None,
    });
    let result = result.expect("a response").expect("a result");
    assert_eq!(result["structuredContent"]["id"], "m1");
    assert_eq!(book.entries[0].text, "Prefers short answers.");

    let id = session.call_tool("current_time", None, false, now);
    events.clear();
    pump(&mut session, &mut book, &mut events);
    let result = events.iter().find_map(|e| match e {
        SessionEvent::Response {
            id: rid,
            result: Ok(v),
            ..
        } if *rid == id => Some(v.clone()),
        _ => None,
    });
    assert_eq!(
        result.expect("a result")["structuredContent"]["local"],
        "2024-02-29T09:15:07+01:00"
    );
}

#[test]
fn older_protocol_versions_get_only_what_they_define() {
    let mut h = Harness::initialized("2024-11-05");
    let list = h.request("tools/list", json!({}));
    let save = tool(&list, "memory_save");
    assert!(save.get("annotations").is_none());
    assert!(save.get("outputSchema").is_none());
    assert!(save.get("title").is_none());
    let r = h.ok("current_time", json!({}));
    assert!(r.get("structuredContent").is_none());
    assert!(text(&r).starts_with("Local time: 2024-02-29T08:15:07+00:00 (Thursday, UTC+00:00)"));

    let mut h = Harness::initialized("2025-03-26");
    let list = h.request("tools/list", json!({}));
    assert_eq!(
        tool(&list, "memory_delete")["annotations"]["destructiveHint"],
        true
    );
    assert!(tool(&list, "memory_delete").get("outputSchema").is_none());

    let mut h = Harness::initialized("2025-06-18");
    let list = h.request("tools/list", json!({}));
    assert!(tool(&list, "memory_search").get("outputSchema").is_some());

    // A version we do not speak: answer with our latest, as the spec asks.
    let mut h = Harness::new();
    let r = h.request("initialize", json!({"protocolVersion": "1999-01-01"}));
    assert_eq!(r["result"]["protocolVersion"], LEGACY_VERSIONS[0]);
    let r = h.request("initialize", json!({}));
    assert_eq!(r["result"]["protocolVersion"], LEGACY_VERSIONS[0]);
}

#[test]
fn malformed_messages_get_json_rpc_errors() {
    let mut h = Harness::new();
    let code = |v: &Value| v["error"]["code"].as_i64();
    for bad in ["", "{", "{\"jsonrpc\":\"2.0\",", "nul"] {
        let (r, _) = h.raw(bad);
        assert_eq!(r.len(), 1, "{bad:?}");
        assert_eq!(code(&r[0]), Some(PARSE_ERROR), "{bad:?}");
        assert_eq!(r[0]["id"], Value::Null);
        assert!(r[0]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("Parse error")));
    }
    for (bad, id) in [
        (r#"5"#, Value::Null),
        (r#"[]"#, Value::Null),
        (r#"{"id":1,"method":"ping"}"#, json!(1)),
        (r#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#, json!("a")),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            Value::Null,
        ),
        (r#"{"jsonrpc":"2.0","id":2}"#, json!(2)),
        (r#"{"jsonrpc":"2.0","id":3,"method":7}"#, json!(3)),
    ] {
        let (r, _) = h.raw(bad);
        assert_eq!(r.len(), 1, "{bad}");
        assert_eq!(code(&r[0]), Some(INVALID_REQUEST), "{bad}");
        assert_eq!(r[0]["id"], id, "{bad}");
    }
    let r = h.request("resources/list", json!({}));
    assert_eq!(code(&r), Some(METHOD_NOT_FOUND));
    assert!(r["error"]["message"]
        .as_str()
        .unwrap()
        .contains("resources/list"));
    let (r, _) = h.raw(r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":[1]}"#);
    assert_eq!(code(&r[0]), Some(INVALID_PARAMS));
    // Nothing answers a notification, known or not, or a response.
    for quiet in [
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such"}"#,
        r#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}}"#,
    ] {
        assert!(h.raw(quiet).0.is_empty(), "{quiet}");
    }
}

#[test]
fn batches_get_one_array_of_replies() {
    let mut h = Harness::new();
    let (r, changed) = h.raw(
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},
            {"jsonrpc":"2.0","method":"notifications/initialized"},
            {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_save","arguments":{"text":"x"}}},
            {"jsonrpc":"2.0","id":3,"method":"nope"}]"#,
    );
    assert!(changed);
    assert_eq!(r.len(), 1);
    let items = r[0].as_array().expect("an array");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["id"], 1);
    assert_eq!(items[1]["result"]["isError"], false);
    assert_eq!(items[2]["error"]["code"], METHOD_NOT_FOUND);
    let (r, _) = h.raw(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#);
    assert!(r.is_empty());
}

#[test]
fn unknown_tools_and_missing_names_are_protocol_errors() {
    let mut h = Harness::initialized("2025-11-25");
    let r = h.request("tools/call", json!({"name": "rm_rf", "arguments": {}}));
    assert_eq!(r["error"]["code"], INVALID_PARAMS);
    assert_eq!(r["error"]["message"], "Unknown tool: rm_rf");
    let r = h.request("tools/call", json!({"arguments": {}}));
    assert_eq!(r["error"]["code"], INVALID_PARAMS);
    let r = h.request("tools/call", Value::Null);
    assert_eq!(r["error"]["code"], INVALID_PARAMS);
}

#[test]
fn bad_arguments_are_tool_errors_with_sentences() {
    let mut h = Harness::initialized("2025-11-25");
    let (r, _) = h.call("memory_save", json!([1, 2]));
    assert_eq!(r["isError"], true);
    assert_eq!(text(&r), "The arguments must be a JSON object.");
    assert_eq!(h.refused("memory_save", json!({})), "\"text\" is required.");
    assert_eq!(
        h.refused("memory_save", json!({"text": null})),
        "\"text\" is required."
    );
    assert_eq!(
        h.refused("memory_save", json!({"text": 5})),
        "\"text\" must be a string, not a number."
    );
    assert_eq!(
        h.refused("memory_save", json!({"text": "   "})),
        "The memory text is empty: write what should be remembered."
    );
    assert_eq!(
        h.refused("memory_save", json!({"text": "x", "tags": [1]})),
        "\"tags\" must be a list of strings; it contains a number."
    );
    assert_eq!(
        h.refused("memory_save", json!({"text": "x", "tags": {"a": 1}})),
        "\"tags\" must be a list of strings, not an object."
    );
    assert_eq!(
        h.refused("memory_save", json!({"text": "x", "importance": 3})),
        "memory_save has no argument \"importance\"; it takes only text, tags."
    );
    assert_eq!(
        h.refused("current_time", json!({"timezone": "UTC"})),
        "current_time has no argument \"timezone\"; it takes no arguments."
    );
    for limit in [json!(0), json!(-3), json!(1.5), json!("many"), json!(true)] {
        assert_eq!(
            h.refused("memory_search", json!({"limit": limit})),
            "\"limit\" must be a whole number from 1 to 50."
        );
    }
    assert_eq!(h.refused("memory_delete", json!({})), "\"id\" is required.");
    assert_eq!(
        h.refused("memory_delete", json!({"id": "m404"})),
        "No memory has the id \"m404\". Use memory_search to see the ids of saved memories."
    );
    // Lenient where nothing is ambiguous: a quoted number, a limit above the maximum.
    for i in 0..60 {
        h.ok("memory_save", json!({"text": format!("fact number {i}")}));
    }
    let r = h.ok("memory_search", json!({"limit": "3"}));
    assert_eq!(r["structuredContent"]["returned"], 3);
    let r = h.ok("memory_search", json!({"limit": 1000}));
    assert_eq!(r["structuredContent"]["returned"], 50);
    assert_eq!(r["structuredContent"]["total"], 60);
    assert!(text(&r).starts_with("50 of 60 matching memories"));
}

#[test]
fn limits_refuse_with_a_clear_sentence() {
    let mut h = Harness::initialized("2025-11-25");
    let long = "a".repeat(4_001);
    let msg = h.refused("memory_save", json!({"text": long}));
    assert!(
        msg.contains("4001 characters long, and the limit is 4000"),
        "{msg}"
    );
    let tags: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
    assert_eq!(
        h.refused("memory_save", json!({"text": "x", "tags": tags})),
        "11 tags were given, and a memory can have at most 10."
    );
    for i in 0..MAX_ENTRIES {
        h.book
            .add(&format!("entry {i}"), &[] as &[&str], 0.0)
            .unwrap();
    }
    let msg = h.refused("memory_save", json!({"text": "one more"}));
    assert!(
        msg.starts_with("The memory is full (500 entries)."),
        "{msg}"
    );
    // Deleting makes room again.
    h.ok("memory_delete", json!({"id": "m7"}));
    h.ok("memory_save", json!({"text": "one more"}));
    assert_eq!(h.book.len(), MAX_ENTRIES);
}

#[test]
fn edits_made_elsewhere_are_seen_by_the_next_call() {
    let mut h = Harness::initialized("2025-11-25");
    h.ok("memory_save", json!({"text": "Cat is named Tom."}));
    // Settings edits the very book the server is handed.
    h.book
        .edit(
            "m1",
            "Cat is named Felix.",
            &[] as &[&str],
            LEAP_DAY_MS + 1.0,
        )
        .unwrap();
    let r = h.ok("memory_search", json!({"query": "cat"}));
    assert_eq!(
        r["structuredContent"]["memories"][0]["text"],
        "Cat is named Felix."
    );
    h.book = MemoryBook::default();
    assert_eq!(
        text(&h.ok("memory_search", json!({"query": "cat"}))),
        "The memory is empty."
    );
}

fn time_at(now_ms: f64, tz: i32) -> Value {
    let mut h = Harness::initialized("2025-11-25");
    h.now_ms = now_ms;
    h.tz = tz;
    h.ok("current_time", json!({}))
}

fn utc_ms(y: i64, mo: u32, d: u32, h: i64, mi: i64) -> f64 {
    (days_from_civil(y, mo, d) * 86_400_000 + h * 3_600_000 + mi * 60_000) as f64
}

#[test]
fn current_time_at_several_offsets_and_dates() {
    let r = time_at(LEAP_DAY_MS, 330);
    assert_eq!(
        r["structuredContent"],
        json!({
            "local": "2024-02-29T13:45:07+05:30",
            "utc": "2024-02-29T08:15:07Z",
            "unix_ms": 1_709_194_507_250_i64,
            "weekday": "Thursday",
            "date": "2024-02-29",
            "time": "13:45:07",
            "utc_offset": "+05:30",
            "utc_offset_minutes": 330,
        })
    );
    assert_eq!(
        text(&r),
        "Local time: 2024-02-29T13:45:07+05:30 (Thursday, UTC+05:30)\nUTC: 2024-02-29T08:15:07Z\nUnix time: 1709194507250 ms"
    );
    let cases = [
        // New York in winter, just after midnight UTC on a leap day: still the 28th locally.
        (
            utc_ms(2024, 2, 29, 0, 30),
            -300,
            "2024-02-28T19:30:00-05:00",
            "Wednesday",
        ),
        // Newfoundland.
        (
            utc_ms(2024, 3, 1, 1, 0),
            -210,
            "2024-02-29T21:30:00-03:30",
            "Thursday",
        ),
        // Kiribati crosses into the new year first.
        (
            utc_ms(2023, 12, 31, 10, 0),
            840,
            "2024-01-01T00:00:00+14:00",
            "Monday",
        ),
        (
            utc_ms(2023, 12, 31, 11, 59),
            -720,
            "2023-12-30T23:59:00-12:00",
            "Saturday",
        ),
        // 2100 is not a leap year; 2000 was.
        (
            utc_ms(2100, 2, 28, 23, 0),
            120,
            "2100-03-01T01:00:00+02:00",
            "Monday",
        ),
        (
            utc_ms(2000, 2, 28, 23, 0),
            120,
            "2000-02-29T01:00:00+02:00",
            "Tuesday",
        ),
        (0.0, -60, "1969-12-31T23:00:00-01:00", "Wednesday"),
        (
            utc_ms(2025, 6, 15, 12, 0),
            345,
            "2025-06-15T17:45:00+05:45",
            "Sunday",
        ),
    ];
    for (ms, tz, local, weekday) in cases {
        let r = time_at(ms, tz);
        assert_eq!(r["structuredContent"]["local"], local, "{ms} {tz}");
        assert_eq!(r["structuredContent"]["weekday"], weekday, "{ms} {tz}");
        assert_eq!(r["structuredContent"]["utc_offset_minutes"], tz);
    }
    // A broken environment: the offset is clamped to a valid one, a missing clock is an error.
    assert_eq!(
        time_at(0.0, 5_000)["structuredContent"]["utc_offset"],
        "+18:00"
    );
    let mut h = Harness::initialized("2025-11-25");
    h.now_ms = f64::NAN;
    assert_eq!(
        h.refused("current_time", json!({})),
        "The page's clock gave no usable time."
    );
}

#[test]
fn search_dates_use_the_users_offset() {
    let mut h = Harness::initialized("2025-11-25");
    h.now_ms = utc_ms(2024, 2, 29, 23, 30);
    h.ok(
        "memory_save",
        json!({"text": "Late note", "tags": ["misc"]}),
    );
    h.tz = 60;
    let r = h.ok("memory_search", json!({"query": "note"}));
    assert_eq!(
        r["structuredContent"]["memories"][0]["updated"],
        "2024-03-01T00:30:00+01:00"
    );
    assert!(text(&r).contains("- m1 (2024-03-01; tags: misc): Late note"));
    let r = h.ok("memory_search", json!({"query": "note", "tag": "work"}));
    assert_eq!(
        text(&r),
        "No memory matches \"note\" and is tagged \"work\"."
    );
    let r = h.ok("memory_search", json!({"tag": "work"}));
    assert_eq!(text(&r), "No memory is tagged \"work\".");
}
