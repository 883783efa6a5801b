//! Whether a scrolling list of messages follows its newest text.
//!
//! A chat opens at its newest message and stays there while an answer streams; a user who
//! scrolls up to read stops the following, and scrolling back to the bottom resumes it. The
//! view measures (scroll position, sizes) once per scroll event and asks this module; it never
//! decides on its own.
//!
//! The direction matters, not only the distance from the bottom: text that grows between the
//! view's own scroll and the scroll event it causes leaves the list a little above the bottom,
//! and reading that as "the user scrolled up" would drop the following mid-answer. Only a
//! scroll position that went *up* is the user leaving; one that went *down* to within a third
//! of the viewport of the bottom is the user coming back, even if text grew under the scroll.
//!
//! A position that went up because the text got *shorter* is not the user either: a finished
//! answer rendered again (highlighting, a code block's buttons, markdown arriving for a message
//! shown as plain text) can be shorter, and the browser pulls the position up with the end of
//! the list (or keeps what is in view in place, scroll anchoring). Up by no more than the list
//! shrank keeps what the list was doing.
//!
//! A new turn (the user sent, retried, continued) always follows again ([`Follow::turn_started`]),
//! and the view offers a way back down while the user reads above ([`Follow::offers_jump`]).

/// How close to the bottom (CSS pixels) counts as "at the bottom": room for sub-pixel
/// rounding and zoom, small enough that one notch of a wheel leaves it.
pub const BOTTOM_SLACK_PX: f64 = 16.0;

/// One scroll event's measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScrollPos {
    pub top: f64,
    pub client_height: f64,
    pub scroll_height: f64,
}

impl ScrollPos {
    pub fn at_bottom(&self) -> bool {
        self.distance_to_bottom() <= BOTTOM_SLACK_PX
    }

    pub fn distance_to_bottom(&self) -> f64 {
        self.scroll_height - self.top - self.client_height
    }
}

/// Whether the list follows new text after a scroll event: `following` before it, the
/// measurements of the previous scroll event (`None` for the first), and this one's.
pub fn follows_after_scroll(following: bool, previous: Option<ScrollPos>, now: ScrollPos) -> bool {
    if now.at_bottom() {
        return true;
    }
    let previous_top = previous.map(|p| p.top);
    match previous {
        // The list got shorter and the position went up with it, no further: the browser
        // moved it, not the user.
        Some(prev)
            if now.top < prev.top
                && now.scroll_height < prev.scroll_height
                && prev.top - now.top <= prev.scroll_height - now.scroll_height + 1.0 =>
        {
            return following;
        }
        _ => {}
    }
    match previous_top {
        // The user moved up: stop following until they come back down.
        Some(prev) if now.top < prev => false,
        // Moving down and nearly there: text that arrived during a smooth scroll (or a drag)
        // to the bottom leaves it short of the new bottom; the user was heading there.
        Some(prev) if now.top > prev && now.distance_to_bottom() <= now.client_height / 3.0 => true,
        // Moved down but not to the bottom, or content grew under a list that was following.
        _ => following,
    }
}

/// The chat view's following, as one value the view keeps: it reports what happened (a scroll
/// event's measurements, a turn that started, the conversation that opened) and asks whether
/// to keep the newest text in view and whether to offer the jump back to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Follow {
    following: bool,
    last: Option<ScrollPos>,
    /// The last scroll event left the list away from its bottom.
    away: bool,
}

impl Default for Follow {
    fn default() -> Self {
        Follow {
            following: true,
            last: None,
            away: false,
        }
    }
}

impl Follow {
    /// Whether the view keeps the newest text in view (scrolls to it as it grows).
    pub fn following(&self) -> bool {
        self.following
    }

    /// Whether the "jump to the latest" button shows: the user reads above the newest text.
    pub fn offers_jump(&self) -> bool {
        !self.following && self.away
    }

    /// A scroll event's measurements.
    pub fn on_scroll(&mut self, now: ScrollPos) {
        self.following = follows_after_scroll(self.following, self.last, now);
        self.away = !now.at_bottom();
        self.last = Some(now);
    }

    /// A turn started in the open conversation (sent, retried, regenerated, continued) or
    /// another conversation opened: its newest text is what the user wants to see, wherever
    /// they had scrolled; so does the jump button. The view scrolls to the end.
    pub fn turn_started(&mut self) {
        *self = Follow::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(top: f64) -> ScrollPos {
        // A 2,000 px list in a 500 px viewport: the bottom is at top = 1,500.
        ScrollPos {
            top,
            client_height: 500.0,
            scroll_height: 2000.0,
        }
    }

    #[test]
    fn at_the_bottom_follows() {
        assert!(follows_after_scroll(false, Some(pos(1200.0)), pos(1500.0)));
        assert!(follows_after_scroll(false, Some(pos(1200.0)), pos(1490.0)));
        assert!(follows_after_scroll(true, None, pos(1500.0)));
    }

    #[test]
    fn scrolling_up_stops_following() {
        assert!(!follows_after_scroll(true, Some(pos(1500.0)), pos(1400.0)));
        assert!(!follows_after_scroll(true, Some(pos(1500.0)), pos(0.0)));
    }

    #[test]
    fn scrolling_down_short_of_the_bottom_keeps_what_it_was() {
        assert!(!follows_after_scroll(false, Some(pos(200.0)), pos(900.0)));
        assert!(follows_after_scroll(true, Some(pos(200.0)), pos(900.0)));
    }

    #[test]
    fn heading_down_and_nearly_at_the_bottom_follows_again() {
        // A smooth scroll to the bottom ended 100 px short: text arrived meanwhile.
        assert!(follows_after_scroll(false, Some(pos(1200.0)), pos(1400.0)));
        // Still more than a third of the viewport away: keep reading.
        assert!(!follows_after_scroll(false, Some(pos(800.0)), pos(1300.0)));
        // Nearly at the bottom but moving up: the user is leaving.
        assert!(!follows_after_scroll(true, Some(pos(1450.0)), pos(1400.0)));
    }

    #[test]
    fn text_growing_under_a_following_list_keeps_it_following() {
        // The view scrolled to 1,500; before the scroll event ran, 300 px of text arrived.
        let grown = ScrollPos {
            top: 1500.0,
            client_height: 500.0,
            scroll_height: 2300.0,
        };
        assert!(!grown.at_bottom());
        assert!(follows_after_scroll(true, Some(pos(1200.0)), grown));
        assert!(follows_after_scroll(true, Some(pos(1500.0)), grown));
    }

    #[test]
    fn a_list_shorter_than_its_viewport_is_at_the_bottom() {
        let short = ScrollPos {
            top: 0.0,
            client_height: 500.0,
            scroll_height: 300.0,
        };
        assert!(follows_after_scroll(false, Some(pos(10.0)), short));
    }

    #[test]
    fn a_list_that_got_shorter_is_not_the_user_scrolling_up() {
        // Following, a screen above the end (text arrived after the last scroll); the finished
        // answer renders 300 px shorter and the browser keeps the view in place by moving the
        // position up as much: still following.
        let before = ScrollPos {
            top: 1500.0,
            client_height: 500.0,
            scroll_height: 2600.0,
        };
        let after = ScrollPos {
            top: 1200.0,
            client_height: 500.0,
            scroll_height: 2300.0,
        };
        assert!(!after.at_bottom());
        assert!(follows_after_scroll(true, Some(before), after));
        // The same while reading above: it keeps not following.
        assert!(!follows_after_scroll(false, Some(before), after));
        // Up by more than the list shrank is the user.
        let further = ScrollPos {
            top: 900.0,
            ..after
        };
        assert!(!follows_after_scroll(true, Some(before), further));
    }

    #[test]
    fn the_jump_button_shows_while_reading_above_and_a_new_turn_follows_again() {
        let mut f = Follow::default();
        assert!(f.following() && !f.offers_jump());
        f.on_scroll(pos(1500.0));
        assert!(f.following() && !f.offers_jump());
        // The user scrolls up to read.
        f.on_scroll(pos(600.0));
        assert!(!f.following() && f.offers_jump());
        // Back down by hand: following, no button.
        f.on_scroll(pos(1500.0));
        assert!(f.following() && !f.offers_jump());
        // Up again, then sends: the new turn is followed wherever they were, and the first
        // scroll event after it (the view going to the end) keeps it so.
        f.on_scroll(pos(0.0));
        assert!(f.offers_jump());
        f.turn_started();
        assert!(f.following() && !f.offers_jump());
        let end = ScrollPos {
            top: 2100.0,
            client_height: 500.0,
            scroll_height: 2600.0,
        };
        f.on_scroll(end);
        assert!(f.following());
    }
}
