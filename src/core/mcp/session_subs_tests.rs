//! Modern-era resource subscriptions (`session_subs`): what goes on the wire, byte for byte,
//! when the MCP module subscribes, unsubscribes and reconnects, fed with the Python SDK's own
//! listen stream (tests/fixtures/mcp/captured/modern-python/31-modern-listen-resource).

use serde_json::{json, Value};

use super::error::{McpError, SubscriptionRefusal};
use super::messages::RequestId;
use super::session::McpSession;
use super::session_types::{Output, SessionConfig, SessionEvent};
use super::test_support::exchange;
use crate::sse::SseDecoder;

const COUNTER: &str = "skiff://counter";

/// What the session put out, with the bodies as the exact text sent.
#[derive(Default)]
struct Out {
    sent: Vec<String>,
    aborted: Vec<RequestId>,
    events: Vec<SessionEvent>,
}

fn out(s: &mut McpSession) -> Out {
    let mut o = Out::default();
    while let Some(x) = s.poll_output() {
        match x {
            Output::Send(body, _) => o.sent.push(body),
            Output::Abort(id) => o.aborted.push(id),
            Output::Event(e) => o.events.push(e),
        }
    }
    o
}

fn parsed(body: &str) -> Value {
    serde_json::from_str(body).expect("the session sends JSON")
}

impl Out {
    fn listens(&self) -> Vec<Value> {
        self.sent
            .iter()
            .map(|b| parsed(b))
            .filter(|v| v["method"] == "subscriptions/listen")
            .collect()
    }

    fn methods(&self) -> Vec<String> {
        let m = |b: &String| parsed(b)["method"].as_str().unwrap_or("").to_string();
        self.sent.iter().map(m).collect()
    }

    fn answers(&self) -> Vec<(RequestId, Result<Value, McpError>)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::Response { id, result, .. } => Some((id.clone(), result.clone())),
                _ => None,
            })
            .collect()
    }
}

/// The exact text of a listen request's filter (`params.notifications`): what the server reads.
fn filter_text(listen: &Value) -> String {
    listen["params"]["notifications"].to_string()
}

const LISTS_ONLY: &str =
    r#"{"promptsListChanged":true,"resourcesListChanged":true,"toolsListChanged":true}"#;
const WITH_COUNTER: &str = r#"{"promptsListChanged":true,"resourceSubscriptions":["skiff://counter"],"resourcesListChanged":true,"toolsListChanged":true}"#;

fn config(subs: &[&str]) -> SessionConfig {
    SessionConfig {
        request_timeout_ms: 5_000.0,
        ping_interval_ms: None,
        resource_subscriptions: subs.iter().map(|s| s.to_string()).collect(),
        ..SessionConfig::default()
    }
}

/// The Python SDK's `server/discover` answer, with `caps` instead of its capabilities when
/// given (its own declare `resources.subscribe`).
fn discover_body(caps: Option<Value>) -> Value {
    let disc = exchange("modern-python", "01-modern-discover").expect("capture 01");
    let mut v: Value = serde_json::from_slice(&disc.body).expect("JSON");
    if let Some(c) = caps {
        v["result"]["capabilities"] = c;
    }
    v
}

/// A modern session ready on the SDK's discovery answer; returns it and its first listen.
fn modern(subs: &[&str], caps: Option<Value>) -> (McpSession, Value) {
    let mut s = McpSession::new(config(subs));
    s.connect(0.0);
    let probe = parsed(&out(&mut s).sent[0]);
    assert_eq!(probe["method"], "server/discover");
    let mut answer = discover_body(caps);
    answer["id"] = probe["id"].clone();
    s.handle_message(&answer.to_string(), 10.0);
    let o = out(&mut s);
    let listen = o.listens().pop().unwrap_or(Value::Null);
    (s, listen)
}

/// The SDK's listen stream (acknowledgement, then counter updates), re-addressed to our
/// listen `id`, with the acknowledgement honouring `honoured` resource URIs.
fn sdk_stream(id: &Value, honoured: &[&str]) -> Vec<String> {
    let cap = exchange("modern-python", "31-modern-listen-resource").expect("capture 31");
    let mut d = SseDecoder::new();
    d.feed(&cap.body)
        .into_iter()
        .filter(|e| !e.data.trim().is_empty())
        .map(|e| {
            let mut v: Value = serde_json::from_str(&e.data).expect("captured JSON");
            v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] = id.clone();
            if v["method"] == "notifications/subscriptions/acknowledged" {
                v["params"]["notifications"]["resourceSubscriptions"] = json!(honoured);
            }
            v.to_string()
        })
        .collect()
}

fn ack(s: &mut McpSession, listen: &Value, honoured: &[&str], at: f64) {
    let frames = sdk_stream(&listen["id"], honoured);
    s.handle_message(&frames[0], at);
}

fn subscribe(s: &mut McpSession, method: &str, uri: &str, at: f64) -> RequestId {
    s.request(method, Some(json!({ "uri": uri })), at)
}

fn id_value(id: &RequestId) -> Value {
    super::messages::id_to_value(id)
}

#[test]
fn subscribing_opens_a_new_listen_stream_with_the_uri_and_closes_the_old_one() {
    let (mut s, first) = modern(&[], None);
    assert_eq!(filter_text(&first), LISTS_ONLY);
    ack(&mut s, &first, &[], 20.0);
    assert!(out(&mut s).answers().is_empty());

    let id = subscribe(&mut s, "resources/subscribe", COUNTER, 30.0);
    let o = out(&mut s);
    // No `resources/subscribe` on the modern wire: the filter is the subscription.
    assert_eq!(o.methods(), ["subscriptions/listen"]);
    let second = &o.listens()[0];
    assert_eq!(filter_text(second), WITH_COUNTER);
    assert_ne!(second["id"], first["id"]);
    assert_eq!(
        o.aborted.iter().map(id_value).collect::<Vec<_>>(),
        [first["id"].clone()],
        "the old stream is closed"
    );
    assert!(o.answers().is_empty(), "answered only once acknowledged");
    assert_eq!(s.resource_subscriptions(), [COUNTER]);

    // The old stream's acknowledgement, arriving late, confirms nothing.
    ack(&mut s, &first, &[], 35.0);
    assert!(out(&mut s).answers().is_empty());

    // The SDK's stream for the new filter: acknowledgement, then the counter's updates.
    let frames = sdk_stream(&second["id"], &[COUNTER]);
    for f in &frames {
        s.handle_message(f, 40.0);
    }
    let o = out(&mut s);
    assert_eq!(o.answers(), [(id, Ok(json!({})))]);
    let updated: Vec<&Value> = o
        .events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Notified { method, params }
                if method == "notifications/resources/updated" =>
            {
                Some(params)
            }
            _ => None,
        })
        .collect();
    assert_eq!(updated.len(), frames.len() - 1);
    assert_eq!(updated[0]["uri"], COUNTER);
}

#[test]
fn unsubscribing_drops_the_uri_from_the_filter_and_answers_on_the_acknowledgement() {
    let (mut s, first) = modern(&[COUNTER], None);
    // A session seeded with the set (a reconnect) asks for it in its first stream.
    assert_eq!(filter_text(&first), WITH_COUNTER);
    ack(&mut s, &first, &[COUNTER], 20.0);
    out(&mut s);

    let id = subscribe(&mut s, "resources/unsubscribe", COUNTER, 30.0);
    let o = out(&mut s);
    assert_eq!(o.methods(), ["subscriptions/listen"]);
    let second = &o.listens()[0];
    assert_eq!(filter_text(second), LISTS_ONLY);
    assert_eq!(o.aborted.len(), 1);
    assert!(o.answers().is_empty());
    ack(&mut s, second, &[], 40.0);
    assert_eq!(out(&mut s).answers(), [(id, Ok(json!({})))]);
    assert!(s.resource_subscriptions().is_empty());

    // Unsubscribing what is not subscribed changes nothing and is answered at once.
    let again = subscribe(&mut s, "resources/unsubscribe", COUNTER, 50.0);
    let o = out(&mut s);
    assert!(o.sent.is_empty() && o.aborted.is_empty());
    assert_eq!(o.answers(), [(again, Ok(json!({})))]);
}

#[test]
fn a_uri_already_in_the_acknowledged_filter_is_confirmed_without_a_new_stream() {
    // The module subscribes again after every reconnect; the seeded set already carries it.
    let (mut s, first) = modern(&[COUNTER], None);
    let early = subscribe(&mut s, "resources/subscribe", COUNTER, 15.0);
    let o = out(&mut s);
    assert!(o.sent.is_empty(), "the stream asking for it is open");
    assert!(o.answers().is_empty(), "not yet acknowledged");
    ack(&mut s, &first, &[COUNTER], 20.0);
    assert_eq!(out(&mut s).answers(), [(early, Ok(json!({})))]);
    let late = subscribe(&mut s, "resources/subscribe", COUNTER, 30.0);
    let o = out(&mut s);
    assert!(o.sent.is_empty() && o.aborted.is_empty());
    assert_eq!(o.answers(), [(late, Ok(json!({})))]);
}

#[test]
fn a_uri_the_acknowledgement_leaves_out_fails_with_a_sentence_naming_it() {
    let (mut s, first) = modern(&[], None);
    ack(&mut s, &first, &[], 20.0);
    let id = subscribe(&mut s, "resources/subscribe", COUNTER, 30.0);
    let second = out(&mut s).listens().remove(0);
    ack(&mut s, &second, &[], 40.0);
    let answers = out(&mut s).answers();
    let refusal = McpError::Subscription {
        uri: COUNTER.into(),
        why: SubscriptionRefusal::NotHonoured,
    };
    assert_eq!(answers, [(id, Err(refusal.clone()))]);
    assert!(refusal.to_string().contains(COUNTER), "{refusal}");
    assert!(s.resource_subscriptions().is_empty(), "not asked again");
}

#[test]
fn a_server_without_resources_subscribe_is_not_asked() {
    let caps = json!({"resources": {"listChanged": true}, "tools": {"listChanged": true}});
    let (mut s, first) = modern(&[COUNTER], Some(caps));
    // Even a carried URI stays out of the filter of a server that does not offer it.
    assert_eq!(
        filter_text(&first),
        r#"{"promptsListChanged":false,"resourcesListChanged":true,"toolsListChanged":true}"#
    );
    let id = subscribe(&mut s, "resources/subscribe", COUNTER, 30.0);
    let o = out(&mut s);
    assert!(o.sent.is_empty());
    let refusal = McpError::Subscription {
        uri: COUNTER.into(),
        why: SubscriptionRefusal::NotOffered,
    };
    assert_eq!(o.answers(), [(id, Err(refusal.clone()))]);
    assert!(refusal.to_string().contains("does not offer"), "{refusal}");
}

#[test]
fn a_subscription_without_a_uri_is_refused_with_a_sentence() {
    let (mut s, _) = modern(&[], None);
    let id = s.request("resources/subscribe", Some(json!({"url": COUNTER})), 30.0);
    let o = out(&mut s);
    assert!(o.sent.is_empty());
    let (got, result) = o.answers().remove(0);
    assert_eq!(got, id);
    let e = result.expect_err("refused");
    assert!(e.to_string().contains("params.uri"), "{e}");
}

#[test]
fn a_refused_or_lost_stream_fails_the_subscriptions_waiting_for_it() {
    let (mut s, first) = modern(&[], None);
    ack(&mut s, &first, &[], 20.0);
    let id = subscribe(&mut s, "resources/subscribe", COUNTER, 30.0);
    let second = out(&mut s).listens().remove(0);
    // The server refuses the new stream (its subscription limit, say).
    let refusal = json!({"jsonrpc": "2.0", "id": second["id"], "error": {"code": -32603, "message": "Subscription limit reached"}});
    s.handle_message(&refusal.to_string(), 40.0);
    let (got, result) = out(&mut s).answers().remove(0);
    assert_eq!(got, id);
    let e = result.expect_err("failed");
    assert!(e.to_string().contains("Subscription limit reached"), "{e}");
    assert!(s.resource_subscriptions().is_empty());

    // The transport goes while another waits: it fails as a lost connection, once.
    let id = subscribe(&mut s, "resources/subscribe", COUNTER, 50.0);
    out(&mut s);
    s.transport_lost("network error", 60.0);
    let answers = out(&mut s).answers();
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].0, id);
    assert!(matches!(answers[0].1, Err(McpError::ConnectionLost { .. })));
}

#[test]
fn an_acknowledgement_that_never_comes_times_out() {
    let (mut s, first) = modern(&[], None);
    ack(&mut s, &first, &[], 20.0);
    let id = subscribe(&mut s, "resources/subscribe", COUNTER, 30.0);
    out(&mut s);
    // The first lists (sent at 10, unanswered here) time out first; the wait lasts the
    // request timeout from the subscription on.
    s.handle_timeout(30.0 + 4_999.0);
    assert!(out(&mut s).answers().is_empty());
    s.handle_timeout(30.0 + 5_000.0);
    let o = out(&mut s);
    assert!(o.sent.is_empty(), "nothing to cancel on the wire");
    assert!(matches!(&o.answers()[..], [(got, Err(McpError::Timeout { .. }))] if *got == id));
}

#[test]
fn the_legacy_era_sends_resources_subscribe_as_it_is() {
    let mut s = McpSession::new(SessionConfig {
        legacy_only: true,
        ..config(&[])
    });
    s.connect(0.0);
    let init = parsed(&out(&mut s).sent[0]);
    assert_eq!(init["method"], "initialize");
    let result = json!({"jsonrpc": "2.0", "id": init["id"], "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"resources": {"subscribe": true}},
        "serverInfo": {"name": "legacy", "version": "1"},
    }});
    s.handle_message(&result.to_string(), 10.0);
    out(&mut s);
    subscribe(&mut s, "resources/subscribe", COUNTER, 20.0);
    let o = out(&mut s);
    assert_eq!(o.methods(), ["resources/subscribe"]);
    assert!(s.resource_subscriptions().is_empty());
}

#[test]
fn after_the_server_closes_the_stream_a_subscription_opens_a_new_one() {
    let (mut s, first) = modern(&[COUNTER], None);
    ack(&mut s, &first, &[COUNTER], 20.0);
    // The server ends the stream on purpose (its graceful close: a result).
    let end = json!({"jsonrpc": "2.0", "id": first["id"], "result": {"_meta": {"io.modelcontextprotocol/subscriptionId": first["id"]}}});
    s.handle_message(&end.to_string(), 30.0);
    out(&mut s);
    // The module subscribes again: the set still has the URI, but nothing listens for it.
    let id = subscribe(&mut s, "resources/subscribe", COUNTER, 40.0);
    let o = out(&mut s);
    assert_eq!(o.methods(), ["subscriptions/listen"]);
    assert_eq!(filter_text(&o.listens()[0]), WITH_COUNTER);
    assert!(o.answers().is_empty());
    ack(&mut s, &o.listens()[0], &[COUNTER], 50.0);
    assert_eq!(out(&mut s).answers(), [(id, Ok(json!({})))]);
}
