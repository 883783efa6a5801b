//! Requests a server waits on, in the session: the question waits for the user while other
//! traffic flows, timeouts pause meanwhile, the answer goes back once, and a lost session
//! withdraws it.

use serde_json::{json, Value};

use crate::mcp::messages::RequestId;
use crate::mcp::session::McpSession;
use crate::mcp::session_types::{SessionConfig, SessionEvent};
use crate::mcp::test_support::drain;

fn ready(now: f64) -> McpSession {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ping_interval_ms: None,
        request_timeout_ms: 1_000.0,
        ..SessionConfig::default()
    });
    s.connect(now);
    let d = drain(&mut s);
    let probe = d.id_of("server/discover");
    s.handle_message(
        &json!({"jsonrpc": "2.0", "id": probe, "error": {"code": -32000, "message": "Bad Request: Server not initialized"}}).to_string(),
        now,
    );
    let d = drain(&mut s);
    let init = d.id_of("initialize");
    s.handle_message(
        &json!({"jsonrpc": "2.0", "id": init, "result": {"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}}, "serverInfo": {"name": "srv", "version": "1"}}})
        .to_string(),
        now,
    );
    drain(&mut s);
    s
}

fn ask(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": {
        "message": "Your name?",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "Ada"}}, "required": ["name"]}}})
    .to_string()
}

#[test]
fn a_question_waits_for_the_user_while_other_traffic_flows() {
    let mut s = ready(0.0);
    let call = s.call_tool("book", None, false, 0.0);
    drain(&mut s);
    s.handle_message(&ask(77), 10.0);
    let d = drain(&mut s);
    assert!(
        d.sent.is_empty(),
        "nothing is answered before the user decides: {:?}",
        d.sent
    );
    let [SessionEvent::Ask {
        id,
        method,
        params,
        raw,
    }] = &d.events[..]
    else {
        panic!("{:?}", d.events)
    };
    assert_eq!(id, &RequestId::Number(77));
    assert_eq!(method, "elicitation/create");
    assert_eq!(params["message"], "Your name?");
    assert_eq!(raw.as_deref(), Some(ask(77).as_str()));

    // Pings are still answered meanwhile, and the tool call does not time out while the
    // server waits for the user.
    s.handle_message(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#, 20.0);
    let d = drain(&mut s);
    assert_eq!(
        d.sent[0].0,
        json!({"jsonrpc": "2.0", "id": "p", "result": {}})
    );
    assert_eq!(
        s.next_deadline(),
        None,
        "no timeout runs while the user is asked"
    );
    s.handle_timeout(5_000.0);
    assert!(drain(&mut s).events.is_empty(), "the call did not time out");

    let answer = json!({"action": "accept", "content": {"name": "Grace"}});
    assert!(s.answer_ask(&RequestId::Number(77), Ok(answer), 6_000.0));
    let d = drain(&mut s);
    assert_eq!(
        d.sent[0].0,
        json!({"jsonrpc": "2.0", "id": 77, "result": {"action": "accept", "content": {"name": "Grace"}}})
    );
    assert_eq!(
        s.next_deadline(),
        Some(7_000.0),
        "the call's timer starts again after the answer"
    );
    assert!(
        !s.answer_ask(
            &RequestId::Number(77),
            Ok(json!({"action": "decline"})),
            6_001.0
        ),
        "answered once only"
    );
    assert!(drain(&mut s).sent.is_empty());
    s.handle_message(
        &json!({"jsonrpc": "2.0", "id": messages_id(&call), "result": {"content": []}}).to_string(),
        6_500.0,
    );
    assert!(matches!(
        &drain(&mut s).events[..],
        [SessionEvent::Response { result: Ok(_), .. }]
    ));
}

fn messages_id(id: &RequestId) -> Value {
    match id {
        RequestId::Number(n) => json!(n),
        RequestId::String(s) => json!(s),
    }
}

#[test]
fn a_lost_session_withdraws_its_questions() {
    let mut s = ready(0.0);
    s.handle_message(&ask(5), 1.0);
    drain(&mut s);
    s.transport_lost("gone", 2.0);
    let d = drain(&mut s);
    assert!(
        d.events.contains(&SessionEvent::ElicitGone {
            id: RequestId::Number(5)
        }),
        "{:?}",
        d.events
    );
    assert!(s.open_asks().is_empty());
    assert!(!s.answer_ask(&RequestId::Number(5), Ok(json!({"action": "decline"})), 3.0));
}

#[test]
fn elicitation_completion_is_passed_on() {
    let mut s = ready(0.0);
    s.handle_message(
        r#"{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e-42"}}"#,
        2.0,
    );
    assert_eq!(
        drain(&mut s).events,
        [SessionEvent::Notified {
            method: "notifications/elicitation/complete".into(),
            params: json!({"elicitationId": "e-42"}),
        }]
    );
}

#[test]
fn sampling_and_roots_are_held_for_the_page_and_answered_once() {
    let mut s = ready(0.0);
    let params = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10});
    s.handle_message(
        &json!({"jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage", "params": params})
            .to_string(),
        0.0,
    );
    s.handle_message(r#"{"jsonrpc":"2.0","id":6,"method":"roots/list"}"#, 0.0);
    let d = drain(&mut s);
    assert!(d.sent.is_empty(), "held, not answered: {:?}", d.sent);
    let [SessionEvent::Ask {
        id: a,
        method: ma,
        params: pa,
        raw: None,
    }, SessionEvent::Ask {
        id: b, method: mb, ..
    }] = &d.events[..]
    else {
        panic!("{:?}", d.events)
    };
    assert_eq!(
        (a, ma.as_str(), pa),
        (&RequestId::Number(5), "sampling/createMessage", &params)
    );
    assert_eq!((b, mb.as_str()), (&RequestId::Number(6), "roots/list"));

    assert!(s.answer_ask(b, Ok(json!({"roots": []})), 1.0));
    assert!(s.answer_ask(a, Err((-1, "User rejected sampling request".into())), 1.0));
    assert!(!s.answer_ask(a, Ok(json!({})), 2.0), "answered once only");
    let d = drain(&mut s);
    assert_eq!(
        d.sent[0].0,
        json!({"jsonrpc": "2.0", "id": 6, "result": {"roots": []}})
    );
    assert_eq!(
        d.sent[1].0,
        json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -1, "message": "User rejected sampling request"}})
    );
    assert_eq!(d.sent.len(), 2);
}

#[test]
fn initialize_declares_sampling_and_roots_and_a_resource_update_is_passed_on() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ping_interval_ms: None,
        ..SessionConfig::default()
    });
    s.connect(0.0);
    let d = drain(&mut s);
    let probe = d.id_of("server/discover");
    s.handle_message(
        &json!({"jsonrpc": "2.0", "id": probe, "error": {"code": -32000, "message": "Bad Request"}}).to_string(),
        0.0,
    );
    let d = drain(&mut s);
    let init = d
        .sent
        .iter()
        .find(|m| m.0["method"] == "initialize")
        .expect("initialize sent");
    let caps = &init.0["params"]["capabilities"];
    assert_eq!(caps["roots"], json!({"listChanged": true}));
    assert_eq!(caps["sampling"], json!({"tools": {}}));

    let mut s = ready(0.0);
    s.handle_message(
        r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}"#,
        0.0,
    );
    let d = drain(&mut s);
    assert_eq!(
        d.events,
        vec![SessionEvent::Notified {
            method: "notifications/resources/updated".into(),
            params: json!({"uri": "test://a"}),
        }]
    );
    s.notify("notifications/roots/list_changed");
    let id = s.request("completion/complete", Some(json!({"ref": {}})), 0.0);
    let d = drain(&mut s);
    assert_eq!(
        d.sent[0].0,
        json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    );
    assert_eq!(d.sent[1].0["method"], "completion/complete");
    assert_eq!(d.sent[1].0["id"], super::messages::id_to_value(&id));
    let _: Value = d.sent[1].0.clone();
}
