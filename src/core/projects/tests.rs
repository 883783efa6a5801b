use super::*;
use crate::form::{Choice, Field};
use crate::records::conversation::ConversationSummary;
use crate::sidebar::{rows, Row, PINNED};

fn project(id: &str, name: &str) -> Project {
    Project {
        id: id.into(),
        name: name.into(),
        ..Project::default()
    }
}

/// Types `name`, `instructions` and picks `mask` in the open editor, then saves.
fn save(panel: &mut ProjectPanel, projects: &[Project], fields: [&str; 3]) -> Outcome {
    let [name, instructions, mask] = fields.map(String::from);
    for edit in [
        ProjectEdit::Name(name),
        ProjectEdit::Instructions(instructions),
        ProjectEdit::Mask(mask),
    ] {
        assert_eq!(
            panel.act(ProjectIntent::Change(edit), projects, || unreachable!()),
            Outcome::Show { focus: None }
        );
    }
    panel.act(ProjectIntent::Save, projects, || unreachable!())
}

fn editor(panel: &ProjectPanel, masks: &[(String, String)]) -> ProjectEditor {
    panel
        .view(&[], masks, |_| 0)
        .editor()
        .cloned()
        .expect("the editor is open")
}

fn list_rows(panel: &ProjectPanel, projects: &[Project], n: usize) -> Vec<ProjectRow> {
    match panel.view(projects, &[], |_| n) {
        ProjectView::List(rows) => rows,
        ProjectView::Editor(_) => panic!("the list"),
    }
}

#[test]
fn the_record_round_trips_and_leaves_empty_fields_out() {
    let full = Project {
        id: "p1".into(),
        name: "Garden".into(),
        instructions: "Be brief.".into(),
        mask: Some("builtin-translator".into()),
        collapsed: true,
    };
    let json = serde_json::to_string(&full).unwrap_or_default();
    assert_eq!(
        json,
        r#"{"collapsed":true,"id":"p1","instructions":"Be brief.","mask":"builtin-translator","name":"Garden"}"#
    );
    assert_eq!(serde_json::from_str::<Project>(&json).ok(), Some(full));
    let bare = project("p2", "");
    assert_eq!(
        serde_json::to_string(&bare).unwrap_or_default(),
        r#"{"id":"p2","name":""}"#
    );
    // Absent fields take defaults; no id is refused; wrong types read as absent.
    assert_eq!(
        serde_json::from_str::<Project>(r#"{"id":"p3","collapsed":"yes","mask":7}"#).ok(),
        Some(project("p3", ""))
    );
    assert!(serde_json::from_str::<Project>(r#"{"name":"x"}"#).is_err());
    assert!(serde_json::from_str::<Project>("[1]").is_err());
}

#[test]
fn settings_keep_projects_and_older_settings_have_none() {
    let s = crate::settings::ChatSettings {
        projects: vec![project("p1", "Garden")],
        ..Default::default()
    };
    let raw = crate::settings::encode_settings(&s);
    let back = crate::settings::decode_settings(&raw).expect("settings");
    assert_eq!(back.projects, s.projects);
    let plain = crate::settings::encode_settings(&crate::settings::ChatSettings::default());
    assert!(!plain.contains("projects"), "{plain}");
    assert!(crate::settings::decode_settings(&plain)
        .expect("settings")
        .projects
        .is_empty());
}

#[test]
fn instructions_name_the_project_on_one_line() {
    let mut p = project("p1", "A\nB");
    assert_eq!(p.instructions_text(), "", "no instructions, nothing sent");
    p.instructions = "  Use metric units.\n".into();
    assert_eq!(
        p.instructions_text(),
        "This conversation belongs to the project “A B”. The project's instructions:\nUse metric units."
    );
    assert_eq!(project("x", "  ").label(), "Untitled project");
    assert_eq!(find(&[p.clone()], Some("p1")), Some(&p));
    assert_eq!(find(&[p], Some("gone")), None);
}

fn summary(id: &str, updated_ms: f64, project: Option<&str>, pinned: bool) -> ConversationSummary {
    ConversationSummary {
        id: id.into(),
        title: id.into(),
        updated_ms,
        pinned,
        project: project.map(String::from),
    }
}

const NOW: f64 = 1_795_514_400_000.0;

#[test]
fn the_sidebar_shows_pinned_then_projects_then_dates() {
    let mut items = vec![
        summary("loose-today", NOW - 1000.0, None, false),
        summary("garden-1", NOW - 2000.0, Some("g"), false),
        summary("pinned-in-garden", NOW - 3000.0, Some("g"), true),
        summary("orphan", NOW - 86_400_000.0, Some("deleted"), false),
        summary("garden-2", NOW - 5.0 * 86_400_000.0, Some("g"), false),
    ];
    crate::persist::sort_index(&mut items);
    let projects = [project("g", "Garden"), project("w", "Work")];
    let r = rows(&items, &projects, NOW, 0);
    let shown: Vec<String> = r
        .iter()
        .map(|row| match row {
            Row::Group(l) => format!("# {l}"),
            Row::Project { project, count } => format!("P {} {count}", projects[*project].name),
            Row::Conversation {
                index,
                position,
                nested,
            } => format!(
                "{}{} {position}",
                if *nested { "  " } else { "" },
                items[*index].id
            ),
        })
        .collect();
    assert_eq!(
        shown,
        [
            format!("# {PINNED}"),
            "pinned-in-garden 1".into(),
            "P Garden 2".into(),
            "  garden-1 2".into(),
            "  garden-2 3".into(),
            "P Work 0".into(),
            "# Today".into(),
            "loose-today 4".into(),
            "# Yesterday".into(),
            "orphan 5".into(),
        ]
    );
    // Collapsed: the heading with its count, and the positions stay dense.
    let collapsed = [
        Project {
            collapsed: true,
            ..project("g", "Garden")
        },
        project("w", "Work"),
    ];
    let r = rows(&items, &collapsed, NOW, 0);
    assert!(r.contains(&Row::Project {
        project: 0,
        count: 2
    }));
    let positions: Vec<usize> = r
        .iter()
        .filter_map(|row| match row {
            Row::Conversation { position, .. } => Some(*position),
            _ => None,
        })
        .collect();
    assert_eq!(positions, [1, 2, 3]);
}

#[test]
fn the_panel_creates_edits_and_deletes_projects() {
    let mut panel = ProjectPanel::default();
    let none: &[Project] = &[];
    assert_eq!(list_rows(&panel, none, 0), vec![], "No projects yet.");
    assert_eq!(
        panel.act(ProjectIntent::New, none, || "p1".into()),
        Outcome::Show {
            focus: Some(ProjectFocus::Name)
        }
    );
    assert!(panel.is_editing());
    let masks = [(
        "builtin-translator".to_string(),
        "🌐 Translator".to_string(),
    )];
    let e = editor(&panel, &masks);
    assert_eq!(e.title, "New project");
    assert_eq!(
        e.masks,
        vec![
            Choice::new("", "No mask"),
            Choice::new("builtin-translator", "🌐 Translator")
        ]
    );
    assert_eq!(e.mask, "", "no mask chosen");
    // An empty name is refused with a sentence, keeping what was typed.
    assert_eq!(
        save(&mut panel, none, ["  ", "Be brief.", ""]),
        Outcome::Show {
            focus: Some(ProjectFocus::Name)
        }
    );
    let e = editor(&panel, &masks);
    assert_eq!(
        e.name,
        Field::new("  ", Some("A project needs a name.".into()))
    );
    assert_eq!(e.instructions, "Be brief.");
    let Outcome::Store { projects, focus } = save(
        &mut panel,
        none,
        [" Garden ", "Be brief.\n", "builtin-translator"],
    ) else {
        panic!("saved")
    };
    assert_eq!(focus, ProjectFocus::New);
    assert_eq!(
        projects,
        [Project {
            id: "p1".into(),
            name: "Garden".into(),
            instructions: "Be brief.".into(),
            mask: Some("builtin-translator".into()),
            collapsed: false,
        }]
    );
    assert!(!panel.is_editing());
    // A second one with the same name (any case) is refused.
    panel.act(ProjectIntent::New, &projects, || "p2".into());
    save(&mut panel, &projects, ["GARDEN", "", ""]);
    assert_eq!(
        editor(&panel, &[]).name.error.as_deref(),
        Some("There is already a project named “GARDEN”.")
    );
    assert_eq!(
        panel.act(ProjectIntent::Cancel, &projects, || "x".into()),
        Outcome::Show {
            focus: Some(ProjectFocus::New)
        }
    );
    // Edit keeps the id and the collapsed state, and shows what is stored.
    let stored = [Project {
        collapsed: true,
        ..projects[0].clone()
    }];
    panel.act(ProjectIntent::Edit("p1".into()), &stored, || "x".into());
    let e = editor(&panel, &masks);
    assert_eq!(
        (e.title, e.name.value.as_str(), e.mask.as_str()),
        ("Edit project", "Garden", "builtin-translator")
    );
    let Outcome::Store { projects, .. } = save(&mut panel, &stored, ["Yard", "", ""]) else {
        panic!("saved")
    };
    assert_eq!(
        (
            projects[0].name.as_str(),
            projects[0].mask.clone(),
            projects[0].collapsed
        ),
        ("Yard", None, true)
    );
    // The list: each project with its count and buttons.
    let list = list_rows(&panel, &projects, 3);
    assert_eq!(list[0].about, "3 conversations");
    assert_eq!(
        list[0].actions,
        [RowAction::Chat, RowAction::Edit, RowAction::Delete]
    );
    assert_eq!(RowAction::Chat.aria(&list[0].label), "New chat in Yard");
    // Delete asks once more; Keep keeps; Delete removes only the project.
    assert_eq!(
        panel.act(ProjectIntent::Delete("p1".into()), &projects, || "x".into()),
        Outcome::Show {
            focus: Some(ProjectFocus::Keep)
        }
    );
    let list = list_rows(&panel, &projects, 3);
    assert_eq!(
        list[0].question.as_deref(),
        Some("Delete Yard? Its conversations stay, outside any project.")
    );
    assert_eq!(list[0].actions, [RowAction::DeleteForGood, RowAction::Keep]);
    assert_eq!(
        panel.act(ProjectIntent::Keep, &projects, || "x".into()),
        Outcome::Show { focus: None }
    );
    assert_eq!(list_rows(&panel, &projects, 3)[0].question, None);
    panel.act(ProjectIntent::Delete("p1".into()), &projects, || "x".into());
    assert_eq!(
        panel.act(ProjectIntent::DeleteForGood("p1".into()), &projects, || "x"
            .into()),
        Outcome::Store {
            projects: vec![],
            focus: ProjectFocus::New
        }
    );
    assert_eq!(
        panel.act(ProjectIntent::Chat("p1".into()), &projects, || "x".into()),
        Outcome::Chat(projects[0].clone())
    );
    assert_eq!(
        panel.act(ProjectIntent::Chat("gone".into()), &projects, || "x".into()),
        Outcome::Show { focus: None }
    );
    assert_eq!(ProjectFocus::Name.id(), "project-name");
}

#[test]
fn the_panel_neutralises_names_and_ignores_intents_out_of_place() {
    let hostile = project("p1", "evil\u{202e}txt");
    let list = list_rows(&ProjectPanel::default(), std::slice::from_ref(&hostile), 1);
    assert_eq!(list[0].label, "evil<U+202E>txt");
    assert_eq!(list[0].about, "1 conversation");
    let mut panel = ProjectPanel::default();
    assert_eq!(
        panel.act(ProjectIntent::Save, &[], || unreachable!()),
        Outcome::Show { focus: None },
        "no editor, no save"
    );
    panel.act(
        ProjectIntent::Edit("p1".into()),
        std::slice::from_ref(&hostile),
        || unreachable!(),
    );
    assert_eq!(
        panel.act(
            ProjectIntent::Delete("p1".into()),
            &[hostile],
            || unreachable!()
        ),
        Outcome::Show { focus: None },
        "the list's intents wait while the editor is open"
    );
    assert!(panel.is_editing());
}
