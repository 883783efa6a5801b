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
/// position of the previous scroll event (`None` for the first), and this one's.
pub fn follows_after_scroll(following: bool, previous_top: Option<f64>, now: ScrollPos) -> bool {
    if now.at_bottom() {
        return true;
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
        assert!(follows_after_scroll(false, Some(1200.0), pos(1500.0)));
        assert!(follows_after_scroll(false, Some(1200.0), pos(1490.0)));
        assert!(follows_after_scroll(true, None, pos(1500.0)));
    }

    #[test]
    fn scrolling_up_stops_following() {
        assert!(!follows_after_scroll(true, Some(1500.0), pos(1400.0)));
        assert!(!follows_after_scroll(true, Some(1500.0), pos(0.0)));
    }

    #[test]
    fn scrolling_down_short_of_the_bottom_keeps_what_it_was() {
        assert!(!follows_after_scroll(false, Some(200.0), pos(900.0)));
        assert!(follows_after_scroll(true, Some(200.0), pos(900.0)));
    }

    #[test]
    fn heading_down_and_nearly_at_the_bottom_follows_again() {
        // A smooth scroll to the bottom ended 100 px short: text arrived meanwhile.
        assert!(follows_after_scroll(false, Some(1200.0), pos(1400.0)));
        // Still more than a third of the viewport away: keep reading.
        assert!(!follows_after_scroll(false, Some(800.0), pos(1300.0)));
        // Nearly at the bottom but moving up: the user is leaving.
        assert!(!follows_after_scroll(true, Some(1450.0), pos(1400.0)));
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
        assert!(follows_after_scroll(true, Some(1200.0), grown));
        assert!(follows_after_scroll(true, Some(1500.0), grown));
    }

    #[test]
    fn a_list_shorter_than_its_viewport_is_at_the_bottom() {
        let short = ScrollPos {
            top: 0.0,
            client_height: 500.0,
            scroll_height: 300.0,
        };
        assert!(follows_after_scroll(false, Some(10.0), short));
    }
}
