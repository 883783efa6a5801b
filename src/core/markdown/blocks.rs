//! Where a markdown text can be cut into pieces that render on their own exactly as they
//! render in place.
//!
//! Streaming renders each top-level block once, by itself. That is only sound if each piece
//! means on its own what it meant in the whole text. Blocks are cut apart only where nothing but
//! blank lines separates them; the cut goes at the end of the earlier block, so the blank lines
//! go with the later one.
//!
//! Link reference definitions are what makes this delicate: a definition is no block, it is
//! parsed like the start of a paragraph (so an indented line after it is paragraph text, not
//! code), it can span lines (`[a\n]: /u` or a title on the next line), and the parser's treatment
//! of the lines after it depends on what came before it. So a cut is never made next to one:
//! not when a definition (or anything starting with `[`, which may still become one) lies
//! between the blocks, and not before a block whose first line starts with `[`. Those blocks
//! simply stay in one piece with their neighbour.
//!
//! The parser's range for a top-level block can extend past its content (a list's range can
//! cover a blank line and a definition after it), so the end of a block is found by walking back
//! from that range's end over blank lines, never before the end of the block's inner content.
//! This module must never propose a cut inside a block.

use std::ops::Range;

use pulldown_cmark::{Event, Tag, TagEnd};

use super::render::parser;

/// One top-level block as the parser reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) start: usize,
    /// End of the parser's range for the whole block (may include trailing blank lines or
    /// definitions).
    pub(crate) end: usize,
    /// End of the furthest event inside the block, if it has any.
    pub(crate) content_end: Option<usize>,
    /// Whether the block is a list, the one kind a later line can join after a blank line.
    pub(crate) is_list: bool,
}

/// The top-level blocks of a text and its link reference definitions (which are not blocks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) blocks: Vec<Block>,
    pub(crate) definitions: Vec<Range<usize>>,
}

/// Lays out `md` without producing HTML.
pub(crate) fn layout(md: &str) -> Layout {
    let parser = parser(md, None);
    let definitions = parser
        .reference_definitions()
        .iter()
        .map(|(_, def)| def.span.clone())
        .collect();
    let mut blocks = TopLevelBlocks::default();
    for (event, range) in parser.into_offset_iter() {
        blocks.observe(&event, range);
    }
    Layout {
        blocks: blocks.blocks,
        definitions,
    }
}

/// Follows nesting depth through an event stream to record where top-level blocks lie.
#[derive(Debug, Default)]
pub(crate) struct TopLevelBlocks {
    depth: usize,
    pub(crate) blocks: Vec<Block>,
}

impl TopLevelBlocks {
    pub(crate) fn observe(&mut self, event: &Event<'_>, range: Range<usize>) {
        // Images are inline (never top level) and the HTML writer consumes their inner events
        // itself, so they are left out of the depth count on every path.
        let opens = match event {
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
            Event::Start(_) => Some(true),
            Event::End(_) => Some(false),
            _ => None,
        };
        match opens {
            Some(true) if self.depth == 0 => {
                self.blocks.push(Block {
                    start: range.start,
                    end: range.end,
                    content_end: None,
                    is_list: matches!(event, Event::Start(Tag::List(_))),
                });
                self.depth = 1;
                return;
            }
            Some(true) => self.depth += 1,
            Some(false) => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    if let Some(block) = self.blocks.last_mut() {
                        block.end = block.end.max(range.end);
                    }
                    return;
                }
            }
            None => {}
        }
        if self.depth == 0 {
            // A thematic break is a block with no Start/End pair.
            if matches!(event, Event::Rule) {
                self.blocks.push(Block {
                    start: range.start,
                    end: range.end,
                    content_end: None,
                    is_list: false,
                });
            }
        } else if let Some(block) = self.blocks.last_mut() {
            block.content_end = Some(block.content_end.map_or(range.end, |e| e.max(range.end)));
        }
    }
}

/// Where to cut `text` after `block` when the next block starts at `next_start` (or the text
/// ends there), or `None` when these two must stay in one piece.
pub(crate) fn cut_after(
    text: &str,
    layout: &Layout,
    block: &Block,
    next_start: usize,
) -> Option<usize> {
    // The end of the text is a cut point even when it is not at a line start.
    let upper = if next_start >= text.len() {
        text.len()
    } else {
        if starts_like_definition(&text[line_start(text, next_start)..]) {
            return None;
        }
        line_start(text, next_start)
    };
    let content_end = block.content_end.unwrap_or(block.start).max(block.start);
    let lower = line_end(text, content_end).min(upper);
    let between = &text[lower..upper];
    let definition_between = between.split_inclusive('\n').any(starts_like_definition)
        || layout
            .definitions
            .iter()
            .any(|def| def.start < upper && def.end > lower);
    if definition_between {
        return None;
    }
    let mut cut = line_end(text, block.end).clamp(lower, upper);
    while cut > lower {
        let prev = line_start(text, cut - 1);
        if !is_blank(&text[prev..cut]) {
            break;
        }
        cut = prev;
    }
    Some(cut)
}

/// Whether `line` starts (after indentation) with `[`: a link reference definition, or text
/// that may still turn into one.
fn starts_like_definition(line: &str) -> bool {
    line.trim_start_matches([' ', '\t']).starts_with('[')
}

/// Cuts between every pair of consecutive blocks of `layout`.
pub(crate) fn cuts_between(text: &str, layout: &Layout) -> Vec<usize> {
    layout
        .blocks
        .windows(2)
        .filter_map(|pair| cut_after(text, layout, &pair[0], pair[1].start))
        .collect()
}

/// Blank in markdown's sense: spaces, tabs and line endings only. A no-break space is text, so
/// `str::trim` would be wrong here.
pub(crate) fn is_blank(line: &str) -> bool {
    line.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// Where the line containing byte `pos` ends (after its newline), or `pos` if it is a line start.
/// Works on bytes: `pos` need not be a char boundary.
pub(crate) fn line_end(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    if pos == 0 || pos >= bytes.len() || bytes[pos - 1] == b'\n' {
        return pos.min(bytes.len());
    }
    bytes[pos..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| pos + i + 1)
}

/// The start of the line containing byte `pos`. Works on bytes: `pos` need not be a char
/// boundary (a newline byte never occurs inside a multi-byte char, so the result always is).
pub(crate) fn line_start(text: &str, pos: usize) -> usize {
    let bytes = text.as_bytes();
    bytes[..pos.min(bytes.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1)
}

/// `text` without a last line that is the start of a fence and nothing else (one or two
/// backticks or tildes, up to three spaces before them, no newline after): a model cut off
/// while writing ```` ``` ```` leaves it, and shown it is a stray `` `` `` under the answer, or a
/// last line of code that is not code. Anything after the marker (a language, a third
/// character) or a newline makes it a line of its own, kept.
pub(crate) fn without_half_fence(text: &str) -> &str {
    let start = line_start(text, text.len());
    let line = &text[start..];
    let marker = line.trim_start_matches(' ');
    let indent = line.len() - marker.len();
    let half = indent <= 3
        && matches!(
            marker.trim_end_matches([' ', '\t']),
            "`" | "``" | "~" | "~~"
        );
    if half {
        &text[..start]
    } else {
        text
    }
}
