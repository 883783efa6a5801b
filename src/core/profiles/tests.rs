use super::*;
use crate::gemini::from_gemini_entry;
use crate::openai::from_openai_entry;
use crate::persist::PersistError;
use crate::records::capabilities::Which;
use crate::settings::ChatSettings;
use crate::settings::{decode_settings, encode_settings};

fn profile(id: &str, kind: ProviderKind, base: &str, key: &str, model: &str) -> ProviderProfile {
    ProviderProfile {
        name: format!("{id} name"),
        base_url: base.into(),
        api_key: key.into(),
        default_model: model.into(),
        ..ProviderProfile::new(id.into(), kind)
    }
}

fn choice(p: &str, m: &str) -> ModelChoice {
    ModelChoice {
        profile_id: p.into(),
        model: m.into(),
    }
}

/// Settings exactly as the build before profiles wrote them (format 1, every field).
const V1_OPENAI: &str = r#"{"v":1,"data":{"provider":"openai","base_url":"http://127.0.0.1:8080/v1","api_key":"sk-local","model":"qwen2.5","system_prompt":"Be brief.","temperature":0.5,"top_p":null,"max_tokens":256,"theme":"dark","tool_mode":"auto","learned_tool_modes":{"http://127.0.0.1:8080/v1 qwen2.5":"prompt"},"step_limit":7,"result_char_limit":900,"tool_images_to_model":true,"approvals":{"rules":{},"allow_read_only":true},"silence_limit_s":45,"system_template_enabled":false,"system_template":"T","input_template":"{{input}}!","context_window":8192,"history_count":12,"auto_title":false,"auto_compact":true,"memory_threshold_chars":5000}}"#;

/// The same settings as format 2 writes them: the flat provider is the first profile, named
/// by its host; every other field is as it was.
const V2_OPENAI: &str = r#"{"v":2,"data":{"profiles":[{"id":"migrated","name":"127.0.0.1:8080","kind":"openai","base_url":"http://127.0.0.1:8080/v1","api_key":"sk-local","default_model":"qwen2.5","temperature":0.5,"top_p":null,"max_tokens":256}],"system_prompt":"Be brief.","theme":"dark","tool_mode":"auto","learned_tool_modes":{"http://127.0.0.1:8080/v1 qwen2.5":"prompt"},"step_limit":7,"result_char_limit":900,"tool_images_to_model":true,"approvals":{"rules":{},"allow_read_only":true},"silence_limit_s":45,"system_template_enabled":false,"system_template":"T","input_template":"{{input}}!","context_window":8192,"history_count":12,"auto_title":false,"auto_compact":true,"memory_threshold_chars":5000}}"#;

#[test]
fn format_one_settings_become_one_profile_with_nothing_lost() {
    let s = decode_settings(V1_OPENAI).unwrap();
    assert_eq!(encode_settings(&s), V2_OPENAI);
    // Written again, format 2 reads back to the same settings.
    assert_eq!(decode_settings(V2_OPENAI).unwrap(), s);
    let r = s.for_conversation(None).target;
    assert_eq!(
        (
            r.kind,
            r.base_url.as_str(),
            r.api_key.as_str(),
            r.model.as_str()
        ),
        (
            ProviderKind::OpenAiCompatible,
            "http://127.0.0.1:8080/v1",
            "sk-local",
            "qwen2.5"
        )
    );
    assert_eq!(
        (r.temperature, r.top_p, r.max_tokens),
        (Some(0.5), None, Some(256))
    );
}

#[test]
fn a_stored_kind_is_kept_and_the_name_comes_from_the_host() {
    let v1 = r#"{"v":1,"data":{"provider":"anthropic","base_url":"https://api.anthropic.com/v1","api_key":"sk-ant","model":"claude-haiku-4-5","theme":"light"}}"#;
    let s = decode_settings(v1).unwrap();
    assert_eq!(
        encode_settings(&s),
        format!(
            r#"{{"v":2,"data":{{"profiles":[{{"id":"migrated","name":"api.anthropic.com","kind":"anthropic","base_url":"https://api.anthropic.com/v1","api_key":"sk-ant","default_model":"claude-haiku-4-5","temperature":null,"top_p":null,"max_tokens":null}}],{}"#,
            &encode_settings(&ChatSettings {
                theme: crate::settings::Theme::Light,
                ..ChatSettings::default()
            })[r#"{"v":2,"data":{"profiles":[],"#.len()..]
        )
    );
    // Bare (format 0) values migrate the same way; a Gemini one too.
    let bare = r#"{"provider":"gemini","base_url":"","api_key":"AIza"}"#;
    let g = decode_settings(bare).unwrap();
    assert_eq!(g.profiles.len(), 1);
    assert_eq!(g.profiles[0].kind, ProviderKind::Gemini);
    assert_eq!(
        g.profiles[0].name, "Google Gemini",
        "no host: the kind names it"
    );
    assert_eq!(g.profiles[0].api_key, "AIza");
}

#[test]
fn unconfigured_format_one_settings_get_no_profile() {
    let s = decode_settings(r#"{"v":1,"data":{"provider":"openai","base_url":"","api_key":"","model":"","temperature":null,"top_p":null,"max_tokens":null}}"#).unwrap();
    assert!(s.profiles.is_empty());
    assert_eq!(s, ChatSettings::default());
    assert!(s.for_conversation(None).target == Target::default());
}

#[test]
fn a_newer_format_is_refused_not_misread() {
    assert_eq!(
        decode_settings(r#"{"v":3,"data":{"profiles":[]}}"#),
        Err(PersistError::TooNew {
            what: "settings",
            version: 3,
            known: 2
        })
    );
}

#[test]
fn resolution_prefers_the_conversation_then_the_last_used_then_the_first() {
    let profiles = vec![
        profile(
            "a",
            ProviderKind::OpenAiCompatible,
            "http://a:1/v1",
            "ka",
            "ma",
        ),
        profile("b", ProviderKind::Anthropic, "http://b:2/v1", "kb", "mb"),
    ];
    let last = choice("b", "mb2");
    let conv = choice("a", "other");
    let r = resolve(&profiles, Some(&last), Some(&conv)).unwrap();
    assert_eq!(
        (r.target.profile_id.as_str(), r.target.model.as_str()),
        ("a", "other")
    );
    assert_eq!(r.target.api_key, "ka");
    assert_eq!(r.note, None);
    // No choice: the last used.
    let r = resolve(&profiles, Some(&last), None).unwrap();
    assert_eq!(
        (r.target.kind, r.target.model.as_str()),
        (ProviderKind::Anthropic, "mb2")
    );
    assert_eq!((r.target.api_key.as_str(), r.note), ("kb", None));
    // Nothing chosen, nothing used: the first profile's default model.
    let r = resolve(&profiles, None, None).unwrap();
    assert_eq!(
        (r.target.profile_id.as_str(), r.target.model.as_str()),
        ("a", "ma")
    );
    // A choice with no model: the profile's default.
    let r = resolve(&profiles, None, Some(&choice("b", ""))).unwrap();
    assert_eq!(r.target.model, "mb");
    assert_eq!(r.target.label(), "mb · b name");
    assert_eq!(resolve(&[], Some(&last), Some(&conv)), None);
}

#[test]
fn a_deleted_profile_falls_back_and_says_so() {
    let profiles = vec![profile(
        "a",
        ProviderKind::Gemini,
        "http://a/v1beta",
        "ka",
        "ma",
    )];
    let r = resolve(
        &profiles,
        Some(&choice("gone", "x")),
        Some(&choice("gone", "claude")),
    )
    .unwrap();
    assert_eq!(
        r.target.profile_id, "a",
        "neither choice exists: the first profile"
    );
    assert_eq!(
        r.note.as_deref(),
        Some("The provider this conversation used (claude) was deleted; it now uses ma · a name.")
    );
    // The key of a deleted profile is gone with it: the fallback carries its own.
    assert_eq!(r.target.api_key, "ka");
}

#[test]
fn each_request_carries_only_its_own_profiles_key_to_its_own_origin() {
    use crate::http::origin_of;
    let s = ChatSettings {
        profiles: vec![
            profile(
                "o",
                ProviderKind::OpenAiCompatible,
                "http://127.0.0.1:9001/v1",
                "key-o",
                "m",
            ),
            profile(
                "a",
                ProviderKind::Anthropic,
                "http://127.0.0.1:9002/v1",
                "key-a",
                "m",
            ),
            profile(
                "g",
                ProviderKind::Gemini,
                "http://127.0.0.1:9003/v1beta",
                "key-g",
                "m",
            ),
        ],
        ..ChatSettings::default()
    };
    for p in s.profiles.clone() {
        let resolved = s.for_conversation(Some(&choice(&p.id, "")));
        let provider = resolved.provider().unwrap();
        let req = provider.models_request();
        assert_eq!(origin_of(&req.url), origin_of(&p.base_url));
        let text = format!("{} {:?}", req.url, req.headers);
        for other in &s.profiles {
            assert_eq!(
                text.contains(&other.api_key),
                other.id == p.id,
                "{} in a request of {}",
                other.api_key,
                p.id
            );
        }
        assert!(
            req.carries_credentials(),
            "a keyed request never follows a redirect"
        );
    }
}

#[test]
fn capabilities_from_what_the_lists_report() {
    let openrouter = serde_json::json!({"id":"openai/gpt-4o","architecture":{"input_modalities":["text","image","file"]},"supported_parameters":["tools","temperature"]});
    let c = from_openai_entry(&openrouter);
    assert_eq!(
        (c.vision, c.pdf, c.tools, c.reasoning),
        (
            Flag::Reported(true),
            Flag::Reported(true),
            Flag::Reported(true),
            Flag::Reported(false)
        )
    );
    let plain = serde_json::json!({"id":"gpt-4.1","object":"model","owned_by":"system"});
    assert_eq!(from_openai_entry(&plain), Capabilities::default());
    let ollama = serde_json::json!({"id":"qwen3","capabilities":["completion","tools","thinking"]});
    let c = from_openai_entry(&ollama);
    assert_eq!(
        (c.vision, c.tools, c.reasoning, c.pdf),
        (
            Flag::Reported(false),
            Flag::Reported(true),
            Flag::Reported(true),
            Flag::Unknown
        )
    );
    let gemini = serde_json::json!({"name":"models/gemini-2.5-flash","thinking":true});
    assert_eq!(from_gemini_entry(&gemini).reasoning, Flag::Reported(true));
    assert_eq!(from_gemini_entry(&gemini).vision, Flag::Unknown);
}

#[test]
fn the_user_corrects_a_flag_and_a_refresh_keeps_it() {
    let mut p = profile("a", ProviderKind::OpenAiCompatible, "http://a/v1", "", "m1");
    let reported = Capabilities {
        vision: Flag::Reported(true),
        ..Capabilities::default()
    };
    p.refresh_models(vec![
        ModelEntry::new("m1", reported),
        ModelEntry::new("m2", Capabilities::default()),
    ]);
    assert_eq!(p.listed_models().collect::<Vec<_>>(), vec!["m1", "m2"]);
    p.set_capability("m1", Which::Vision, Some(false));
    p.set_capability("typed-by-hand", Which::Tools, Some(false));
    assert_eq!(p.capabilities("m1").vision, Flag::User(false));
    // The API lists m1 again (still reporting vision) and drops m2.
    p.refresh_models(vec![ModelEntry::new("m1", reported)]);
    assert_eq!(
        p.capabilities("m1").vision,
        Flag::User(false),
        "the user's word stays"
    );
    assert_eq!(p.capabilities("typed-by-hand").tools, Flag::User(false));
    assert_eq!(p.listed_models().collect::<Vec<_>>(), vec!["m1"]);
    assert_eq!(p.capabilities("m2"), Capabilities::default());
    // Back to unknown, then the API's word applies again on the next refresh.
    p.set_capability("m1", Which::Vision, None);
    p.refresh_models(vec![ModelEntry::new("m1", reported)]);
    assert_eq!(p.capabilities("m1").vision, Flag::Reported(true));
    // Stored and read back unchanged.
    let json = serde_json::to_string(&p).unwrap();
    assert_eq!(serde_json::from_str::<ProviderProfile>(&json).unwrap(), p);
}

#[test]
fn names_and_new_profiles() {
    assert_eq!(
        name_from_url("https://api.anthropic.com/v1").as_deref(),
        Some("api.anthropic.com")
    );
    assert_eq!(
        name_from_url("http://127.0.0.1:8080/v1").as_deref(),
        Some("127.0.0.1:8080")
    );
    assert_eq!(name_from_url("nope"), None);
    let p = ProviderProfile::new("x".into(), ProviderKind::Anthropic);
    assert_eq!(p.base_url, "https://api.anthropic.com/v1");
    assert_eq!(p.display_name(), "api.anthropic.com");
    assert_eq!(
        ProviderProfile::new("y".into(), ProviderKind::OpenAiCompatible).display_name(),
        "OpenAI-compatible"
    );
}

#[test]
fn a_conversation_stored_before_profiles_opens_unchanged() {
    use crate::records::conversation::Conversation;
    let c = Conversation::new("c".into(), 1.0);
    let raw = crate::persist::encode_conversation(&c);
    assert!(!raw.contains("model"), "absent when not chosen: {raw}");
    let mut read = crate::persist::decode_conversation(&raw).unwrap();
    assert_eq!(read.model, None);
    read.model = Some(choice("a", "m"));
    let again =
        crate::persist::decode_conversation(&crate::persist::encode_conversation(&read)).unwrap();
    assert_eq!(again.model, Some(choice("a", "m")));
}

/// Format 2 with the reasoning settings: Anthropic's budget, OpenAI's effort, each stored only
/// when set (`V2_OPENAI` above, written before they existed, loads and saves unchanged).
const V2_REASONING: &str = r#"{"v":2,"data":{"profiles":[{"id":"a","name":"A","kind":"anthropic","base_url":"https://api.anthropic.com/v1","api_key":"","default_model":"claude-t","temperature":null,"top_p":null,"max_tokens":null,"thinking_budget":2048},{"id":"o","name":"O","kind":"openai","base_url":"http://o/v1","api_key":"","default_model":"o4","temperature":null,"top_p":null,"max_tokens":null,"reasoning_effort":"low"}]"#;

#[test]
fn reasoning_settings_are_stored_when_set_and_reach_the_request_params() {
    let old = decode_settings(V2_OPENAI).unwrap();
    assert_eq!(old.profiles[0].thinking_budget, None);
    assert_eq!(old.profiles[0].reasoning_effort, None);
    assert_eq!(encode_settings(&old), V2_OPENAI);

    let mut s = ChatSettings::default();
    let mut a = profile(
        "a",
        ProviderKind::Anthropic,
        "https://api.anthropic.com/v1",
        "",
        "claude-t",
    );
    a.name = "A".into();
    a.thinking_budget = Some(2048);
    // An effort left on a profile whose kind was switched never reaches a request.
    a.reasoning_effort = None;
    let mut o = profile("o", ProviderKind::OpenAiCompatible, "http://o/v1", "", "o4");
    o.name = "O".into();
    o.reasoning_effort = Some(crate::provider::ReasoningEffort::Low);
    s.profiles = vec![a, o];
    let stored = encode_settings(&s);
    assert!(stored.starts_with(V2_REASONING), "{stored}");
    assert_eq!(decode_settings(&stored).unwrap(), s);

    let params = |p: &ProviderProfile| {
        let t = Target::from_profile(p, "");
        (t.thinking_budget, t.reasoning_effort)
    };
    assert_eq!(params(&s.profiles[0]), (Some(2048), None));
    assert_eq!(
        params(&s.profiles[1]),
        (None, Some(crate::provider::ReasoningEffort::Low))
    );
    // Settings of another kind stay in the record but never reach the request.
    let mut switched = s.profiles[0].clone();
    switched.kind = ProviderKind::OpenAiCompatible;
    assert_eq!(params(&switched), (None, None));
    let mut gem = s.profiles[1].clone();
    gem.kind = ProviderKind::Gemini;
    gem.thinking_budget = Some(512);
    assert_eq!(params(&gem), (Some(512), None));
}

/// Issue 12, item 6: titles and summaries go to the profile's summary model where it names
/// one; the conversation's own requests keep their model.
#[test]
fn side_requests_use_the_profiles_summary_model() {
    let mut p = profile(
        "p1",
        ProviderKind::OpenAiCompatible,
        "http://h/v1",
        "",
        "big-model",
    );
    let settings = |p: &ProviderProfile| {
        ChatSettings {
            profiles: vec![p.clone()],
            ..ChatSettings::default()
        }
        .for_conversation(None)
    };
    assert_eq!(settings(&p).for_side_request().target.model, "big-model");
    p.summary_model = "  small-model ".into();
    let s = settings(&p);
    assert_eq!(s.target.model, "big-model", "answers keep the chat's model");
    let side = s.for_side_request();
    assert_eq!(side.target.model, "small-model");
    assert_eq!(side.target.base_url, "http://h/v1", "same provider");
    // Stored only when set.
    let json = serde_json::to_string(&ProviderProfile::new("x".into(), ProviderKind::Anthropic))
        .unwrap_or_default();
    assert!(!json.contains("summary_model"), "{json}");
}

fn stored(id: &str, parameters: Option<u64>, chat_template: Option<bool>) -> ModelEntry {
    ModelEntry::new(
        id,
        Capabilities {
            window: Some(2048),
            parameters,
            chat_template,
            ..Capabilities::default()
        },
    )
}

#[test]
fn the_in_page_model_is_named_as_what_it_is_and_answers_with_the_newest_stored() {
    let mut p = profile("here", ProviderKind::InBrowser, "", "", "");
    p.name = String::new();
    let empty = Target::from_profile(&p, "");
    assert_eq!(empty.label(), "In this browser · newest stored model");
    assert!(
        empty.chatting_line().contains("no model stored yet"),
        "{}",
        empty.chatting_line()
    );
    assert!(!empty.chatting_line().contains("in-browser://"));

    assert!(p.sync_stored_models(vec![
        stored("SmolLM2-135M-Instruct.Q4_1", Some(134_515_008), Some(true)),
        stored("gemma-3-270m", Some(268_098_176), Some(true)),
    ]));
    let t = Target::from_profile(&p, "");
    assert_eq!(
        t.model, "SmolLM2-135M-Instruct.Q4_1",
        "the worker's own default: the newest"
    );
    assert_eq!(t.label(), "In this browser · SmolLM2-135M-Instruct.Q4_1");
    assert_eq!(
        t.chatting_line(),
        "Chatting with In this browser · SmolLM2-135M-Instruct.Q4_1, which runs on this device and works offline."
    );
    assert_eq!(
        p.model_label("gemma-3-270m"),
        "In this browser · gemma-3-270m"
    );
    assert_eq!(t.caps.window, Some(2048));

    // Another server keeps its "model · profile" name and its address.
    let other = Target::from_profile(
        &profile(
            "a",
            ProviderKind::OpenAiCompatible,
            "http://127.0.0.1:8080/v1",
            "",
            "",
        ),
        "",
    );
    assert_eq!(other.label(), "default model · a name");
    assert_eq!(
        other.chatting_line(),
        "Chatting with the server's default model at http://127.0.0.1:8080/v1."
    );
}

#[test]
fn a_base_model_is_named_so_before_use() {
    let mut p = profile("here", ProviderKind::InBrowser, "", "", "");
    p.sync_stored_models(vec![stored("tiny-base", Some(100), Some(false))]);
    let t = Target::from_profile(&p, "");
    assert_eq!(t.label(), "In this browser · tiny-base (base model)");
    assert!(
        t.chatting_line().ends_with(BASE_MODEL_SENTENCE),
        "{}",
        t.chatting_line()
    );
}

#[test]
fn stored_models_replace_the_list_at_once_and_a_deleted_default_is_forgotten() {
    let mut s = ChatSettings {
        profiles: vec![
            profile("here", ProviderKind::InBrowser, "", "", ""),
            profile(
                "srv",
                ProviderKind::OpenAiCompatible,
                "http://127.0.0.1:8080/v1",
                "",
                "qwen",
            ),
        ],
        ..ChatSettings::default()
    };
    let one = [stored("a", None, None)];
    assert!(s.sync_stored_models(&one));
    assert!(!s.sync_stored_models(&one), "the same list changes nothing");
    s.profiles[0].default_model = "a".into();
    assert!(s.sync_stored_models(&[stored("b", None, None)]));
    let here = &s.profiles[0];
    assert_eq!(here.listed_models().collect::<Vec<_>>(), ["b"]);
    assert_eq!(
        here.default_model, "",
        "a default naming a deleted model goes"
    );
    assert_eq!(
        s.profiles[1].listed_models().count(),
        0,
        "other profiles are untouched"
    );
    assert_eq!(s.profiles[1].default_model, "qwen");
}

#[test]
fn the_welcome_offers_the_in_page_model_until_one_is_stored() {
    let mut s = ChatSettings::default();
    assert!(
        !s.offers_in_page_model(None, false),
        "a local server may still answer"
    );
    assert!(
        s.offers_in_page_model(None, true),
        "none answered: offer the page's own"
    );
    assert!(s.use_in_page_model("new".into()));
    assert_eq!(s.profiles.len(), 1);
    assert_eq!(s.last_used, Some(choice("new", "")));
    assert!(
        s.offers_in_page_model(None, false),
        "chosen, nothing stored yet: the offer and its progress stay"
    );
    s.sync_stored_models(&[stored("m", None, Some(true))]);
    assert!(
        !s.offers_in_page_model(None, true),
        "stored: the chat takes over"
    );
    // A second click finds the profile it made.
    s.use_in_page_model("other".into());
    assert_eq!(s.profiles.len(), 1);

    let server = ChatSettings {
        profiles: vec![profile(
            "srv",
            ProviderKind::OpenAiCompatible,
            "http://127.0.0.1:8080/v1",
            "",
            "",
        )],
        ..ChatSettings::default()
    };
    assert!(
        !server.offers_in_page_model(None, true),
        "a server is set up: no offer"
    );
}
