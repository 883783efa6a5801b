//! Masks: built-ins, the editor's fields → a mask, the panel's view and intents, and a
//! conversation's copy surviving the stored record.

use super::*;
use crate::form::{Choice, Field};
use crate::persist::{decode_conversation, encode_conversation};
use crate::records::model_choice::ModelChoice;

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

fn draft(edits: Vec<MaskEdit>, prompts: &[(Role, &str)]) -> MaskDraft {
    let mut d = MaskDraft {
        prompts: prompts
            .iter()
            .map(|(role, content)| ContextPrompt {
                role: *role,
                content: content.to_string(),
            })
            .collect(),
        ..MaskDraft::default()
    };
    for e in edits {
        d.apply(e);
    }
    d
}

#[test]
fn the_editors_values_become_a_mask() {
    let d = draft(
        vec![
            MaskEdit::Name("  Pirate ".into()),
            MaskEdit::Emoji("🏴‍☠️".into()),
            MaskEdit::Profile("p1".into()),
            MaskEdit::Model(" gpt-x ".into()),
            MaskEdit::Temperature("1.25".into()),
            MaskEdit::TopP("".into()),
            MaskEdit::MaxTokens("512".into()),
            MaskEdit::InputTemplate("Q: {{input}}".into()),
            MaskEdit::Role(2, Role::Assistant),
            MaskEdit::Prompt(2, "Arr.".into()),
            MaskEdit::Prompt(7, "no such prompt".into()),
        ],
        &[
            (Role::System, "Talk like a pirate."),
            (Role::User, ""),
            (Role::User, ""),
        ],
    );
    let (m, errors) = d.read("u1");
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
    // The editor opened on a mask shows it as typed, back to the same mask.
    assert_eq!(MaskDraft::of(&m).read("u1").0, m);
    assert_eq!(MaskDraft::of(&m).temperature, "1.25");
}

fn open_new(p: &mut MaskPanel) {
    assert_eq!(
        p.act(MaskIntent::New, &[], || "n1".into()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Name))
        }
    );
}

fn editor(p: &MaskPanel) -> MaskEditor {
    p.view(&crate::settings::ChatSettings::default())
        .editor()
        .cloned()
        .expect("the editor is open")
}

#[test]
fn what_cannot_be_saved_is_said_per_field_and_what_was_typed_is_kept() {
    let mut p = MaskPanel::default();
    open_new(&mut p);
    for edit in [
        MaskEdit::Name(" ".into()),
        MaskEdit::Temperature("hot".into()),
        MaskEdit::TopP("1.5".into()),
        MaskEdit::Role(0, Role::User),
        MaskEdit::Prompt(0, "keep me".into()),
    ] {
        assert_eq!(
            p.act(MaskIntent::Change(edit), &[], || unreachable!()),
            Outcome::Show { focus: None }
        );
    }
    assert_eq!(editor(&p).summary, None, "no sentence before Save");
    assert_eq!(
        p.act(MaskIntent::Save, &[], || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Name))
        },
        "the cursor goes to the first field that needs attention"
    );
    let e = editor(&p);
    assert_eq!(e.name, Field::new(" ", Some("A mask needs a name.".into())));
    assert_eq!(
        e.temperature,
        Field::new(
            "hot",
            Some("Temperature must be a number from 0 to 2 (it reads “hot”).".into())
        ),
        "shown as typed, with its sentence"
    );
    assert!(e.top_p.error.is_some() && e.emoji.error.is_none() && e.model.error.is_none());
    assert_eq!(
        e.summary.as_deref(),
        Some("3 fields need attention before the mask can be saved.")
    );
    assert_eq!(
        e.prompts,
        vec![PromptRow {
            role: Role::User,
            content: Field::new("keep me", None)
        }]
    );
    let long = "x".repeat(MAX_NAME_CHARS + 1);
    let (_, errors) = draft(vec![MaskEdit::Name(long)], &[]).read("u1");
    assert_eq!(errors.len(), 1);
    let many = vec![(Role::User, "x"); MAX_CONTEXT_PROMPTS + 1];
    let (_, errors) = draft(vec![MaskEdit::Name("n".into())], &many).read("u1");
    assert_eq!(
        errors,
        vec![FieldError {
            field: MaskField::Prompts,
            message: format!("A mask has at most {MAX_CONTEXT_PROMPTS} prompts.")
        }]
    );
}

#[test]
fn the_editor_shows_every_value_and_neutralises_nothing_typed() {
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
    let s = crate::settings::ChatSettings {
        profiles: vec![crate::profiles::ProviderProfile {
            name: "Local".into(),
            ..crate::profiles::ProviderProfile::new(
                "p1".into(),
                crate::provider::ProviderKind::OpenAiCompatible,
            )
        }],
        masks: vec![m.clone()],
        ..Default::default()
    };
    let mut p = MaskPanel::default();
    p.act(MaskIntent::Edit("u1".into()), &s.masks, || unreachable!());
    let view = p.view(&s);
    let e = view.editor().expect("editor");
    assert_eq!(e.title, "Edit mask");
    assert_eq!(
        e.name.value, "<b>x</b>",
        "text is text: the page escapes it"
    );
    assert_eq!(
        e.profiles,
        vec![
            Choice::new("", "The chat's own choice"),
            Choice::new("p1", "Local"),
            Choice::new("gone", "A provider that no longer exists"),
        ],
        "a deleted provider stays chosen rather than silently dropped"
    );
    assert_eq!(e.profile.value, "gone");
    assert_eq!(e.model.value, "m");
    assert_eq!(e.temperature.value, "0.7");
    assert_eq!(e.max_tokens.value, "");
    assert_eq!(e.prompts[0].role, Role::Assistant);
    assert_eq!(e.prompts[0].content.value, "</textarea><script>");
    assert_eq!(e.summary, None);
    assert_eq!(e.field(MaskField::Temperature), &e.temperature);
    assert_eq!(e.field(MaskField::Prompt(0)), &e.prompts[0].content);
    assert_eq!(e.field(MaskField::Prompt(9)), &Field::default());
    assert_eq!(MaskField::Prompt(3).id(), "mask-content3");
    assert_eq!(MaskField::TopP.id(), "mask-top_p");
    assert_eq!(MaskField::Prompts.id(), "mask-add");
    assert_eq!(
        PROMPT_ROLES.map(Role::as_str),
        ["system", "user", "assistant"]
    );
}

#[test]
fn the_list_offers_edit_and_delete_only_for_the_users_masks_and_asks_before_deleting() {
    let mine = Mask {
        id: "u1".into(),
        name: "Mine".into(),
        ..Mask::default()
    };
    let s = crate::settings::ChatSettings {
        masks: vec![mine],
        ..Default::default()
    };
    let mut p = MaskPanel::default();
    let MaskView::List(rows) = p.view(&s) else {
        panic!("the list")
    };
    assert_eq!(rows[0].id, "u1", "the user's masks first");
    assert_eq!(rows.len(), 1 + builtins().len());
    assert_eq!(
        rows[0].actions,
        [
            RowAction::Chat,
            RowAction::Edit,
            RowAction::Duplicate,
            RowAction::Delete
        ]
    );
    assert_eq!(rows[0].about, "0 prompts");
    let translator = &rows[1];
    assert_eq!(
        (
            translator.id.as_str(),
            translator.label.as_str(),
            translator.about.as_str()
        ),
        ("builtin-translator", "🌐 Translator", "1 prompt · built in")
    );
    assert_eq!(translator.actions, [RowAction::Chat, RowAction::Duplicate]);
    assert_eq!(
        RowAction::Chat.aria(&translator.label),
        "New chat with 🌐 Translator"
    );
    assert_eq!(
        RowAction::Duplicate.intent(&translator.id),
        MaskIntent::Duplicate("builtin-translator".into())
    );
    assert_eq!(
        p.act(MaskIntent::Delete("u1".into()), &s.masks, || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::Keep)
        }
    );
    let MaskView::List(rows) = p.view(&s) else {
        panic!("the list")
    };
    assert_eq!(rows[0].question.as_deref(), Some("Delete Mine?"));
    assert_eq!(rows[0].actions, [RowAction::DeleteForGood, RowAction::Keep]);
    assert_eq!(
        RowAction::DeleteForGood.aria("Mine"),
        "Delete Mine for good"
    );
    assert!(RowAction::DeleteForGood.danger() && !RowAction::Keep.danger());
    assert_eq!(rows[1].question, None, "only that row asks");
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
    assert!(!crate::settings::encode_settings(&s).contains("masks"));
    s.masks.push(Mask {
        id: "u1".into(),
        name: "Mine".into(),
        top_p: Some(0.5),
        ..Mask::default()
    });
    s.target.temperature = Some(0.9);
    let back = crate::settings::decode_settings(&crate::settings::encode_settings(&s))
        .expect("reads back");
    assert_eq!(back.masks, s.masks);
    let applied = crate::settings::TurnSettings::with_target(s.clone(), s.masks.first(), None);
    assert_eq!(applied.mask.as_ref(), s.masks.first());
    let applied = applied.settings;
    assert_eq!(
        (applied.target.temperature, applied.target.top_p),
        (Some(0.9), Some(0.5))
    );
    assert_eq!(
        applied.input_template, s.input_template,
        "an empty template keeps the settings' one"
    );
    assert!(crate::settings::encode_settings(&applied).contains("\"masks\""));
    assert!(
        !crate::settings::encode_settings(&applied).contains("\"mask\":"),
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

fn change(p: &mut MaskPanel, edit: MaskEdit) {
    p.act(MaskIntent::Change(edit), &[], || unreachable!());
}

#[test]
fn the_panel_opens_edits_and_saves_a_new_mask_first_in_the_list() {
    let mut p = MaskPanel::default();
    let user = [user_mask()];
    assert_eq!(
        p.act(MaskIntent::Save, &user, || "x".into()),
        Outcome::Show { focus: None },
        "no editor, no save"
    );
    assert!(!p.is_editing());
    assert_eq!(
        p.act(MaskIntent::New, &user, || "n1".into()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Name))
        }
    );
    assert!(p.is_editing());
    let e = editor(&p);
    assert_eq!(e.title, "New mask");
    assert_eq!(
        e.prompts,
        vec![PromptRow {
            role: Role::System,
            content: Field::default()
        }],
        "a new mask starts with one empty system prompt"
    );
    // Add keeps what was typed and puts the cursor in the new prompt.
    change(&mut p, MaskEdit::Name("Pirate".into()));
    change(&mut p, MaskEdit::Prompt(0, "Arr.".into()));
    assert_eq!(
        p.act(MaskIntent::AddPrompt, &user, || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Prompt(1)))
        }
    );
    let e = editor(&p);
    assert_eq!(e.name.value, "Pirate");
    assert_eq!(
        e.prompts
            .iter()
            .map(|r| (r.role, r.content.value.as_str()))
            .collect::<Vec<_>>(),
        [(Role::System, "Arr."), (Role::User, "")]
    );
    assert_eq!(MaskFocus::Field(MaskField::Prompt(1)).id(), "mask-content1");
    // The list's intents do nothing while the editor is open.
    assert_eq!(
        p.act(MaskIntent::Delete("u1".into()), &user, || unreachable!()),
        Outcome::Show { focus: None }
    );
    assert!(p.is_editing());
    // Save with the second prompt left empty: stored first, the empty prompt dropped.
    match p.act(MaskIntent::Save, &user, || unreachable!()) {
        Outcome::Store { masks, focus } => {
            assert_eq!(
                masks.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
                ["n1", "u1"]
            );
            assert_eq!(masks[0].context.len(), 1);
            assert_eq!(focus, MaskFocus::New);
            assert_eq!(focus.id(), "mask-new");
        }
        other => panic!("{other:?}"),
    }
    assert!(!p.is_editing());
}

#[test]
fn remove_takes_the_prompt_out_and_its_row_numbers_shift() {
    let mut p = MaskPanel::default();
    open_new(&mut p);
    change(&mut p, MaskEdit::Name("n".into()));
    for i in 0..3 {
        p.act(MaskIntent::AddPrompt, &[], || unreachable!());
        change(&mut p, MaskEdit::Prompt(i + 1, format!("p{}", i + 1)));
    }
    assert_eq!(editor(&p).prompts.len(), 4);
    assert_eq!(
        p.act(MaskIntent::RemovePrompt(1), &[], || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Prompts))
        },
        "the cursor goes to Add prompt"
    );
    let texts: Vec<String> = editor(&p)
        .prompts
        .into_iter()
        .map(|r| r.content.value)
        .collect();
    assert_eq!(texts, ["", "p2", "p3"]);
    p.act(MaskIntent::RemovePrompt(9), &[], || unreachable!());
    assert_eq!(
        editor(&p).prompts.len(),
        3,
        "no such prompt, nothing removed"
    );
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
        p.act(MaskIntent::Edit("u2".into()), &user, || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Name))
        }
    );
    assert_eq!(editor(&p).name.value, "Two");
    change(&mut p, MaskEdit::Name("".into()));
    change(&mut p, MaskEdit::TopP("2".into()));
    assert_eq!(
        p.act(MaskIntent::Save, &user, || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Name))
        }
    );
    let e = editor(&p);
    assert_eq!(e.title, "Edit mask");
    assert_eq!(e.name.error.as_deref(), Some("A mask needs a name."));
    assert!(e
        .top_p
        .error
        .as_deref()
        .is_some_and(|m| m.starts_with("Top-p must be a number from 0 to 1")));
    // Typing does not take the sentence away: the next Save decides.
    change(&mut p, MaskEdit::Name("Second".into()));
    change(&mut p, MaskEdit::TopP("".into()));
    assert!(editor(&p).name.error.is_some());
    match p.act(MaskIntent::Save, &user, || unreachable!()) {
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
        p.act(
            MaskIntent::Edit("builtin-translator".into()),
            &user,
            || unreachable!()
        ),
        Outcome::Show { focus: None }
    );
    assert!(!p.is_editing());
    assert_eq!(
        p.act(
            MaskIntent::Duplicate("builtin-translator".into()),
            &user,
            || "d1".into()
        ),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Name))
        }
    );
    assert_eq!(editor(&p).name.value, "Translator (copy)");
    assert_eq!(
        p.act(MaskIntent::Cancel, &user, || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::New)
        }
    );
    assert!(!p.is_editing());
}

#[test]
fn the_panel_asks_before_deleting_and_starts_chats_from_any_mask() {
    let mut p = MaskPanel::default();
    let user = [user_mask()];
    let s = crate::settings::ChatSettings {
        masks: user.to_vec(),
        ..Default::default()
    };
    let asking = |p: &MaskPanel| match p.view(&s) {
        MaskView::List(rows) => rows[0].question.clone(),
        MaskView::Editor(_) => panic!("the list"),
    };
    p.act(MaskIntent::Delete("u1".into()), &user, || unreachable!());
    assert_eq!(asking(&p).as_deref(), Some("Delete Mine?"));
    assert_eq!(
        p.act(MaskIntent::Keep, &user, || unreachable!()),
        Outcome::Show { focus: None }
    );
    assert_eq!(asking(&p), None);
    p.act(MaskIntent::Delete("u1".into()), &user, || unreachable!());
    match p.act(
        MaskIntent::DeleteForGood("u1".into()),
        &user,
        || unreachable!(),
    ) {
        Outcome::Store { masks, focus } => {
            assert!(masks.is_empty());
            assert_eq!(focus, MaskFocus::New);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(asking(&p), None);
    match p.act(
        MaskIntent::Chat("builtin-teacher".into()),
        &user,
        || unreachable!(),
    ) {
        Outcome::Chat(m) => assert_eq!(m.name, "Patient teacher"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        p.act(MaskIntent::Chat("gone".into()), &user, || unreachable!()),
        Outcome::Show { focus: None }
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
fn a_number_that_cannot_be_used_survives_add_and_save_with_its_sentence() {
    let mut p = MaskPanel::default();
    open_new(&mut p);
    change(&mut p, MaskEdit::Name("Hot".into()));
    change(&mut p, MaskEdit::Temperature("7".into()));
    change(&mut p, MaskEdit::Prompt(0, "x".into()));
    p.act(MaskIntent::AddPrompt, &[], || unreachable!());
    assert_eq!(
        editor(&p).temperature,
        Field::new(
            "7",
            Some("Temperature must be a number from 0 to 2 (it reads “7”).".into())
        ),
        "kept as typed, and said at once"
    );
    assert_eq!(
        p.act(MaskIntent::Save, &[], || unreachable!()),
        Outcome::Show {
            focus: Some(MaskFocus::Field(MaskField::Temperature))
        },
        "not saved without it"
    );
    assert_eq!(editor(&p).temperature.value, "7");
    assert_eq!(MaskField::Temperature.id(), "mask-temperature");
}
