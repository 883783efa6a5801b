//! Rendering an answer while it streams in, without re-parsing what is already settled.
//!
//! A long answer arriving at hundreds of tokens a second cannot be re-parsed from the top on
//! every token: that is quadratic and keeps the page busy. Instead the text is cut into
//! top-level blocks. A block is *finished* once a later block has started on a complete line:
//! its nodes are handed out once and never recomputed. Only the unfinished tail is parsed again on
//! each push, so a push costs time proportional to the tail, never to the whole message.
//!
//! Why "on a complete line": the line still being written can change what it is. `#` alone is an
//! empty heading that interrupts a paragraph, but `#tag` is paragraph text; `***` is a thematic
//! break, `***x` is not; `|---|` completes a table that `|---|x` does not. So block boundaries are
//! decided by parsing the tail only up to its last newline, and the last block of that parse
//! stays open (setext underlines, lazy continuations, a list gaining items, an unclosed fence
//! swallowing everything all change the last block, never an earlier one). One exception keeps
//! the tail short for single-line paragraphs: when the line being written starts a new block
//! right after a blank line, the blocks above it are finished at once. After a blank line the
//! line can still join the block above only as a list item (`2` may become `2.`, `- --` may
//! become `- --x`) or become a link reference definition, so after a list a line starting with a
//! digit, `-`, `*` or `+`, and anywhere a line starting with `[`, waits for its newline.
//!
//! Each finished block is rendered on its own, cut from its neighbours where only blank lines
//! separate them (see `blocks.rs`; blocks next to a link reference definition stay in one
//! piece). Because a block's meaning does not depend on the text after it, the split is the same
//! whatever sizes the deltas had. Definitions are carried forward to later pieces.
//!
//! Known limitations, both about link reference definitions, whose meaning crosses blocks:
//! - A reference used *before* its definition (`[a]` in one piece, `[a]: url` in a later one,
//!   as in "sources" lists at the end of an answer) stays literal text: that piece was finished
//!   before the definition arrived. [`super::render`] on the whole text resolves it, so a
//!   caller wanting that can render a completed message once more with it.
//! - If a label is defined twice, the piece holding the second definition uses it for itself,
//!   where CommonMark would use the first everywhere.
//!
//! This module must never hand out nodes for a block and later need to change them, and never
//! parse text before the tail on a push.

use super::blocks::{
    cut_after, cuts_between, is_blank, layout, line_start, without_half_fence, Block,
};
use super::line_endings::LineEndings;
use super::node::MdNode;
use super::render::{render_piece, LinkDefs};

/// What changed after a push.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MarkdownUpdate {
    /// The blocks that finished with this push, in order. Each is final: append it and never
    /// touch it again.
    pub finished: Vec<Vec<MdNode>>,
    /// The unfinished tail; replaces the previous tail.
    pub tail: Vec<MdNode>,
}

/// How many bytes of markdown were parsed, split by why.
///
/// Exposed so tests (and anyone profiling the page) can check that streaming work grows with the
/// text, not with its square.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseWork {
    /// Bytes parsed to render the tail once per push: the live preview. Each push costs the
    /// tail's length here.
    pub tail_bytes: usize,
    /// Everything else: finding block boundaries, rendering finished blocks once, and rendering
    /// the shortened tail again after blocks finished.
    pub bookkeeping_bytes: usize,
}

/// Incremental renderer for one streamed message.
#[derive(Debug, Default, Clone)]
pub struct StreamingMarkdown {
    source: String,
    /// Byte offset into `source` where the unfinished tail starts: a line start, or the end of
    /// the text once `finish` ran.
    tail_start: usize,
    defs: LinkDefs,
    work: ParseWork,
    line_endings: LineEndings,
}

impl StreamingMarkdown {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `delta` to the message and returns the blocks this finished plus the new tail.
    ///
    /// Costs one parse of the tail (the open block and the line being written); when blocks
    /// finish, they and the shortened tail are parsed once more.
    pub fn push(&mut self, delta: &str) -> MarkdownUpdate {
        let delta = self.line_endings.push(delta);
        let delta = delta.as_ref();
        self.source.push_str(delta);
        let tail = &self.source[self.tail_start..];
        self.work.tail_bytes += tail.len();
        let rendered = render_piece(tail, &self.defs, false);
        // A fence being typed shows nothing until it is one (`without_half_fence`); the
        // decisions below still read the whole tail.
        let shown = |tail: &str, rendered: Vec<MdNode>, defs: &LinkDefs| {
            let trimmed = without_half_fence(tail);
            if trimmed.len() == tail.len() {
                rendered
            } else {
                render_piece(trimmed, defs, false).nodes
            }
        };

        // Only a new newline can complete the line a new block starts on; and if even the full
        // tail shows no second block starting on a complete line, its complete lines alone
        // cannot hold two blocks either.
        let complete = tail.rfind('\n').map_or(0, |i| i + 1);
        let blocks = &rendered.layout.blocks;
        let by_complete_line =
            delta.contains('\n') && blocks.iter().skip(1).any(|b| b.start < complete);
        let after_blank_line = complete > 0
            && blocks.last().is_some_and(|b| b.start >= complete)
            && ends_with_blank_line(&tail[..complete])
            && !may_still_attach(&tail[complete..], blocks.iter().rev().nth(1));
        if !by_complete_line && !after_blank_line {
            return MarkdownUpdate {
                finished: Vec::new(),
                tail: shown(tail, rendered.nodes, &self.defs),
            };
        }
        let stable = if complete == tail.len() {
            rendered.layout
        } else {
            self.work.bookkeeping_bytes += complete;
            layout(&tail[..complete])
        };
        // The last block of the complete lines may still change, unless a blank line and a new
        // block already follow it.
        let mut cuts = cuts_between(tail, &stable);
        if let (true, Some(last)) = (after_blank_line, stable.blocks.last()) {
            cuts.extend(cut_after(tail, &stable, last, complete));
        }
        let finished = self.finish_pieces(&cuts);
        let tail_nodes = if finished.is_empty() {
            shown(&self.source[self.tail_start..], rendered.nodes, &self.defs)
        } else {
            let tail = without_half_fence(&self.source[self.tail_start..]);
            self.work.bookkeeping_bytes += tail.len();
            render_piece(tail, &self.defs, false).nodes
        };
        MarkdownUpdate {
            finished,
            tail: tail_nodes,
        }
    }

    /// The stream is over: the tail is split into its blocks, which are all finished.
    ///
    /// Calling it again returns nothing. Text pushed after it is rendered as a new start, not as
    /// a continuation of the last line.
    pub fn finish(&mut self) -> Vec<Vec<MdNode>> {
        // A fence the model was cut off writing is not part of the answer shown.
        let tail = without_half_fence(&self.source[self.tail_start..]);
        self.work.bookkeeping_bytes += tail.len();
        let layout = layout(tail);
        let mut cuts = cuts_between(tail, &layout);
        // Definitions after the last block go with what follows, as they would have had the
        // stream continued: they render nothing, but must not resolve the block before them.
        if let Some(last) = layout.blocks.last() {
            cuts.extend(cut_after(tail, &layout, last, tail.len()));
        }
        cuts.push(tail.len());
        self.finish_pieces(&cuts)
    }

    /// Everything pushed so far, every line ending as `\n` (see `line_endings.rs`).
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Bytes parsed so far, for checking that the work stays linear.
    #[must_use]
    pub fn parse_work(&self) -> ParseWork {
        self.work
    }

    /// Renders the pieces of the tail ending at each of `cuts` (ascending, relative to the
    /// tail), each on its own and in order, and moves the tail start to the last cut.
    fn finish_pieces(&mut self, cuts: &[usize]) -> Vec<Vec<MdNode>> {
        let base = self.tail_start;
        let mut blocks = Vec::with_capacity(cuts.len());
        let mut from = 0;
        for &to in cuts {
            if to <= from {
                continue;
            }
            let piece = &self.source[base + from..base + to];
            self.work.bookkeeping_bytes += piece.len();
            let rendered = render_piece(piece, &self.defs, true);
            self.defs.absorb(rendered.defs);
            if !rendered.nodes.is_empty() {
                blocks.push(rendered.nodes);
            }
            from = to;
        }
        self.tail_start = base + from;
        blocks
    }
}

/// Whether `line`, being written after a blank line that follows `above`, may still turn into
/// something that is not a block of its own: an item of the list above (`2` may become `2.`,
/// `- --` is a thematic break that `- --x` turns into an item), or a link reference definition.
fn may_still_attach(line: &str, above: Option<&Block>) -> bool {
    let first = line.trim_start_matches([' ', '\t']).chars().next();
    let list_above = above.is_some_and(|b| b.is_list);
    match first {
        Some('[') => true,
        Some(c) => list_above && (c.is_ascii_digit() || matches!(c, '-' | '*' | '+')),
        None => true,
    }
}

/// Whether the last line of `text` (which ends with a newline) holds only whitespace.
fn ends_with_blank_line(text: &str) -> bool {
    let body = text.strip_suffix('\n').unwrap_or(text);
    is_blank(&body[line_start(body, body.len())..])
}

/// A complete message (e.g. one loaded from storage) as the same blocks streaming produces,
/// whatever deltas it arrived in.
#[must_use]
pub fn render_blocks(md: &str) -> Vec<Vec<MdNode>> {
    let mut stream = StreamingMarkdown::new();
    let mut blocks = stream.push(md).finished;
    blocks.extend(stream.finish());
    blocks
}
