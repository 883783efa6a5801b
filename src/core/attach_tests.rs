use serde_json::{json, Value};

use super::*;
use crate::base64::base64;
use crate::provider::{ChatParams, StepContext};
use crate::records::capabilities::Flag;
use crate::records::message::Message;
use crate::records::tool_mode::ToolMode;
use crate::seam::piece::{inline_text, pieces, travels};

fn att(kind: Kind, name: &str, mime: &str, data: &[u8]) -> Attachment {
    let image = u32::from(kind == Kind::Image);
    let a = Attachment {
        name: name.into(),
        mime: mime.into(),
        size: data.len() as u64,
        hash: "h".into(),
        w: 2 * image,
        h: image,
        ow: 4000 * image,
        oh: 2000 * image,
        data: Some(data.into()),
    };
    assert_eq!(a.kind(), kind);
    a
}

fn question(attachments: Vec<Attachment>) -> Vec<Message> {
    let mut m = Message::new("u".into(), Role::User, "What is this?".into(), 0.0);
    m.attachments = attachments;
    vec![m]
}

fn ctx(history: &[Message]) -> StepContext<'_> {
    StepContext {
        system_template: "",
        system_prompt: "",
        recap: "",
        history,
        tools: &[],
        mode: ToolMode::Off,
        result_char_limit: 1000,
        vision: true,
    }
}

/// The three request bodies (OpenAI-compatible, Anthropic, Gemini) for `history`.
fn bodies(history: &[Message]) -> [Value; 3] {
    let p = ChatParams {
        model: "m".into(),
        ..ChatParams::default()
    };
    let c = ctx(history);
    [
        crate::openai::step_request("http://x", None, &p, &c),
        crate::anthropic::step_request("http://x", None, &p, &c),
        crate::gemini::step_request("http://x", None, &p, &c),
    ]
    .map(|r| serde_json::from_str(r.body.as_deref().unwrap()).unwrap())
}

fn all(png: bool, text: bool, pdf: bool) -> Vec<Attachment> {
    let mut v = Vec::new();
    if png {
        v.push(att(Kind::Image, "dot.png", "image/png", b"PNG!"));
    }
    if text {
        v.push(att(Kind::Text, "a.rs", "text/plain", b"fn main() {}\n"));
    }
    if pdf {
        v.push(att(Kind::Pdf, "doc.pdf", "application/pdf", b"%PDF"));
    }
    v
}

#[test]
fn image_question_per_provider() {
    let [o, a, g] = bodies(&question(all(true, false, false)));
    assert_eq!(
        o,
        json!({"model":"m","messages":[{"role":"user","content":[
            {"type":"image_url","image_url":{"url":"data:image/png;base64,UE5HIQ=="}},
            {"type":"text","text":"What is this?"}]}],"stream":true,
            "stream_options":{"include_usage":true}})
    );
    assert_eq!(
        a,
        json!({"model":"m","max_tokens":a["max_tokens"],"messages":[{"role":"user","content":[
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"UE5HIQ=="}},
            {"type":"text","text":"What is this?"}]}],"stream":true})
    );
    assert_eq!(
        g,
        json!({"contents":[{"role":"user","parts":[
            {"inlineData":{"mimeType":"image/png","data":"UE5HIQ=="}},
            {"text":"What is this?"}]}]})
    );
}

#[test]
fn text_file_and_pdf_per_provider() {
    let file = "File: a.rs\n```\nfn main() {}\n```";
    let [o, a, g] = bodies(&question(all(false, true, true)));
    assert_eq!(
        o["messages"],
        json!([{"role":"user","content":[
            {"type":"text","text":file},
            {"type":"file","file":{"filename":"doc.pdf","file_data":"data:application/pdf;base64,JVBERg=="}},
            {"type":"text","text":"What is this?"}]}])
    );
    assert_eq!(
        a["messages"],
        json!([{"role":"user","content":[
            {"type":"text","text":file},
            {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="}},
            {"type":"text","text":"What is this?"}]}])
    );
    assert_eq!(
        g["contents"],
        json!([{"role":"user","parts":[
            {"text":file},
            {"inlineData":{"mimeType":"application/pdf","data":"JVBERg=="}},
            {"text":"What is this?"}]}])
    );
}

#[test]
fn a_missing_blob_leaves_the_words() {
    let mut atts = all(true, true, true);
    for a in &mut atts {
        a.data = None;
    }
    let [o, a, g] = bodies(&question(atts));
    assert_eq!(
        o["messages"],
        json!([{"role":"user","content":[{"type":"text","text":"What is this?"}]}])
    );
    assert_eq!(
        a["messages"],
        json!([{"role":"user","content":[{"type":"text","text":"What is this?"}]}])
    );
    assert_eq!(
        g["contents"],
        json!([{"role":"user","parts":[{"text":"What is this?"}]}])
    );
    // Nothing left at all: the turn is skipped as a blank one is.
    let mut h = question(vec![att(Kind::Image, "x.png", "image/png", b"")]);
    h[0].content.clear();
    h[0].attachments[0].data = None;
    assert_eq!(bodies(&h)[1]["messages"], json!([]));
}

#[test]
fn records_never_hold_bytes_and_old_records_load() {
    let m = &question(all(true, false, false))[0];
    let s = serde_json::to_string(m).unwrap();
    assert!(s.contains(
        r#""attachments":[{"name":"dot.png","mime":"image/png","size":4,"hash":"h","w":2,"h":1,"ow":4000,"oh":2000}]"#
    ), "{s}");
    let back: Message = serde_json::from_str(&s).unwrap();
    assert_eq!(back.attachments[0].data, None);
    let old: Message = serde_json::from_str(
        r#"{"id":"u","role":"user","content":"hi","created_ms":0,"status":{"kind":"done"}}"#,
    )
    .unwrap();
    assert!(old.attachments.is_empty());
    assert!(!serde_json::to_string(&old).unwrap().contains("attachments"));
}

#[test]
fn what_is_accepted() {
    assert_eq!(classify("a.png", "image/png", 10), Ok(Kind::Image));
    assert_eq!(classify("main.rs", "", 10), Ok(Kind::Text));
    assert_eq!(classify("x.json", "application/json", 10), Ok(Kind::Text));
    assert_eq!(classify("Report.PDF", "", 10), Ok(Kind::Pdf));
    assert_eq!(
        classify("a.exe", "application/octet-stream", 10),
        Err(Refusal::Unsupported("a.exe".into()))
    );
    assert_eq!(
        classify("big.txt", "text/plain", MAX_TEXT_BYTES + 1),
        Err(Refusal::TooLarge("big.txt".into(), MAX_TEXT_BYTES))
    );
    assert_eq!(
        Refusal::TooLarge("big.txt".into(), MAX_TEXT_BYTES).to_string(),
        "big.txt is too large to attach (at most 200 KB)."
    );
    assert!(check_text("a.txt", b"ok").is_ok());
    assert_eq!(
        check_text("a.txt", &[0xff, 0xfe]),
        Err(Refusal::NotText("a.txt".into()))
    );
}

#[test]
fn images_scale_to_the_longest_edge() {
    assert_eq!(scale_plan("image/jpeg", 1568, 800), None);
    assert_eq!(scale_plan("image/gif", 30, 20), Some((30, 20, "image/png")));
    assert_eq!(
        scale_plan("image/jpeg", 4032, 3024),
        Some((1568, 1176, "image/jpeg"))
    );
    assert_eq!(
        scale_plan("image/png", 1000, 6000),
        Some((261, 1568, "image/png"))
    );
    assert_eq!(
        scale_plan("image/webp", 100_000, 1),
        Some((1568, 1, "image/jpeg"))
    );
}

#[test]
fn text_fences_outlast_the_file() {
    assert_eq!(inline_text("a.md", b"x\n"), "File: a.md\n```\nx\n```");
    assert_eq!(
        inline_text("b.md", b"```rust\n````\n"),
        "File: b.md\n`````\n```rust\n````\n`````"
    );
}

#[test]
fn refusals_name_the_model_and_provider() {
    let mut t = Target {
        profile_name: "Local".into(),
        model: "llama".into(),
        base_url: "http://127.0.0.1:8080/v1".into(),
        ..Target::default()
    };
    let image = all(true, false, false);
    let pdf = all(false, false, true);
    assert!(check_target(&t, &image).is_ok());
    t.caps.vision = Flag::User(false);
    assert_eq!(
        check_target(&t, &image).unwrap_err().to_string(),
        "llama (Local) does not take images; choose a vision model or remove the image."
    );
    assert_eq!(
        check_target(&t, &pdf).unwrap_err().to_string(),
        "llama (Local) does not take PDF files; attach the text instead, or mark the model as taking PDF input."
    );
    t.caps.pdf = Flag::User(true);
    assert!(check_target(&t, &pdf).is_ok());
    t.caps.pdf = Flag::Unknown;
    t.base_url = "https://api.openai.com/v1".into();
    assert!(check_target(&t, &pdf).is_ok());
    t.kind = ProviderKind::Anthropic;
    t.caps.pdf = Flag::Reported(false);
    assert!(check_target(&t, &pdf).is_err());
    assert!(check_target(&t, &all(false, true, false)).is_ok());
}

#[test]
fn chip_label_shows_what_is_sent_and_the_original_it_was_scaled_from() {
    // The size is the stored (scaled) image's: its dimensions go with it, the original's are
    // named as such.
    let mut a = att(Kind::Image, "p.jpg", "image/jpeg", &[0; 1500]);
    a.w = 1568;
    a.h = 784;
    assert_eq!(
        a.label(false),
        "p.jpg · 1.5 KB · 1568×784 (scaled from 4000×2000)"
    );
    a.w = 4000;
    a.h = 2000;
    assert_eq!(a.label(false), "p.jpg · 1.5 KB · 4000×2000");
    // A record from before stored dimensions were kept.
    a.w = 0;
    a.h = 0;
    assert_eq!(a.label(false), "p.jpg · 1.5 KB · 4000×2000");
    assert_eq!(a.label(true), "p.jpg · image no longer stored");
    let t = att(Kind::Text, "a.rs", "text/plain", b"x");
    assert_eq!(t.label(false), "a.rs · 1 byte");
    assert_eq!(t.label(true), "a.rs · file no longer stored");
}

#[test]
fn attachments_count_in_the_budget() {
    use crate::pipeline::tokens;
    let plain = &question(Vec::new())[0];
    let with = &question(vec![
        att(Kind::Image, "a.png", "image/png", b"x"),
        att(Kind::Text, "a.rs", "text/plain", &[b'a'; 400]),
    ])[0];
    assert_eq!(
        tokens::message(with, 100) - tokens::message(plain, 100),
        tokens::IMAGE + 100 + tokens::PER_MESSAGE
    );
}

#[test]
fn a_delete_frees_only_the_blobs_nothing_else_names() {
    use crate::records::branch::Branch;
    use crate::records::conversation::Conversation;
    let with = |id: &str, hashes: &[&str]| {
        let mut m = Message::new(id.into(), Role::User, "q".into(), 1.0);
        for h in hashes {
            let mut a = att(Kind::Image, "a.png", "image/png", b"x");
            a.hash = (*h).into();
            m.attachments.push(a);
        }
        m
    };
    let mut gone = Conversation::new("gone".into(), 0.0);
    gone.messages.push(with("m1", &["aaa", "bbb"]));
    gone.branches.push(Branch {
        after: None,
        messages: vec![with("m2", &["ccc", "aaa"])],
    });
    let freed = hashes(&gone);
    assert_eq!(freed, ["aaa", "bbb", "ccc"]);

    let mut held = Conversation::new("held".into(), 0.0);
    held.messages.push(with("m3", &["bbb"]));
    // A stored body names "ccc" (an unreadable one would too: it is searched as text).
    let stored = ["{\"v\":2,\"data\":{\"hash\":\"ccc\"}}", "not json, no hash"];
    assert_eq!(
        unreferenced(&freed, std::slice::from_ref(&held), stored.iter().copied()),
        ["aaa"]
    );
    assert_eq!(
        unreferenced(&freed, &[], std::iter::empty()),
        ["aaa", "bbb", "ccc"]
    );
    assert!(unreferenced(&[], &[held], stored.iter().copied()).is_empty());
}

#[test]
fn earlier_files_a_new_model_cannot_take_are_left_out_and_named() {
    let mut history = question(all(true, true, true));
    history.push(Message::new(
        "a".into(),
        Role::Assistant,
        "A dot.".into(),
        1.0,
    ));
    history.push(Message::new(
        "u2".into(),
        Role::User,
        "And now?".into(),
        2.0,
    ));
    let mut t = Target {
        profile_name: "Local".into(),
        model: "llama".into(),
        base_url: "http://127.0.0.1:8080/v1".into(),
        ..Target::default()
    };
    // A model whose vision is unknown gets the image; a local server never gets the PDF.
    let mut copy = history.clone();
    assert_eq!(withhold(&t, &mut copy), ["doc.pdf"]);
    assert_eq!(copy[0].attachments.len(), 2);
    t.caps.vision = Flag::User(false);
    let mut copy = history.clone();
    let left = withhold(&t, &mut copy);
    assert_eq!(left, ["dot.png", "doc.pdf"]);
    assert_eq!(
        copy[0].content,
        "What is this?\n\n[Attached here but left out of this request, because llama cannot read it: dot.png, doc.pdf]"
    );
    // The text file still goes; the others carry no bytes into any request.
    let [openai, anthropic, gemini] = bodies(&copy);
    for body in [&openai, &anthropic, &gemini] {
        let s = body.to_string();
        assert!(s.contains("File: a.rs"), "{s}");
        assert!(!s.contains(&base64(b"PNG!")), "{s}");
        assert!(!s.contains("application/pdf"), "{s}");
    }
    assert_eq!(copy[2].content, "And now?");
    assert_eq!(
        left_out_note(&t, &left).as_deref(),
        Some("dot.png and 1 more, attached earlier in this conversation, cannot go to llama (Local), so the model is told it was left out.")
    );
    assert_eq!(left_out_note(&t, &[]), None);
    // A message with only a file it cannot take still says something.
    let mut lone = question(all(true, false, false));
    lone[0].content.clear();
    withhold(&t, &mut lone);
    assert!(lone[0].content.starts_with("[Attached here"));
}

#[test]
fn images_a_model_returned_stay_out_of_every_request_and_the_budget() {
    use crate::pipeline::tokens;
    let mut history = question(Vec::new());
    let mut answer = Message::new("a".into(), Role::Assistant, "Here it is".into(), 1.0);
    answer.attachments = vec![att(Kind::Image, "image-1.png", "image/png", b"\x89PNG")];
    let mut plain = answer.clone();
    plain.attachments.clear();
    assert!(!travels(&answer) && travels(&history[0]));
    assert_eq!(pieces(&answer), None);
    assert_eq!(tokens::message(&answer, 100), tokens::message(&plain, 100));
    history.push(answer);
    history.push(Message::new("u2".into(), Role::User, "Bluer".into(), 2.0));
    let with = bodies(&history);
    history[1].attachments.clear();
    assert_eq!(with, bodies(&history), "byte for byte as without the image");
}
