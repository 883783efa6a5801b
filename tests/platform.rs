//! Browser tests for `skiff::platform`, run in headless Chromium by wasm-bindgen-test-runner.
//!
//! The fetch tests talk to tests/servers/echo_stream.py, whose URL is baked in at compile
//! time through `SKIFF_TEST_SERVER`; scripts/test-wasm.sh starts the server and sets it.
//! Tests that need the server fail (never skip) when it is missing, so a misconfigured run
//! cannot pass silently.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{join, select, Either};
use skiff::platform::abort::AbortHandle;
use skiff::platform::broadcast::Channel;
use skiff::platform::fetch::{send, FetchError, StreamingResponse};
use skiff::platform::idb::{self, Db, IdbError, StoredBlob};
use skiff::platform::storage::{self, StorageChange, StorageError};
use skiff::platform::{clock, ids, quota};
use skiff_core::http::{HttpRequest, Method};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

// ---------------------------------------------------------------------------------------
// helpers

fn server() -> &'static str {
    match option_env!("SKIFF_TEST_SERVER") {
        Some(url) if !url.is_empty() => url.trim_end_matches('/'),
        _ => panic!(
            "SKIFF_TEST_SERVER was not set when these tests were compiled; \
             run scripts/test-wasm.sh, which starts tests/servers/echo_stream.py"
        ),
    }
}

fn request(
    method: Method,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> HttpRequest {
    HttpRequest {
        method,
        url: format!("{}{}", server(), path),
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.map(str::to_string),
    }
}

async fn open(req: &HttpRequest, abort: Option<&AbortHandle>) -> StreamingResponse {
    match send(req, abort).await {
        Ok(r) => r,
        Err(e) => panic!("request to {} failed: {e:?}", req.url),
    }
}

async fn all_chunks(resp: &mut StreamingResponse) -> Result<Vec<Vec<u8>>, FetchError> {
    let mut chunks = Vec::new();
    while let Some(c) = resp.next_chunk().await? {
        chunks.push(c);
    }
    Ok(chunks)
}

/// Removes every key under a prefix when dropped, so a failing assertion does not leave
/// megabytes in localStorage for the following tests.
struct CleanPrefix(&'static str);

impl Drop for CleanPrefix {
    fn drop(&mut self) {
        if let Ok(keys) = storage::keys_with_prefix(self.0) {
            for k in keys {
                let _ = storage::remove(&k);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// storage

#[wasm_bindgen_test]
fn storage_round_trip_and_overwrite() {
    let _clean = CleanPrefix("skiff-test/rt/");
    let key = "skiff-test/rt/a";
    assert_eq!(storage::get(key), Ok(None));
    storage::set(key, "{\"title\":\"héllo 日本 🚀\"}").unwrap();
    assert_eq!(
        storage::get(key).unwrap().as_deref(),
        Some("{\"title\":\"héllo 日本 🚀\"}")
    );
    storage::set(key, "second").unwrap();
    assert_eq!(storage::get(key).unwrap().as_deref(), Some("second"));
}

#[wasm_bindgen_test]
fn storage_keeps_non_json_as_raw_string() {
    let _clean = CleanPrefix("skiff-test/raw/");
    let raw = "{\"unterminated\": [1, 2, \u{0} and a quote \" and 🚀";
    storage::set("skiff-test/raw/k", raw).unwrap();
    assert_eq!(
        storage::get("skiff-test/raw/k").unwrap().as_deref(),
        Some(raw)
    );
    storage::set("skiff-test/raw/empty", "").unwrap();
    assert_eq!(
        storage::get("skiff-test/raw/empty").unwrap().as_deref(),
        Some("")
    );
}

#[wasm_bindgen_test]
fn storage_keys_with_prefix_is_exact_and_sorted() {
    let _clean = CleanPrefix("skiff-test/kp");
    for k in [
        "skiff-test/kp/c",
        "skiff-test/kp/a",
        "skiff-test/kp/b",
        "skiff-test/kpx",
    ] {
        storage::set(k, "v").unwrap();
    }
    assert_eq!(
        storage::keys_with_prefix("skiff-test/kp/").unwrap(),
        vec!["skiff-test/kp/a", "skiff-test/kp/b", "skiff-test/kp/c"]
    );
    assert_eq!(
        storage::keys_with_prefix("skiff-test/kp").unwrap().len(),
        4,
        "the shorter prefix also matches skiff-test/kpx"
    );
    assert!(storage::keys_with_prefix("skiff-test/kp/zzz")
        .unwrap()
        .is_empty());
}

#[wasm_bindgen_test]
fn storage_remove() {
    let _clean = CleanPrefix("skiff-test/rm/");
    storage::set("skiff-test/rm/a", "1").unwrap();
    storage::set("skiff-test/rm/b", "2").unwrap();
    storage::remove("skiff-test/rm/a").unwrap();
    assert_eq!(storage::get("skiff-test/rm/a"), Ok(None));
    assert_eq!(
        storage::get("skiff-test/rm/b").unwrap().as_deref(),
        Some("2")
    );
    // Removing a missing key is not an error.
    storage::remove("skiff-test/rm/never-existed").unwrap();
}

#[wasm_bindgen_test]
fn storage_used_bytes_counts_utf16() {
    let _clean = CleanPrefix("skiff-test/ub/");
    let before = storage::used_bytes_estimate();
    // key: 16 ASCII chars; value: é (1 unit) 日 (1 unit) 🚀 (2 units) = 4 UTF-16 units.
    storage::set("skiff-test/ub/k1", "é日🚀").unwrap();
    assert_eq!(storage::used_bytes_estimate() - before, (16 + 4) * 2);
    storage::remove("skiff-test/ub/k1").unwrap();
    assert_eq!(storage::used_bytes_estimate(), before);
}

#[wasm_bindgen_test]
fn storage_quota_exceeded_is_reported_and_keeps_existing_data() {
    let _clean = CleanPrefix("skiff-test/quota/");
    let precious_key = "skiff-test/quota/precious";
    let precious = "{\"conversation\":\"must survive 日本\"}";
    storage::set(precious_key, precious).unwrap();

    const STEP: usize = 256 * 1024;
    let mut stored: Vec<(String, usize)> = Vec::new();
    let mut failure = None;
    for i in 1..=200usize {
        let key = format!("skiff-test/quota/fill-{i:03}");
        let value = "x".repeat(STEP * i);
        match storage::set(&key, &value) {
            Ok(()) => stored.push((key, value.len())),
            Err(e) => {
                failure = Some((key, value.len(), e));
                break;
            }
        }
    }
    let Some((failed_key, failed_len, err)) = failure else {
        panic!(
            "localStorage never reported a full quota after {} writes",
            stored.len()
        );
    };
    assert!(
        !stored.is_empty(),
        "the very first write already failed: {err:?}"
    );
    assert_eq!(
        err,
        StorageError::QuotaExceeded {
            key: failed_key.clone(),
            bytes: (failed_key.len() + failed_len) * 2,
        }
    );
    assert!(err.to_string().starts_with("Browser storage is full"));
    assert!(err.to_string().contains("nothing already saved was lost"));

    // Everything written before the failure is intact; the rejected write left nothing.
    assert_eq!(
        storage::get(precious_key).unwrap().as_deref(),
        Some(precious)
    );
    for (key, len) in &stored {
        let value = storage::get(key).unwrap();
        assert_eq!(value.map(|v| v.len()), Some(*len), "{key} changed");
    }
    assert_eq!(storage::get(&failed_key), Ok(None));

    // After cleaning up, writes succeed again.
    for (key, _) in &stored {
        storage::remove(key).unwrap();
    }
    storage::set("skiff-test/quota/after", &"y".repeat(STEP)).unwrap();
}

#[wasm_bindgen_test]
async fn storage_on_change_sees_other_documents_and_stops_on_drop() {
    let _clean = CleanPrefix("skiff-test/oc/");
    let seen: Rc<RefCell<Vec<StorageChange>>> = Rc::default();
    let sink = seen.clone();
    let listener = storage::on_change(move |c| sink.borrow_mut().push(c));

    // A same-origin iframe is another document sharing this localStorage; browsers only
    // fire `storage` events at documents other than the writer.
    let document = web_sys::window().unwrap().document().unwrap();
    let iframe = document.create_element("iframe").unwrap();
    document.body().unwrap().append_child(&iframe).unwrap();
    let frame_window = js_sys::Reflect::get(&iframe, &"contentWindow".into()).unwrap();
    let frame_storage = js_sys::Reflect::get(&frame_window, &"localStorage".into()).unwrap();
    let call = |method: &str, args: &[&str]| {
        let f: js_sys::Function = js_sys::Reflect::get(&frame_storage, &method.into())
            .unwrap()
            .dyn_into()
            .unwrap();
        let args: js_sys::Array = args.iter().map(|a| JsValue::from_str(a)).collect();
        f.apply(&frame_storage, &args).unwrap();
    };
    let wait_for = |n: usize| {
        let seen = seen.clone();
        async move {
            for _ in 0..40 {
                if seen.borrow().len() >= n {
                    return;
                }
                clock::sleep_ms(50).await;
            }
        }
    };

    call("setItem", &["skiff-test/oc/k", "v1"]);
    wait_for(1).await;
    call("removeItem", &["skiff-test/oc/k"]);
    wait_for(2).await;
    assert_eq!(
        *seen.borrow(),
        vec![
            StorageChange {
                key: Some("skiff-test/oc/k".into()),
                new_value: Some("v1".into())
            },
            StorageChange {
                key: Some("skiff-test/oc/k".into()),
                new_value: None
            },
        ]
    );

    // A listener left registered after drop would call a freed closure, which throws; such
    // throws surface as window `error` events, so count those too.
    let errors = Rc::new(RefCell::new(0u32));
    let errors_sink = errors.clone();
    let on_error =
        wasm_bindgen::closure::Closure::<dyn Fn(web_sys::Event)>::new(move |_: web_sys::Event| {
            *errors_sink.borrow_mut() += 1
        });
    let window = web_sys::window().unwrap();
    window
        .add_event_listener_with_callback("error", on_error.as_ref().unchecked_ref())
        .unwrap();
    drop(listener);
    call("setItem", &["skiff-test/oc/k", "v2"]);
    clock::sleep_ms(500).await;
    window
        .remove_event_listener_with_callback("error", on_error.as_ref().unchecked_ref())
        .unwrap();
    assert_eq!(seen.borrow().len(), 2, "listener still fired after drop");
    assert_eq!(
        *errors.borrow(),
        0,
        "a dropped listener was still registered"
    );
    // The write itself did happen, so the silence above is the listener's doing.
    assert_eq!(
        storage::get("skiff-test/oc/k").unwrap().as_deref(),
        Some("v2")
    );
    iframe.remove();
}

// ---------------------------------------------------------------------------------------
// fetch

#[wasm_bindgen_test]
async fn fetch_streams_chunks_byte_exact_across_utf8_splits() {
    let text = "Hé日本🚀 streaming ünïcödé — done. 🎉";
    // Cut the server's writes inside multi-byte characters on purpose.
    let splits: Vec<usize> = (1..text.len())
        .filter(|&i| !text.is_char_boundary(i))
        .step_by(3)
        .take(5)
        .collect();
    assert!(splits.len() >= 4 && splits.iter().all(|&i| !text.is_char_boundary(i)));
    let split_param: Vec<String> = splits.iter().map(|s| s.to_string()).collect();
    let req = request(
        Method::Post,
        &format!("/stream?delay_ms=120&split={}", split_param.join(",")),
        &[("Content-Type", "text/plain; charset=utf-8")],
        Some(text),
    );

    let mut resp = open(&req, None).await;
    assert_eq!(resp.status, 200);
    assert!(resp.ok);
    assert!(
        resp.content_type.starts_with("text/plain"),
        "{}",
        resp.content_type
    );
    let chunks = all_chunks(&mut resp).await.unwrap();

    assert!(
        chunks.len() > 1,
        "body arrived in {} chunk(s)",
        chunks.len()
    );
    assert!(chunks.iter().all(|c| !c.is_empty()));
    assert_eq!(chunks.concat(), text.as_bytes());
    assert!(
        chunks.iter().any(|c| std::str::from_utf8(c).is_err()),
        "expected raw chunks that cut a character; got {chunks:?}"
    );
    // The end is sticky.
    assert_eq!(resp.next_chunk().await, Ok(None));
}

/// The runner may race `next_chunk` against a timer (to flush UI per frame); losing that
/// race must not lose bytes.
#[wasm_bindgen_test]
async fn fetch_next_chunk_is_cancel_safe() {
    let text = "0123456789abcdefghij";
    let req = request(
        Method::Post,
        "/stream?delay_ms=150&split=5,10,15",
        &[],
        Some(text),
    );
    let mut resp = open(&req, None).await;
    let mut received = Vec::new();
    let mut timeouts = 0;
    loop {
        let next = Box::pin(resp.next_chunk());
        match select(next, Box::pin(clock::sleep_ms(40))).await {
            Either::Left((Ok(Some(chunk)), _)) => received.extend(chunk),
            Either::Left((Ok(None), _)) => break,
            Either::Left((Err(e), _)) => panic!("stream failed: {e:?}"),
            Either::Right(((), _)) => timeouts += 1,
        }
    }
    assert!(
        timeouts > 0,
        "no read was ever interrupted, so nothing was tested"
    );
    assert_eq!(String::from_utf8(received).unwrap(), text);
}

#[wasm_bindgen_test]
async fn fetch_error_status_body_is_readable() {
    let resp = open(&request(Method::Get, "/status?code=401", &[], None), None).await;
    assert_eq!(resp.status, 401);
    assert!(!resp.ok);
    assert_eq!(resp.content_type, "application/json");
    let body = resp.text().await.unwrap();
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["error"]["message"], "status 401 from echo_stream");
    assert_eq!(json["error"]["code"], 401);
}

#[wasm_bindgen_test]
async fn fetch_abort_mid_stream_is_prompt() {
    let abort = AbortHandle::new().unwrap();
    let req = request(Method::Get, "/hold?hold_ms=10000", &[], None);
    let mut resp = open(&req, Some(&abort)).await;
    assert_eq!(resp.next_chunk().await, Ok(Some(b"first".to_vec())));
    assert!(!abort.is_aborted());

    let trigger = abort.clone();
    let started = clock::now_ms();
    let (result, ()) = join(resp.next_chunk(), async move {
        clock::sleep_ms(150).await;
        trigger.abort();
    })
    .await;
    let elapsed = clock::now_ms() - started;

    assert_eq!(result, Err(FetchError::Aborted));
    assert!(abort.is_aborted());
    assert!(elapsed >= 100.0, "returned before the abort: {elapsed} ms");
    assert!(elapsed < 2000.0, "abort took {elapsed} ms");
    assert_eq!(resp.next_chunk().await, Err(FetchError::Aborted));
}

#[wasm_bindgen_test]
async fn fetch_aborted_before_send_never_starts() {
    let abort = AbortHandle::new().unwrap();
    abort.abort();
    let req = request(Method::Get, "/echo", &[], None);
    assert_eq!(
        send(&req, Some(&abort)).await.err(),
        Some(FetchError::Aborted)
    );
}

/// Recorded Chromium behaviour: a body cut short under chunked encoding or a declared
/// Content-Length errors the stream (`Stream`), while a close-delimited body cannot be
/// told apart from a normal end (`Ok(None)`). Callers must therefore still check for a
/// protocol-level end marker (`[DONE]`, `finish_reason`) to detect truncation.
#[wasm_bindgen_test]
async fn fetch_connection_dropped_mid_body() {
    for mode in ["chunked", "length", "eof"] {
        let req = request(Method::Get, &format!("/drop?mode={mode}"), &[], None);
        let mut resp = open(&req, None).await;
        assert_eq!(resp.status, 200);
        let mut received = Vec::new();
        let outcome = loop {
            match resp.next_chunk().await {
                Ok(Some(c)) => received.extend(c),
                other => break other,
            }
        };
        assert_eq!(received, b"partial", "mode {mode}");
        match mode {
            "eof" => assert_eq!(outcome, Ok(None), "mode {mode}"),
            _ => {
                assert!(
                    matches!(outcome, Err(FetchError::Stream(_))),
                    "mode {mode}: {outcome:?}"
                );
                let err = outcome.unwrap_err();
                assert!(err.to_string().contains("incomplete"), "{err}");
                // The failure is sticky, not turned into a clean end.
                assert_eq!(resp.next_chunk().await, Err(err));
            }
        }
    }
}

#[wasm_bindgen_test]
async fn fetch_unreachable_port_is_network_error() {
    let resp = open(&request(Method::Get, "/dead-port", &[], None), None).await;
    let body: serde_json::Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    let port = body["port"].as_u64().unwrap();
    let req = HttpRequest {
        method: Method::Get,
        url: format!("http://127.0.0.1:{port}/v1/models"),
        headers: vec![],
        body: None,
    };
    let err = send(&req, None).await.err();
    assert!(matches!(err, Some(FetchError::Network(_))), "{err:?}");
    let message = err.unwrap().to_string();
    assert!(
        message.contains("CORS") && message.contains("mixed content"),
        "{message}"
    );
}

#[wasm_bindgen_test]
async fn fetch_without_cors_headers_is_network_error() {
    let err = send(&request(Method::Get, "/nocors", &[], None), None)
        .await
        .err();
    assert!(matches!(err, Some(FetchError::Network(_))), "{err:?}");
}

#[wasm_bindgen_test]
async fn fetch_rejects_bad_url_and_header_as_browser_errors() {
    let bad_url = HttpRequest {
        method: Method::Get,
        url: "not a url/v1".into(),
        headers: vec![],
        body: None,
    };
    let err = send(&bad_url, None).await.err();
    assert!(
        matches!(err, Some(FetchError::Browser(ref m)) if m.contains("not a valid URL")),
        "{err:?}"
    );

    let bad_header = request(
        Method::Get,
        "/echo",
        &[("Authorization", "Bearer sk-€uro")],
        None,
    );
    let err = send(&bad_header, None).await.err();
    assert!(
        matches!(err, Some(FetchError::Browser(ref m)) if m.contains("Authorization")),
        "{err:?}"
    );
}

#[wasm_bindgen_test]
async fn fetch_sends_headers_and_body() {
    let body = "{\"model\":\"m\",\"messages\":[{\"content\":\"héllo 🚀\"}]}";
    let req = request(
        Method::Post,
        "/echo?x=1",
        &[
            ("Authorization", "Bearer sk-test-123"),
            ("Content-Type", "application/json"),
            ("X-Skiff-Test", "yes"),
        ],
        Some(body),
    );
    let resp = open(&req, None).await;
    assert_eq!(resp.status, 200);
    assert_eq!(resp.content_type, "application/json");
    assert!(resp
        .header("X-ECHO-ID")
        .is_some_and(|v| v.starts_with("echo-")));
    assert_eq!(
        resp.header("x-hidden"),
        None,
        "CORS should hide unexposed headers"
    );
    let echoed: serde_json::Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(echoed["method"], "POST");
    assert_eq!(echoed["path"], "/echo");
    assert_eq!(echoed["query"]["x"], "1");
    assert_eq!(echoed["headers"]["authorization"], "Bearer sk-test-123");
    assert_eq!(echoed["headers"]["content-type"], "application/json");
    assert_eq!(echoed["headers"]["x-skiff-test"], "yes");
    assert_eq!(echoed["body"], body);

    let del = open(&request(Method::Delete, "/echo", &[], None), None).await;
    let echoed: serde_json::Value = serde_json::from_str(&del.text().await.unwrap()).unwrap();
    assert_eq!(echoed["method"], "DELETE");
    assert_eq!(echoed["body"], "");
}

// ---------------------------------------------------------------------------------------
// clock and ids

#[wasm_bindgen_test]
async fn clock_sleep_and_frames() {
    let t0 = clock::now_ms();
    assert!(t0 > 1.6e12, "now_ms is not epoch milliseconds: {t0}");
    clock::sleep_ms(120).await;
    let slept = clock::now_ms() - t0;
    assert!((100.0..1500.0).contains(&slept), "slept {slept} ms");

    let t1 = clock::now_ms();
    clock::next_frame().await;
    let waited = clock::now_ms() - t1;
    assert!(waited < 1000.0, "next_frame took {waited} ms");
}

#[wasm_bindgen_test]
fn ids_are_unique_uuid_v4() {
    let ids: Vec<String> = (0..2000).map(|_| ids::new_id()).collect();
    let unique: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
    for id in &ids {
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12],
            "{id}"
        );
        assert!(
            id.chars().all(|c| c == '-' || c.is_ascii_hexdigit()),
            "{id}"
        );
        assert_eq!(&id[14..15], "4", "{id}");
        assert!("89ab".contains(&id[19..20]), "{id}");
    }
}

// ---------------------------------------------------------------------------------------
// IndexedDB (platform::idb): each test opens its own database, deleted first so it starts
// from nothing (an upgrade from empty), and closed and deleted after.

async fn fresh_db(name: &str) -> Db {
    idb::delete_database(name).await.unwrap();
    Db::open_named(name).await.unwrap()
}

async fn drop_db(db: Db, name: &str) {
    db.close();
    idb::delete_database(name).await.unwrap();
}

#[wasm_bindgen_test]
async fn idb_upgrade_from_empty_creates_both_stores() {
    let name = "skiff-test-upgrade";
    let db = fresh_db(name).await;
    assert_eq!(db.keys().await, Ok(Vec::new()));
    assert_eq!(db.all().await, Ok(Vec::new()));
    assert_eq!(db.blob_count().await, Ok(0));
    // Reopening an existing database at the same version keeps what it holds.
    db.put("c1", "kept").await.unwrap();
    db.close();
    let again = Db::open_named(name).await.unwrap();
    assert_eq!(again.get("c1").await.unwrap().as_deref(), Some("kept"));
    drop_db(again, name).await;
}

#[wasm_bindgen_test]
async fn idb_put_get_delete_keys_round_trip() {
    let name = "skiff-test-conversations";
    let db = fresh_db(name).await;
    let text = "{\"v\":2,\"data\":{\"title\":\"héllo 日本 🚀\"}}";
    assert_eq!(db.get("b").await, Ok(None));
    db.put("b", text).await.unwrap();
    db.put("a", "not json at all").await.unwrap();
    assert_eq!(db.get("b").await.unwrap().as_deref(), Some(text));
    // Unreadable text is stored and returned exactly as it is.
    assert_eq!(
        db.get("a").await.unwrap().as_deref(),
        Some("not json at all")
    );
    db.put("b", "second").await.unwrap();
    assert_eq!(db.get("b").await.unwrap().as_deref(), Some("second"));
    assert_eq!(db.keys().await.unwrap(), ["a", "b"]);
    assert_eq!(
        db.all().await.unwrap(),
        [
            ("a".to_string(), "not json at all".to_string()),
            ("b".to_string(), "second".to_string())
        ]
    );
    db.put_all(&[("c", "3"), ("d", "4")]).await.unwrap();
    db.delete("a", 1.0).await.unwrap();
    db.delete("never-there", 1.0).await.unwrap();
    assert_eq!(db.get("a").await, Ok(None));
    assert_eq!(db.keys().await.unwrap(), ["b", "c", "d"]);
    drop_db(db, name).await;
}

#[wasm_bindgen_test]
async fn idb_a_deleted_id_refuses_later_writes_until_revived() {
    // Another tab that has not heard of the delete yet writes the body back: refused.
    let name = "skiff-test-deleted";
    let db = fresh_db(name).await;
    assert_eq!(db.put("gone", "v1").await, Ok(true));
    assert_eq!(db.is_deleted("gone").await, Ok(false));
    db.delete("gone", 1_000.0).await.unwrap();
    assert_eq!(db.is_deleted("gone").await, Ok(true));
    assert_eq!(db.put("gone", "late write").await, Ok(false));
    assert_eq!(db.get("gone").await, Ok(None));
    // In a batch, only the deleted id is skipped and named.
    assert_eq!(
        db.put_all(&[("kept", "k"), ("gone", "again")]).await,
        Ok(vec!["gone".to_string()])
    );
    assert_eq!(db.keys().await.unwrap(), ["kept"]);
    // An import brings it back, and writes are accepted again.
    db.revive("gone", "imported").await.unwrap();
    assert_eq!(db.is_deleted("gone").await, Ok(false));
    assert_eq!(db.put("gone", "edited").await, Ok(true));
    assert_eq!(db.get("gone").await.unwrap().as_deref(), Some("edited"));
    // Old marks are forgotten, recent ones kept.
    db.delete("old", 1_000.0).await.unwrap();
    db.delete("recent", 9_000.0).await.unwrap();
    db.forget_deleted_before(5_000.0).await.unwrap();
    assert_eq!(db.is_deleted("old").await, Ok(false));
    assert_eq!(db.is_deleted("recent").await, Ok(true));
    drop_db(db, name).await;
}

#[wasm_bindgen_test]
async fn idb_a_version_1_database_upgrades_keeping_its_bodies() {
    use wasm_bindgen::JsCast;
    let name = "skiff-test-v1";
    idb::delete_database(name).await.unwrap();
    // Version 1 as an older Skiff made it: `conversations` and `blobs` only, one body.
    let factory = web_sys::window().unwrap().indexed_db().unwrap().unwrap();
    let req = factory.open_with_u32(name, 1).unwrap();
    let done = js_sys::Promise::new(&mut |resolve, _| {
        let r = req.clone();
        let upgrade = wasm_bindgen::closure::Closure::once_into_js(move || {
            let db: web_sys::IdbDatabase = r.result().unwrap().unchecked_into();
            db.create_object_store("conversations").unwrap();
            db.create_object_store("blobs").unwrap();
            let tx = r.transaction().unwrap();
            tx.object_store("conversations")
                .unwrap()
                .put_with_key(&"old body".into(), &"c1".into())
                .unwrap();
        });
        req.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
        let r = req.clone();
        let opened = wasm_bindgen::closure::Closure::once_into_js(move || {
            let db: web_sys::IdbDatabase = r.result().unwrap().unchecked_into();
            db.close();
            resolve.call0(&wasm_bindgen::JsValue::NULL).unwrap();
        });
        req.set_onsuccess(Some(opened.unchecked_ref()));
    });
    wasm_bindgen_futures::JsFuture::from(done).await.unwrap();
    let db = Db::open_named(name).await.unwrap();
    assert_eq!(db.get("c1").await.unwrap().as_deref(), Some("old body"));
    db.delete("c1", 1.0).await.unwrap();
    assert_eq!(db.put("c1", "late").await, Ok(false));
    drop_db(db, name).await;
}

#[wasm_bindgen_test]
async fn idb_a_write_is_issued_before_its_future_is_polled() {
    // A write started from `pagehide` must reach the database even if nobody awaits it.
    let name = "skiff-test-eager";
    let db = fresh_db(name).await;
    let pending = db.put("x", "written");
    assert_eq!(db.get("x").await.unwrap().as_deref(), Some("written"));
    pending.await.unwrap();
    drop_db(db, name).await;
}

#[wasm_bindgen_test]
async fn idb_blobs_are_stored_once_per_hash() {
    let name = "skiff-test-blobs";
    let db = fresh_db(name).await;
    let bytes: Vec<u8> = (0..=255u8).collect();
    assert_eq!(db.has_blob("sha256-aa").await, Ok(false));
    assert_eq!(
        db.put_blob("sha256-aa", "image/png", &bytes).await,
        Ok(true)
    );
    // The same hash again is "already stored", and the first copy is kept.
    assert_eq!(
        db.put_blob("sha256-aa", "text/plain", b"other").await,
        Ok(false)
    );
    assert_eq!(db.blob_count().await, Ok(1));
    assert_eq!(db.has_blob("sha256-aa").await, Ok(true));
    assert_eq!(
        db.get_blob("sha256-aa").await.unwrap(),
        Some(StoredBlob {
            mime: "image/png".into(),
            bytes: bytes.clone()
        })
    );
    assert_eq!(db.get_blob("sha256-bb").await, Ok(None));
    db.put_blob("sha256-bb", "text/plain", b"two")
        .await
        .unwrap();
    assert_eq!(db.blob_count().await, Ok(2));
    db.delete_blob("sha256-aa").await.unwrap();
    assert_eq!(db.has_blob("sha256-aa").await, Ok(false));
    assert_eq!(db.blob_count().await, Ok(1));
    // Blobs and conversations are separate stores.
    assert_eq!(db.keys().await, Ok(Vec::new()));
    drop_db(db, name).await;
}

#[wasm_bindgen_test]
async fn idb_errors_say_what_happened() {
    assert!(IdbError::QuotaExceeded
        .to_string()
        .contains("Nothing already saved was lost"));
    assert!(IdbError::Blocked.to_string().contains("older version"));
    assert!(IdbError::Unavailable("x".into())
        .to_string()
        .contains("localStorage"));
}

#[wasm_bindgen_test]
async fn quota_estimate_and_persistence_answer() {
    let e = quota::estimate()
        .await
        .expect("Chromium reports a storage estimate");
    assert!(e.quota > 0.0 && e.usage >= 0.0, "{e:?}");
    assert!(quota::persisted().await.is_some());
}

#[wasm_bindgen_test]
async fn broadcast_reaches_another_channel_and_not_itself() {
    let heard = Rc::new(RefCell::new(Vec::<String>::new()));
    let own = Rc::new(RefCell::new(Vec::<String>::new()));
    let h = heard.clone();
    let o = own.clone();
    let listener = Channel::open("skiff-test", move |t| h.borrow_mut().push(t)).unwrap();
    let sender = Channel::open("skiff-test", move |t| o.borrow_mut().push(t)).unwrap();
    sender.post("{\"id\":\"c1\",\"rev\":1}");
    for _ in 0..100 {
        if !heard.borrow().is_empty() {
            break;
        }
        clock::sleep_ms(10).await;
    }
    assert_eq!(*heard.borrow(), ["{\"id\":\"c1\",\"rev\":1}"]);
    assert!(own.borrow().is_empty());
    drop(listener);
}

// ---------------------------------------------------------------------------------------
// WebCrypto for the OAuth sign-in (platform::webcrypto)

/// The JavaScript sign-in's store (src/extras/page/oauth.js before it moved to Rust), verbatim
/// in what matters: the IndexedDB key, the AES-GCM parameters, the envelope. `op` is "seal"
/// (name, text) or "unseal" (name); the promise gives the text for "unseal".
fn old_javascript_store(op: &str, name: &str, text: &str) -> js_sys::Promise {
    let body = r#"
      const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
      const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
      const tokenKey = () => new Promise((resolve, reject) => {
        const open = indexedDB.open('skiff-oauth', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('keys');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const get = db.transaction('keys').objectStore('keys').get('tokens');
          get.onerror = () => reject(get.error);
          get.onsuccess = async () => {
            if (get.result) return resolve(get.result);
            try {
              const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
              const tx = db.transaction('keys', 'readwrite');
              tx.objectStore('keys').put(key, 'tokens');
              tx.oncomplete = () => resolve(key);
              tx.onerror = () => reject(tx.error);
            } catch (e) { reject(e); }
          };
        };
      });
      return (async () => {
        if (op === 'seal') {
          const iv = crypto.getRandomValues(new Uint8Array(12));
          const ad = new TextEncoder().encode(name);
          const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: ad }, await tokenKey(), new TextEncoder().encode(text));
          localStorage.setItem(name, JSON.stringify({ v: 1, iv: b64(iv), ct: b64(ct) }));
          return '';
        }
        const rec = JSON.parse(localStorage.getItem(name));
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv: unb64(rec.iv), additionalData: new TextEncoder().encode(name) },
          await tokenKey(),
          unb64(rec.ct),
        );
        return new TextDecoder().decode(plain);
      })();
    "#;
    let f = js_sys::Function::new_with_args("op, name, text", body);
    f.call3(
        &JsValue::NULL,
        &JsValue::from_str(op),
        &JsValue::from_str(name),
        &JsValue::from_str(text),
    )
    .expect("the old store runs")
    .unchecked_into()
}

#[wasm_bindgen_test]
async fn oauth_sealing_opens_what_the_javascript_sign_in_sealed_and_back() {
    use skiff::platform::webcrypto;
    use skiff_core::oauth::stored::Sealed;
    let name = "skiff.oauth.cred.https://as.test https://mcp.test/mcp";
    // A record sealed by the JavaScript store (which makes the profile's key) opens in Rust.
    wasm_bindgen_futures::JsFuture::from(old_javascript_store("seal", name, "{\"from\":\"js\"}"))
        .await
        .expect("the old store seals");
    let text = storage::get(name)
        .unwrap()
        .expect("sealed into localStorage");
    let (iv, ct) = Sealed::parse(&text).expect("the envelope core reads");
    let plain = webcrypto::unseal(&iv, name.as_bytes(), &ct)
        .await
        .expect("opens with the same key and additional data");
    assert_eq!(plain, b"{\"from\":\"js\"}");
    // Under another name (the additional data) it does not open.
    assert!(webcrypto::unseal(&iv, b"skiff.oauth.cred.other", &ct)
        .await
        .is_err());

    // What Rust seals, the JavaScript store opens: nothing in the format moved.
    let iv = webcrypto::random_bytes(12).unwrap();
    let ct = webcrypto::seal(&iv, name.as_bytes(), "{\"from\":\"rust\"}".as_bytes())
        .await
        .unwrap();
    storage::set(name, &Sealed::new(&iv, &ct).to_text()).unwrap();
    let opened = wasm_bindgen_futures::JsFuture::from(old_javascript_store("unseal", name, ""))
        .await
        .expect("the old store opens it");
    assert_eq!(opened.as_string().as_deref(), Some("{\"from\":\"rust\"}"));
    storage::remove(name).unwrap();
}

#[wasm_bindgen_test]
async fn webcrypto_digests_and_signs_a_client_assertion() {
    use skiff::platform::webcrypto::{self, SignWith};
    // SHA-256("abc"), FIPS 180-2 appendix B.1.
    let d = webcrypto::sha256(b"abc").await.unwrap();
    assert_eq!(
        d.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(webcrypto::random_bytes(32).unwrap().len(), 32);
    assert_ne!(
        webcrypto::random_bytes(16).unwrap(),
        webcrypto::random_bytes(16).unwrap()
    );
    // A throwaway P-256 key: ES256 gives JOSE's 64-byte r || s.
    let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJJD5Sm5IMzPOoQIx\nHd6dDRIVxg18xaIzccSMnSRr96mhRANCAARB7vTlUQV25je/T6/BIDAbmhSeKRY0\ngE6/FwxMIAhfxZ5OTD1BDKmBCVaJhdzZiSgjBEkkvbH3VS1uh2I9mfHJ\n-----END PRIVATE KEY-----";
    let key = skiff_core::oauth::jwt::parse_private_key(pem).unwrap();
    let sig = webcrypto::sign_pkcs8(&key.der, SignWith::Es256, b"header.payload")
        .await
        .unwrap();
    assert_eq!(sig.len(), 64);
    // The same key read as RSA is refused with the browser's words, never a panic.
    assert!(webcrypto::sign_pkcs8(&key.der, SignWith::Rs256, b"x")
        .await
        .is_err());
}

// DPoP keys (platform::webcrypto::dpop_key): one per credential, kept in IndexedDB

/// Reads and writes the DPoP key store from outside the adapter, as another page of the
/// profile would see it. `op`: "inspect" (name) gives what is stored (whether the private key
/// is extractable, its curve and usages, the public key's x and y) or null; "put" (name)
/// stores a key pair made here, as a previous page would have, and gives its x and y;
/// "verify" (proof) checks a compact DPoP proof's signature against the JWK in its header.
fn dpop_js(op: &str, arg: &str) -> js_sys::Promise {
    let body = r#"
      const [dbName, version, store] = ['skiff-oauth', 1, 'keys'];
      const open = () => new Promise((resolve, reject) => {
        const req = indexedDB.open(dbName, version);
        req.onupgradeneeded = () => req.result.createObjectStore(store);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => resolve(req.result);
      });
      const get = (db, key) => new Promise((resolve, reject) => {
        const req = db.transaction(store).objectStore(store).get(key);
        req.onerror = () => reject(req.error);
        req.onsuccess = () => resolve(req.result);
      });
      const put = (db, key, value) => new Promise((resolve, reject) => {
        const tx = db.transaction(store, 'readwrite');
        tx.objectStore(store).put(value, key);
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
      });
      const unb64url = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      return (async () => {
        if (op === 'verify') {
          const [h, p, s] = arg.split('.');
          const header = JSON.parse(new TextDecoder().decode(unb64url(h)));
          const pub = await crypto.subtle.importKey('jwk', header.jwk, { name: 'ECDSA', namedCurve: 'P-256' }, true, ['verify']);
          const alg = { name: 'ECDSA', hash: 'SHA-256' };
          const signed = new TextEncoder().encode(`${h}.${p}`);
          const ok = await crypto.subtle.verify(alg, pub, unb64url(s), signed);
          const tampered = await crypto.subtle.verify(alg, pub, unb64url(s), new TextEncoder().encode(`${h}.${p}x`));
          return JSON.stringify({ ok, tampered, typ: header.typ, alg: header.alg, kty: header.jwk.kty, crv: header.jwk.crv, x: header.jwk.x, y: header.jwk.y, d: 'd' in header.jwk });
        }
        const db = await open();
        try {
          if (op === 'put') {
            const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
            await put(db, arg, pair);
            const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
            return JSON.stringify({ x: jwk.x, y: jwk.y });
          }
          const pair = await get(db, arg);
          if (!pair) return 'null';
          let exported = 'refused';
          try { await crypto.subtle.exportKey('jwk', pair.privateKey); exported = 'exported'; } catch (e) { exported = e.name; }
          const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);
          return JSON.stringify({
            extractable: pair.privateKey.extractable, exported,
            curve: pair.privateKey.algorithm.namedCurve, usages: pair.privateKey.usages,
            x: jwk.x, y: jwk.y,
          });
        } finally { db.close(); }
      })();
    "#;
    let f = js_sys::Function::new_with_args("op, arg", body);
    f.call2(
        &JsValue::NULL,
        &JsValue::from_str(op),
        &JsValue::from_str(arg),
    )
    .expect("the DPoP helper runs")
    .unchecked_into()
}

async fn dpop_helper(op: &str, arg: &str) -> serde_json::Value {
    let text = wasm_bindgen_futures::JsFuture::from(dpop_js(op, arg))
        .await
        .expect("the DPoP helper answers")
        .as_string()
        .expect("a JSON text");
    serde_json::from_str(&text).expect("JSON")
}

#[wasm_bindgen_test]
async fn a_dpop_key_is_made_once_not_extractable_and_its_proofs_verify() {
    use skiff::platform::webcrypto;
    use skiff_core::oauth::dpop::{finish_proof, proof_input, ProofFor, PublicJwk};
    use skiff_core::oauth::stored::{dpop_key_name, KEY_DB, KEY_DB_VERSION, KEY_STORE};
    // The helper names the store itself: it must be the one core names.
    assert_eq!(
        (KEY_DB, KEY_DB_VERSION, KEY_STORE),
        ("skiff-oauth", 1, "keys")
    );
    let name = dpop_key_name(
        "https://as.test",
        &format!("https://mcp.test/{}", ids::new_id()),
    );
    assert_eq!(dpop_helper("inspect", &name).await, serde_json::Value::Null);

    // Made the first time, stored, and the same key the next time.
    let key = webcrypto::dpop_key(&name).await.expect("a key is made");
    let stored = dpop_helper("inspect", &name).await;
    assert_eq!(stored["extractable"], false, "{stored}");
    assert_eq!(stored["exported"], "InvalidAccessError", "{stored}");
    assert_eq!(stored["curve"], "P-256");
    assert_eq!(stored["usages"], serde_json::json!(["sign"]));
    assert_eq!(
        (stored["x"].as_str(), stored["y"].as_str()),
        (Some(key.x.as_str()), Some(key.y.as_str()))
    );
    let again = webcrypto::dpop_key(&name).await.unwrap();
    assert_eq!(
        (again.x.as_str(), again.y.as_str()),
        (key.x.as_str(), key.y.as_str())
    );

    // A proof signed with it verifies against the JWK in its own header, and only for what
    // was signed; the header never carries the private part.
    let public = PublicJwk {
        x: key.x.clone(),
        y: key.y.clone(),
    };
    let digest = webcrypto::sha256(b"the access token").await.unwrap();
    let proof = ProofFor {
        htm: "POST",
        url: "https://mcp.test/mcp?x=1",
        access_token_sha256: Some(&digest),
        nonce: Some("n-1"),
    };
    let input = proof_input(
        &public,
        &proof,
        1_800_000_000_000.0,
        &webcrypto::random_bytes(16).unwrap(),
    )
    .unwrap();
    let signature = webcrypto::sign_dpop(&key, input.as_bytes()).await.unwrap();
    assert_eq!(signature.len(), 64, "JOSE's raw r || s");
    let jws = finish_proof(&input, &signature).unwrap();
    let checked = dpop_helper("verify", &jws).await;
    assert_eq!(checked["ok"], true, "{checked}");
    assert_eq!(checked["tampered"], false, "{checked}");
    assert_eq!(checked["typ"], "dpop+jwt");
    assert_eq!(checked["alg"], "ES256");
    assert_eq!(
        (checked["kty"].as_str(), checked["crv"].as_str()),
        (Some("EC"), Some("P-256"))
    );
    assert_eq!(checked["x"].as_str(), Some(key.x.as_str()));
    assert_eq!(checked["d"], false, "no private part in the header");

    // Deleting the credential deletes its key (`runner::oauth::perform` on `AuthCommand::Delete`):
    // gone from the store, and the next sign-in gets a new one.
    webcrypto::forget_dpop_key(&name).await;
    assert_eq!(dpop_helper("inspect", &name).await, serde_json::Value::Null);
    let fresh = webcrypto::dpop_key(&name).await.unwrap();
    assert_ne!(fresh.x, key.x, "a new key after the old one was deleted");
    webcrypto::forget_dpop_key(&name).await;
}

#[wasm_bindgen_test]
async fn a_dpop_key_stored_by_an_earlier_page_is_used_again_not_replaced() {
    use skiff::platform::webcrypto;
    use skiff_core::oauth::stored::dpop_key_name;
    // A key pair another page of this profile made and stored (this page has not loaded it).
    let name = dpop_key_name(
        "https://as.test",
        &format!("https://mcp.test/{}", ids::new_id()),
    );
    let earlier = dpop_helper("put", &name).await;
    let key = webcrypto::dpop_key(&name)
        .await
        .expect("the stored key loads");
    assert_eq!(
        earlier["x"].as_str(),
        Some(key.x.as_str()),
        "the stored key, not a new one"
    );
    assert_eq!(earlier["y"].as_str(), Some(key.y.as_str()));
    let stored = dpop_helper("inspect", &name).await;
    assert_eq!(stored["x"], earlier["x"], "still the one stored");
    webcrypto::forget_dpop_key(&name).await;
    assert_eq!(dpop_helper("inspect", &name).await, serde_json::Value::Null);
}
