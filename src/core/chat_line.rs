//! The line above the chat that names its project and its mask ("Project: Garden · Mask:
//! 🌐 Translator"), or, for a new chat not yet started, what it will start with and a button
//! to start without each. Plain data for the chat view; never markup.

use crate::display::text;
use crate::projects::Project;
use crate::records::mask::Mask;

/// What a draft's "start without it" button drops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drop {
    Project,
    Mask,
}

/// One part of the line: `lead` then `name` (strong), and for a draft the button that drops it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinePart {
    pub lead: &'static str,
    /// Neutralised for display.
    pub name: String,
    /// The button's words and what it drops (a draft only).
    pub drop: Option<(&'static str, Drop)>,
}

/// The project's part, then the mask's; empty (no line) when there is neither.
pub fn chat_line(project: Option<&Project>, mask: Option<&Mask>, draft: bool) -> Vec<LinePart> {
    let project = project.map(|p| LinePart {
        lead: if draft {
            "New chat in the project "
        } else {
            "Project: "
        },
        name: text::name(p.label()).into_owned(),
        drop: draft.then_some(("Start it outside the project", Drop::Project)),
    });
    let mask = mask.map(|m| LinePart {
        lead: if draft {
            "New chat with the mask "
        } else {
            "Mask: "
        },
        name: text::name(&m.label()).into_owned(),
        drop: draft.then_some(("Start without it", Drop::Mask)),
    });
    project.into_iter().chain(mask).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_project_and_the_mask_and_offers_to_drop_a_drafts() {
        assert_eq!(chat_line(None, None, true), vec![], "nothing, no line");
        let p = Project {
            id: "p1".into(),
            name: "Garden".into(),
            ..Project::default()
        };
        let m = Mask {
            id: "u1".into(),
            name: "Pirate\u{202e}".into(),
            emoji: "🏴".into(),
            ..Mask::default()
        };
        assert_eq!(
            chat_line(Some(&p), Some(&m), false),
            vec![
                LinePart {
                    lead: "Project: ",
                    name: "Garden".into(),
                    drop: None
                },
                LinePart {
                    lead: "Mask: ",
                    name: "🏴 Pirate<U+202E>".into(),
                    drop: None
                },
            ]
        );
        let draft = chat_line(None, Some(&m), true);
        assert_eq!(draft.len(), 1);
        assert_eq!(draft[0].lead, "New chat with the mask ");
        assert_eq!(draft[0].drop, Some(("Start without it", Drop::Mask)));
        let draft = chat_line(Some(&p), None, true);
        assert_eq!(draft[0].lead, "New chat in the project ");
        assert_eq!(
            draft[0].drop,
            Some(("Start it outside the project", Drop::Project))
        );
    }
}
