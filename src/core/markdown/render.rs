//! Turning markdown events into HTML that is safe to assign to `innerHTML`.
//!
//! The writer emits only tags it builds itself, from a small fixed set, with attribute values it
//! either chose or escaped. It must never copy markup from the input: raw HTML blocks and inline
//! HTML come out as visible, escaped text; images never load (they become links), and heading ids
//! are never emitted (an id from model output could clobber a global in the page's DOM).

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{
    Alignment, BlockQuoteKind, BrokenLink, CodeBlockKind, CowStr, Event, LinkType, Options, Parser,
    Tag, TagEnd,
};

use super::blocks::{Layout, TopLevelBlocks};
use super::highlight::highlight;
use super::math::{brackets, write_math};
use super::url::safe_href;

/// Every link the renderer keeps opens in a new tab and cannot reach back into this page.
const LINK_ATTRS: &str = " target=\"_blank\" rel=\"noopener noreferrer\"";

/// The markdown dialect: CommonMark plus the GitHub extensions models actually use, and `$…$` /
/// `$$…$$` math (`\(…\)` and `\[…\]` are turned into dollars first, see `math/brackets.rs`).
/// Footnotes render without ids or links (a label from model output must not name DOM nodes),
/// in the older syntax where every `[^label]` is a reference: whether a reference resolves must
/// not depend on which streamed piece its definition landed in. Heading attributes stay off:
/// a `{#id}` would name a DOM node.
pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
        | Options::ENABLE_MATH
        | Options::ENABLE_OLD_FOOTNOTES
}

/// What the parser asks about a reference link it cannot resolve on its own.
pub(crate) type Resolve<'i, 'd> =
    Box<dyn FnMut(BrokenLink<'i>) -> Option<(CowStr<'i>, CowStr<'i>)> + 'd>;

/// The page's one pulldown-cmark parser type. `Parser` is generic over its broken-link callback,
/// and each callback type compiles the whole inline pass again (21 KB of wasm for a second
/// copy), so every caller goes through this boxed callback, `None` where links need no help.
pub(crate) fn parser<'i, 'd>(
    md: &'i str,
    resolve: Option<Resolve<'i, 'd>>,
) -> Parser<'i, Resolve<'i, 'd>> {
    Parser::new_with_broken_link_callback(md, options(), resolve)
}

/// Link reference definitions (`[label]: url "title"`) seen in earlier blocks of a message.
///
/// Blocks are parsed one at a time, so a block cannot see definitions made in an earlier block
/// on its own; this carries them forward. Like CommonMark, the first definition of a label wins.
#[derive(Debug, Default, Clone)]
pub(crate) struct LinkDefs {
    by_label: HashMap<String, (String, String)>,
}

impl LinkDefs {
    /// CommonMark matches labels case-insensitively (Unicode case fold) with runs of whitespace
    /// collapsed, e.g. `ẞ`, `ß` and `SS` all match. The fold is unicase's, the one pulldown-cmark
    /// matches labels with inside a piece, so both agree; it also keeps `str::to_uppercase` and
    /// its 7.7 KB case table out of the page.
    fn key(label: &str) -> String {
        let collapsed = label.split_whitespace().collect::<Vec<_>>().join(" ");
        unicase::UniCase::new(collapsed).to_folded_case()
    }

    fn get(&self, label: &str) -> Option<&(String, String)> {
        self.by_label.get(&Self::key(label))
    }

    /// Adds definitions from a later piece; labels already defined keep their first definition.
    pub(crate) fn absorb(&mut self, defs: Vec<(String, String, String)>) {
        for (label, dest, title) in defs {
            self.by_label
                .entry(Self::key(&label))
                .or_insert((dest, title));
        }
    }
}

/// One piece of markdown rendered on its own.
pub(crate) struct Rendered {
    pub(crate) html: String,
    /// Where the piece's top-level blocks and definitions lie.
    pub(crate) layout: Layout,
    /// The piece's own link reference definitions: (label, destination, title).
    pub(crate) defs: Vec<(String, String, String)>,
}

/// Renders `md` alone. References it does not define itself resolve through `earlier`.
///
/// `finished` says the piece will never change again: only then are code blocks coloured (the
/// streaming tail is re-rendered on every push and stays plain, so its cost stays flat).
pub(crate) fn render_piece(md: &str, earlier: &LinkDefs, finished: bool) -> Rendered {
    // Same length as `md`, so every offset below holds for both.
    let rewritten = brackets::rewrite(md);
    let (md, inline_math) = match &rewritten {
        Some((text, inline)) => (text.as_str(), inline.as_slice()),
        None => (md, &[][..]),
    };
    let resolve = |link: BrokenLink<'_>| {
        earlier
            .get(&link.reference)
            .map(|(dest, title)| (CowStr::from(dest.clone()), CowStr::from(title.clone())))
    };
    let parser = parser(md, Some(Box::new(resolve)));
    let mut definitions = Vec::new();
    let defs = parser
        .reference_definitions()
        .iter()
        .map(|(label, def)| {
            definitions.push(def.span.clone());
            let title = def.title.as_deref().unwrap_or("");
            (label.to_owned(), def.dest.to_string(), title.to_owned())
        })
        .collect();
    let mut writer = HtmlWriter::new(md.len(), finished);
    writer.inline_math = inline_math;
    writer.run(parser.into_offset_iter());
    Rendered {
        html: writer.out,
        layout: Layout {
            blocks: writer.blocks.blocks,
            definitions,
        },
        defs,
    }
}

pub(crate) use crate::html::escape_into;

/// A fenced block's language as a class-name fragment: the first word of the info string, with
/// `#` spelled out (`c#` is `csharp`) and anything outside `[A-Za-z0-9_+-]` dropped.
fn code_language(info: &str) -> String {
    let word = info
        .split([' ', '\t', ',', '{', '}'])
        .find(|w| !w.is_empty())
        .unwrap_or("");
    word.replace('#', "sharp")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
        .take(40)
        .collect()
}

struct HtmlWriter<'m> {
    out: String,
    /// Whether `out` ends at the start of a line, so block tags are not glued to text.
    at_line_start: bool,
    blocks: TopLevelBlocks,
    table_alignments: Vec<Alignment>,
    table_cell: usize,
    in_table_head: bool,
    /// One entry per open markdown link: whether an `<a>` was written for it (a refused target
    /// renders its text only, so its end must not close anything).
    open_links: Vec<bool>,
    /// Whether fenced code blocks are coloured (finished pieces only).
    highlight: bool,
    /// Inside a fenced block with a language, while highlighting: the language and the code
    /// collected so far, coloured as a whole at the block's end.
    code: Option<(String, String)>,
    /// Where `\(…\)` pairs (rewritten to `$$…$$`) start: display math there renders inline.
    inline_math: &'m [usize],
}

impl HtmlWriter<'_> {
    fn new(capacity: usize, highlight: bool) -> Self {
        HtmlWriter {
            out: String::with_capacity(capacity + capacity / 4),
            at_line_start: true,
            blocks: TopLevelBlocks::default(),
            table_alignments: Vec::new(),
            table_cell: 0,
            in_table_head: false,
            open_links: Vec::new(),
            highlight,
            code: None,
            inline_math: &[],
        }
    }

    fn write(&mut self, s: &str) {
        if !s.is_empty() {
            self.out.push_str(s);
            self.at_line_start = s.ends_with('\n');
        }
    }

    fn text(&mut self, s: &str) {
        if !s.is_empty() {
            escape_into(&mut self.out, s);
            self.at_line_start = s.ends_with('\n');
        }
    }

    /// Writes a block-level opening tag on a line of its own.
    fn block(&mut self, tag: &str) {
        if !self.at_line_start {
            self.write("\n");
        }
        self.write(tag);
    }

    fn math(&mut self, latex: &str, display: bool) {
        write_math(&mut self.out, latex, display);
        self.at_line_start = false;
    }

    fn inside_anchor(&self) -> bool {
        self.open_links.iter().any(|&a| a)
    }

    fn run<'a>(&mut self, events: impl Iterator<Item = (Event<'a>, Range<usize>)>) {
        let mut events = events;
        while let Some((event, range)) = events.next() {
            let start = range.start;
            self.blocks.observe(&event, range);
            match event {
                Event::Start(Tag::Image {
                    dest_url, title, ..
                }) => {
                    // Consumes the image's own events up to and including its end.
                    let alt = plain_text(&mut events);
                    self.image(&dest_url, &title, &alt);
                }
                Event::Start(tag) => self.start(tag),
                Event::End(tag) => self.end(tag),
                Event::Text(t) => match &mut self.code {
                    Some((_, code)) => code.push_str(&t),
                    None => self.text(&t),
                },
                Event::Code(t) => {
                    self.write("<code>");
                    self.text(&t);
                    self.write("</code>");
                }
                // Raw HTML from the input is shown, never interpreted.
                Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
                Event::InlineMath(t) => self.math(&t, false),
                Event::DisplayMath(t) => {
                    let inline = self.inline_math.binary_search(&start).is_ok();
                    self.math(&t, !inline);
                }
                Event::FootnoteReference(name) => {
                    self.write("<sup class=\"footnote-ref\">");
                    self.text(&name);
                    self.write("</sup>");
                }
                Event::SoftBreak => self.write("\n"),
                Event::HardBreak => self.write("<br />\n"),
                Event::Rule => self.block("<hr />\n"),
                // Labelled so a screen reader says what the box means (axe: form elements need
                // labels).
                Event::TaskListMarker(checked) => {
                    if checked {
                        self.write(
                            "<input type=\"checkbox\" disabled=\"\" checked=\"\" \
                             aria-label=\"Done\" /> ",
                        );
                    } else {
                        self.write(
                            "<input type=\"checkbox\" disabled=\"\" aria-label=\"Not done\" /> ",
                        );
                    }
                }
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.block("<p>"),
            Tag::Heading { level, .. } => self.block(&format!("<{level}>")),
            Tag::BlockQuote(kind) => {
                let class = match kind {
                    None => "",
                    Some(BlockQuoteKind::Note) => " class=\"markdown-alert-note\"",
                    Some(BlockQuoteKind::Tip) => " class=\"markdown-alert-tip\"",
                    Some(BlockQuoteKind::Important) => " class=\"markdown-alert-important\"",
                    Some(BlockQuoteKind::Warning) => " class=\"markdown-alert-warning\"",
                    Some(BlockQuoteKind::Caution) => " class=\"markdown-alert-caution\"",
                };
                self.block(&format!("<blockquote{class}>\n"));
            }
            Tag::CodeBlock(CodeBlockKind::Fenced(info)) => {
                let lang = code_language(&info);
                if lang.is_empty() {
                    self.block("<pre><code>");
                } else {
                    self.block(&format!("<pre><code class=\"language-{lang}\">"));
                    if self.highlight {
                        self.code = Some((lang, String::new()));
                    }
                }
            }
            Tag::CodeBlock(CodeBlockKind::Indented) => self.block("<pre><code>"),
            // Shown as source, in the same frame as code, so its line structure survives.
            Tag::HtmlBlock => self.block("<pre><code class=\"language-html\">"),
            Tag::List(Some(1)) => self.block("<ol>\n"),
            Tag::List(Some(start)) => self.block(&format!("<ol start=\"{start}\">\n")),
            Tag::List(None) => self.block("<ul>\n"),
            Tag::Item => self.block("<li>"),
            Tag::Table(alignments) => {
                self.table_alignments = alignments;
                self.block("<table>");
            }
            Tag::TableHead => {
                self.in_table_head = true;
                self.table_cell = 0;
                self.write("<thead><tr>");
            }
            Tag::TableRow => {
                self.table_cell = 0;
                self.write("<tr>");
            }
            Tag::TableCell => {
                let cell = if self.in_table_head { "<th" } else { "<td" };
                // `align` rather than `style`: it needs neither CSS nor a CSP allowing inline styles.
                let align = match self.table_alignments.get(self.table_cell) {
                    Some(Alignment::Left) => " align=\"left\"",
                    Some(Alignment::Center) => " align=\"center\"",
                    Some(Alignment::Right) => " align=\"right\"",
                    _ => "",
                };
                self.write(&format!("{cell}{align}>"));
            }
            Tag::Emphasis => self.write("<em>"),
            Tag::Strong => self.write("<strong>"),
            Tag::Strikethrough => self.write("<del>"),
            Tag::Superscript => self.write("<sup>"),
            Tag::Subscript => self.write("<sub>"),
            Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            } => self.link_start(link_type, &dest_url, &title),
            Tag::FootnoteDefinition(name) => {
                self.block("<aside class=\"footnote\"><sup>");
                self.text(&name);
                self.write("</sup>\n");
            }
            // Not enabled in `options()`; if they ever appear, their content is shown plainly.
            Tag::Image { .. }
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.write("</p>\n"),
            TagEnd::Heading(level) => self.write(&format!("</{level}>\n")),
            TagEnd::BlockQuote(_) => self.block("</blockquote>\n"),
            TagEnd::CodeBlock | TagEnd::HtmlBlock => {
                if let Some((lang, code)) = self.code.take() {
                    if !highlight(&lang, &code, &mut self.out) {
                        escape_into(&mut self.out, &code);
                    }
                }
                self.write("</code></pre>\n");
            }
            TagEnd::List(true) => self.block("</ol>\n"),
            TagEnd::List(false) => self.block("</ul>\n"),
            TagEnd::Item => self.write("</li>\n"),
            TagEnd::Table => self.write("</tbody></table>\n"),
            TagEnd::TableHead => {
                self.in_table_head = false;
                self.write("</tr></thead><tbody>\n");
            }
            TagEnd::TableRow => self.write("</tr>\n"),
            TagEnd::TableCell => {
                self.write(if self.in_table_head { "</th>" } else { "</td>" });
                self.table_cell += 1;
            }
            TagEnd::Emphasis => self.write("</em>"),
            TagEnd::Strong => self.write("</strong>"),
            TagEnd::Strikethrough => self.write("</del>"),
            TagEnd::Superscript => self.write("</sup>"),
            TagEnd::Subscript => self.write("</sub>"),
            TagEnd::Link => {
                if self.open_links.pop() == Some(true) {
                    self.write("</a>");
                }
            }
            TagEnd::FootnoteDefinition => self.block("</aside>\n"),
            TagEnd::Image
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {}
        }
    }

    fn link_start(&mut self, link_type: LinkType, dest: &str, title: &str) {
        let target = if link_type == LinkType::Email {
            format!("mailto:{dest}")
        } else {
            dest.to_owned()
        };
        // An anchor inside an anchor is invalid HTML that browsers restructure; keep the text.
        let href = if self.inside_anchor() {
            None
        } else {
            safe_href(&target)
        };
        match href {
            Some(href) => {
                self.write("<a href=\"");
                self.write(&href);
                self.write("\"");
                self.title_attr(title);
                self.write(LINK_ATTRS);
                self.write(">");
                self.open_links.push(true);
            }
            None => self.open_links.push(false),
        }
    }

    /// An image never loads: a remote URL in model output can be a tracking pixel or carry the
    /// conversation out in its query string. It becomes a link the reader can choose to open.
    fn image(&mut self, dest: &str, title: &str, alt: &str) {
        let label = if alt.trim().is_empty() { "image" } else { alt };
        let href = if self.inside_anchor() {
            None
        } else {
            safe_href(dest)
        };
        match href {
            Some(href) => {
                self.write("<a class=\"md-image\" href=\"");
                self.write(&href);
                self.write("\"");
                self.title_attr(title);
                self.write(LINK_ATTRS);
                self.write(">🖼 ");
                self.text(label);
                self.write("</a>");
            }
            None => {
                self.text("🖼 ");
                self.text(label);
            }
        }
    }

    fn title_attr(&mut self, title: &str) {
        if !title.is_empty() {
            self.write(" title=\"");
            self.text(title);
            self.write("\"");
        }
    }
}

/// The text content of an inline element (an image's alt text), consuming events up to and
/// including the element's end.
fn plain_text<'a>(events: &mut impl Iterator<Item = (Event<'a>, Range<usize>)>) -> String {
    let mut text = String::new();
    let mut nesting = 0usize;
    for (event, _) in events.by_ref() {
        match event {
            Event::Start(_) => nesting += 1,
            Event::End(_) => {
                if nesting == 0 {
                    break;
                }
                nesting -= 1;
            }
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => {
                text.push_str(&t)
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => text.push_str(&t),
            Event::FootnoteReference(t) => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak | Event::Rule => text.push(' '),
            Event::TaskListMarker(_) => {}
        }
    }
    text
}
