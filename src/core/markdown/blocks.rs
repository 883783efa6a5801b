//! Where a markdown text can be cut into pieces that render on their own exactly as they
//! render in place.
//!
//! Streaming renders each top-level block once, by itself. That is only sound if the cut
//! between two blocks leaves each piece meaning what it meant in the whole text. The cut goes at
//! the end of the earlier block's last line of content: blank lines and link reference
//! definitions after a block go with the block after it, because a definition is parsed like the
//! start of a paragraph and the lines after it must be parsed with it (`[r]: /u` followed by an
//! indented line makes that line paragraph text, not code).
//!
//! The parser's own range for a top-level block is not enough: a list's range can extend over a
//! blank line and a definition after it. So the cut walks back from that range's end over blank
//! and definition lines, but never before the end of the block's inner content (a definition
//! inside a list item belongs to the item). This module must never propose a cut inside a block.

use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::render::options;

/// One top-level block as the parser reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) start: usize,
    /// End of the parser's range for the whole block (may include trailing blank lines or
    /// definitions).
    pub(crate) end: usize,
    /// End of the furthest event inside the block, if it has any.
    pub(crate) content_end: Option<usize>,
}

/// The top-level blocks of a text and its link reference definitions (which are not blocks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) blocks: Vec<Block>,
    pub(crate) definitions: Vec<Range<usize>>,
}

/// Lays out `md` without producing HTML.
pub(crate) fn layout(md: &str) -> Layout {
    let parser = Parser::new_ext(md, options());
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
                });
            }
        } else if let Some(block) = self.blocks.last_mut() {
            block.content_end = Some(block.content_end.map_or(range.end, |e| e.max(range.end)));
        }
    }
}

/// Where to cut `text` after `block` when the next piece starts no earlier than `next_start`.
pub(crate) fn cut_after(text: &str, layout: &Layout, block: &Block, next_start: usize) -> usize {
    // The end of the text is a cut point even when it is not at a line start.
    let upper = if next_start >= text.len() {
        text.len()
    } else {
        line_start(text, next_start)
    };
    let lower = line_end(
        text,
        block.content_end.unwrap_or(block.start).max(block.start),
    )
    .min(upper);
    let mut cut = line_end(text, block.end).clamp(lower, upper);
    while cut > lower {
        let prev = line_start(text, cut - 1);
        let line = &text[prev..cut];
        if line.trim().is_empty() || covered_by_definition(text, layout, prev..cut) {
            cut = prev;
        } else {
            break;
        }
    }
    cut.max(lower)
}

/// Cuts between every pair of consecutive blocks of `layout`.
pub(crate) fn cuts_between(text: &str, layout: &Layout) -> Vec<usize> {
    layout
        .blocks
        .windows(2)
        .map(|pair| cut_after(text, layout, &pair[0], pair[1].start))
        .collect()
}

/// Whether `line` overlaps a definition written at top level (only whitespace before it on its
/// line). A definition inside a quote (`> [a]: /u`) is part of the quote.
fn covered_by_definition(text: &str, layout: &Layout, line: Range<usize>) -> bool {
    layout.definitions.iter().any(|def| {
        def.start < line.end
            && def.end > line.start
            && text[line_start(text, def.start)..def.start]
                .trim()
                .is_empty()
    })
}

/// Where the line containing byte `pos` ends (after its newline), or `pos` if it is a line start.
pub(crate) fn line_end(text: &str, pos: usize) -> usize {
    if pos == 0 || pos >= text.len() || text.as_bytes()[pos - 1] == b'\n' {
        return pos.min(text.len());
    }
    text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1)
}

/// The start of the line containing byte `pos`.
pub(crate) fn line_start(text: &str, pos: usize) -> usize {
    text[..pos].rfind('\n').map_or(0, |i| i + 1)
}
