//! Turning markdown events into the typed tree of `node.rs`, which the ui turns into DOM nodes.
//!
//! The writer builds only elements from the fixed [`Tag`] set with typed attributes. It must
//! never copy markup from the input: raw HTML blocks and inline HTML come out as visible text;
//! images never load (they become links), and heading ids are never emitted (an id from model
//! output could clobber a global in the page's DOM).

use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{
    Alignment, BlockQuoteKind, BrokenLink, CodeBlockKind, CowStr, Event, HeadingLevel, LinkType,
    Options, Parser, Tag as PTag, TagEnd,
};

use super::blocks::{Layout, TopLevelBlocks};
use super::highlight::highlight;
use super::math::{brackets, math_node};
use super::node::{Alert, Align, Attr, Class, CodeLanguage, Element, Href, MdNode, Tag, TaskLabel};
use super::url::safe_href;

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
    pub(crate) nodes: Vec<MdNode>,
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
    let mut writer = TreeWriter::new(finished);
    writer.inline_math = inline_math;
    writer.run(parser.into_offset_iter());
    Rendered {
        nodes: writer.tree.finish(),
        layout: Layout {
            blocks: writer.blocks.blocks,
            definitions,
        },
        defs,
    }
}

/// Builds the tree: elements open and close like tags in a text, so the writer below reads like
/// the HTML writer it replaced, and text pushed next to text joins it (one DOM text node).
#[derive(Default)]
struct Tree {
    /// Open elements, innermost last; the bottom entry collects the top-level nodes.
    open: Vec<Element>,
    top: Vec<MdNode>,
}

impl Tree {
    fn children(&mut self) -> &mut Vec<MdNode> {
        match self.open.last_mut() {
            Some(el) => &mut el.children,
            None => &mut self.top,
        }
    }

    fn open(&mut self, tag: Tag, attrs: Vec<Attr>) {
        self.open.push(Element::new(tag, attrs, Vec::new()));
    }

    /// Closes the innermost element, which must be `tag` (the writer closes what it opened).
    fn close(&mut self, tag: Tag) {
        debug_assert_eq!(self.open.last().map(|e| e.tag), Some(tag));
        if let Some(el) = self.open.pop() {
            self.children().push(MdNode::Element(el));
        }
    }

    fn node(&mut self, node: MdNode) {
        match node {
            MdNode::Text(t) => self.text(&t),
            node => self.children().push(node),
        }
    }

    fn text(&mut self, s: &str) {
        let children = self.children();
        if let Some(MdNode::Text(last)) = children.last_mut() {
            last.push_str(s);
        } else {
            children.push(MdNode::Text(s.to_owned()));
        }
    }

    fn finish(mut self) -> Vec<MdNode> {
        // Balanced by construction; anything left open is closed rather than lost.
        while let Some(el) = self.open.pop() {
            self.children().push(MdNode::Element(el));
        }
        self.top
    }
}

struct TreeWriter<'m> {
    tree: Tree,
    /// Whether the output ends at the start of a line, so blocks are not glued to text.
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
    code: Option<(CodeLanguage, String)>,
    /// Where `\(…\)` pairs (rewritten to `$$…$$`) start: display math there renders inline.
    inline_math: &'m [usize],
}

impl TreeWriter<'_> {
    fn new(highlight: bool) -> Self {
        TreeWriter {
            tree: Tree::default(),
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

    fn text(&mut self, s: &str) {
        if !s.is_empty() {
            self.tree.text(s);
            self.at_line_start = s.ends_with('\n');
        }
    }

    fn open(&mut self, tag: Tag, attrs: Vec<Attr>) {
        self.tree.open(tag, attrs);
        self.at_line_start = false;
    }

    fn close(&mut self, tag: Tag) {
        self.tree.close(tag);
        self.at_line_start = false;
    }

    /// Closes `tag` and ends the line.
    fn close_line(&mut self, tag: Tag) {
        self.tree.close(tag);
        self.text("\n");
    }

    fn void(&mut self, tag: Tag, attrs: Vec<Attr>) {
        self.tree.node(MdNode::el(tag, attrs, Vec::new()));
        self.at_line_start = false;
    }

    /// Opens a block-level element on a line of its own.
    fn block(&mut self, tag: Tag, attrs: Vec<Attr>) {
        self.new_line();
        self.open(tag, attrs);
    }

    fn new_line(&mut self) {
        if !self.at_line_start {
            self.text("\n");
        }
    }

    fn math(&mut self, latex: &str, display: bool) {
        self.tree.node(math_node(latex, display));
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
                Event::Start(PTag::Image {
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
                    self.open(Tag::Code, Vec::new());
                    self.text(&t);
                    self.close(Tag::Code);
                }
                // Raw HTML from the input is shown, never interpreted.
                Event::Html(t) | Event::InlineHtml(t) => self.text(&t),
                Event::InlineMath(t) => self.math(&t, false),
                Event::DisplayMath(t) => {
                    let inline = self.inline_math.binary_search(&start).is_ok();
                    self.math(&t, !inline);
                }
                Event::FootnoteReference(name) => {
                    self.open(Tag::Sup, vec![Attr::Class(Class::FootnoteRef)]);
                    self.text(&name);
                    self.close(Tag::Sup);
                }
                Event::SoftBreak => self.text("\n"),
                Event::HardBreak => {
                    self.void(Tag::Br, Vec::new());
                    self.text("\n");
                }
                Event::Rule => {
                    self.new_line();
                    self.void(Tag::Hr, Vec::new());
                    self.text("\n");
                }
                // Labelled so a screen reader says what the box means (axe: form elements need
                // labels).
                Event::TaskListMarker(checked) => {
                    let mut attrs = vec![Attr::TypeCheckbox, Attr::Disabled];
                    if checked {
                        attrs.push(Attr::Checked);
                        attrs.push(Attr::AriaLabel(TaskLabel::Done));
                    } else {
                        attrs.push(Attr::AriaLabel(TaskLabel::NotDone));
                    }
                    self.void(Tag::Input, attrs);
                    self.text(" ");
                }
            }
        }
    }

    fn start(&mut self, tag: PTag<'_>) {
        match tag {
            PTag::Paragraph => self.block(Tag::P, Vec::new()),
            PTag::Heading { level, .. } => self.block(heading(level), Vec::new()),
            PTag::BlockQuote(kind) => {
                let attrs = match kind {
                    None => Vec::new(),
                    Some(kind) => vec![Attr::Class(Class::Alert(match kind {
                        BlockQuoteKind::Note => Alert::Note,
                        BlockQuoteKind::Tip => Alert::Tip,
                        BlockQuoteKind::Important => Alert::Important,
                        BlockQuoteKind::Warning => Alert::Warning,
                        BlockQuoteKind::Caution => Alert::Caution,
                    }))],
                };
                self.block(Tag::Blockquote, attrs);
                self.text("\n");
            }
            PTag::CodeBlock(CodeBlockKind::Fenced(info)) => {
                self.block(Tag::Pre, Vec::new());
                match CodeLanguage::from_info(&info) {
                    None => self.open(Tag::Code, Vec::new()),
                    Some(lang) => {
                        self.open(Tag::Code, vec![Attr::Class(Class::Language(lang.clone()))]);
                        if self.highlight {
                            self.code = Some((lang, String::new()));
                        }
                    }
                }
            }
            PTag::CodeBlock(CodeBlockKind::Indented) => {
                self.block(Tag::Pre, Vec::new());
                self.open(Tag::Code, Vec::new());
            }
            // Shown as source, in the same frame as code, so its line structure survives.
            PTag::HtmlBlock => {
                self.block(Tag::Pre, Vec::new());
                let html = CodeLanguage::from_info("html").map(Class::Language);
                self.open(Tag::Code, html.map(Attr::Class).into_iter().collect());
            }
            PTag::List(Some(1)) => {
                self.block(Tag::Ol, Vec::new());
                self.text("\n");
            }
            PTag::List(Some(start)) => {
                self.block(Tag::Ol, vec![Attr::Start(start)]);
                self.text("\n");
            }
            PTag::List(None) => {
                self.block(Tag::Ul, Vec::new());
                self.text("\n");
            }
            PTag::Item => self.block(Tag::Li, Vec::new()),
            PTag::Table(alignments) => {
                self.table_alignments = alignments;
                self.block(Tag::Table, Vec::new());
            }
            PTag::TableHead => {
                self.in_table_head = true;
                self.table_cell = 0;
                self.open(Tag::Thead, Vec::new());
                self.open(Tag::Tr, Vec::new());
            }
            PTag::TableRow => {
                self.table_cell = 0;
                self.open(Tag::Tr, Vec::new());
            }
            PTag::TableCell => {
                let cell = if self.in_table_head { Tag::Th } else { Tag::Td };
                let align = match self.table_alignments.get(self.table_cell) {
                    Some(Alignment::Left) => Some(Align::Left),
                    Some(Alignment::Center) => Some(Align::Center),
                    Some(Alignment::Right) => Some(Align::Right),
                    _ => None,
                };
                self.open(cell, align.map(Attr::Align).into_iter().collect());
            }
            PTag::Emphasis => self.open(Tag::Em, Vec::new()),
            PTag::Strong => self.open(Tag::Strong, Vec::new()),
            PTag::Strikethrough => self.open(Tag::Del, Vec::new()),
            PTag::Superscript => self.open(Tag::Sup, Vec::new()),
            PTag::Subscript => self.open(Tag::Sub, Vec::new()),
            PTag::Link {
                link_type,
                dest_url,
                title,
                ..
            } => self.link_start(link_type, &dest_url, &title),
            PTag::FootnoteDefinition(name) => {
                self.block(Tag::Aside, vec![Attr::Class(Class::Footnote)]);
                self.open(Tag::Sup, Vec::new());
                self.text(&name);
                self.close_line(Tag::Sup);
            }
            // Not enabled in `options()`; if they ever appear, their content is shown plainly.
            PTag::Image { .. }
            | PTag::DefinitionList
            | PTag::DefinitionListTitle
            | PTag::DefinitionListDefinition
            | PTag::MetadataBlock(_) => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.close_line(Tag::P),
            TagEnd::Heading(level) => self.close_line(heading(level)),
            TagEnd::BlockQuote(_) => {
                self.new_line();
                self.close_line(Tag::Blockquote);
            }
            TagEnd::CodeBlock | TagEnd::HtmlBlock => {
                if let Some((lang, code)) = self.code.take() {
                    match highlight(lang.name(), &code) {
                        Some(nodes) => nodes.into_iter().for_each(|n| self.tree.node(n)),
                        None => self.tree.text(&code),
                    }
                }
                self.close(Tag::Code);
                self.close_line(Tag::Pre);
            }
            TagEnd::List(true) => {
                self.new_line();
                self.close_line(Tag::Ol);
            }
            TagEnd::List(false) => {
                self.new_line();
                self.close_line(Tag::Ul);
            }
            TagEnd::Item => self.close_line(Tag::Li),
            TagEnd::Table => {
                self.close(Tag::Tbody);
                self.close_line(Tag::Table);
            }
            TagEnd::TableHead => {
                self.in_table_head = false;
                self.close(Tag::Tr);
                self.close(Tag::Thead);
                self.open(Tag::Tbody, Vec::new());
                self.text("\n");
            }
            TagEnd::TableRow => self.close_line(Tag::Tr),
            TagEnd::TableCell => {
                self.close(if self.in_table_head { Tag::Th } else { Tag::Td });
                self.table_cell += 1;
            }
            TagEnd::Emphasis => self.close(Tag::Em),
            TagEnd::Strong => self.close(Tag::Strong),
            TagEnd::Strikethrough => self.close(Tag::Del),
            TagEnd::Superscript => self.close(Tag::Sup),
            TagEnd::Subscript => self.close(Tag::Sub),
            TagEnd::Link => {
                if self.open_links.pop() == Some(true) {
                    self.close(Tag::A);
                }
            }
            TagEnd::FootnoteDefinition => {
                self.new_line();
                self.close_line(Tag::Aside);
            }
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
                self.open(Tag::A, link_attrs(None, href, title));
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
                self.open(Tag::A, link_attrs(Some(Class::MdImage), href, title));
                self.text("🖼 ");
                self.text(label);
                self.close(Tag::A);
            }
            None => {
                self.text("🖼 ");
                self.text(label);
            }
        }
    }
}

/// Every link the renderer keeps opens in a new tab and cannot reach back into this page.
fn link_attrs(class: Option<Class>, href: Href, title: &str) -> Vec<Attr> {
    let mut attrs = Vec::with_capacity(5);
    attrs.extend(class.map(Attr::Class));
    attrs.push(Attr::Href(href));
    if !title.is_empty() {
        attrs.push(Attr::Title(title.to_owned()));
    }
    attrs.push(Attr::TargetBlank);
    attrs.push(Attr::RelNoopener);
    attrs
}

fn heading(level: HeadingLevel) -> Tag {
    match level {
        HeadingLevel::H1 => Tag::H1,
        HeadingLevel::H2 => Tag::H2,
        HeadingLevel::H3 => Tag::H3,
        HeadingLevel::H4 => Tag::H4,
        HeadingLevel::H5 => Tag::H5,
        HeadingLevel::H6 => Tag::H6,
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
