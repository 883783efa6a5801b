//! The sidebar's rows: pinned conversations first, then each project with its conversations
//! (a collapsed project shows only its heading), then the rest grouped by when they were last
//! used (Today, Yesterday, Previous 7 days, Previous 30 days, then one group per month), and
//! which of those rows to draw for a scroll position.
//!
//! Why a window: measured here, a 1,000-row sidebar (24k DOM nodes) raised main-thread busy
//! while streaming from 25 % to 46 % and added 137 ms to input ready, because the browser lays
//! out and repaints it on every frame. The sidebar draws only the rows in view (plus a few
//! above and below) between two spacers of the right height, so its cost is flat in the
//! number of conversations.
//!
//! Rows have fixed heights ([`GROUP_ROW_PX`], [`CONVERSATION_ROW_PX`]) that the stylesheet
//! matches, so the window is pure arithmetic on a prefix sum: no measuring, no layout read.
//! A row that grows for a moment (a rename form) shifts those below it by a few pixels and
//! nothing breaks, because the overscan covers the difference.

use crate::calendar::{civil_from_days, clamp_offset, month_name};
use crate::projects::Project;
use crate::records::conversation::ConversationSummary;

/// Height of a group heading row ("Today"), in CSS pixels; `.conversation-group` in the
/// stylesheet says the same.
pub const GROUP_ROW_PX: f64 = 28.0;
/// Height of a conversation row; `.conversation` in the stylesheet says the same.
pub const CONVERSATION_ROW_PX: f64 = 36.0;
/// Rows drawn beyond each edge of the viewport, so a fast scroll or a Tab to the next row
/// finds it already there.
pub const OVERSCAN_ROWS: usize = 8;
/// The viewport height the sidebar draws for when the page cannot say (it passes the window's
/// inner height, which the list never exceeds).
pub const VIEWPORT_PX: f64 = 2000.0;

const MS_PER_DAY: i64 = 86_400_000;

/// One row of the sidebar.
#[derive(Debug, Clone, PartialEq)]
pub enum Row {
    /// A group heading, e.g. "Today" or "March 2025".
    Group(String),
    /// A project's heading: the project at `project` of the settings' list, and how many
    /// conversations it holds (shown, and drawn below it unless it is collapsed).
    Project { project: usize, count: usize },
    /// The conversation at `index` of the index (newest first), its 1-based position among
    /// the conversations drawn (for `aria-posinset`), and whether it sits under a project.
    Conversation {
        index: usize,
        position: usize,
        nested: bool,
    },
}

impl Row {
    pub fn height(&self) -> f64 {
        match self {
            Row::Group(_) => GROUP_ROW_PX,
            Row::Project { .. } | Row::Conversation { .. } => CONVERSATION_ROW_PX,
        }
    }
}

/// The group a conversation last used at `updated_ms` falls in, seen at `now_ms` by a user
/// `offset_minutes` east of UTC. Days are the user's calendar days, not 24-hour spans.
pub fn group_label(updated_ms: f64, now_ms: f64, offset_minutes: i32) -> String {
    let today = local_day(now_ms, offset_minutes);
    let then = local_day(updated_ms, offset_minutes);
    match today - then {
        // A clock set back (or a conversation from another device) counts as today.
        i64::MIN..=0 => "Today".to_string(),
        1 => "Yesterday".to_string(),
        2..=7 => "Previous 7 days".to_string(),
        8..=30 => "Previous 30 days".to_string(),
        _ => {
            let (year, month, _) = civil_from_days(then);
            let (this_year, _, _) = civil_from_days(today);
            let name = month_name(month);
            if year == this_year {
                name.to_string()
            } else {
                format!("{name} {year}")
            }
        }
    }
}

/// The user's calendar day of `ms`, counted from 1970-01-01. `as` saturates, so a corrupt
/// timestamp gives a far day, never a panic.
fn local_day(ms: f64, offset_minutes: i32) -> i64 {
    local_ms(ms, offset_minutes).div_euclid(MS_PER_DAY)
}

fn local_ms(ms: f64, offset_minutes: i32) -> i64 {
    (ms.floor() as i64).saturating_add(i64::from(clamp_offset(offset_minutes)) * 60_000)
}

/// The heading over pinned conversations (the index sorts them first).
pub const PINNED: &str = "Pinned";

/// The sidebar's rows for an index in `persist::sort_index` order: "Pinned" and the pinned
/// ones, then every project (even an empty one, so a chat can be started in it) with its
/// conversations unless collapsed, then the date groups of the conversations in no project
/// (or in one deleted since). A pinned conversation shows under "Pinned" only.
pub fn rows(
    items: &[ConversationSummary],
    projects: &[Project],
    now_ms: f64,
    offset_minutes: i32,
) -> Vec<Row> {
    let mut out = Vec::with_capacity(items.len() + projects.len() + 8);
    let mut position = 0;
    let mut conversation = |out: &mut Vec<Row>, index: usize, nested: bool| {
        position += 1;
        out.push(Row::Conversation {
            index,
            position,
            nested,
        });
    };
    // Which project each conversation sits in (`None`: pinned, or no project that exists).
    let mut per_project: Vec<Vec<usize>> = vec![Vec::new(); projects.len()];
    let mut loose = Vec::with_capacity(items.len());
    let mut pinned = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let home = item
            .project
            .as_deref()
            .and_then(|id| projects.iter().position(|p| p.id == id));
        match (item.pinned, home) {
            (true, _) => pinned.push(index),
            (false, Some(p)) => per_project[p].push(index),
            (false, None) => loose.push(index),
        }
    }
    if !pinned.is_empty() {
        out.push(Row::Group(PINNED.to_string()));
        for index in pinned {
            conversation(&mut out, index, false);
        }
    }
    for (p, members) in per_project.iter().enumerate() {
        out.push(Row::Project {
            project: p,
            count: members.len(),
        });
        if !projects[p].collapsed {
            for &index in members {
                conversation(&mut out, index, true);
            }
        }
    }
    let mut last: Option<String> = None;
    for index in loose {
        let label = group_label(items[index].updated_ms, now_ms, offset_minutes);
        if last.as_deref() != Some(label.as_str()) {
            out.push(Row::Group(label.clone()));
            last = Some(label);
        }
        conversation(&mut out, index, false);
    }
    out
}

/// The top of every row and, last, the total height: `offsets[i]` is where row `i` starts.
pub fn offsets(rows: &[Row]) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows.len() + 1);
    let mut y = 0.0;
    out.push(y);
    for r in rows {
        y += r.height();
        out.push(y);
    }
    out
}

/// Which rows to draw, and the space to leave above and below them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// First row drawn.
    pub start: usize,
    /// One past the last row drawn.
    pub end: usize,
    /// Height of the spacer above the drawn rows.
    pub top_px: f64,
    /// Height of the spacer below them.
    pub bottom_px: f64,
}

/// The rows visible when the list is scrolled to `scroll_top` in a viewport `viewport_px`
/// high, widened by `overscan` rows each way. `offsets` comes from [`offsets`]. Out-of-range
/// or non-finite scroll values (a list that shrank under the reader) are clamped.
pub fn window(offsets: &[f64], scroll_top: f64, viewport_px: f64, overscan: usize) -> Window {
    let n = offsets.len().saturating_sub(1);
    let total = offsets.last().copied().unwrap_or(0.0);
    let top = if scroll_top.is_finite() {
        // Not `f64::clamp`: its NaN assertion formats floats, which would link float printing
        // into the page for this one line (see `format`).
        scroll_top.min(total).max(0.0)
    } else {
        0.0
    };
    let height = if viewport_px.is_finite() && viewport_px > 0.0 {
        viewport_px
    } else {
        VIEWPORT_PX
    };
    // First row whose bottom is below the top edge; first row whose top is at or past the
    // bottom edge.
    let first = offsets[1..].partition_point(|&bottom| bottom <= top).min(n);
    let last = offsets[..n].partition_point(|&row_top| row_top < top + height);
    let start = first.saturating_sub(overscan);
    let end = (last + overscan).min(n).max(start);
    Window {
        start,
        end,
        top_px: offsets[start],
        bottom_px: total - offsets[end],
    }
}

/// Where to scroll so row `row` is fully in view, or `None` when it already is (so choosing a
/// visible conversation never moves the list under the pointer).
pub fn scroll_to_show(
    offsets: &[f64],
    row: usize,
    scroll_top: f64,
    viewport_px: f64,
) -> Option<f64> {
    let (&row_top, &row_bottom) = (offsets.get(row)?, offsets.get(row + 1)?);
    if row_top < scroll_top {
        Some(row_top)
    } else if row_bottom > scroll_top + viewport_px {
        Some((row_bottom - viewport_px).max(0.0))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: f64 = 86_400_000.0;
    // 2026-11-24 10:00 UTC.
    const NOW: f64 = 1_795_514_400_000.0;

    fn item(id: &str, updated_ms: f64) -> ConversationSummary {
        ConversationSummary {
            id: id.into(),
            title: id.into(),
            updated_ms,
            pinned: false,
            project: None,
        }
    }

    #[test]
    fn pinned_conversations_come_first_under_their_own_heading() {
        let mut items = vec![
            item("new", NOW - 1000.0),
            ConversationSummary {
                pinned: true,
                ..item("old-pinned", NOW - 40.0 * DAY)
            },
            item("yesterday", NOW - DAY),
            ConversationSummary {
                pinned: true,
                ..item("pinned", NOW - 2000.0)
            },
        ];
        crate::persist::sort_index(&mut items);
        let order: Vec<&str> = items.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(order, ["pinned", "old-pinned", "new", "yesterday"]);
        let labels: Vec<String> = rows(&items, &[], NOW, 0)
            .into_iter()
            .filter_map(|r| match r {
                Row::Group(l) => Some(l),
                _ => None,
            })
            .collect();
        assert_eq!(labels, [PINNED, "Today", "Yesterday"]);
    }

    #[test]
    fn groups_follow_calendar_days_in_the_users_zone() {
        assert_eq!(group_label(NOW - 60_000.0, NOW, 0), "Today");
        // 10:00 UTC now; 23:00 UTC the day before is yesterday in UTC ...
        assert_eq!(group_label(NOW - 11.0 * 3_600_000.0, NOW, 0), "Yesterday");
        // ... but today for a user at UTC+2 (01:00 local today).
        assert_eq!(group_label(NOW - 11.0 * 3_600_000.0, NOW, 120), "Today");
        assert_eq!(group_label(NOW - 3.0 * DAY, NOW, 0), "Previous 7 days");
        assert_eq!(group_label(NOW - 7.0 * DAY, NOW, 0), "Previous 7 days");
        assert_eq!(group_label(NOW - 8.0 * DAY, NOW, 0), "Previous 30 days");
        assert_eq!(group_label(NOW - 30.0 * DAY, NOW, 0), "Previous 30 days");
        // 2026-09-01: this year, so the month alone.
        assert_eq!(group_label(NOW - 84.0 * DAY, NOW, 0), "September");
        assert_eq!(group_label(NOW - 400.0 * DAY, NOW, 0), "October 2025");
        // A clock set back: a conversation "from the future" is today, not a panic.
        assert_eq!(group_label(NOW + 5.0 * DAY, NOW, 0), "Today");
        // A corrupt timestamp reads as the epoch: an old group, not a panic.
        assert_eq!(group_label(f64::NAN, NOW, 0), "January 1970");
    }

    #[test]
    fn rows_put_a_heading_where_the_group_changes() {
        let items = [
            item("a", NOW - 1000.0),
            item("b", NOW - 2000.0),
            item("c", NOW - DAY),
            item("d", NOW - 40.0 * DAY),
        ];
        let r = rows(&items, &[], NOW, 0);
        assert_eq!(
            r,
            vec![
                Row::Group("Today".into()),
                Row::Conversation {
                    index: 0,
                    position: 1,
                    nested: false,
                },
                Row::Conversation {
                    index: 1,
                    position: 2,
                    nested: false,
                },
                Row::Group("Yesterday".into()),
                Row::Conversation {
                    index: 2,
                    position: 3,
                    nested: false,
                },
                Row::Group("October".into()),
                Row::Conversation {
                    index: 3,
                    position: 4,
                    nested: false,
                },
            ]
        );
        assert!(rows(&[], &[], NOW, 0).is_empty());
    }

    fn uniform(n: usize) -> Vec<f64> {
        offsets(&vec![
            Row::Conversation {
                index: 0,
                position: 1,
                nested: false,
            };
            n
        ])
    }

    #[test]
    fn the_window_covers_the_viewport_plus_overscan() {
        let o = uniform(1000);
        // At the top: rows 0..10 visible in 360 px, plus 8 below.
        let w = window(&o, 0.0, 360.0, 8);
        assert_eq!((w.start, w.end), (0, 18));
        assert_eq!(w.top_px, 0.0);
        assert_eq!(w.bottom_px, (1000 - 18) as f64 * CONVERSATION_ROW_PX);
        // Scrolled to row 500 exactly.
        let w = window(&o, 500.0 * CONVERSATION_ROW_PX, 360.0, 8);
        assert_eq!((w.start, w.end), (492, 518));
        assert_eq!(
            w.top_px + (w.end - w.start) as f64 * CONVERSATION_ROW_PX + w.bottom_px,
            o[1000]
        );
        // Half a row scrolled: the partly visible row is drawn.
        let w = window(&o, 500.5 * CONVERSATION_ROW_PX, 360.0, 0);
        assert_eq!((w.start, w.end), (500, 511));
        // At the bottom, and past it (a list that shrank): clamped, never out of range.
        let w = window(&o, 1e9, 360.0, 8);
        assert_eq!(w.end, 1000);
        assert!(w.start <= w.end);
        assert_eq!(w.bottom_px, 0.0);
        let w = window(&o, f64::NAN, f64::NAN, 0);
        assert_eq!(w.start, 0);
        assert_eq!(w.end, (VIEWPORT_PX / CONVERSATION_ROW_PX).ceil() as usize);
    }

    #[test]
    fn the_drawn_rows_stay_few_however_long_the_list() {
        for n in [0usize, 1, 10, 1000, 100_000] {
            let o = uniform(n);
            for frac in [0.0, 0.25, 0.5, 0.999, 1.0] {
                let w = window(&o, o[n] * frac, 760.0, OVERSCAN_ROWS);
                assert!(
                    w.end - w.start <= 22 + 2 * OVERSCAN_ROWS,
                    "{n} rows at {frac}: {w:?}"
                );
                assert!(w.end <= n && w.start <= w.end);
                let drawn = o[w.end] - o[w.start];
                assert!((w.top_px + drawn + w.bottom_px - o[n]).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn mixed_heights_use_the_prefix_sum() {
        let r = vec![
            Row::Group("Today".into()),
            Row::Conversation {
                index: 0,
                position: 1,
                nested: false,
            },
            Row::Conversation {
                index: 1,
                position: 2,
                nested: false,
            },
            Row::Group("Yesterday".into()),
            Row::Conversation {
                index: 2,
                position: 3,
                nested: false,
            },
        ];
        let o = offsets(&r);
        assert_eq!(o, vec![0.0, 28.0, 64.0, 100.0, 128.0, 164.0]);
        // A 40 px viewport at 70 px shows rows 2 (64–100) and 3 (100–128).
        let w = window(&o, 70.0, 40.0, 0);
        assert_eq!((w.start, w.end, w.top_px, w.bottom_px), (2, 4, 64.0, 36.0));
    }

    #[test]
    fn scrolling_to_show_a_row_moves_only_when_needed() {
        let o = uniform(100);
        // Row 3 (108–144) is in a 360 px view at the top: stay.
        assert_eq!(scroll_to_show(&o, 3, 0.0, 360.0), None);
        // Row 50 is below: bring its bottom to the bottom edge.
        assert_eq!(
            scroll_to_show(&o, 50, 0.0, 360.0),
            Some(51.0 * 36.0 - 360.0)
        );
        // Row 2 is above a list scrolled to 1000: bring its top to the top edge.
        assert_eq!(scroll_to_show(&o, 2, 1000.0, 360.0), Some(72.0));
        assert_eq!(scroll_to_show(&o, 100, 0.0, 360.0), None);
    }
}
