//! Streaming tests: the blocks must not depend on how the text was cut into deltas, must add up
//! to what `render` gives for the whole text, and the work per push must follow the tail.

use super::render_tests::{check_html, Rng};
use super::to_html::{render, render_blocks, HtmlStream as StreamingMarkdown};
use super::without_highlight;

const SHORT_ANSWER: &str = "\
Sure! Here's how to read a file line by line in Rust.

## Using `BufReader`

```rust
use std::fs::File;
use std::io::{self, BufRead, BufReader};

fn main() -> io::Result<()> {
    let file = File::open(\"notes.txt\")?;
    for line in BufReader::new(file).lines() {
        println!(\"{}\", line?);
    }
    Ok(())
}
```

A few things to note:

- `lines()` strips the trailing `\\n` (and `\\r\\n`).
- Each item is an `io::Result<String>`, so errors surface *per line*.
- For **huge** files this streams; nothing is loaded at once.

Let me know if you want an async version!
";

const TABLE_ANSWER: &str = "\
# Comparing the options

| Option | Latency | Cost | Notes |
|:-------|--------:|:----:|-------|
| SQLite | ~1 ms | free | embedded, single writer |
| Postgres | ~3 ms | $ | `LISTEN/NOTIFY`, rich types |
| DynamoDB | ~10 ms | $$ | scales *horizontally* |

**Recommendation:** start with SQLite.
If you outgrow it, move to Postgres.

| Concern | Verdict |
|---|---|
| Backups | ~~hard~~ easy with `VACUUM INTO` |
";

const LISTS_ANSWER: &str = "\
Here is the plan:

1. Install the toolchain
   - `rustup target add wasm32-unknown-unknown`
   - `cargo install trunk`
2. Create the project

   ```sh
   cargo new skiff && cd skiff
   ```

3. Run it: `trunk serve`

Checklist:

- [x] toolchain
- [ ] project
- [ ] first build

* loose item one

* loose item two

  with a second paragraph

* loose item three

Done.
";

const QUOTE_ANSWER: &str = "\
> [!NOTE]
> This API is experimental.

> Plain quote that continues
lazily on the next line.
> - with a list
> - inside

Setext Heading
==============

Another one
-----------

Some text right after.

***

    indented code block
    second line

Final paragraph with a hard break  
and a backslash break\\
and the end.
";

const REFS_ANSWER: &str = "\
[book]: https://doc.rust-lang.org/book/ \"The Book\"
[reference]: <https://doc.rust-lang.org/reference/>
See the [Rust book][book] and the [reference].

Both are free. The [book] has exercises; the [Reference] is terse.

Autolinks work too: <https://crates.io> and <help@example.com>.

An image stays a link: ![Ferris](https://rustacean.net/assets/rustacean-flat-happy.png).
";

const HTML_AND_CUTOFF_ANSWER: &str = "\
You can use a `<div>` with inline <b>bold</b> tags, but the renderer shows them as text.

<div class=\"note\">
  raw html block
</div>

Here is the broken part:

```python
def f(x):
    return x * 2

# still code, the fence never closes
print(f(21))
";

const EMPHASIS_ANSWER: &str = "\
Edge cases: *emphasis that **nests*** and _underscores_in_words_ stay.

Math-ish text like $a_b$ and 2 * 3 * 4 is left alone. Tildes ~~strike~~ and ~single~.

Escapes: \\*not emphasis\\*, \\# not a heading, 1\\. not a list.

#hashtag is not a heading

- item with trailing spaces   
- item two
+ a new list (different marker)
";

const CRLF_ANSWER: &str =
    "Windows line endings.\r\n\r\n- a\r\n- b\r\n\r\n```\r\ncode\r\n```\r\n\r\nEnd.";

fn long_tutorial() -> String {
    let mut s = String::from("# A long tutorial\n\nThis walks through twenty steps.\n\n");
    for i in 1..=20 {
        s.push_str(&format!(
            "## Step {i}\n\nIn step {i} we change `config_{i}.toml` and run the command below. \
             Watch the *output* carefully; **errors** here are common.\n\n\
             ```bash\ncargo run --example step{i} -- --verbose\n# expected: ok {i}\n```\n\n\
             - check {i}a\n- check {i}b\n\n> Tip {i}: commit after each step.\n\n"
        ));
    }
    s.push_str("That's all!\n");
    s
}

fn long_essay() -> String {
    let mut s = String::new();
    for i in 0..200 {
        s.push_str(&format!(
            "Paragraph {i} discusses a point at some length, with a [link](https://example.com/{i}) \
             and `code_{i}` and some *emphasis* so that inline parsing has work to do. It goes on \
             for a couple of sentences more, as model answers tend to.\n\n"
        ));
    }
    s
}

fn corpus() -> Vec<String> {
    vec![
        SHORT_ANSWER.to_owned(),
        TABLE_ANSWER.to_owned(),
        LISTS_ANSWER.to_owned(),
        QUOTE_ANSWER.to_owned(),
        REFS_ANSWER.to_owned(),
        HTML_AND_CUTOFF_ANSWER.to_owned(),
        EMPHASIS_ANSWER.to_owned(),
        CRLF_ANSWER.to_owned(),
        long_tutorial(),
        long_essay(),
        // No trailing newline, and a text that is only blank lines.
        "Just one line, no newline".to_owned(),
        "\n\n\n".to_owned(),
    ]
}

/// Cuts `text` into pieces at char boundaries, each `1..=max_chars` chars long.
fn random_chunks(text: &str, seed: u64, max_chars: usize) -> Vec<&str> {
    let mut rng = Rng::new(seed);
    let mut chunks = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let n = 1 + rng.below(max_chars);
        let end = rest.char_indices().nth(n).map_or(rest.len(), |(i, _)| i);
        chunks.push(&rest[..end]);
        rest = &rest[end..];
    }
    chunks
}

fn char_chunks(text: &str) -> Vec<&str> {
    text.char_indices()
        .map(|(i, c)| &text[i..i + c.len_utf8()])
        .collect()
}

/// Word-ish pieces with their trailing whitespace, like the tokens a model streams.
fn token_chunks(text: &str) -> Vec<&str> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut prev_space = false;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if prev_space && !space && i > start {
            chunks.push(&text[start..i]);
            start = i;
        }
        prev_space = space;
    }
    if start < text.len() {
        chunks.push(&text[start..]);
    }
    chunks
}

/// Streams `chunks` and returns every finished block in order, checking each update on the way.
fn stream(chunks: &[&str]) -> Vec<String> {
    let mut md = StreamingMarkdown::new();
    let mut blocks = Vec::new();
    for chunk in chunks {
        let update = md.push(chunk);
        for block in &update.finished {
            if let Err(e) = check_html(block) {
                panic!("finished block: {e}\n{block}");
            }
        }
        if let Err(e) = check_html(&update.tail) {
            panic!("tail: {e}\n{}", update.tail);
        }
        blocks.extend(update.finished);
    }
    assert_eq!(md.source(), chunks.concat().replace("\r\n", "\n"));
    blocks.extend(md.finish());
    blocks
}

#[test]
fn every_chunking_gives_the_same_blocks() {
    for doc in corpus() {
        let expected = render_blocks(&doc);
        assert_eq!(stream(&[doc.as_str()]), expected, "whole push of {doc:?}");
        assert_eq!(
            stream(&char_chunks(&doc)),
            expected,
            "char by char of {doc:?}"
        );
        assert_eq!(stream(&token_chunks(&doc)), expected, "tokens of {doc:?}");
        let lines: Vec<&str> = doc.split_inclusive('\n').collect();
        assert_eq!(stream(&lines), expected, "lines of {doc:?}");
        for seed in 1..=8 {
            let chunks = random_chunks(&doc, seed, 1 + 5 * seed as usize);
            assert_eq!(stream(&chunks), expected, "seed {seed} of {doc:?}");
        }
    }
}

#[test]
fn blocks_add_up_to_rendering_the_whole_text() {
    // Exact equality: each block ends with a newline, so nothing at a seam differs. The corpus
    // has no reference used before its definition, the one thing that can differ.
    for doc in corpus() {
        let blocks = render_blocks(&doc);
        assert_eq!(blocks.concat(), render(&doc), "{doc:?}");
        if doc.trim().is_empty() {
            assert!(blocks.is_empty());
        }
    }
    // The split is real: a long answer becomes many blocks, not one.
    assert_eq!(render_blocks(&long_essay()).len(), 200);
    assert!(render_blocks(&long_tutorial()).len() > 80);
}

/// After every push, the finished blocks followed by the tail must be what rendering the text
/// so far in one go gives (for texts whose definitions come before their uses).
fn assert_shown_matches_render(chunks: &[&str]) {
    let mut md = StreamingMarkdown::new();
    let mut shown = String::new();
    for chunk in chunks {
        let update = md.push(chunk);
        shown.extend(update.finished);
        assert_eq!(
            without_highlight(&format!("{shown}{}", update.tail)),
            without_highlight(&render(md.source())),
            "after {:?}",
            md.source()
        );
    }
}

#[test]
fn what_is_shown_mid_stream_is_the_rendering_of_the_text_so_far() {
    for doc in [
        SHORT_ANSWER,
        LISTS_ANSWER,
        QUOTE_ANSWER,
        REFS_ANSWER,
        HTML_AND_CUTOFF_ANSWER,
    ] {
        assert_shown_matches_render(&random_chunks(doc, 42, 7));
        assert_shown_matches_render(&char_chunks(doc));
    }
}

#[test]
fn a_loose_list_stays_one_open_block_until_something_follows_it() {
    let mut md = StreamingMarkdown::new();
    for piece in [
        "- one\n",
        "\n",
        "- two\n",
        "\n",
        "  more of two\n",
        "\n",
        "- three\n",
        "\n",
    ] {
        let update = md.push(piece);
        assert!(
            update.finished.is_empty(),
            "finished early at {:?}",
            md.source()
        );
        assert!(update.tail.starts_with("<ul>"), "{}", update.tail);
    }
    let update = md.push("After the list.\n");
    assert_eq!(update.finished.len(), 1);
    assert_eq!(update.finished[0].matches("<li>").count(), 3);
    assert!(update.finished[0].contains("<p>more of two</p>"));
    assert_eq!(update.tail, "<p>After the list.</p>\n");
}

#[test]
fn an_unclosed_fence_keeps_everything_in_the_tail() {
    let mut md = StreamingMarkdown::new();
    let first = md.push("Intro.\n\n```md\n# not a heading\n\n- not a list\n\nmore\n");
    assert_eq!(first.finished, vec!["<p>Intro.</p>\n".to_owned()]);
    assert!(first
        .tail
        .starts_with("<pre><code class=\"language-md\"># not a heading"));
    assert!(!first.tail.contains("<h1>"));
    let closed = md.push("```\n");
    assert!(
        closed.finished.is_empty(),
        "the closed fence is still the last block"
    );
    let after = md.push("After.\n");
    assert_eq!(after.finished.len(), 1);
    assert!(after.finished[0].ends_with("more\n</code></pre>\n"));
    assert_eq!(md.finish(), vec!["<p>After.</p>\n".to_owned()]);
}

#[test]
fn a_line_still_being_written_never_finishes_a_block() {
    // Each second piece completes a line that, while incomplete, parsed as a separate block
    // (`#` empty heading, `***` rule, `|---|` table delimiter, a fence). The first paragraph
    // must not be finished on that evidence.
    for (first, rest) in [
        ("para\n#", "tag stays text\n\nnext\n"),
        ("para\n***", "x\n\nnext\n"),
        ("para\n| a |\n|---|", "x\n\nnext\n"),
        ("para\n```", "a`b\n\nnext\n"),
        ("para\n<div", "ision>\n\nnext\n"),
    ] {
        let mut md = StreamingMarkdown::new();
        let early = md.push(first);
        assert!(
            early.finished.is_empty(),
            "finished on an incomplete line: {first:?}"
        );
        let mut blocks = md.push(rest).finished;
        blocks.extend(md.finish());
        let text = format!("{first}{rest}");
        assert_eq!(blocks, render_blocks(&text), "{text:?}");
        assert_eq!(blocks.concat(), render(&text), "{text:?}");
        assert!(
            !blocks[0].starts_with("<p>para</p>"),
            "{text:?} split: {blocks:?}"
        );
    }
}

#[test]
fn a_block_after_a_blank_line_finishes_the_one_above_at_its_first_character() {
    let mut md = StreamingMarkdown::new();
    md.push("A long single-line paragraph.\n\n");
    let update = md.push("N");
    assert_eq!(
        update.finished,
        vec!["<p>A long single-line paragraph.</p>\n".to_owned()]
    );
    assert_eq!(update.tail, "<p>N</p>\n");
    // `2` may become `2.`, the next item of the list above: wait for the line.
    let mut md = StreamingMarkdown::new();
    md.push("1. one\n\n");
    assert!(md.push("2").finished.is_empty());
    assert!(md.push(". two").finished.is_empty());
    let mut blocks = md.push("\n\nAfter.\n").finished;
    blocks.extend(md.finish());
    assert_eq!(blocks.len(), 2);
    assert!(
        blocks[0].starts_with("<ol>\n<li>\n<p>one</p>\n</li>\n<li>\n<p>two</p>"),
        "{blocks:?}"
    );
    // A definition keeps the blocks around it in one piece: the lines after it are parsed with
    // it (this indented line is paragraph text, not code).
    let text = "Intro.\n\n[x]: https://x.example\n    not code: continues the definition\n\nEnd.\n";
    let mut md = StreamingMarkdown::new();
    md.push("Intro.\n\n");
    assert!(md.push("[x]: https://x.example").finished.is_empty());
    let mut blocks = md
        .push("\n    not code: continues the definition\n\nEnd.\n")
        .finished;
    blocks.extend(md.finish());
    assert_eq!(blocks, render_blocks(text));
    assert_eq!(
        blocks,
        vec![
            "<p>Intro.</p>\n<p>not code: continues the definition</p>\n".to_owned(),
            "<p>End.</p>\n".to_owned()
        ]
    );
}

#[test]
fn setext_heading_and_table_form_in_the_open_block() {
    let mut md = StreamingMarkdown::new();
    assert_eq!(md.push("Title\n").tail, "<p>Title</p>\n");
    assert_eq!(md.push("=====\n").tail, "<h1>Title</h1>\n");
    let update = md.push("| a | b |\n");
    assert_eq!(update.finished, vec!["<h1>Title</h1>\n".to_owned()]);
    assert_eq!(update.tail, "<p>| a | b |</p>\n");
    assert!(md.push("|---|---|\n").tail.starts_with("<table>"));
    assert!(md.push("| 1 | 2 |\n").tail.contains("<td>1</td>"));
}

#[test]
fn reference_definitions_reach_later_blocks_but_not_earlier_ones() {
    // A definition stays in one piece with the blocks on either side of it, and serves every
    // later piece, but not pieces finished before it arrived.
    let text = "First [early].\n\nMiddle [early].\n\n[early]: https://a.example\n\nThen [early].\n\nLast [early].\n";
    let blocks = render_blocks(text);
    let link = "<a href=\"https://a.example\"";
    assert_eq!(blocks.len(), 3, "{blocks:?}");
    // Known limitation: the first piece was finished before the definition arrived.
    assert_eq!(blocks[0], "<p>First [early].</p>\n");
    assert_eq!(blocks[1].matches(link).count(), 2, "{blocks:?}");
    assert_eq!(blocks[2].matches(link).count(), 1, "{blocks:?}");
    // The whole-text rendering resolves all four.
    assert_eq!(render(text).matches(link).count(), 4);
    let streamed = stream(&char_chunks(text));
    assert_eq!(streamed, blocks);
}

#[test]
fn a_later_piece_matches_a_definition_by_unicode_case_fold() {
    // Labels match by Unicode case fold with whitespace collapsed, in a piece after the
    // definition's as within it: `ẞ`, `ß` and `SS` all fold to `ss`.
    let text = "First.\n\n[Straẞe  Eins]: https://a.example\n\nThen.\n\nLast [STRASSE eins] and [straße\neins], not [Strase eins].\n";
    let blocks = render_blocks(text);
    let link = "<a href=\"https://a.example\"";
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert_eq!(blocks[1].matches(link).count(), 2, "{blocks:?}");
    assert!(blocks[1].contains("[Strase eins]"), "{blocks:?}");
    assert_eq!(render(text).matches(link).count(), 2);
}

#[test]
fn finish_splits_the_tail_and_leaves_nothing_behind() {
    let mut md = StreamingMarkdown::new();
    let update = md.push("para\n***");
    assert!(update.finished.is_empty());
    assert_eq!(update.tail, "<p>para</p>\n<hr />\n");
    assert_eq!(
        md.finish(),
        vec!["<p>para</p>\n".to_owned(), "<hr />\n".to_owned()]
    );
    assert_eq!(md.finish(), Vec::<String>::new());
    assert_eq!(md.source(), "para\n***");
    let mut empty = StreamingMarkdown::new();
    assert_eq!(empty.push("").tail, "");
    assert!(empty.finish().is_empty());
}

#[test]
fn a_fence_the_answer_was_cut_off_writing_is_not_shown() {
    // Cut while closing a code block: the last line of code is not `` `` ``.
    let cut = "Here:\n\n```rust\nfn main() {}\n``";
    let blocks = render_blocks(cut);
    assert_eq!(blocks.len(), 2, "{blocks:?}");
    assert!(
        blocks[1].ends_with(" main() {}\n</code></pre>\n") && !blocks[1].contains("``"),
        "{blocks:?}"
    );
    assert_eq!(blocks.concat(), render(cut));
    // Cut while opening one: no paragraph holding a stray backtick.
    for cut in ["Done.\n\n`", "Done.\n\n``", "Done.\n\n  ~~ "] {
        assert_eq!(render_blocks(cut), ["<p>Done.</p>\n"], "{cut:?}");
        assert_eq!(render(cut), "<p>Done.</p>\n", "{cut:?}");
    }
    // Streamed, the tail never shows it either, and ends the same.
    let mut md = StreamingMarkdown::new();
    md.push("Here:\n\n```rust\nfn main() {}\n");
    let update = md.push("``");
    assert!(!update.tail.contains("``"), "{update:?}");
    assert_eq!(md.finish().concat(), blocks[1]);
    // A whole fence, a language, inline code, or a line that ended are text of their own.
    for kept in ["a\n```", "a\n``x", "a ``", "a\n``\n", "a\n    ``"] {
        assert_eq!(render_blocks(kept).concat(), render(kept), "{kept:?}");
        assert!(
            render(kept).contains('`') || kept.ends_with("```"),
            "{kept:?}: {}",
            render(kept)
        );
    }
}

/// A synthetic 30,000-token answer: paragraphs, lists, code, headings.
fn thirty_thousand_tokens() -> (String, usize) {
    let mut s = String::new();
    let mut tokens = 0;
    let mut i = 0;
    while tokens < 30_000 {
        let words = 40 + (i * 7) % 50;
        for w in 0..words {
            s.push_str(if w % 9 == 0 { "*word* " } else { "word " });
        }
        s.push_str("end.\n\n");
        tokens += words + 2;
        match i % 10 {
            3 => {
                s.push_str("- item one\n- item two\n- item three\n\n");
                tokens += 12;
            }
            6 => {
                s.push_str("```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n");
                tokens += 15;
            }
            9 => {
                s.push_str("## Section\n\n");
                tokens += 3;
            }
            _ => {}
        }
        i += 1;
    }
    (s, tokens)
}

#[test]
fn work_per_push_follows_the_tail_not_the_whole_text() {
    let (text, _) = thirty_thousand_tokens();
    let chunks = token_chunks(&text);
    // The tail is the open block, plus the block before it while a line starting with a digit
    // or `[` (or one right after it, with no blank line) is being written.
    let longest_block = longest_two_blocks(&text);
    let mut md = StreamingMarkdown::new();
    let mut tail_before = md.parse_work().tail_bytes;
    for chunk in &chunks {
        md.push(chunk);
        let tail_now = md.parse_work().tail_bytes;
        // One push parses at most the open block plus what just arrived, never the whole text.
        assert!(
            tail_now - tail_before <= longest_block + chunk.len(),
            "a push parsed {} bytes; longest block is {longest_block}",
            tail_now - tail_before
        );
        tail_before = tail_now;
    }
    md.finish();
    let work = md.parse_work();
    // Finding boundaries and rendering finished blocks is linear: under 3x the text.
    assert!(
        work.bookkeeping_bytes < 3 * text.len(),
        "bookkeeping parsed {} bytes for {} bytes of text",
        work.bookkeeping_bytes,
        text.len()
    );
    // Re-parsing the whole text per token would cost about chunks * len / 2.
    let naive = chunks.len() * text.len() / 2;
    assert!(
        work.tail_bytes + work.bookkeeping_bytes < naive / 100,
        "{work:?} vs naive {naive}"
    );
}

#[test]
fn total_work_is_linear_in_the_length() {
    let (text, _) = thirty_thousand_tokens();
    let half = &text[..text.len() / 2];
    let half = &half[..half.rfind("\n\n").map_or(0, |i| i + 2)];
    let total = |t: &str| {
        let mut md = StreamingMarkdown::new();
        // Several tokens per push, as a UI that renders once per animation frame would.
        for chunk in token_chunks(t).chunks(8) {
            md.push(&chunk.concat());
        }
        md.finish();
        let w = md.parse_work();
        w.tail_bytes + w.bookkeeping_bytes
    };
    let (small, big) = (total(half), total(&text));
    let ratio = big as f64 / small as f64;
    let len_ratio = text.len() as f64 / half.len() as f64;
    // Quadratic work would make the ratio about len_ratio squared (~4).
    assert!(
        ratio < len_ratio * 1.15,
        "work ratio {ratio:.2} for length ratio {len_ratio:.2}"
    );
    // With frame-sized pushes the preview costs a few parses of each byte, not hundreds.
    assert!(
        big < 10 * text.len(),
        "{big} bytes parsed for {} bytes of text",
        text.len()
    );
}

/// Length in bytes of the longest two adjacent top-level blocks (with their blank lines).
fn longest_two_blocks(text: &str) -> usize {
    let mut bounds: Vec<usize> = super::blocks::layout(text)
        .blocks
        .iter()
        .map(|b| text[..b.start].rfind('\n').map_or(0, |i| i + 1))
        .collect();
    bounds.push(text.len());
    bounds
        .windows(3)
        .map(|w| w[2] - w[0])
        .max()
        .unwrap_or(text.len())
}

#[test]
fn generated_documents_split_the_same_way_in_any_chunking() {
    const LINES: &[&str] = &[
        "",
        "",
        "",
        "para text",
        "more *em* text",
        "# heading",
        "#",
        "#tag",
        "## h2 ##",
        "- item",
        "-",
        "- [ ] task",
        "* star",
        "+ plus",
        "1. one",
        "2. two",
        "10) ten",
        "2",
        "  indented two",
        "    code line",
        "> quote",
        ">",
        "> - quoted item",
        "```",
        "```rust",
        "~~~",
        "***",
        "---",
        "===",
        "- - -",
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
        "<div>",
        "</div>",
        "<!-- c",
        "-->",
        "<script>",
        "</script>",
        "[r]: https://r.example",
        "[r]",
        "see [r] here",
        "\t- tab item",
        "text  ",
        "   3. spaced",
        "| x |",
        "`code`",
        "[r]:",
        "  https://r2.example",
        "\"title\"",
        "'multi",
        "line'",
        "[s]: <x> 'y'",
        "[R]",
        "[a",
        "]: /split-label",
        "  - nested",
        "   > q",
        "<pre>",
        "</pre>",
        "- ```",
        "  code in item",
        "1.",
        "***x",
        "-x",
        "*",
        "* * *",
        "- --",
        "- --x",
        "* **bold**",
        "_ _ _",
        "<?x",
        "<![CDATA[",
        "<a>",
        "|",
        "  ",
        "\t",
        ">>",
        "> > x",
        "1) a",
        "  1. sub",
        "    - deep",
        "~~~~",
        "   ```",
        "+++",
        "<b>bold</b>",
        "\u{a0}x",
        "é🦀",
    ];
    let seed = std::env::var("MD_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok());
    let mut rng = Rng::new(seed.unwrap_or(0xfeed_beef));
    let cases: u64 = std::env::var("MD_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    for case in 0..cases {
        let n = 1 + rng.below(14);
        let mut doc = String::new();
        for i in 0..n {
            doc.push_str(LINES[rng.below(LINES.len())]);
            if i + 1 < n || rng.below(2) == 0 {
                doc.push('\n');
            }
        }
        let expected = render_blocks(&doc);
        // Without definitions nothing crosses blocks, so the pieces add up to the whole.
        if !doc.contains("]:") {
            assert_eq!(expected.concat(), render(&doc), "case {case}: {doc:?}");
        }
        let chunkings = [
            char_chunks(&doc),
            random_chunks(&doc, case + 1, 6),
            doc.split_inclusive('\n').collect(),
        ];
        for (k, chunks) in chunkings.iter().enumerate() {
            let got = stream(chunks);
            assert_eq!(got, expected, "case {case} chunking {k}: {doc:?}");
        }
        if !doc.contains("]:") {
            assert_shown_matches_render(&chunkings[1]);
        }
    }
}
