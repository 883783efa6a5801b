use super::*;
use crate::records::conversation::ConversationSummary;
use crate::sidebar::{rows, Row, PINNED};

fn project(id: &str, name: &str) -> Project {
    Project {
        id: id.into(),
        name: name.into(),
        ..Project::default()
    }
}

fn pairs(name: &str, instructions: &str, mask: &str) -> Vec<(String, String)> {
    vec![
        ("name".into(), name.into()),
        ("instructions".into(), instructions.into()),
        ("mask".into(), mask.into()),
    ]
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
    let raw = crate::persist::encode_settings(&s);
    let back = crate::persist::decode_settings(&raw).expect("settings");
    assert_eq!(back.projects, s.projects);
    let plain = crate::persist::encode_settings(&crate::settings::ChatSettings::default());
    assert!(!plain.contains("projects"), "{plain}");
    assert!(crate::persist::decode_settings(&plain)
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
    let list = panel.html(none, &[], |_| 0);
    assert!(list.contains("No projects yet.") && list.contains("data-act=\"new\""));
    assert_eq!(
        panel.act("new", &[], none, || "p1".into()),
        Outcome::Draw {
            focus: "#project-name".into()
        }
    );
    assert!(panel.is_editing());
    let masks = [(
        "builtin-translator".to_string(),
        "🌐 Translator".to_string(),
    )];
    let editor = panel.html(none, &masks, |_| 0);
    assert!(
        editor.contains("<option value=\"\" selected>No mask</option>"),
        "{editor}"
    );
    // An empty name is refused with a sentence, keeping what was typed.
    let out = panel.act("save", &pairs("  ", "Be brief.", ""), none, || "x".into());
    assert_eq!(
        out,
        Outcome::Draw {
            focus: "#project-name".into()
        }
    );
    let editor = panel.html(none, &masks, |_| 0);
    assert!(editor.contains("A project needs a name.") && editor.contains("aria-invalid=\"true\""));
    assert!(editor.contains(">Be brief.</textarea>"), "{editor}");
    let Outcome::Store { projects, .. } = panel.act(
        "save",
        &pairs(" Garden ", "Be brief.\n", "builtin-translator"),
        none,
        || "x".into(),
    ) else {
        panic!("saved")
    };
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
    panel.act("new", &[], &projects, || "p2".into());
    panel.act("save", &pairs("GARDEN", "", ""), &projects, || "x".into());
    assert!(panel
        .html(&projects, &[], |_| 0)
        .contains("There is already a project named “GARDEN”."));
    assert_eq!(
        panel.act("cancel", &[], &projects, || "x".into()),
        Outcome::Draw {
            focus: "[data-act=\"new\"]".into()
        }
    );
    // Edit keeps the id and the collapsed state.
    let stored = [Project {
        collapsed: true,
        ..projects[0].clone()
    }];
    panel.act("edit:p1", &[], &stored, || "x".into());
    let Outcome::Store { projects, .. } =
        panel.act("save", &pairs("Yard", "", ""), &stored, || "x".into())
    else {
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
    // Delete asks once more; Keep keeps; Delete removes only the project.
    panel.act("delete:p1", &[], &projects, || "x".into());
    let list = panel.html(&projects, &[], |_| 3);
    assert!(
        list.contains("Delete Yard? Its conversations stay"),
        "{list}"
    );
    assert!(list.contains("3 conversations"));
    assert_eq!(
        panel.act("delete-no", &[], &projects, || "x".into()),
        Outcome::Draw { focus: "".into() }
    );
    panel.act("delete:p1", &[], &projects, || "x".into());
    assert_eq!(
        panel.act("delete-yes:p1", &[], &projects, || "x".into()),
        Outcome::Store {
            projects: vec![],
            focus: "[data-act=\"new\"]".into()
        }
    );
    assert_eq!(
        panel.act("chat:p1", &[], &projects, || "x".into()),
        Outcome::Chat(projects[0].clone())
    );
    assert_eq!(
        panel.act("chat:gone", &[], &projects, || "x".into()),
        Outcome::Nothing
    );
}

#[test]
fn the_panel_escapes_what_the_user_typed() {
    let hostile = project("p1", "<img src=x onerror=alert(1)>");
    let list = ProjectPanel::default().html(std::slice::from_ref(&hostile), &[], |_| 1);
    assert!(!list.contains("<img"), "{list}");
    assert!(list.contains("&lt;img src=x onerror=alert(1)&gt;"));
    let mut panel = ProjectPanel::default();
    panel.act("edit:p1", &[], std::slice::from_ref(&hostile), || {
        "x".into()
    });
    let editor = panel.html(&[hostile], &[], |_| 1);
    assert!(!editor.contains("<img"), "{editor}");
}

#[test]
fn the_chat_line_names_the_project() {
    let p = project("p1", "<b>Garden</b>");
    assert_eq!(project_line_html(None, true), "");
    assert_eq!(
        project_line_html(Some(&p), false),
        "Project: <strong>&lt;b&gt;Garden&lt;/b&gt;</strong>"
    );
    let draft = project_line_html(Some(&p), true);
    assert!(
        draft.starts_with("New chat in the project <strong>"),
        "{draft}"
    );
    assert!(draft.contains("data-act=\"drop-project\""), "{draft}");
}
