//! Masks: built-ins, the editor's values → a mask, the list's actions, and a conversation's
//! copy surviving the stored record.

use super::*;
use crate::persist::{decode_conversation, encode_conversation};
use crate::records::model_choice::ModelChoice;

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[test]
fn builtins_are_marked_unique_and_findable_but_a_users_mask_comes_first() {
    let b = builtins();
    assert!(b.len() >= 3);
    assert!(b
        .iter()
        .all(|m| m.is_builtin() && !m.context.is_empty() && !m.emoji.is_empty()));
    let mut ids: Vec<&str> = b.iter().map(|m| m.id.as_str()).collect();
    ids.dedup();
    assert_eq!(ids.len(), b.len());
    assert_eq!(
        find(&[], "builtin-translator").map(|m| m.name),
        Some("Translator".into())
    );
    let mine = Mask {
        id: "u1".into(),
        name: "Mine".into(),
        ..Mask::default()
    };
    assert_eq!(find(std::slice::from_ref(&mine), "u1"), Some(mine.clone()));
    assert_eq!(find(&[mine], "nope"), None);
    let copy = b[0].duplicate("u2".into());
    assert!(!copy.is_builtin());
    assert_eq!(copy.name, "Translator (copy)");
    assert_eq!(copy.context, b[0].context);
    assert_eq!(b[0].label(), "🌐 Translator");
}

#[test]
fn the_editors_values_become_a_mask() {
    let (m, errors) = mask_from_pairs(
        "u1",
        &pairs(&[
            ("name", "  Pirate "),
            ("emoji", "🏴‍☠️"),
            ("profile", "p1"),
            ("model", " gpt-x "),
            ("temperature", "1.25"),
            ("top_p", ""),
            ("max_tokens", "512"),
            ("input_template", "Q: {{input}}"),
            ("role", "system"),
            ("content", "Talk like a pirate."),
            ("role", "user"),
            ("content", ""),
            ("role", "assistant"),
            ("content", "Arr."),
        ]),
    );
    assert_eq!(errors, vec![]);
    assert_eq!(m.name, "Pirate");
    assert_eq!(
        m.model,
        Some(ModelChoice {
            profile_id: "p1".into(),
            model: "gpt-x".into()
        })
    );
    assert_eq!(
        (m.temperature, m.top_p, m.max_tokens),
        (Some(1.25), None, Some(512))
    );
    assert_eq!(m.context.len(), 3, "kept while editing");
    let m = m.tidy();
    assert_eq!(
        m.context,
        vec![
            ContextPrompt {
                role: Role::System,
                content: "Talk like a pirate.".into()
            },
            ContextPrompt {
                role: Role::Assistant,
                content: "Arr.".into()
            },
        ]
    );
    let msgs = m.context_messages(5.0);
    assert_eq!(msgs.len(), 2);
    assert_eq!(
        (msgs[1].role, msgs[1].content.as_str(), msgs[1].created_ms),
        (Role::Assistant, "Arr.", 5.0)
    );
}

#[test]
fn what_cannot_be_saved_is_said_per_field_and_what_was_typed_is_kept() {
    let (m, errors) = mask_from_pairs(
        "u1",
        &pairs(&[
            ("name", " "),
            ("temperature", "hot"),
            ("top_p", "1.5"),
            ("role", "user"),
            ("content", "keep me"),
        ]),
    );
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, ["name", "temperature", "top_p"]);
    assert!(errors[1].message.contains("“hot”"), "{:?}", errors[1]);
    assert_eq!(m.context[0].content, "keep me");
    let html = editor_html(&m, true, &[], &errors);
    assert!(
        html.contains(r#"<p class="error mask-error" id="mask-name-err">A mask needs a name.</p>"#),
        "{html}"
    );
    assert!(html.contains(r#"id="mask-temperature" name="temperature" type="number" value="hot" placeholder="The provider&#39;s" aria-invalid="true""#), "{html}");
    assert!(
        html.contains("3 fields need attention before the mask can be saved."),
        "{html}"
    );
    assert!(html.contains(">keep me</textarea>"), "{html}");
    let long = "x".repeat(MAX_NAME_CHARS + 1);
    let (_, errors) = mask_from_pairs("u1", &pairs(&[("name", &long)]));
    assert_eq!(errors.len(), 1);
}

#[test]
fn the_editor_shows_every_value_and_escapes_them() {
    let m = Mask {
        id: "u1".into(),
        name: "<b>x</b>".into(),
        emoji: "🎓".into(),
        context: vec![ContextPrompt {
            role: Role::Assistant,
            content: "</textarea><script>".into(),
        }],
        model: Some(ModelChoice {
            profile_id: "gone".into(),
            model: "m".into(),
        }),
        temperature: Some(0.7),
        ..Mask::default()
    };
    let profiles = [("p1".to_string(), "Local".to_string())];
    let html = editor_html(&m, false, &profiles, &[]);
    for part in [
        r#"<h3 id="mask-editor-title">Edit mask</h3>"#,
        r#"value="&lt;b&gt;x&lt;/b&gt;""#,
        r#"<option value="p1">Local</option><option value="gone" selected>A provider that no longer exists</option>"#,
        r#"value="0.7""#,
        r#"<option value="assistant" selected>assistant</option>"#,
        "&lt;/textarea&gt;&lt;script&gt;</textarea>",
        r#"data-act="remove:0" aria-label="Remove prompt 1""#,
        r#"data-act="add">Add prompt</button>"#,
        r#"data-act="save">Save</button>"#,
    ] {
        assert!(html.contains(part), "missing {part} in {html}");
    }
    assert!(!html.contains("<script>") && !html.contains("<b>"));
    assert!(!html.contains("mask-summary"));
}

#[test]
fn the_list_offers_edit_and_delete_only_for_the_users_masks_and_asks_before_deleting() {
    let mine = Mask {
        id: "u1".into(),
        name: "Mine".into(),
        ..Mask::default()
    };
    let b = builtins();
    let html = list_html(std::slice::from_ref(&mine), &b, None);
    assert!(html.find(r#"data-mask="u1""#) < html.find(r#"data-mask="builtin-translator""#));
    for part in [
        r#"data-act="chat:u1""#,
        r#"data-act="edit:u1""#,
        r#"data-act="delete:u1""#,
        r#"data-act="dup:builtin-translator""#,
        r#"data-act="chat:builtin-translator""#,
        r#"data-act="new""#,
        "0 prompts",
        "1 prompt · built in",
    ] {
        assert!(html.contains(part), "missing {part} in {html}");
    }
    assert!(
        !html.contains(r#"data-act="edit:builtin-"#)
            && !html.contains(r#"data-act="delete:builtin-"#)
    );
    let asking = list_html(&[mine], &b, Some("u1"));
    assert!(
        asking.contains(r#"data-act="delete-yes:u1""#) && asking.contains("Delete Mine?"),
        "{asking}"
    );
    assert!(!asking.contains(r#"data-act="chat:u1""#));
}

#[test]
fn a_conversation_keeps_its_copy_of_the_mask_in_its_record() {
    let mut c = crate::records::conversation::Conversation::new("c1".into(), 1.0);
    let plain = encode_conversation(&c);
    assert!(
        !plain.contains("mask"),
        "a conversation without a mask writes nothing new"
    );
    c.mask = Some(builtins().remove(0));
    let back = decode_conversation(&encode_conversation(&c)).expect("reads back");
    assert_eq!(back.mask, c.mask);
}

#[test]
fn settings_keep_the_users_masks_and_a_mask_overrides_sampling_only_where_set() {
    let mut s = crate::settings::ChatSettings::default();
    assert!(!crate::persist::encode_settings(&s).contains("masks"));
    s.masks.push(Mask {
        id: "u1".into(),
        name: "Mine".into(),
        top_p: Some(0.5),
        ..Mask::default()
    });
    s.target.temperature = Some(0.9);
    let back =
        crate::persist::decode_settings(&crate::persist::encode_settings(&s)).expect("reads back");
    assert_eq!(back.masks, s.masks);
    let applied = s.clone().with_mask(s.masks.first());
    assert_eq!(
        (applied.target.temperature, applied.target.top_p),
        (Some(0.9), Some(0.5))
    );
    assert_eq!(
        applied.input_template, s.input_template,
        "an empty template keeps the settings' one"
    );
    assert!(crate::persist::encode_settings(&applied).contains("\"masks\""));
    assert!(
        !crate::persist::encode_settings(&applied).contains("\"mask\":"),
        "the resolved mask is never stored"
    );
}

fn user_mask() -> Mask {
    Mask {
        id: "u1".into(),
        name: "Mine".into(),
        ..Mask::default()
    }
}

#[test]
fn the_panel_opens_edits_and_saves_a_new_mask_first_in_the_list() {
    let mut p = MaskPanel::default();
    let user = [user_mask()];
    assert_eq!(
        p.act("save", &[], &user, || "x".into()),
        Outcome::Nothing,
        "no editor, no save"
    );
    assert_eq!(
        p.act("new", &[], &user, || "n1".into()),
        Outcome::Draw {
            focus: "#mask-name".into()
        }
    );
    assert!(p.is_editing());
    let s = crate::settings::ChatSettings::default();
    assert!(p.html(&s).contains("New mask</h3>"));
    // Add keeps what was typed and puts the cursor in the new prompt.
    let typed = pairs(&[("name", "Pirate"), ("role", "system"), ("content", "Arr.")]);
    assert_eq!(
        p.act("add", &typed, &user, || unreachable!()),
        Outcome::Draw {
            focus: "#mask-content1".into()
        }
    );
    let html = p.html(&s);
    assert!(
        html.contains(r#"value="Pirate""#)
            && html.contains(">Arr.</textarea>")
            && html.contains(r#"id="mask-content1""#),
        "{html}"
    );
    // Save with the second prompt left empty: stored first, the empty prompt dropped.
    let typed = pairs(&[
        ("name", "Pirate"),
        ("role", "system"),
        ("content", "Arr."),
        ("role", "user"),
        ("content", ""),
    ]);
    match p.act("save", &typed, &user, || unreachable!()) {
        Outcome::Store { masks, focus } => {
            assert_eq!(
                masks.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
                ["n1", "u1"]
            );
            assert_eq!(masks[0].context.len(), 1);
            assert_eq!(focus, "[data-act=\"new\"]");
        }
        other => panic!("{other:?}"),
    }
    assert!(!p.is_editing());
}

#[test]
fn the_panel_keeps_the_editor_open_with_errors_and_edits_in_place() {
    let mut p = MaskPanel::default();
    let user = [
        user_mask(),
        Mask {
            id: "u2".into(),
            name: "Two".into(),
            ..Mask::default()
        },
    ];
    assert_eq!(
        p.act("edit:u2", &[], &user, || unreachable!()),
        Outcome::Draw {
            focus: "#mask-name".into()
        }
    );
    assert_eq!(
        p.act(
            "save",
            &pairs(&[("name", ""), ("top_p", "2")]),
            &user,
            || unreachable!()
        ),
        Outcome::Draw {
            focus: "#mask-name".into()
        }
    );
    let html = p.html(&crate::settings::ChatSettings::default());
    assert!(
        html.contains("Edit mask</h3>")
            && html.contains("A mask needs a name.")
            && html.contains("Top-p must be a number from 0 to 1"),
        "{html}"
    );
    match p.act(
        "save",
        &pairs(&[("name", "Second")]),
        &user,
        || unreachable!(),
    ) {
        Outcome::Store { masks, .. } => {
            assert_eq!(
                masks.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
                ["Mine", "Second"],
                "in place"
            );
        }
        other => panic!("{other:?}"),
    }
    // A built-in mask cannot be opened for editing; Cancel drops what was typed.
    assert_eq!(
        p.act("edit:builtin-translator", &[], &user, || unreachable!()),
        Outcome::Nothing
    );
    assert_eq!(
        p.act("dup:builtin-translator", &[], &user, || "d1".into()),
        Outcome::Draw {
            focus: "#mask-name".into()
        }
    );
    assert_eq!(
        p.act("cancel", &[], &user, || unreachable!()),
        Outcome::Draw {
            focus: "[data-act=\"new\"]".into()
        }
    );
    assert!(!p.is_editing());
}

#[test]
fn the_panel_asks_before_deleting_and_starts_chats_from_any_mask() {
    let mut p = MaskPanel::default();
    let user = [user_mask()];
    assert_eq!(
        p.act("delete:u1", &[], &user, || unreachable!()),
        Outcome::Draw {
            focus: "[data-act=\"delete-no\"]".into()
        }
    );
    let s = crate::settings::ChatSettings {
        masks: user.to_vec(),
        ..Default::default()
    };
    assert!(p.html(&s).contains("Delete Mine?"));
    assert_eq!(
        p.act("delete-no", &[], &user, || unreachable!()),
        Outcome::Draw {
            focus: String::new()
        }
    );
    assert!(!p.html(&s).contains("Delete Mine?"));
    p.act("delete:u1", &[], &user, || unreachable!());
    match p.act("delete-yes:u1", &[], &user, || unreachable!()) {
        Outcome::Store { masks, .. } => assert!(masks.is_empty()),
        other => panic!("{other:?}"),
    }
    match p.act("chat:builtin-teacher", &[], &user, || unreachable!()) {
        Outcome::Chat(m) => assert_eq!(m.name, "Patient teacher"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        p.act("chat:gone", &[], &user, || unreachable!()),
        Outcome::Nothing
    );
    assert_eq!(
        p.act("bogus", &[], &user, || unreachable!()),
        Outcome::Nothing
    );
}

#[test]
fn a_mask_record_reads_back_whole_and_stays_small() {
    let full = Mask {
        id: "u1".into(),
        name: "Pirate".into(),
        emoji: "🏴".into(),
        context: vec![
            ContextPrompt {
                role: Role::System,
                content: "Arr.".into(),
            },
            ContextPrompt {
                role: Role::Assistant,
                content: "Aye.".into(),
            },
        ],
        model: Some(ModelChoice {
            profile_id: "p1".into(),
            model: "m".into(),
        }),
        temperature: Some(0.7),
        top_p: Some(0.95),
        max_tokens: Some(512),
        input_template: "Q: {{input}}".into(),
    };
    let text = serde_json::to_string(&full).expect("writes");
    assert!(
        text.contains("\"temperature\":0.7,") && text.contains("\"top_p\":0.95"),
        "the numbers as typed: {text}"
    );
    assert_eq!(serde_json::from_str::<Mask>(&text).expect("reads"), full);
    let bare = Mask {
        id: "u2".into(),
        name: "Bare".into(),
        ..Mask::default()
    };
    assert_eq!(
        serde_json::to_string(&bare).expect("writes"),
        r#"{"id":"u2","name":"Bare"}"#
    );
    // A role from a newer build is kept as a system prompt; junk is refused, not guessed.
    let newer: Mask = serde_json::from_str(
        r#"{"id":"u3","name":"N","context":[{"role":"developer","content":"x"}],"later":1}"#,
    )
    .expect("reads");
    assert_eq!(
        newer.context,
        vec![ContextPrompt {
            role: Role::System,
            content: "x".into()
        }]
    );
    assert!(serde_json::from_str::<Mask>(r#"{"name":"no id"}"#).is_err());
    assert!(serde_json::from_str::<Mask>("[1]").is_err());
}

#[test]
fn the_chats_mask_line_names_the_mask_and_offers_to_drop_a_draft_one() {
    assert_eq!(mask_line_html(None, true), "", "no mask, no line");
    let m = Mask {
        id: "u1".into(),
        name: "<i>Pirate</i>".into(),
        emoji: "🏴".into(),
        ..Mask::default()
    };
    assert_eq!(
        mask_line_html(Some(&m), false),
        "Mask: <strong>🏴 &lt;i&gt;Pirate&lt;/i&gt;</strong>"
    );
    let draft = mask_line_html(Some(&m), true);
    assert!(
        draft.starts_with("New chat with the mask <strong>"),
        "{draft}"
    );
    assert!(
        draft.ends_with(
            r#"data-act="drop-mask" aria-label="Start without it">Start without it</button>"#
        ),
        "{draft}"
    );
}

#[test]
fn a_number_that_cannot_be_used_survives_add_and_save_with_its_sentence() {
    let mut p = MaskPanel::default();
    p.act("new", &[], &[], || "n1".into());
    let typed = pairs(&[
        ("name", "Hot"),
        ("temperature", "7"),
        ("role", "system"),
        ("content", "x"),
    ]);
    p.act("add", &typed, &[], || unreachable!());
    let s = crate::settings::ChatSettings::default();
    let html = p.html(&s);
    assert!(
        html.contains(r#"name="temperature" type="number" value="7""#),
        "kept as typed: {html}"
    );
    assert!(
        html.contains("Temperature must be a number from 0 to 2 (it reads “7”)."),
        "{html}"
    );
    assert_eq!(
        p.act("save", &typed, &[], || unreachable!()),
        Outcome::Draw {
            focus: "#mask-temperature".into()
        },
        "not saved without it"
    );
    assert!(p.html(&s).contains(r#"value="7""#));
}
