//! The streaming markdown renderer on generated documents: streamed in any deltas it gives
//! the blocks of rendering the document whole, what it shows mid-stream is the rendering of
//! the text so far, nothing panics, and no hostile markdown gets a script, an event handler
//! or a script URL into the HTML.

use proptest::prelude::*;

use super::{chunk_str, config, cuts, sample};
use crate::markdown::to_html::{render, render_blocks, HtmlStream as StreamingMarkdown};
use crate::markdown::without_highlight;

/// Single characters of markdown syntax, digits, whitespace (CR too), and unicode that text
/// handling trips on: right-to-left text and overrides, combining marks, joiners, wide and
/// four-byte characters, NUL.
const CHARS: &[&str] = &[
    "`",
    "*",
    "_",
    "~",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "!",
    "#",
    "|",
    "-",
    ":",
    "\n",
    "$",
    "\\",
    "=",
    "+",
    ".",
    "\"",
    "'",
    "&",
    ";",
    "{",
    "}",
    "/",
    "?",
    "^",
    "0",
    "1",
    "2",
    "9",
    " ",
    "\t",
    "\r",
    "a",
    "b",
    "x",
    "é",
    "e\u{301}",
    "\u{5e9}\u{5dc}\u{5d5}\u{5dd}",
    "\u{645}\u{631}",
    "\u{202E}",
    "\u{200D}",
    "\u{200B}",
    "\u{FEFF}",
    "\u{a0}",
    "🦀",
    "漢",
    "\0",
    "\u{1F469}\u{200D}\u{1F4BB}",
];

/// Runs of syntax that single characters rarely assemble, and hostile payloads.
const TOKENS: &[&str] = &[
    "\n\n",
    "```",
    "~~~",
    "```rust\n",
    "```html\n",
    "    ",
    "- ",
    "* ",
    "1. ",
    "2) ",
    "> ",
    "# ",
    "## ",
    "---",
    "***",
    "===",
    "| a | b |",
    "|---|:-:|",
    "| a | b |\n|--|-:|\n| 1 | 2 |",
    "- [ ] ",
    "- [x] ",
    "[r]: ",
    "[r]",
    "[^1]",
    "[^1]: ",
    "$$",
    "\\(",
    "\\)",
    "\\[",
    "\\]",
    "$x$",
    "**bold**",
    "*em*",
    "~~del~~",
    "`code`",
    "**",
    "~~",
    "  \n",
    "http://example.com",
    "<https://x.example>",
    "<a@b.example>",
    "&amp;",
    "&#60;",
    "&lt;",
    "<script>alert(1)</script>",
    "<SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<iframe src=javascript:alert(1)>",
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](java\tscript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](&#x6A;avascript:alert(1))",
    "[x](javascript&colon;alert(1))",
    "[x]( javascript:alert(1))",
    "[x](<javascript:alert(1)>)",
    "<javascript:alert(1)>",
    "![i](javascript:alert(1))",
    "![i](data:text/html,<script>)",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "[x](vbscript:msgbox)",
    "[r]: javascript:alert(1)\n",
    "[x](\"onmouseover=alert(1))",
    "[x](x \"t\" onclick=y)",
    "<a href=\"javascript:alert(1)\">",
    "<style>*{}</style>",
    "<!--",
    "-->",
    "<div onclick=x>",
    "\"><script>",
    "' onerror='",
    "`<script>`",
    "```\n<script>\n```\n",
];

/// A markdown-ish document: mostly single characters, sometimes a whole token.
fn document(max: usize) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        5 => prop::sample::select(CHARS),
        1 => prop::sample::select(TOKENS),
    ];
    prop::collection::vec(piece, 0..max).prop_map(|p| p.concat())
}

/// A document made of whole lines, so block structure (lists, fences, tables) forms often.
fn lines_document() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        2 => Just(String::new()),
        3 => document(8),
        2 => prop::sample::select(TOKENS).prop_map(str::to_string),
    ];
    prop::collection::vec(line, 0..24).prop_map(|l| l.join("\n"))
}

/// Streams `chunks`, checking every piece of HTML handed out; returns the finished blocks,
/// and, when `shown` is set, checks after each push that the finished blocks plus the tail
/// are the rendering of the text so far.
fn stream(chunks: &[&str], shown: bool) -> Result<Vec<String>, TestCaseError> {
    let mut md = StreamingMarkdown::new();
    let mut blocks: Vec<String> = Vec::new();
    for c in chunks {
        let update = md.push(c);
        for html in update.finished.iter().chain([&update.tail]) {
            if let Err(e) = harmless(html) {
                return Err(TestCaseError::fail(format!("{e} in {html:?}")));
            }
        }
        blocks.extend(update.finished);
        if shown {
            let so_far = format!("{}{}", blocks.concat(), update.tail);
            // The tail is never coloured; finished code blocks are.
            prop_assert_eq!(
                without_highlight(&so_far),
                without_highlight(&render(md.source())),
                "after {:?}",
                md.source()
            );
        }
    }
    let last = md.finish();
    for html in &last {
        if let Err(e) = harmless(html) {
            return Err(TestCaseError::fail(format!("{e} in {html:?}")));
        }
    }
    blocks.extend(last);
    Ok(blocks)
}

fn check(doc: &str, cuts: &[u16]) -> Result<(), TestCaseError> {
    let expected = render_blocks(doc);
    // Link reference definitions are the one thing whose meaning crosses blocks (see
    // `markdown::streaming`'s known limitations); without them the pieces are the whole.
    let crosses = doc.contains("]:");
    if !crosses {
        prop_assert_eq!(expected.concat(), render(doc), "blocks vs whole");
    }
    let chunks = chunk_str(doc, cuts);
    prop_assert_eq!(
        &stream(&chunks, !crosses)?,
        &expected,
        "streamed in {:?}",
        chunks
    );
    let chars: Vec<&str> = doc
        .char_indices()
        .map(|(i, c)| &doc[i..i + c.len_utf8()])
        .collect();
    prop_assert_eq!(&stream(&chars, false)?, &expected, "char by char");
    harmless(&render(doc)).map_err(TestCaseError::fail)?;
    Ok(())
}

/// Checks that `html` holds nothing a hostile document could use: no element that runs or
/// loads anything, no event-handler or style attribute, no URL with a script or data scheme,
/// and every tag well formed (a stray quote or bracket would mean input escaped its text).
/// Written independently of the renderer's allow-list so it keeps its meaning as that grows.
fn harmless(html: &str) -> Result<(), String> {
    const ELEMENTS: &[&str] = &[
        "script", "iframe", "frame", "object", "embed", "style", "img", "svg", "form", "base",
        "meta", "link", "audio", "video", "source", "template", "textarea", "button",
    ];
    const URL_ATTRS: &[&str] = &["href", "src", "action", "formaction", "xlink:href"];
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        if rest[..open].contains('>') {
            return Err(format!("a bare '>' in text {:?}", &rest[..open]));
        }
        let tag_and_after = &rest[open + 1..];
        let close = tag_and_after
            .find('>')
            .ok_or_else(|| format!("an unterminated tag at {tag_and_after:?}"))?;
        let tag = &tag_and_after[..close];
        rest = &tag_and_after[close + 1..];
        let tag = tag.strip_prefix('/').unwrap_or(tag);
        // A void element's `/>` (`<br />`, `<input ... checked/>`).
        let tag = tag.strip_suffix('/').map_or(tag, str::trim_end);
        let name_end = tag.find(' ').unwrap_or(tag.len());
        let name = tag[..name_end].to_ascii_lowercase();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!("a malformed tag <{tag}>"));
        }
        if ELEMENTS.contains(&name.as_str()) {
            return Err(format!("a <{name}> element"));
        }
        let mut attrs = &tag[name_end..];
        while let Some(a) = attrs.strip_prefix(' ') {
            let eq = a.find(['=', ' ']).unwrap_or(a.len());
            let attr = a[..eq].to_ascii_lowercase();
            if attr.starts_with("on") || attr == "style" || attr == "srcdoc" {
                return Err(format!("a {attr} attribute"));
            }
            if !attr
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ':')
            {
                return Err(format!("a malformed attribute name {attr:?}"));
            }
            if a[eq..].starts_with('=') {
                let value = a[eq + 1..]
                    .strip_prefix('"')
                    .ok_or_else(|| format!("an unquoted value in <{tag}>"))?;
                let end = value
                    .find('"')
                    .ok_or_else(|| format!("an unclosed value in <{tag}>"))?;
                if URL_ATTRS.contains(&attr.as_str()) && dangerous_url(&value[..end]) {
                    return Err(format!("a script URL in {attr}"));
                }
                attrs = &value[end + 1..];
            } else {
                attrs = &a[eq..];
            }
        }
        if !attrs.is_empty() {
            return Err(format!("junk {attrs:?} in <{tag}>"));
        }
    }
    if rest.contains('>') {
        return Err("a bare '>' after the last tag".into());
    }
    Ok(())
}

/// Whether an attribute value, as a browser reads it (entities decoded, whitespace and
/// control characters dropped, case folded), names a script-running or inline-document
/// scheme.
fn dangerous_url(raw: &str) -> bool {
    let mut decoded = String::new();
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        if c == '&' {
            if let Some(end) = rest.find(';') {
                let entity = &rest[1..end];
                let ch = match entity {
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "#39" | "apos" => Some('\''),
                    "colon" => Some(':'),
                    "Tab" | "NewLine" => Some(' '),
                    e => e
                        .strip_prefix("#x")
                        .or_else(|| e.strip_prefix("#X"))
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .or_else(|| e.strip_prefix('#').and_then(|d| d.parse().ok()))
                        .and_then(char::from_u32),
                };
                if let Some(ch) = ch {
                    decoded.push(ch);
                    rest = &rest[end + 1..];
                    continue;
                }
            }
        }
        decoded.push(c);
        rest = &rest[c.len_utf8()..];
    }
    let folded: String = decoded
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect::<String>()
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|s| folded.starts_with(s))
}

#[test]
fn the_harmless_check_catches_what_it_is_for() {
    assert!(harmless("<p>a &lt;script&gt; onerror=x javascript:y</p>\n").is_ok());
    assert!(harmless("<a href=\"https://x\" target=\"_blank\">x</a>").is_ok());
    assert!(harmless("<input type=\"checkbox\" disabled checked/>").is_ok());
    for bad in [
        "<script>x</script>",
        "<SCRIPT>",
        "<img src=\"x\">",
        "<p onerror=\"x\">",
        "<a href=\"javascript:alert(1)\">",
        "<a href=\"&#106;avascript:alert(1)\">",
        "<a href=\"java&#x09;script:x\">",
        "<a href=\" JavaScript:x\">",
        "<a href=\"data:text/html,x\">",
        "<a href=x>",
        "<a href=\"x\" \">",
        "<p>a > b</p>",
        "<p x=\"y",
    ] {
        assert!(harmless(bad).is_err(), "{bad}");
    }
}

#[test]
fn generated_documents_reach_every_kind_of_block() {
    let docs: Vec<String> = sample(prop_oneof![document(60), lines_document()], 400)
        .into_iter()
        .collect();
    let html: String = docs.iter().map(|d| render(d)).collect();
    for tag in [
        "<p>",
        "<h1>",
        "<h2>",
        "<ul>",
        "<ol",
        "<li>",
        "<blockquote>",
        "<pre><code",
        "<table>",
        "<em>",
        "<strong>",
        "<del>",
        "<code>",
        "<a href=",
        "<hr />",
        "<br />",
        "<input",
        "&lt;script&gt;",
    ] {
        assert!(html.contains(tag), "no {tag} in 400 documents");
    }
    let blocks = docs
        .iter()
        .map(|d| render_blocks(d).len())
        .max()
        .unwrap_or(0);
    assert!(blocks >= 6, "at most {blocks} blocks in a document");
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn markdown_from_characters_streams_as_whole(doc in document(60), cuts in cuts()) {
        check(&doc, &cuts)?;
    }

    #[test]
    fn markdown_from_lines_streams_as_whole(doc in lines_document(), cuts in cuts()) {
        check(&doc, &cuts)?;
    }

}

proptest! {
    // Each case streams a few KB character by character, re-parsing the open block on every
    // push (by design: the cost follows the tail), so fewer cases by default.
    #![proptest_config(config(48))]

    /// Nesting far deeper than any answer: quotes and lists inside each other, runs of
    /// brackets, emphasis and backticks that the parser must match or give up on.
    #[test]
    fn deeply_nested_markdown_streams_as_whole(
        lines in prop::collection::vec(
            (
                prop::sample::select(vec![
                    "> ", "- ", "* ", "1. ", "  - ", "[", "(", "*", "_", "`", "<", "![", "~~",
                    "**", "](x)", "|", "\\",
                ]),
                0usize..200,
                document(6),
            ),
            1..4,
        ),
        cuts in cuts(),
    ) {
        let doc: String = lines
            .iter()
            .map(|(nest, n, text)| format!("{}{text}\n", nest.repeat(*n)))
            .collect();
        check(&doc, &cuts)?;
    }
}
