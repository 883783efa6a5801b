//! Markdown from model output to a typed tree the page turns into DOM nodes (`node.rs`): safe by
//! construction, and cheap to keep up to date while an answer streams.
//!
//! Everything a model writes is untrusted (a prompt injection in a fetched page or tool result
//! can make it write anything), so [`render`] never passes markup, script URLs or auto-loading
//! images through: there is no node for markup, and model text only ever becomes text nodes. [`StreamingMarkdown`] renders settled blocks once and re-renders only the
//! growing tail; [`render_blocks`] splits a stored message the same way. Finished code blocks
//! are coloured (`highlight/`), math becomes MathML (`math/`), and an `html`/`svg` block's
//! Preview document and confinement are decided in `preview.rs`.
//!
//! This module must never write HTML text (the tests' serializer, `to_html.rs`, exists only
//! under `cfg(test)`), never produce a tag or attribute outside the fixed set of `node.rs`
//! (the checker in `render_tests.rs` holds the serialized output to the same allowlist), and
//! never re-parse a whole message per streamed token.

mod blocks;
mod highlight;
mod line_endings;
mod math;
mod node;
mod preview;
mod render;
mod streaming;
mod url;

#[cfg(test)]
mod render_tests;
#[cfg(test)]
mod streaming_tests;
#[cfg(test)]
pub(crate) mod to_html;

#[cfg(test)]
pub(crate) use highlight::without_highlight;
pub use highlight::Class as HighlightClass;
pub use node::{
    grown_code, Alert, Align, Attr, Class, CodeLanguage, Element, Href, MdNode, Namespace, Tag,
    TaskLabel,
};
pub use preview::{
    preview_document, preview_frame_height, PreviewKind, PREVIEW_CSP, PREVIEW_PAGE, PREVIEW_SANDBOX,
};
pub use streaming::{render_blocks, MarkdownUpdate, ParseWork, StreamingMarkdown};

/// Renders a whole markdown document to a safe tree.
///
/// Raw HTML in the input is shown as text; links keep only `http`, `https`, `mailto` and
/// relative targets and open in a new tab with `rel="noopener noreferrer"`; images become links
/// (labelled `🖼 alt`) instead of loading; code block languages are reduced to
/// `[A-Za-z0-9_+-]` and known languages are coloured; `$…$`, `$$…$$`, `\(…\)` and `\[…\]`
/// become MathML (or their source in `<code>`); footnotes and headings carry no ids.
#[must_use]
pub fn render(md: &str) -> Vec<MdNode> {
    let md = line_endings::normalize(md);
    let md = blocks::without_half_fence(&md);
    render::render_piece(md, &render::LinkDefs::default(), true).nodes
}
