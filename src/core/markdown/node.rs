//! Rendered markdown as a typed tree the ui turns into DOM nodes: no markup text anywhere.
//!
//! Why a tree and not HTML text: text assigned to `innerHTML` is safe only as long as every
//! writer escapes every value; a tree of [`Tag`]s and [`Attr`]s cannot say anything outside
//! the fixed set at all. A tag is one of the enum's variants (it names itself, [`Tag::as_str`]),
//! an attribute is a typed value whose name is fixed (`href` holds an [`Href`] only `url.rs`
//! can make, a class comes from [`Class`]), and model text is only ever a [`MdNode::Text`],
//! which the DOM stores as text. There is no variant for raw HTML.
//!
//! Newlines the old HTML writer put between tags are kept as text nodes, so the DOM built from
//! a tree is the one `innerHTML` made from the same render, and the serializer used by the
//! tests (`to_html.rs`) gives back the exact strings the tests always checked.
//!
//! This module must never gain a variant holding markup, or an attribute whose name comes
//! from input.

use std::borrow::Cow;

use super::highlight::Class as Highlight;

/// One node of rendered markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MdNode {
    Element(Element),
    /// Text as shown: the DOM stores it as a text node, never parses it.
    Text(String),
}

/// An element: a fixed tag, typed attributes (in the order they are set), children.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    pub tag: Tag,
    pub attrs: Vec<Attr>,
    pub children: Vec<MdNode>,
}

impl Element {
    pub(crate) fn new(tag: Tag, attrs: Vec<Attr>, children: Vec<MdNode>) -> Self {
        Element {
            tag,
            attrs,
            children,
        }
    }
}

impl MdNode {
    /// `<tag>text</tag>`.
    pub(crate) fn leaf(tag: Tag, text: &str) -> Self {
        MdNode::el(tag, Vec::new(), vec![MdNode::Text(text.to_owned())])
    }

    pub(crate) fn el(tag: Tag, attrs: Vec<Attr>, children: Vec<MdNode>) -> Self {
        MdNode::Element(Element::new(tag, attrs, children))
    }
}

/// Where an element's name lives: MathML elements must be created in their namespace (an
/// HTML `<mfrac>` is an unknown inline box, not a fraction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Namespace {
    Html,
    MathMl,
}

impl Namespace {
    /// The namespace URI for `createElementNS`, or `None` for plain HTML.
    #[must_use]
    pub fn uri(self) -> Option<&'static str> {
        match self {
            Namespace::Html => None,
            Namespace::MathMl => Some("http://www.w3.org/1998/Math/MathML"),
        }
    }
}

macro_rules! tags {
    ($($html:ident = $hname:literal),* ; $($math:ident = $mname:literal),* $(,)?) => {
        /// Every element markdown can produce: the writer's own, the highlighter's `span`, and
        /// presentation MathML.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Tag {
            $($html,)*
            $($math,)*
        }

        impl Tag {
            /// The element's name.
            #[must_use]
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Tag::$html => $hname,)*
                    $(Tag::$math => $mname,)*
                }
            }

            #[must_use]
            pub fn namespace(self) -> Namespace {
                match self {
                    $(Tag::$html => Namespace::Html,)*
                    $(Tag::$math => Namespace::MathMl,)*
                }
            }
        }
    };
}

tags! {
    P = "p", H1 = "h1", H2 = "h2", H3 = "h3", H4 = "h4", H5 = "h5", H6 = "h6",
    Blockquote = "blockquote", Pre = "pre", Code = "code", Ol = "ol", Ul = "ul", Li = "li",
    Table = "table", Thead = "thead", Tbody = "tbody", Tr = "tr", Th = "th", Td = "td",
    Em = "em", Strong = "strong", Del = "del", Sup = "sup", Sub = "sub", A = "a",
    Aside = "aside", Br = "br", Hr = "hr", Input = "input", Span = "span";
    Math = "math", Semantics = "semantics", Annotation = "annotation", Mrow = "mrow",
    Mi = "mi", Mn = "mn", Mo = "mo", Mtext = "mtext", Mspace = "mspace", Mfrac = "mfrac",
    Mroot = "mroot", Msqrt = "msqrt", Msub = "msub", Msup = "msup", Msubsup = "msubsup",
    Munder = "munder", Mover = "mover", Munderover = "munderover", Mtable = "mtable",
    Mtr = "mtr", Mtd = "mtd",
}

impl Tag {
    /// Elements with no content and no end tag.
    #[must_use]
    pub fn is_void(self) -> bool {
        matches!(self, Tag::Br | Tag::Hr | Tag::Input)
    }
}

/// An attribute: its name is fixed by the variant, its value typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attr {
    Class(Class),
    Href(Href),
    /// A link's title, shown as a tooltip; the DOM stores it as a value, never parses it.
    Title(String),
    /// `target="_blank"`: links open in a new tab.
    TargetBlank,
    /// `rel="noopener noreferrer"`: the opened tab cannot reach back into this page.
    RelNoopener,
    /// A table cell's alignment (`align`, which needs neither CSS nor a CSP allowing styles).
    Align(Align),
    /// An ordered list's first number.
    Start(u64),
    /// `type="checkbox"` (task list items).
    TypeCheckbox,
    Disabled,
    Checked,
    AriaLabel(TaskLabel),
    /// `display="block"` on display math.
    DisplayBlock,
    /// `encoding="application/x-tex"` on the LaTeX annotation.
    EncodingTex,
    /// `accent="true"` on an accent's `mover`.
    Accent,
    /// `mathvariant="normal"` (upright single letters).
    MathVariantNormal,
    /// `linethickness="0"` (binomials).
    LineThicknessZero,
    /// An `mspace` width from the converter's fixed table.
    Width(&'static str),
}

impl Attr {
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Attr::Class(_) => "class",
            Attr::Href(_) => "href",
            Attr::Title(_) => "title",
            Attr::TargetBlank => "target",
            Attr::RelNoopener => "rel",
            Attr::Align(_) => "align",
            Attr::Start(_) => "start",
            Attr::TypeCheckbox => "type",
            Attr::Disabled => "disabled",
            Attr::Checked => "checked",
            Attr::AriaLabel(_) => "aria-label",
            Attr::DisplayBlock => "display",
            Attr::EncodingTex => "encoding",
            Attr::Accent => "accent",
            Attr::MathVariantNormal => "mathvariant",
            Attr::LineThicknessZero => "linethickness",
            Attr::Width(_) => "width",
        }
    }

    /// The value as the DOM stores it (unescaped: `set_attribute` takes it as it is).
    #[must_use]
    pub fn value(&self) -> Cow<'_, str> {
        Cow::Borrowed(match self {
            Attr::Class(c) => c.as_str(),
            Attr::Href(h) => h.as_str(),
            Attr::Title(t) => t,
            Attr::TargetBlank => "_blank",
            Attr::RelNoopener => "noopener noreferrer",
            Attr::Align(a) => a.as_str(),
            Attr::Start(n) => return Cow::Owned(n.to_string()),
            Attr::TypeCheckbox => "checkbox",
            Attr::Disabled | Attr::Checked => "",
            Attr::AriaLabel(l) => l.as_str(),
            Attr::DisplayBlock => "block",
            Attr::EncodingTex => "application/x-tex",
            Attr::Accent => "true",
            Attr::MathVariantNormal => "normal",
            Attr::LineThicknessZero => "0",
            Attr::Width(w) => w,
        })
    }
}

/// A link target `url.rs` accepted: `http`, `https`, `mailto` or scheme-less, with quotes,
/// spaces and controls percent-encoded. Only `url.rs` can make one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Href(String);

impl Href {
    pub(super) fn vetted(url: String) -> Self {
        Href(url)
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A fenced block's language as a class (`language-rust`): only `[A-Za-z0-9_+-]` after the
/// prefix, at most 40 of them (see `render.rs`'s `code_language`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLanguage(String);

impl CodeLanguage {
    /// `None` when nothing of `info`'s first word survives the filter.
    pub(super) fn from_info(info: &str) -> Option<Self> {
        let word = info
            .split([' ', '\t', ',', '{', '}'])
            .find(|w| !w.is_empty())
            .unwrap_or("");
        let mut class = String::from("language-");
        class.extend(
            word.replace('#', "sharp")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
                .take(40),
        );
        (class.len() > "language-".len()).then_some(CodeLanguage(class))
    }

    /// The language alone (`rust`), as the highlighter looks it up.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.0["language-".len()..]
    }
}

/// Every class markdown can set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    Language(CodeLanguage),
    Highlight(Highlight),
    /// An image shown as a link.
    MdImage,
    /// A formula shown as its source.
    MathSrc,
    FootnoteRef,
    Footnote,
    Alert(Alert),
}

impl Class {
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Class::Language(l) => &l.0,
            Class::Highlight(h) => h.as_str(),
            Class::MdImage => "md-image",
            Class::MathSrc => "math-src",
            Class::FootnoteRef => "footnote-ref",
            Class::Footnote => "footnote",
            Class::Alert(a) => a.as_str(),
        }
    }
}

/// GitHub's alert blockquotes (`> [!NOTE]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alert {
    Note,
    Tip,
    Important,
    Warning,
    Caution,
}

impl Alert {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Alert::Note => "markdown-alert-note",
            Alert::Tip => "markdown-alert-tip",
            Alert::Important => "markdown-alert-important",
            Alert::Warning => "markdown-alert-warning",
            Alert::Caution => "markdown-alert-caution",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

impl Align {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Align::Left => "left",
            Align::Center => "center",
            Align::Right => "right",
        }
    }
}

/// What a task list's checkbox says to a screen reader (axe: form elements need labels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskLabel {
    Done,
    NotDone,
}

impl TaskLabel {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TaskLabel::Done => "Done",
            TaskLabel::NotDone => "Not done",
        }
    }
}

/// When the tail was one open code block and the new tail is the same block with more text,
/// the text it gained: the ui appends it to the `<code>` element instead of rebuilding the
/// tail. Rebuilding a growing 2,000-line block on every flush made style and layout grow with
/// the square of its length; appending keeps each flush proportional to the new text.
/// Anything else (a second block, a closing fence, other children) gives `None`.
#[must_use]
pub fn grown_code<'a>(old: &[MdNode], new: &'a [MdNode]) -> Option<&'a str> {
    let (old_attrs, old_text) = open_code(old)?;
    let (new_attrs, new_text) = open_code(new)?;
    if old_attrs != new_attrs {
        return None;
    }
    new_text.strip_prefix(old_text)
}

/// `<pre><code …>text</code></pre>\n` as nodes: the code's attributes and text.
fn open_code(nodes: &[MdNode]) -> Option<(&[Attr], &str)> {
    let [MdNode::Element(pre), MdNode::Text(nl)] = nodes else {
        return None;
    };
    if pre.tag != Tag::Pre || !pre.attrs.is_empty() || nl != "\n" {
        return None;
    }
    let [MdNode::Element(code)] = pre.children.as_slice() else {
        return None;
    };
    if code.tag != Tag::Code {
        return None;
    }
    match code.children.as_slice() {
        [] => Some((&code.attrs, "")),
        [MdNode::Text(t)] => Some((&code.attrs, t)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::grown_code;
    use crate::markdown::StreamingMarkdown;

    #[test]
    fn an_open_code_block_that_only_grew_gives_its_new_text() {
        let mut md = StreamingMarkdown::new();
        let first = md.push("```rust\nfn a() {\n").tail;
        let second = md.push("  x < 1\n").tail;
        assert_eq!(grown_code(&first, &second), Some("  x < 1\n"));
        // Nothing new: nothing to append.
        assert_eq!(grown_code(&second, &second), Some(""));
        // The fence closes and a paragraph starts: the tail is rebuilt.
        let third = md.push("```\nAfter").tail;
        assert_eq!(grown_code(&second, &third), None);
    }

    #[test]
    fn anything_but_one_open_code_block_is_rebuilt() {
        let mut md = StreamingMarkdown::new();
        let para = md.push("Some text").tail;
        let more = md.push(" and more").tail;
        assert_eq!(grown_code(&para, &more), None);
        let mut a = StreamingMarkdown::new();
        let mut b = StreamingMarkdown::new();
        let rust = a.push("```rust\nx").tail;
        let python = b.push("```python\nx = 1").tail;
        assert_eq!(grown_code(&rust, &python), None, "another language");
        let mut c = StreamingMarkdown::new();
        let empty = c.push("```\n").tail;
        let text = c.push("abc").tail;
        assert_eq!(grown_code(&empty, &text), Some("abc"));
    }
}
