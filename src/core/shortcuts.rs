//! Keyboard shortcuts: which key press means which intent, and how the help sheet names them.
//!
//! One document-level listener in the UI asks [`decide`] about every `keydown` and performs the
//! [`Shortcut`] it gets back (and only then prevents the browser's default). Keeping the
//! decision here means the rules that protect typing are tested natively:
//! - plain typing, Ctrl/⌘+C/V/X/A/Z, arrows, Tab and Enter are never taken;
//! - `?` opens the help only outside text fields, where it cannot be a character being typed;
//! - a key already handled by the element it was pressed in (`default_prevented`, e.g. Escape
//!   cancelling a rename) or typed into an input method's composition is left alone;
//! - while a dialog is open, the only shortcut is Escape, which closes it.
//!
//! Pure: no DOM, no platform detection (the UI passes `apple`).

use crate::names::named_enum;

/// What a shortcut asks the app to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shortcut {
    /// Open an empty conversation and put the caret in the message box.
    NewChat,
    /// Search every conversation (titles and messages).
    Search,
    /// Put the caret in the message box from anywhere.
    FocusComposer,
    /// Stop the answer being written in the open conversation.
    StopAnswer,
    OpenSettings,
    ShowHelp,
    /// Close the open dialog (focus returns to what opened it).
    CloseDialog,
    /// Close the conversation list where it covers the page (a phone's drawer).
    CloseDrawer,
}

named_enum!(Shortcut, "shortcut", {
    NewChat => "new-chat",
    Search => "search",
    FocusComposer => "focus-composer",
    StopAnswer => "stop-answer",
    OpenSettings => "open-settings",
    ShowHelp => "show-help",
    CloseDialog => "close-dialog",
    CloseDrawer => "close-drawer",
});

/// The keys of one help-sheet row, each shown in its own `<kbd>`.
pub type Keys = Vec<&'static str>;

impl Shortcut {
    /// What the help sheet says the shortcut does.
    pub fn label(self) -> &'static str {
        match self {
            Shortcut::NewChat => "New chat",
            Shortcut::Search => "Search conversations",
            Shortcut::FocusComposer => "Focus the message box",
            Shortcut::StopAnswer => "Stop the answer being written",
            Shortcut::OpenSettings => "Open Settings",
            Shortcut::ShowHelp => "Show keyboard shortcuts",
            Shortcut::CloseDialog => "Close a dialog",
            Shortcut::CloseDrawer => "Close the conversation list",
        }
    }

    /// The key combinations, with the platform's modifier: "⌘" on Apple systems, else "Ctrl".
    /// More than one entry means alternatives (help: Ctrl+/ or `?`).
    pub fn keys(self, apple: bool) -> Vec<Keys> {
        let primary = if apple { "⌘" } else { "Ctrl" };
        match self {
            Shortcut::NewChat => vec![vec![primary, "Shift", "O"]],
            Shortcut::Search => vec![vec![primary, "K"]],
            Shortcut::FocusComposer => vec![vec!["Shift", "Esc"]],
            Shortcut::StopAnswer | Shortcut::CloseDialog | Shortcut::CloseDrawer => {
                vec![vec!["Esc"]]
            }
            Shortcut::OpenSettings => vec![vec![primary, ","]],
            Shortcut::ShowHelp => vec![vec![primary, "/"], vec!["?"]],
        }
    }
}

/// The help sheet's rows, in the order shown.
pub const HELP_ORDER: &[Shortcut] = &[
    Shortcut::NewChat,
    Shortcut::Search,
    Shortcut::FocusComposer,
    Shortcut::StopAnswer,
    Shortcut::OpenSettings,
    Shortcut::ShowHelp,
    Shortcut::CloseDialog,
    Shortcut::CloseDrawer,
];

/// One `keydown`, as the browser reports it (`KeyboardEvent.key` and the modifier flags).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeyPress<'a> {
    pub key: &'a str,
    pub ctrl: bool,
    pub meta: bool,
    pub shift: bool,
    pub alt: bool,
    /// Part of an input method's composition (`isComposing`): never a shortcut.
    pub composing: bool,
    /// The element it was pressed in already handled it (`defaultPrevented`).
    pub handled: bool,
}

/// The state of the page a shortcut depends on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Situation {
    /// Apple systems use ⌘ (meta) where others use Ctrl.
    pub apple: bool,
    /// Focus is in a text input, textarea, select or contenteditable.
    pub in_text_field: bool,
    /// The open conversation's answer is being written.
    pub streaming: bool,
    /// A modal dialog is open.
    pub dialog_open: bool,
    /// The conversation list is open over the page (a phone's drawer).
    pub drawer_open: bool,
}

/// Which shortcut, if any, `key` is in `situation`. `None` leaves the key to the browser and
/// the focused element.
pub fn decide(key: KeyPress<'_>, situation: Situation) -> Option<Shortcut> {
    if key.composing || key.handled {
        return None;
    }
    // The platform's command modifier alone (⌘ on Apple, Ctrl elsewhere); the other one held
    // too means another program's chord, and Alt changes the character on many layouts.
    let (primary, other) = if situation.apple {
        (key.meta, key.ctrl)
    } else {
        (key.ctrl, key.meta)
    };
    let is_escape = key.key == "Escape" || key.key == "Esc";

    if situation.dialog_open {
        // The dialog keeps its own keys (Tab is trapped by the dialog); only Escape is ours.
        return (is_escape && !primary && !other && !key.alt).then_some(Shortcut::CloseDialog);
    }
    if key.alt || other {
        return None;
    }
    if primary {
        return match key.key.to_ascii_lowercase().as_str() {
            "o" if key.shift => Some(Shortcut::NewChat),
            // Browsers put ⌘/Ctrl+K on the address bar's search; in an app page it is search.
            "k" if !key.shift => Some(Shortcut::Search),
            // Shift may be needed to type these on some layouts, so it does not matter.
            "," => Some(Shortcut::OpenSettings),
            "/" | "?" => Some(Shortcut::ShowHelp),
            _ => None,
        };
    }
    if is_escape {
        return if key.shift {
            Some(Shortcut::FocusComposer)
        } else if situation.drawer_open {
            // The drawer covers the page, as a dialog would: it goes first.
            Some(Shortcut::CloseDrawer)
        } else if situation.streaming {
            Some(Shortcut::StopAnswer)
        } else {
            // Nothing of ours to stop: the browser keeps Escape (leaving fullscreen, say).
            None
        };
    }
    if key.key == "?" && !situation.in_text_field {
        return Some(Shortcut::ShowHelp);
    }
    None
}

/// Whether a key press in a message box sends what it holds: Enter (with or without
/// Ctrl/⌘), never Shift+Enter (a new line), Alt+Enter or a key of an input method's
/// composition. The composer and the box that edits a sent message share this rule.
pub fn sends_message(key: KeyPress<'_>) -> bool {
    key.key == "Enter" && !key.shift && !key.alt && !key.composing && !key.handled
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(key: &str) -> KeyPress<'_> {
        KeyPress {
            key,
            ..KeyPress::default()
        }
    }
    fn ctrl(key: &str) -> KeyPress<'_> {
        KeyPress {
            ctrl: true,
            ..press(key)
        }
    }
    fn cmd(key: &str) -> KeyPress<'_> {
        KeyPress {
            meta: true,
            ..press(key)
        }
    }
    fn shifted(k: KeyPress<'_>) -> KeyPress<'_> {
        KeyPress { shift: true, ..k }
    }
    const PC: Situation = Situation {
        apple: false,
        in_text_field: false,
        streaming: false,
        dialog_open: false,
        drawer_open: false,
    };
    const MAC: Situation = Situation { apple: true, ..PC };
    const TYPING: Situation = Situation {
        in_text_field: true,
        ..PC
    };
    const STREAMING: Situation = Situation {
        streaming: true,
        ..TYPING
    };
    const DIALOG: Situation = Situation {
        dialog_open: true,
        streaming: true,
        ..TYPING
    };

    #[test]
    fn each_shortcut_with_the_platform_modifier() {
        // Shift+O reports "O".
        assert_eq!(decide(shifted(ctrl("O")), PC), Some(Shortcut::NewChat));
        assert_eq!(decide(shifted(cmd("O")), MAC), Some(Shortcut::NewChat));
        assert_eq!(decide(shifted(cmd("o")), MAC), Some(Shortcut::NewChat));
        assert_eq!(decide(ctrl("k"), TYPING), Some(Shortcut::Search));
        assert_eq!(decide(cmd("k"), MAC), Some(Shortcut::Search));
        assert_eq!(decide(ctrl("k"), MAC), None);
        assert_eq!(decide(ctrl(","), TYPING), Some(Shortcut::OpenSettings));
        assert_eq!(decide(cmd(","), MAC), Some(Shortcut::OpenSettings));
        assert_eq!(decide(ctrl("/"), TYPING), Some(Shortcut::ShowHelp));
        // A layout where "/" needs Shift.
        assert_eq!(decide(shifted(ctrl("/")), PC), Some(Shortcut::ShowHelp));
        assert_eq!(
            decide(shifted(press("Escape")), TYPING),
            Some(Shortcut::FocusComposer)
        );
        assert_eq!(
            decide(press("Escape"), STREAMING),
            Some(Shortcut::StopAnswer)
        );
        assert_eq!(decide(shifted(press("?")), PC), Some(Shortcut::ShowHelp));
    }

    #[test]
    fn the_other_platforms_modifier_is_not_a_shortcut() {
        assert_eq!(decide(shifted(cmd("O")), PC), None);
        assert_eq!(decide(shifted(ctrl("O")), MAC), None);
        assert_eq!(decide(ctrl(","), MAC), None);
        // Both held: someone else's chord.
        let both = KeyPress {
            meta: true,
            ..ctrl(",")
        };
        assert_eq!(decide(both, PC), None);
        assert_eq!(decide(both, MAC), None);
    }

    #[test]
    fn typing_and_editing_keys_are_never_taken() {
        for key in [
            "a",
            "O",
            "o",
            ",",
            "/",
            " ",
            "Enter",
            "Tab",
            "ArrowUp",
            "ArrowLeft",
        ] {
            assert_eq!(decide(press(key), TYPING), None, "{key:?} while typing");
            assert_eq!(decide(press(key), PC), None, "{key:?} on the page");
            assert_eq!(
                decide(shifted(press(key)), STREAMING),
                None,
                "Shift+{key:?}"
            );
        }
        for key in [
            "c",
            "v",
            "x",
            "a",
            "z",
            "y",
            "o",
            "ArrowLeft",
            "Enter",
            "Backspace",
        ] {
            assert_eq!(decide(ctrl(key), TYPING), None, "Ctrl+{key}");
            assert_eq!(decide(cmd(key), MAC), None, "⌘+{key}");
        }
        // Ctrl+O without Shift is the browser's "open file".
        assert_eq!(decide(ctrl("o"), PC), None);
        // Alt changes characters on many layouts (AltGr is Ctrl+Alt on Windows).
        let alt_gr = KeyPress {
            alt: true,
            ..ctrl("/")
        };
        assert_eq!(decide(alt_gr, PC), None);
    }

    #[test]
    fn question_mark_is_a_character_in_text_fields() {
        assert_eq!(decide(shifted(press("?")), TYPING), None);
        assert_eq!(decide(shifted(press("?")), STREAMING), None);
        assert_eq!(decide(shifted(press("?")), PC), Some(Shortcut::ShowHelp));
    }

    #[test]
    fn escape_stops_only_a_streaming_answer() {
        assert_eq!(decide(press("Escape"), TYPING), None);
        assert_eq!(decide(press("Escape"), PC), None);
        assert_eq!(decide(press("Esc"), STREAMING), Some(Shortcut::StopAnswer));
        let on_page = Situation {
            in_text_field: false,
            ..STREAMING
        };
        assert_eq!(decide(press("Escape"), on_page), Some(Shortcut::StopAnswer));
    }

    #[test]
    fn escape_closes_the_phone_drawer_before_anything_else() {
        let drawer = Situation {
            drawer_open: true,
            ..PC
        };
        assert_eq!(decide(press("Escape"), drawer), Some(Shortcut::CloseDrawer));
        // Even while an answer streams: the drawer covers it; a second Escape stops it.
        let streaming = Situation {
            drawer_open: true,
            ..STREAMING
        };
        assert_eq!(
            decide(press("Escape"), streaming),
            Some(Shortcut::CloseDrawer)
        );
        // A dialog opened from the drawer closes first.
        let dialog = Situation {
            drawer_open: true,
            ..DIALOG
        };
        assert_eq!(decide(press("Escape"), dialog), Some(Shortcut::CloseDialog));
        // Shift+Escape still goes to the message box; a rename's own Escape stays its own.
        assert_eq!(
            decide(shifted(press("Escape")), drawer),
            Some(Shortcut::FocusComposer)
        );
        let handled = KeyPress {
            handled: true,
            ..press("Escape")
        };
        assert_eq!(decide(handled, drawer), None);
    }

    #[test]
    fn enter_sends_a_message_and_shift_enter_or_a_composition_does_not() {
        assert!(sends_message(press("Enter")));
        assert!(sends_message(ctrl("Enter")));
        assert!(sends_message(cmd("Enter")));
        assert!(!sends_message(shifted(press("Enter"))));
        assert!(!sends_message(KeyPress {
            alt: true,
            ..press("Enter")
        }));
        assert!(!sends_message(KeyPress {
            composing: true,
            ..press("Enter")
        }));
        assert!(!sends_message(press("a")));
    }

    #[test]
    fn with_a_dialog_open_escape_closes_it_and_nothing_else_fires() {
        assert_eq!(decide(press("Escape"), DIALOG), Some(Shortcut::CloseDialog));
        assert_eq!(
            decide(shifted(press("Escape")), DIALOG),
            Some(Shortcut::CloseDialog)
        );
        let on_page = Situation {
            in_text_field: false,
            streaming: false,
            ..DIALOG
        };
        assert_eq!(
            decide(press("Escape"), on_page),
            Some(Shortcut::CloseDialog)
        );
        // Not a stop: the answer keeps streaming behind the dialog.
        assert_ne!(decide(press("Escape"), DIALOG), Some(Shortcut::StopAnswer));
        assert_eq!(decide(shifted(ctrl("O")), DIALOG), None);
        assert_eq!(decide(ctrl(","), DIALOG), None);
        assert_eq!(decide(ctrl("/"), DIALOG), None);
        assert_eq!(decide(shifted(press("?")), on_page), None);
        assert_eq!(decide(ctrl("Escape"), DIALOG), None);
    }

    #[test]
    fn handled_or_composing_keys_are_left_alone() {
        let handled = KeyPress {
            handled: true,
            ..press("Escape")
        };
        assert_eq!(decide(handled, STREAMING), None);
        assert_eq!(decide(handled, DIALOG), None);
        let composing = KeyPress {
            composing: true,
            ..press("Escape")
        };
        assert_eq!(decide(composing, STREAMING), None);
        let composing = KeyPress {
            composing: true,
            ..shifted(ctrl("O"))
        };
        assert_eq!(decide(composing, PC), None);
    }

    #[test]
    fn help_rows_name_the_platform_modifier() {
        assert_eq!(
            Shortcut::NewChat.keys(false),
            vec![vec!["Ctrl", "Shift", "O"]]
        );
        assert_eq!(Shortcut::NewChat.keys(true), vec![vec!["⌘", "Shift", "O"]]);
        assert_eq!(
            Shortcut::ShowHelp.keys(true),
            vec![vec!["⌘", "/"], vec!["?"]]
        );
        // Every row has a label and keys, and no two rows share a name.
        for s in HELP_ORDER {
            assert!(!s.label().is_empty());
            assert!(!s.keys(false).is_empty());
            assert_eq!(s.as_str().parse::<Shortcut>(), Ok(*s));
        }
        assert_eq!(HELP_ORDER.len(), Shortcut::ALL.len());
    }

    /// The help sheet's keys are the keys `decide` accepts: each row, pressed, is its intent.
    #[test]
    fn the_help_sheet_tells_the_truth() {
        for apple in [false, true] {
            for &s in HELP_ORDER {
                for combo in s.keys(apple) {
                    let mut k = KeyPress::default();
                    for part in &combo {
                        match *part {
                            "Ctrl" => k.ctrl = true,
                            "⌘" => k.meta = true,
                            "Shift" => k.shift = true,
                            "Esc" => k.key = "Escape",
                            key => k.key = key,
                        }
                    }
                    let situation = Situation {
                        apple,
                        streaming: s == Shortcut::StopAnswer,
                        dialog_open: s == Shortcut::CloseDialog,
                        drawer_open: s == Shortcut::CloseDrawer,
                        ..Situation::default()
                    };
                    assert_eq!(decide(k, situation), Some(s), "{combo:?} on apple={apple}");
                }
            }
        }
    }
}
