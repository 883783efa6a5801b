//! Where Tab moves focus inside a modal dialog, so it can never reach the page behind it.
//!
//! The UI lists the dialog's focusable elements in document order and asks [`tab_target`]
//! about every Tab and Shift+Tab; it always performs the answer itself (and prevents the
//! browser's move), so the cycle does not depend on what the browser would have picked.
//! Pure: indices in, an index out; no DOM.

/// Where focus goes on Tab (`backwards` for Shift+Tab).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TabMove {
    /// Focus the focusable element at this index.
    To(usize),
    /// Keep focus where it is (the dialog has nothing focusable but itself).
    Stay,
}

/// `count` focusable elements in the dialog; `current` is the focused one's index, or `None`
/// when focus is on the dialog itself or somewhere outside it (then Tab enters at the first
/// element, Shift+Tab at the last). The ends wrap around.
pub fn tab_target(count: usize, current: Option<usize>, backwards: bool) -> TabMove {
    if count == 0 {
        return TabMove::Stay;
    }
    let last = count - 1;
    TabMove::To(match (current.filter(|&i| i < count), backwards) {
        (None, false) => 0,
        (None, true) => last,
        (Some(i), false) if i == last => 0,
        (Some(i), false) => i + 1,
        (Some(0), true) => last,
        (Some(i), true) => i - 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_cycles_forward_and_wraps() {
        assert_eq!(tab_target(3, Some(0), false), TabMove::To(1));
        assert_eq!(tab_target(3, Some(1), false), TabMove::To(2));
        assert_eq!(tab_target(3, Some(2), false), TabMove::To(0));
    }

    #[test]
    fn shift_tab_cycles_backward_and_wraps() {
        assert_eq!(tab_target(3, Some(2), true), TabMove::To(1));
        assert_eq!(tab_target(3, Some(0), true), TabMove::To(2));
    }

    #[test]
    fn from_outside_or_the_dialog_itself_focus_enters_at_an_end() {
        assert_eq!(tab_target(4, None, false), TabMove::To(0));
        assert_eq!(tab_target(4, None, true), TabMove::To(3));
        // A stale index (the list shrank) counts as outside.
        assert_eq!(tab_target(2, Some(5), false), TabMove::To(0));
    }

    #[test]
    fn one_or_no_focusable_element() {
        assert_eq!(tab_target(1, Some(0), false), TabMove::To(0));
        assert_eq!(tab_target(1, Some(0), true), TabMove::To(0));
        assert_eq!(tab_target(0, None, false), TabMove::Stay);
        assert_eq!(tab_target(0, None, true), TabMove::Stay);
    }

    /// Whatever the start, a full round of Tabs visits every element once and comes back.
    #[test]
    fn a_round_visits_everything() {
        for count in 1..6 {
            for backwards in [false, true] {
                let mut at = 0;
                let mut seen = vec![false; count];
                for _ in 0..count {
                    let TabMove::To(next) = tab_target(count, Some(at), backwards) else {
                        panic!("moves with {count} elements");
                    };
                    seen[next] = true;
                    at = next;
                }
                assert!(seen.iter().all(|s| *s));
                assert_eq!(at, 0);
            }
        }
    }
}
