//! The full backup: what it holds with and without keys, reading it back through import,
//! merging into a fresh and into a used browser, refusing a newer one, and reading the
//! settings record of an earlier Skiff.

use super::backup::*;
use super::import::{read, ImportError};
use crate::builtin::memory::{encode_record, MemoryBook, MemoryRecord};
use crate::mcp::config::{ServerConfig, ServerList};
use crate::profiles::ProviderProfile;
use crate::projects::Project;
use crate::provider::ProviderKind;
use crate::records::conversation::Conversation;
use crate::records::mask::Mask;
use crate::records::message::{Message, Role};
use crate::settings::{ChatSettings, Theme};

fn used_settings() -> ChatSettings {
    let mut profile = ProviderProfile::new("prof-1".into(), ProviderKind::OpenAiCompatible);
    profile.name = "Home llama".into();
    profile.api_key = "sk-secret-123".into();
    ChatSettings {
        profiles: vec![profile],
        theme: Theme::Dark,
        history_count: 12,
        masks: vec![Mask {
            id: "mask-1".into(),
            name: "Pirate".into(),
            ..Mask::default()
        }],
        projects: vec![Project {
            id: "proj-1".into(),
            name: "Garden".into(),
            instructions: "Balcony only.".into(),
            ..Project::default()
        }],
        ..ChatSettings::default()
    }
}

fn servers() -> ServerList {
    let mut s = ServerConfig::new("srv-1", "Everything", "http://127.0.0.1:3001/mcp");
    s.headers = vec![("Authorization".into(), "Bearer tok-456".into())];
    ServerList { servers: vec![s] }
}

fn conversation(id: &str, text: &str) -> Conversation {
    let mut c = Conversation::new(id.into(), 1_000.0);
    c.title = text.into();
    c.messages.push(Message::new(
        format!("{id}-m1"),
        Role::User,
        text.into(),
        1_000.0,
    ));
    c
}

fn memory() -> String {
    let mut book = MemoryBook::default();
    let _ = book.add("I water the basil on Sundays.", &["garden"], 5.0);
    encode_record(true, &book)
}

fn backup(include_keys: bool) -> String {
    write(
        &Parts {
            settings: &used_settings(),
            servers: &servers(),
            memory: &memory(),
            conversations: &[conversation("c1", "Basil?"), conversation("c2", "Mint?")],
            files: &[BackupFile {
                hash: "ab12".into(),
                mime: "image/png".into(),
                bytes: vec![137, 80, 78, 71, 0, 255],
            }],
            include_keys,
        },
        42.0,
    )
}

#[test]
fn a_backup_leaves_keys_and_headers_out_unless_asked() {
    let without = backup(false);
    assert!(!without.contains("sk-secret-123"), "{without}");
    assert!(!without.contains("tok-456"), "{without}");
    assert!(without.contains("\"keys_included\":false"));
    let with = backup(true);
    assert!(with.contains("sk-secret-123") && with.contains("tok-456"));
}

#[test]
fn a_backup_reads_back_whole_and_merges_into_a_fresh_browser() {
    let report = read(&backup(false), |_| false).expect("a backup");
    assert!(report.invalid.is_empty(), "{:?}", report.invalid);
    let titles: Vec<&str> = report.added.iter().map(|c| c.title.as_str()).collect();
    assert_eq!(titles, ["Basil?", "Mint?"]);
    let rest = report.backup.expect("the rest of the backup");
    assert_eq!(
        rest.files,
        [BackupFile {
            hash: "ab12".into(),
            mime: "image/png".into(),
            bytes: vec![137, 80, 78, 71, 0, 255],
        }]
    );
    assert!(rest.bad_files.is_empty());
    assert!(rest
        .mcp_servers
        .as_deref()
        .is_some_and(|m| m.contains("http://127.0.0.1:3001/mcp")));
    let book = MemoryRecord::decode(rest.memory.as_deref().unwrap_or("")).expect("memory");
    let mut here = MemoryBook::default();
    assert_eq!(here.merge(&book.book), 1);
    assert_eq!(
        here.merge(&book.book),
        0,
        "the same memory is not added twice"
    );

    let fresh = ChatSettings::default();
    let (merged, counts) =
        merge_settings(&fresh, rest.settings.as_deref().unwrap_or("")).expect("settings");
    assert_eq!(
        (counts.providers, counts.masks, counts.projects, counts.kept),
        (1, 1, 1, 0)
    );
    assert!(counts.taken >= 2, "theme and history count: {counts:?}");
    assert_eq!(merged.theme, Theme::Dark);
    assert_eq!(merged.history_count, 12);
    assert_eq!(merged.profiles[0].name, "Home llama");
    assert_eq!(merged.profiles[0].api_key, "", "no key in this backup");
    assert_eq!(merged.projects[0].instructions, "Balcony only.");
    assert_eq!(
        counts.parts(),
        [
            "1 provider",
            "1 mask",
            "1 project",
            &crate::format::count(counts.taken, "setting", "settings")
        ]
    );
    // Importing the same backup again adds nothing and changes nothing.
    let (again, counts) =
        merge_settings(&merged, rest.settings.as_deref().unwrap_or("")).expect("settings");
    assert_eq!(counts, SettingsMerge::default());
    assert_eq!(again, merged);
    let report = read(&backup(false), |id| id == "c1" || id == "c2").expect("a backup");
    assert!(report.added.is_empty());
    assert_eq!(report.skipped, ["Basil?", "Mint?"]);
}

#[test]
fn merging_never_replaces_what_the_user_has() {
    let mine = ChatSettings {
        theme: Theme::Light,
        profiles: vec![{
            let mut p = ProviderProfile::new("prof-1".into(), ProviderKind::Anthropic);
            p.name = "Mine".into();
            p.api_key = "my-key".into();
            p
        }],
        ..ChatSettings::default()
    };
    let raw = crate::settings::encode_settings(&used_settings());
    let (merged, counts) = merge_settings(&mine, &raw).expect("settings");
    assert_eq!(
        merged.theme,
        Theme::Light,
        "a changed setting keeps its value"
    );
    assert_eq!(counts.kept, 1);
    assert_eq!(merged.profiles.len(), 1, "same id: mine stays");
    assert_eq!(merged.profiles[0].name, "Mine");
    assert_eq!(merged.profiles[0].api_key, "my-key");
    assert_eq!(
        merged.history_count, 12,
        "a default takes the backup's value"
    );
}

#[test]
fn a_newer_or_damaged_backup_is_said_and_adds_nothing() {
    let newer = r#"{"format":"skiff-backup","version":9,"conversations":[]}"#;
    match read(newer, |_| false) {
        Err(ImportError::Backup(s)) => assert!(s.contains("newer Skiff (format version 9)"), "{s}"),
        other => panic!("{other:?}"),
    }
    let damaged = r#"{"format":"skiff-backup","version":1,"settings":"{not json","files":[{"hash":"x","mime":"image/png","data":"***"}],"conversations":[{"format":"skiff-conversation","version":1,"conversation":{"id":"bad id!"}}]}"#;
    let report = read(damaged, |_| false).expect("read, with what was wrong");
    assert!(report.added.is_empty());
    assert_eq!(report.invalid.len(), 1, "{:?}", report.invalid);
    let rest = report.backup.expect("rest");
    assert_eq!(rest.bad_files, ["File 1 of the backup is damaged."]);
    let err = merge_settings(
        &ChatSettings::default(),
        rest.settings.as_deref().unwrap_or(""),
    )
    .expect_err("unreadable settings");
    assert!(err.contains("settings"), "{err}");
}

/// A backup made by a Skiff whose settings record was version 1 (one provider in flat
/// fields) imports through the same migration storage uses.
#[test]
fn a_backup_from_an_earlier_skiff_imports() {
    let v1 = r#"{"v":1,"data":{"provider":"openai","base_url":"http://127.0.0.1:8080/v1","api_key":"","model":"qwen","system_prompt":"Be kind.","theme":"dark"}}"#;
    let file = serde_json::json!({
        "format": "skiff-backup", "version": 1, "settings": v1,
        "conversations": [], "files": []
    })
    .to_string();
    let rest = read(&file, |_| false)
        .expect("backup")
        .backup
        .expect("rest");
    let (merged, counts) = merge_settings(
        &ChatSettings::default(),
        rest.settings.as_deref().unwrap_or(""),
    )
    .expect("settings");
    assert_eq!(counts.providers, 1, "{counts:?}");
    assert_eq!(merged.profiles[0].base_url, "http://127.0.0.1:8080/v1");
    assert_eq!(merged.system_prompt, "Be kind.");
    assert_eq!(merged.theme, Theme::Dark);
}

#[test]
fn the_file_is_named_for_the_users_day() {
    // 2026-11-24 23:30 UTC: still the 24th in UTC, already the 25th at UTC+1.
    let t = 1_795_563_000_000.0;
    assert_eq!(file_name(t, 0), "skiff-backup-2026-11-24.json");
    assert_eq!(file_name(t, 60), "skiff-backup-2026-11-25.json");
    assert_eq!(file_name(f64::NAN, 0), "skiff-backup-1970-01-01.json");
}

#[test]
fn the_import_sentence_says_what_each_store_added_kept_and_skipped() {
    let fresh = Merged {
        settings: Some(Ok(SettingsMerge {
            providers: 1,
            masks: 1,
            projects: 1,
            taken: 3,
            kept: 0,
        })),
        servers: Some(Ok((1, 0))),
        memories: Some(Ok(1)),
        files: 1,
        ..Merged::default()
    };
    assert_eq!(
        fresh.sentence("Added 1 conversation."),
        "Added 1 conversation. From the backup: 1 provider, 1 mask, 1 project, 3 settings, 1 MCP server, 1 memory, 1 file."
    );
    let again = Merged {
        settings: Some(Ok(SettingsMerge {
            kept: 2,
            ..SettingsMerge::default()
        })),
        servers: Some(Ok((0, 1))),
        memories: Some(Ok(0)),
        bad_files: vec!["File 2 of the backup is damaged.".into()],
        file_problems: vec![file_mismatch(3)],
        ..Merged::default()
    };
    assert_eq!(
        again.sentence("Added 0 conversations; skipped 1 already here."),
        "Added 0 conversations; skipped 1 already here. File 2 of the backup is damaged. \
         Kept your own value for 2 settings the backup has differently. \
         1 MCP server skipped (already here, or unusable). \
         File 3 of the backup is not the file its conversation names; it was stored but no message shows it."
    );
    let unreadable = Merged {
        settings: Some(Err("bad".into())),
        servers: Some(Err("worse".into())),
        memories: Some(Err("gone".into())),
        ..Merged::default()
    };
    assert_eq!(
        unreadable.sentence("Added 0 conversations."),
        "Added 0 conversations. Its settings could not be read: bad Its MCP servers could not be read: worse Its memory could not be read: gone"
    );
}
