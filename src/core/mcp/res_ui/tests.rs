//! The resource store, reads, search, template forms and view-models, driven as the runner and
//! the components drive them (with server-everything's real lists).

use serde_json::{json, Value};

use super::form::TemplateForm;
use super::read::{attach_check, change_summary, parse_read, pretty_json, Part, READ_MAX_BYTES};
use super::search::{mention_at, search, strip_mention};
use super::store::{LiveLists, Store, INLINE_TEXT_MAX, INLINE_TOTAL_MAX, STORE_KEY, VERSION};
use super::view::{self, Action, PartView, PreviewInfo, TemplatePane};
use crate::mcp::model::ResourceTemplate;
use crate::mcp::resource_cache::{Freshness, ReadPlan};

const HOUR: f64 = 3_600_000.0;

/// The page's live servers: server-everything (connected, can subscribe) and a modern
/// server, with the lists as the page keeps them (as JSON, for brevity).
fn servers(everything_up: bool) -> Vec<LiveLists> {
    live(&servers_json(everything_up))
}

/// What the page's `ServerLive` signals hold, from the JSON shape the lists arrive in.
fn live(v: &Value) -> Vec<LiveLists> {
    let list = |x: &Value| x.as_array().cloned().unwrap_or_default();
    v.as_array()
        .into_iter()
        .flatten()
        .map(|s| LiveLists {
            id: s["id"].as_str().unwrap_or("").to_string(),
            name: s["name"].as_str().unwrap_or("").to_string(),
            connected: s["connected"].as_bool().unwrap_or(false),
            resources: list(&s["resources"]),
            templates: list(&s["templates"]),
            capabilities: s["capabilities"].clone(),
        })
        .collect()
}

fn servers_json(everything_up: bool) -> Value {
    json!([
        {"id": "everything", "name": "everything", "connected": everything_up, "era": "legacy",
         "capabilities": {"resources": {"subscribe": true, "listChanged": true}, "completions": {}},
         "resources": if everything_up { json!([
            {"uri": "demo://resource/static/document/architecture.md", "name": "architecture.md", "mimeType": "text/markdown",
             "description": "Static document file exposed from /docs: architecture.md"},
            {"uri": "demo://resource/static/document/features.md", "name": "features.md", "mimeType": "text/markdown"},
            {"uri": 7, "name": "malformed: uri is not a string"}
         ]) } else { json!([]) },
         "templates": if everything_up { json!([
            {"uriTemplate": "demo://resource/dynamic/text/{resourceId}", "name": "Dynamic Text Resource", "mimeType": "text/plain"}
         ]) } else { json!([]) }},
        {"id": "modern", "name": "Modern \u{202e}txt.exe", "connected": true, "version": "2026-07-28",
         "capabilities": {"resources": {"subscribe": true}},
         "resources": [{"uri": "skiff://readme", "name": "readme", "title": "Read me", "mimeType": "text/plain"}],
         "templates": []}
    ])
}

fn synced(up: bool) -> Store {
    let mut s = Store::load(None);
    s.sync(&servers(up));
    s
}

fn text_part(uri: &str, text: &str) -> Part {
    Part {
        uri: uri.into(),
        mime: "text/plain".into(),
        binary: false,
        data: Some(text.into()),
        hash: None,
        size: text.len() as u64,
        to_store: false,
    }
}

const ARCH: &str = "demo://resource/static/document/architecture.md";

#[test]
fn a_fresh_store_syncs_the_page_lists_and_keeps_them_while_a_server_is_down() {
    let mut s = synced(true);
    assert!(!s.sync(&servers(true)), "the same lists change nothing");
    assert_eq!(s.servers.len(), 2);
    let e = s.server("everything").unwrap();
    // The malformed item is left out; the others are kept.
    assert_eq!(e.resources.len(), 2);
    assert_eq!(e.templates.len(), 1);
    assert!(s.can_subscribe("everything"));
    assert!(
        s.can_subscribe("modern"),
        "the modern era subscribes through its listen filter"
    );
    // The server goes down and the page no longer has its lists: the last ones stay.
    assert!(s.sync(&servers(false)));
    assert!(!s.up("everything"));
    assert!(
        !s.can_subscribe("everything"),
        "no Subscribe while it is down"
    );
    assert_eq!(s.server("everything").unwrap().resources.len(), 2);
    // Not stored: "connected" (every load starts offline).
    let again = Store::load(s.save().as_deref());
    assert!(!again.up("modern"));
    assert_eq!(again.server("everything").unwrap().resources.len(), 2);
}

#[test]
fn a_read_is_cached_with_its_ttl_and_used_stale_while_the_server_is_down() {
    let mut s = synced(true);
    let out = parse_read(
        ARCH,
        &json!({"contents": [{"uri": ARCH, "mimeType": "text/markdown", "text": "# Arch"}], "ttlMs": 60000}),
    )
    .unwrap();
    assert_eq!(out.ttl_ms, 60000.0);
    assert_eq!(
        s.plan("everything", ARCH, 0.0),
        ReadPlan::Fetch { cached: false }
    );
    assert!(s
        .keep("everything", ARCH, &out.parts, out.ttl_ms, 1000.0)
        .is_empty());
    assert_eq!(s.plan("everything", ARCH, 2000.0), ReadPlan::UseCached);
    assert_eq!(
        s.plan("everything", ARCH, 1000.0 + 60001.0),
        ReadPlan::Fetch { cached: true }
    );
    // A change notice makes it read again.
    assert!(s.mark_changed("everything", ARCH));
    assert_eq!(
        s.plan("everything", ARCH, 3000.0),
        ReadPlan::Fetch { cached: true }
    );
    // Reload with the server down: the copy is usable, marked stale.
    let mut down = Store::load(s.save().as_deref());
    down.sync(&servers(false));
    assert_eq!(
        down.plan("everything", ARCH, 5.0 * HOUR),
        ReadPlan::UseCached
    );
    assert_eq!(
        down.freshness("everything", ARCH, 5.0 * HOUR),
        Some(Freshness::Stale)
    );
    let parts = down.cached_parts("everything", ARCH, 5.0 * HOUR).unwrap();
    assert_eq!(parts[0].data.as_deref(), Some("# Arch"));
    assert_eq!(
        view::fresh_text(&down, "everything", ARCH, 5.0 * HOUR),
        "everything is offline: this is the copy read 4 h ago, which may be out of date."
    );
    // Never read and the server is down: nothing to use.
    assert_eq!(
        down.plan(
            "everything",
            "demo://resource/static/document/features.md",
            0.0
        ),
        ReadPlan::Unavailable
    );
}

#[test]
fn binary_and_long_text_go_to_the_blob_store_and_are_kept_only_with_their_hash() {
    let mut s = synced(true);
    let long = "x".repeat(INLINE_TEXT_MAX as usize + 1);
    let out = parse_read(
        "u",
        &json!({"contents": [
            {"uri": "u", "mimeType": "image/png", "blob": "iVBO\nRw=="},
            {"uri": "u#2", "mimeType": "text/plain", "text": long}
        ]}),
    )
    .unwrap();
    assert!(out.parts[0].binary && out.parts[0].to_store);
    assert_eq!(
        out.parts[0].data.as_deref(),
        Some("iVBORw=="),
        "line breaks dropped"
    );
    assert_eq!(out.parts[0].size, 4);
    assert!(!out.parts[1].binary && out.parts[1].to_store);
    // The module could not store the bytes (no hash): the copy is not kept.
    s.keep("everything", "u", &out.parts, 0.0, 1.0);
    assert!(s.entry("everything", "u").is_none());
    let mut parts = out.parts.clone();
    parts[0].hash = Some("h1".into());
    parts[1].hash = Some("h2".into());
    s.keep("everything", "u", &parts, 0.0, 1.0);
    assert_eq!(s.cache.all_hashes(), ["h1", "h2"]);
    let back = s.cached_parts("everything", "u", 2.0).unwrap();
    assert!(back.iter().all(|p| p.data.is_none() && p.hash.is_some()));
    assert!(back[0].binary && !back[1].binary, "text comes back as text");
    // The stored JSON holds hashes, not the long text.
    assert!(!s.save().unwrap().contains(&long[..100]));
}

#[test]
fn malformed_and_too_big_reads_are_sentences() {
    assert_eq!(
        parse_read("x://a", &json!({})).unwrap_err(),
        "The server's answer for x://a has no contents."
    );
    assert_eq!(
        parse_read("x://a", &json!({"contents": [{"uri": "x://a"}]})).unwrap_err(),
        "Part 1 of x://a has neither text nor binary content."
    );
    assert!(
        parse_read("x://a", &json!({"contents": [{"blob": "<script>"}]}))
            .unwrap_err()
            .contains("not valid base64")
    );
    let big = "A".repeat((READ_MAX_BYTES as usize / 3 + 10) * 4);
    let e = parse_read("x://big", &json!({"contents": [{"blob": big}]})).unwrap_err();
    assert!(e.starts_with("x://big is 10"), "{e}");
    assert!(e.ends_with("Skiff shows or attaches."), "{e}");
}

#[test]
fn corrupt_or_newer_stored_values_lock_the_store_with_a_sentence() {
    let bad = Store::load(Some("{not json"));
    assert!(bad
        .locked
        .as_deref()
        .unwrap()
        .starts_with("Skiff could not read its saved MCP resources (it is not valid JSON"));
    assert_eq!(bad.save(), None, "never written over");
    let newer = Store::load(Some(r#"{"v": 9, "servers": []}"#));
    assert!(newer
        .locked
        .as_deref()
        .unwrap()
        .contains("saved by a newer Skiff, format 9"));
    assert_eq!(newer.save(), None);
    let damaged = Store::load(Some(r#"{"v": 1, "subs": "nope"}"#));
    assert!(damaged.locked.as_deref().unwrap().contains("damaged"));
    assert!(Store::load(Some(r#"{"servers": []}"#)).locked.is_some());
    // The locked sentence is in the list (which offers "Start afresh" with it).
    let list = view::list_view(&bad, "", "", None);
    assert_eq!(list.locked, bad.locked);
    assert_eq!(
        (Action::Reset.as_str(), Action::Reset.label()),
        ("reset", "Start afresh")
    );
    let mut reset = bad.clone();
    reset.reset();
    assert!(reset.save().is_some());
    // A valid value round-trips with its version.
    let ok = synced(true).save().unwrap();
    assert!(ok.starts_with(&format!("{{\"v\":{VERSION}")));
    assert_eq!(STORE_KEY, "skiff.extras.resources");
}

#[test]
fn subscriptions_survive_a_reload_and_say_when_the_page_must_boot_the_module() {
    let mut s = synced(true);
    assert!(!s.needs_boot());
    assert!(s.subscribe("everything", ARCH));
    assert!(!s.subscribe("everything", ARCH), "once");
    let again = Store::load(s.save().as_deref());
    assert!(again.needs_boot());
    assert_eq!(again.subs_for("everything"), [ARCH]);
    assert!(again.subs_for("modern").is_empty());
    s.unsubscribe("everything", ARCH);
    assert!(!s.needs_boot());
}

#[test]
fn hostile_server_text_shows_its_tricks_and_stays_text() {
    let mut s = Store::load(None);
    s.sync(&live(&json!([{"id": "evil\"><x", "name": "Evil <b>\u{202e}gnp.exe", "connected": true,
        "capabilities": {"resources": {"subscribe": true}},
        "resources": [{"uri": "x://\"><img src=x onerror=alert(1)>", "name": "<script>alert(1)</script>",
                       "description": "line\u{200b}two", "mimeType": "text/html\"><x"}],
        "templates": [{"uriTemplate": "x://{a\"b}", "name": "<i>t</i>"}]}])));
    let list = view::list_view(&s, "", "", None);
    let options = view::server_options(&s);
    // Invisible and direction-changing characters show; markup stays the text it is (the
    // components render every string as text).
    assert_eq!(options[1].label, "Evil <b><U+202E>gnp.exe");
    let section = &list.sections[0];
    assert_eq!(section.name, "Evil <b><U+202E>gnp.exe");
    let row = &section.resources[0];
    assert_eq!(row.label, "<script>alert(1)</script>");
    assert_eq!(row.description.as_deref(), Some("line<U+200B>two"));
    assert_eq!(row.uri, "x://\"><img src=x onerror=alert(1)>");
    // The MIME type is shown only when it is a clean type/subtype.
    assert_eq!(row.meta, "");
    let every = format!("{list:?}{options:?}");
    assert!(!every.contains('\u{202e}') && !every.contains('\u{200b}'));
    let parts = [text_part("x://a", "<script>alert(1)</script>")];
    let p = view::preview_view(
        &s,
        &PreviewInfo {
            server: "evil\"><x",
            uri: "x://\"><img src=x onerror=alert(1)>",
            parts: &parts,
            reading: false,
            note: "<b>note</b>",
            error: true,
        },
        0.0,
    );
    assert_eq!(
        p.parts,
        [PartView::Text {
            text: "<script>alert(1)</script>".into(),
            cut: None
        }]
    );
    assert_eq!(p.server_name, "Evil <b><U+202E>gnp.exe");
    assert_eq!(
        p.note,
        Some(view::Note {
            text: "<b>note</b>".into(),
            error: true
        })
    );
    // The template that does not parse is a sentence in its pane.
    let t = &s.server("evil\"><x").unwrap().templates[0];
    let form = TemplateForm::new(t, &[]);
    let TemplatePane::Form(pane) = view::template_pane(&s, "evil\"><x", 0, &form, &[]) else {
        panic!("the template is listed")
    };
    assert!(
        pane.fields
            .as_ref()
            .is_err_and(|e| e.contains("is not a variable name")),
        "{pane:?}"
    );
    assert_eq!(pane.title, "<i>t</i>");
}

#[test]
fn the_preview_shows_each_kind_of_content_and_only_the_actions_that_work() {
    let s = synced(true);
    let img = Part {
        uri: "u".into(),
        mime: "image/png".into(),
        binary: true,
        data: Some("iVBORw==".into()),
        size: 5,
        ..Part::default()
    };
    let svg = Part {
        mime: "image/svg+xml".into(),
        ..img.clone()
    };
    let json_part = Part {
        mime: "application/json".into(),
        ..text_part("u", r#"{"a":[1,2]}"#)
    };
    let gone = Part {
        data: None,
        hash: Some("h".into()),
        ..img.clone()
    };
    let wav = Part {
        mime: "audio/wav; codecs=1".into(),
        ..img.clone()
    };
    let parts = [img, svg, json_part, gone, wav];
    let info = PreviewInfo {
        server: "everything",
        uri: ARCH,
        parts: &parts,
        reading: false,
        note: "",
        error: false,
    };
    let p = view::preview_view(&s, &info, 0.0);
    assert_eq!(
        p.parts[0],
        PartView::Image {
            src: "data:image/png;base64,iVBORw==".into(),
            alt: "architecture.md".into()
        }
    );
    assert_eq!(
        p.parts[1],
        PartView::Binary("Binary content (image/svg+xml, 5 bytes): not shown.".into()),
        "SVG is never an image"
    );
    assert!(
        matches!(&p.parts[2], PartView::Text { text, cut: None } if text.starts_with("{\n  \"a\": [\n    1,")),
        "JSON pretty: {:?}",
        p.parts[2]
    );
    assert!(matches!(&p.parts[3], PartView::Gone(s) if s.contains("gone from the browser")));
    assert_eq!(
        p.parts[4],
        PartView::Audio {
            src: "data:audio/wav;base64,iVBORw==".into()
        }
    );
    assert_eq!(
        p.parts.iter().filter(|x| x.downloadable()).count(),
        3,
        "every binary part downloads"
    );
    assert_eq!(p.subscription, Some(Action::Subscribe));
    assert!(p.can_reload && p.can_attach);
    assert_eq!(
        p.description.as_deref(),
        Some("Static document file exposed from /docs: architecture.md")
    );
    assert_eq!(
        p.meta,
        "image/png, image/svg+xml, application/json, audio/wav \u{b7} 31 bytes in 5 parts"
    );
    // A modern server offering `resources.subscribe` gets Subscribe; one without the
    // capability does not; an offline server: no subscribe, no reload.
    let modern = PreviewInfo {
        server: "modern",
        ..info
    };
    assert_eq!(
        view::preview_view(&s, &modern, 0.0).subscription,
        Some(Action::Subscribe)
    );
    let mut lists = servers_json(true);
    lists[1]["capabilities"] = json!({"resources": {}});
    let mut unoffered = s.clone();
    unoffered.sync(&live(&lists));
    assert_eq!(
        view::preview_view(&unoffered, &modern, 0.0).subscription,
        None
    );
    let mut down = s.clone();
    down.sync(&servers(false));
    let d = view::preview_view(&down, &info, 0.0);
    assert!(d.subscription.is_none() && !d.can_reload);
    // Subscribed while the server cannot take it any more: Unsubscribe stays offered.
    down.subscribe("everything", ARCH);
    assert_eq!(
        view::preview_view(&down, &info, 0.0).subscription,
        Some(Action::Unsubscribe)
    );
    // Nothing usable: Attach is disabled.
    let none = view::preview_view(&s, &PreviewInfo { parts: &[], ..info }, 0.0);
    assert!(!none.can_attach);
    assert_eq!(none.meta, "");
    // Reading: the kept copy is shown, and says so.
    let reading = view::preview_view(
        &s,
        &PreviewInfo {
            reading: true,
            ..info
        },
        0.0,
    );
    assert_eq!(reading.fresh, "Reading\u{2026}");
    assert_eq!(pretty_json("text/plain", "{}"), None);
    assert_eq!(
        pretty_json("application/ld+json", "[1]").as_deref(),
        Some("[\n  1\n]")
    );
}

#[test]
fn the_list_says_what_is_cached_offline_and_subscribed() {
    let mut s = synced(true);
    s.keep("everything", ARCH, &[text_part(ARCH, "a")], 0.0, 0.0);
    s.subscribe("everything", ARCH);
    let l = view::list_view(&s, "", "", Some(("everything", ARCH)));
    let arch = &l.sections[0].resources[0];
    assert_eq!(arch.meta, "text/markdown \u{b7} cached \u{b7} subscribed");
    assert!(arch.current && !l.sections[0].resources[1].current);
    assert_eq!(
        l.sections[0].templates[0].uri_template,
        "demo://resource/dynamic/text/{resourceId}"
    );
    let labels = |l: &view::ListView| -> Vec<String> {
        l.sections
            .iter()
            .flat_map(|s| s.resources.iter().map(|r| r.label.clone()))
            .collect()
    };
    // Filtered by server and by query.
    let only = view::list_view(&s, "modern", "", None);
    assert_eq!(labels(&only), ["Read me"]);
    let q = view::list_view(&s, "", "FEAT", None);
    assert_eq!(labels(&q), ["features.md"]);
    assert_eq!(
        view::list_view(&s, "", "zzz", None).no_match.as_deref(),
        Some("No resource matches \u{201c}zzz\u{201d}.")
    );
    s.sync(&servers(false));
    let off = view::list_view(&s, "", "", None);
    assert_eq!(
        off.sections[0].offline,
        Some(" offline: cached copies only")
    );
    assert_eq!(off.sections[1].offline, None);
    let rows = &off.sections[0].resources;
    assert_eq!(
        rows[0].meta,
        "text/markdown \u{b7} cached, may be stale \u{b7} subscribed"
    );
    // Never read while offline: it cannot be opened; the template neither.
    assert!(!rows[0].disabled && rows[1].disabled, "{rows:?}");
    assert!(off.sections[0].templates[0].disabled);
    assert!(Store::load(None).servers.is_empty());
    assert_eq!(
        view::list_view(&Store::load(None), "", "", None).empty,
        Some("No MCP server is set up. Add one in Settings \u{2192} MCP servers.")
    );
    assert_eq!(
        view::list_view(&s, "gone", "", None).empty,
        Some("This server is not set up any more.")
    );
    // A server with nothing to list is named once at the end.
    let mut quiet = synced(true);
    let mut lists = servers_json(true);
    lists[1]["resources"] = json!([]);
    quiet.sync(&live(&lists));
    let v = view::list_view(&quiet, "", "", None);
    assert_eq!(
        v.quiet.as_deref(),
        Some("No resources from Modern <U+202E>txt.exe.")
    );
    assert_eq!(
        view::list_view(&quiet, "modern", "", None).sections[0].empty,
        Some("This server offers no resources.")
    );
    assert_eq!(
        view::server_options(&quiet)
            .iter()
            .map(|o| o.label.as_str())
            .collect::<Vec<_>>(),
        ["All servers", "everything", "Modern <U+202E>txt.exe"]
    );
}

fn template(t: &str) -> ResourceTemplate {
    serde_json::from_value(json!({"uriTemplate": t, "name": "t"})).unwrap()
}

#[test]
fn a_template_form_validates_expands_and_asks_for_completions() {
    let t = template("demo://resource/dynamic/text/{resourceId}");
    let empty = TemplateForm::new(&t, &[]).unwrap();
    assert_eq!(empty.fields.len(), 1);
    assert_eq!(
        empty.expand().unwrap_err(),
        [(0, "resourceId is required.".to_string())]
    );
    let f = TemplateForm::new(&t, &[("resourceId".into(), " 3 ".into())]).unwrap();
    assert_eq!(f.expand().unwrap(), "demo://resource/dynamic/text/3");
    // A typed value cannot add a path segment or a query.
    let f = TemplateForm::new(&t, &[("resourceId".into(), "a/b?c".into())]).unwrap();
    assert_eq!(
        f.expand().unwrap(),
        "demo://resource/dynamic/text/a%2Fb%3Fc"
    );
    assert_eq!(
        f.completion("resourceId").unwrap(),
        json!({"ref": {"type": "ref/resource", "uri": "demo://resource/dynamic/text/{resourceId}"},
               "argument": {"name": "resourceId", "value": "a/b?c"}})
    );
    assert_eq!(f.completion("nope"), None);
    // Query variables are optional; other filled fields go along as context.
    let w = template("weather://{city}/now{?units}");
    let f = TemplateForm::new(&w, &[("city".into(), "Oslo".into())]).unwrap();
    assert!(!f.fields[0].optional && f.fields[1].optional);
    assert_eq!(f.expand().unwrap(), "weather://Oslo/now");
    assert_eq!(
        f.completion("units").unwrap()["context"],
        json!({"arguments": {"city": "Oslo"}})
    );
    // The pane: one field per variable, optional ones said, errors tied to their field.
    let mut s = synced(true);
    s.servers[0].templates.push(w.clone());
    let TemplatePane::Form(pane) = view::template_pane(
        &s,
        "everything",
        1,
        &Ok(f),
        &[(0, "city is required.".into())],
    ) else {
        panic!("listed")
    };
    let fields = pane.fields.unwrap_or_default();
    assert_eq!(
        fields[0],
        view::FieldView {
            name: "city".into(),
            optional: false,
            value: "Oslo".into(),
            error: Some("city is required.".into())
        }
    );
    assert!(fields[1].optional && fields[1].error.is_none());
    assert_eq!(pane.uri_template, "weather://{city}/now{?units}");
    assert_eq!(
        view::template_pane(&s, "everything", 9, &Err("x".into()), &[]),
        TemplatePane::Gone("This template is no longer offered by the server.")
    );
}

#[test]
fn the_picker_finds_resources_on_every_server_and_cached_copies() {
    let mut s = synced(true);
    let names =
        |items: Vec<super::search::Item>| items.into_iter().map(|i| i.label).collect::<Vec<_>>();
    assert_eq!(names(search(&s, "arch", 0.0)), ["architecture.md"]);
    // Word starts rank before substrings; the title is what is matched and shown.
    assert_eq!(names(search(&s, "read", 0.0)), ["Read me"]);
    assert_eq!(names(search(&s, "", 0.0)).len(), 3);
    // A copy read from a template is found by its URI.
    s.keep(
        "everything",
        "demo://resource/dynamic/text/3",
        &[text_part("x", "t")],
        0.0,
        0.0,
    );
    let found = search(&s, "dynamic", 0.0);
    assert_eq!(found.len(), 1);
    assert!(found[0].cached && !found[0].offline);
    // Offline: only what is cached stays, marked offline.
    s.keep("everything", ARCH, &[text_part(ARCH, "a")], 0.0, 0.0);
    s.sync(&servers(false));
    let off = search(&s, "", 0.0);
    let labels = names(off.clone());
    assert!(labels.contains(&"architecture.md".to_string()));
    assert!(!labels.contains(&"features.md".to_string()), "{labels:?}");
    assert!(off
        .iter()
        .filter(|i| i.server == "everything")
        .all(|i| i.offline && i.cached));
    let rows = view::picker_rows(&off);
    assert!(rows
        .iter()
        .any(|r| r.label == "architecture.md" && r.note == " \u{b7} offline, cached copy"));
    assert!(rows
        .iter()
        .any(|r| r.server_name == "Modern <U+202E>txt.exe" && r.note.is_empty()));
    assert_eq!(
        view::picker_empty("q<"),
        "No resource matches \u{201c}q<\u{201d}."
    );
    assert_eq!(
        view::picker_empty(""),
        "No MCP resources yet: connect a server that offers some."
    );
}

#[test]
fn the_at_query_is_found_at_the_caret_and_removed_in_utf16() {
    assert_eq!(mention_at("see @arch", 9), Some((4, "arch".into())));
    assert_eq!(mention_at("@", 1), Some((0, String::new())));
    assert_eq!(mention_at("mail a@b.c", 10), None, "not after a letter");
    assert_eq!(mention_at("@arch done", 10), None, "a space ends it");
    // Emoji take two UTF-16 units, as a textarea counts them.
    let v = "😀 @fe tail";
    let caret = "😀 @fe".encode_utf16().count();
    let (start, q) = mention_at(v, caret).unwrap();
    assert_eq!((start, q.as_str()), (3, "fe"));
    assert_eq!(strip_mention(v, start, caret), ("😀  tail".to_string(), 3));
    assert_eq!(
        strip_mention("x", 5, 9),
        ("x".to_string(), 1),
        "out of range is clamped"
    );
}

#[test]
fn an_update_says_what_changed() {
    let a = [text_part("u", "one\ntwo\nthree")];
    let b = [text_part("u", "one\nTWO!\nthree")];
    assert_eq!(
        change_summary("notes", Some(&a), &b),
        "notes changed from line 2 on; it is now 14 characters long (was 13)."
    );
    // The issue's "changed from line 1: 62 → 62 characters": a sentence.
    let c = [text_part("u", "one\nTWO\nthree")];
    assert_eq!(
        change_summary("notes", Some(&a), &c),
        "notes changed from line 2 on; it is the same length (13 characters)."
    );
    assert_eq!(
        change_summary("notes", Some(&a), &a),
        "notes was updated; its content is the same."
    );
    assert_eq!(change_summary("notes", None, &a), "notes was updated.");
    let bin = |n: u64| Part {
        binary: true,
        size: n,
        data: Some("AA==".into()),
        ..Part::default()
    };
    assert_eq!(
        change_summary("img", Some(&[bin(1)]), &[bin(2048)]),
        "img changed; it is now 2.0 KB (was 1 byte)."
    );
}

#[test]
fn attaching_meets_the_checks_a_picked_file_meets() {
    let png = Part {
        uri: "skiff://logo.png".into(),
        mime: "image/png".into(),
        binary: true,
        data: Some("iVBORw==".into()),
        size: 4,
        ..Part::default()
    };
    assert_eq!(
        attach_check(&[png.clone(), text_part("x://a", "a")]),
        Ok(())
    );
    // Bytes of a type the page cannot send are refused here, with the page's own sentence.
    let zip = Part {
        uri: "x://a.bin".into(),
        mime: "application/octet-stream".into(),
        ..png.clone()
    };
    let e = attach_check(&[zip]).unwrap_err();
    assert!(e.contains("x://a.bin"), "{e}");
    let huge = Part {
        size: 500_000_000,
        ..png.clone()
    };
    assert!(attach_check(&[huge]).is_err());
    let gone = Part { data: None, ..png };
    assert!(attach_check(&[gone])
        .unwrap_err()
        .starts_with("There is no content"));
}

#[test]
fn text_in_the_stored_json_is_bounded_least_recently_used_first() {
    let mut s = synced(true);
    let chunk = "y".repeat(INLINE_TEXT_MAX as usize);
    let n = (INLINE_TOTAL_MAX / INLINE_TEXT_MAX) as usize;
    for i in 0..n {
        let uri = format!("x://{i}");
        s.keep(
            "everything",
            &uri,
            &[text_part(&uri, &chunk)],
            0.0,
            i as f64,
        );
    }
    assert!(s.entry("everything", "x://0").is_some());
    // x://0 used again: x://1 is now the least recently used.
    s.cached_parts("everything", "x://0", 1e6);
    s.keep(
        "everything",
        "x://new",
        &[text_part("x://new", &chunk)],
        0.0,
        2e6,
    );
    assert!(s.inline_bytes() <= INLINE_TOTAL_MAX);
    assert!(
        s.entry("everything", "x://1").is_none(),
        "the least recently used went"
    );
    assert!(s.entry("everything", "x://0").is_some());
    assert!(
        s.entry("everything", "x://new").is_some(),
        "never the copy just kept"
    );
    // Blob-backed copies do not count against it.
    let blob = Part {
        hash: Some("h".into()),
        data: None,
        binary: true,
        size: 5_000_000,
        ..Part::default()
    };
    s.keep("everything", "x://big", &[blob], 0.0, 3e6);
    assert!(s.entry("everything", "x://big").is_some());
    assert!(s.entry("everything", "x://2").is_some());
}
