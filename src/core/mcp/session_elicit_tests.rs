//! Elicitation in the session: the question waits for the user while other traffic flows,
//! timeouts pause meanwhile, the answer goes back once, and a lost session withdraws it.

use serde_json::{json, Value};

use super::elicit::{ElicitAnswer, ElicitKind};
use super::messages::RequestId;
use super::session::McpSession;
use super::session_types::{SessionConfig, SessionEvent};
use super::test_support::drain;

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
    let [SessionEvent::Elicit { id, request }] = &d.events[..] else {
        panic!("{:?}", d.events)
    };
    assert_eq!(id, &RequestId::Number(77));
    assert_eq!(request.message, "Your name?");
    assert!(matches!(request.kind, ElicitKind::Form(_)));

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

    let content = json!({"name": "Grace"}).as_object().cloned();
    assert!(s.answer_elicitation(
        &RequestId::Number(77),
        &ElicitAnswer::accept(content),
        6_000.0
    ));
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
        !s.answer_elicitation(&RequestId::Number(77), &ElicitAnswer::decline(), 6_001.0),
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
fn the_form_keeps_the_order_the_server_wrote() {
    let mut s = ready(0.0);
    s.handle_message(
        r#"{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"m",
            "requestedSchema":{"type":"object","properties":{"zeta":{"type":"string"},
            "alpha":{"type":"boolean"},"mid":{"type":"integer"}}}}}"#,
        1.0,
    );
    let d = drain(&mut s);
    let [SessionEvent::Elicit { request, .. }] = &d.events[..] else {
        panic!("{:?}", d.events)
    };
    let ElicitKind::Form(f) = &request.kind else {
        panic!()
    };
    let names: Vec<&str> = f.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
}

#[test]
fn decline_and_cancel_carry_no_content() {
    let mut s = ready(0.0);
    s.handle_message(&ask(1), 1.0);
    s.handle_message(&ask(2), 1.0);
    drain(&mut s);
    s.answer_elicitation(&RequestId::Number(1), &ElicitAnswer::decline(), 2.0);
    s.answer_elicitation(&RequestId::Number(2), &ElicitAnswer::cancel(), 2.0);
    let bodies: Vec<Value> = drain(&mut s).sent.into_iter().map(|(v, _)| v).collect();
    assert_eq!(bodies[0]["result"], json!({"action": "decline"}));
    assert_eq!(bodies[1]["result"], json!({"action": "cancel"}));
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
    assert!(s.open_elicitations().is_empty());
    assert!(!s.answer_elicitation(&RequestId::Number(5), &ElicitAnswer::decline(), 3.0));
}

#[test]
fn a_request_outside_the_subset_is_refused_at_once_and_completion_is_reported() {
    let mut s = ready(0.0);
    s.handle_message(
        &json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": {
            "mode": "url", "message": "go", "elicitationId": "e", "url": "javascript:alert(1)"}})
        .to_string(),
        1.0,
    );
    let d = drain(&mut s);
    assert_eq!(d.sent[0].0["error"]["code"], -32602);
    assert!(s.open_elicitations().is_empty());
    s.handle_message(
        r#"{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e-42"}}"#,
        2.0,
    );
    assert_eq!(
        drain(&mut s).events,
        [SessionEvent::ElicitComplete {
            elicitation_id: "e-42".into()
        }]
    );
}
