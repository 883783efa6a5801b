//! Per-language checks that the right runs are coloured, and a property test that colouring
//! never changes the text and never emits anything outside the fixed span set.

use super::{highlight, Class};
use crate::markdown::render_tests::Rng;

fn hl(lang: &str, code: &str) -> String {
    let nodes = highlight(lang, code).unwrap_or_else(|| panic!("{lang} has a table"));
    crate::markdown::to_html::to_html(&nodes)
}

fn span(class: &str, text: &str) -> String {
    format!("<span class=\"hl-{class}\">{text}</span>")
}

/// Strips the spans (checking each is one of ours) and unescapes the rest.
fn text_of(html: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = html;
    let mut depth = 0usize;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("<span class=\"") {
            let close = after.find("\">").ok_or("unterminated span")?;
            let class = &after[..close];
            if !Class::ALL.iter().any(|c| c.as_str() == class) {
                return Err(format!("unknown class {class:?}"));
            }
            if depth > 0 {
                return Err("nested span".into());
            }
            depth += 1;
            rest = &after[close + 2..];
        } else if let Some(after) = rest.strip_prefix("</span>") {
            depth = depth.checked_sub(1).ok_or("unbalanced </span>")?;
            rest = after;
        } else if c == '<' || c == '>' || c == '"' || c == '\'' {
            return Err(format!("unescaped {c:?} at {rest:?}"));
        } else if c == '&' {
            let (entity, ch) = [
                ("&amp;", '&'),
                ("&lt;", '<'),
                ("&gt;", '>'),
                ("&quot;", '"'),
                ("&#39;", '\''),
            ]
            .into_iter()
            .find(|(e, _)| rest.starts_with(e))
            .ok_or_else(|| format!("bare & at {rest:?}"))?;
            out.push(ch);
            rest = &rest[entity.len()..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if depth != 0 {
        return Err("unclosed span".into());
    }
    Ok(out)
}

#[test]
fn unknown_languages_are_left_to_the_caller() {
    assert!(highlight("brainfuck", "+++").is_none());
}

#[test]
fn rust() {
    let html = hl(
        "rust",
        "fn main() { let s = \"a\\\"b\"; 'x'; &'a str; 42u8 } // done",
    );
    assert!(html.contains(&span("kw", "fn")));
    assert!(html.contains(&span("kw", "let")));
    assert!(html.contains(&span("str", "&quot;a\\&quot;b&quot;")));
    assert!(html.contains(&span("str", "&#39;x&#39;")));
    // A lifetime is not a char literal.
    assert!(html.contains("&amp;&#39;a <span class=\"hl-lit\">str</span>"));
    assert!(html.contains(&span("num", "42u8")));
    assert!(html.contains(&span("com", "// done")));
}

#[test]
fn python_triple_quotes_and_hash_comments() {
    let html = hl(
        "py",
        "def f():\n    \"\"\"doc \"quoted\" \"\"\"\n    return None  # no",
    );
    assert!(html.contains(&span("kw", "def")));
    assert!(html.contains(&span(
        "str",
        "&quot;&quot;&quot;doc &quot;quoted&quot; &quot;&quot;&quot;"
    )));
    assert!(html.contains(&span("lit", "None")));
    assert!(html.contains(&span("com", "# no")));
}

#[test]
fn javascript_and_typescript() {
    let html = hl("ts", "const $x: number = `t${1}`; /* c\n */ if (a) {}");
    assert!(html.contains(&span("kw", "const")));
    assert!(html.contains(&span("lit", "number")));
    assert!(html.contains(&span("str", "`t${1}`")));
    assert!(html.contains(&span("com", "/* c\n */")));
    assert!(html.contains(&span("kw", "if")));
    // `$x` is one identifier, not a keyword.
    assert!(!html.contains(&span("kw", "x")));
}

#[test]
fn json_keys_differ_from_values() {
    let html = hl("json", "{\"a\": \"b\", \"n\": -1.5e3, \"t\": true}");
    assert!(html.contains(&span("key", "&quot;a&quot;")));
    assert!(html.contains(&span("str", "&quot;b&quot;")));
    assert!(html.contains(&span("num", "1.5e3")));
    assert!(html.contains(&span("lit", "true")));
}

#[test]
fn shell_hash_comments_only_at_word_start() {
    let html = hl("bash", "echo $# a#b # real\nif true; then fi");
    assert!(html.contains(&span("com", "# real")));
    assert!(html.contains("$# a#b"));
    assert!(html.contains(&span("kw", "if")));
    assert!(html.contains(&span("kw", "echo")));
}

#[test]
fn html_tags_attributes_values_and_comments() {
    let html = hl("html", "<!-- c --><a href=\"x\" hidden>t</a><br/>");
    assert!(html.contains(&span("com", "&lt;!-- c --&gt;")));
    assert!(html.contains(&span("tag", "&lt;a")));
    assert!(html.contains(&span("attr", "href")));
    assert!(html.contains(&span("str", "&quot;x&quot;")));
    assert!(html.contains(&span("attr", "hidden")));
    assert!(html.contains(&span("tag", "&lt;/a")));
    assert!(html.contains(&span("tag", "/&gt;")));
    // Text between tags stays plain.
    assert!(html.contains("&gt;</span>t<span"));
}

#[test]
fn css() {
    let html = hl(
        "css",
        "@media (x) { a { color: red !important; margin: 0 } } /* c */",
    );
    assert!(html.contains(&span("kw", "@media")));
    assert!(html.contains(&span("kw", "!important")));
    assert!(html.contains(&span("num", "0")));
    assert!(html.contains(&span("com", "/* c */")));
}

#[test]
fn sql_keywords_in_any_case() {
    let html = hl(
        "sql",
        "SELECT name FROM t WHERE x = 'it''s' -- why\nselect NULL",
    );
    assert!(html.contains(&span("kw", "SELECT")));
    assert!(html.contains(&span("kw", "FROM")));
    assert!(html.contains(&span("kw", "select")));
    assert!(html.contains(&span("lit", "NULL")));
    assert!(html.contains(&span("com", "-- why")));
    assert!(!html.contains(&span("kw", "name")));
}

#[test]
fn go_java_and_c() {
    let go = hl("go", "func main() { x := nil; s := `raw` }");
    assert!(go.contains(&span("kw", "func")));
    assert!(go.contains(&span("lit", "nil")));
    assert!(go.contains(&span("str", "`raw`")));
    let java = hl("java", "public class A { String s = null; }");
    assert!(java.contains(&span("kw", "public")));
    assert!(java.contains(&span("lit", "String")));
    let c = hl("cpp", "#include <stdio.h>\nint main() { return 0; }");
    assert!(c.contains(&span("meta", "#include &lt;stdio.h&gt;")));
    assert!(c.contains(&span("lit", "int")));
    assert!(c.contains(&span("kw", "return")));
}

#[test]
fn yaml_and_toml_keys() {
    let yaml = hl("yaml", "name: skiff # c\nlist:\n  - item: true\nurl: a#b");
    assert!(yaml.contains(&span("key", "name")));
    assert!(yaml.contains(&span("key", "item")));
    assert!(yaml.contains(&span("lit", "true")));
    assert!(yaml.contains(&span("com", "# c")));
    assert!(!yaml.contains(&span("com", "#b")));
    let toml = hl(
        "toml",
        "[package]\nname = \"skiff\"\n\"quoted key\" = 1\nv = [1, 2]",
    );
    assert!(toml.contains(&span("meta", "[package]")));
    assert!(toml.contains(&span("key", "name")));
    assert!(toml.contains(&span("key", "&quot;quoted key&quot;")));
    assert!(toml.contains(&span("str", "&quot;skiff&quot;")));
    assert!(!toml.contains(&span("meta", "[1, 2]")));
}

#[test]
fn diff_lines() {
    let html = hl("diff", "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same\n");
    assert!(html.contains(&span("meta", "--- a")));
    assert!(html.contains(&span("meta", "+++ b")));
    assert!(html.contains(&span("meta", "@@ -1 +1 @@")));
    assert!(html.contains(&span("del", "-old")));
    assert!(html.contains(&span("add", "+new")));
    assert!(html.contains("\n same\n"));
}

#[test]
fn unterminated_strings_and_comments_end_at_the_text() {
    for (lang, code) in [
        ("js", "/* open"),
        ("py", "'''open"),
        ("rust", "\"open\\"),
        ("html", "<a href=\"x"),
        ("html", "<!-- x"),
        ("c", "#"),
        ("rust", "'"),
        ("rust", "'\\"),
    ] {
        let html = hl(lang, code);
        assert_eq!(
            text_of(&html).as_deref(),
            Ok(code),
            "{lang} {code:?}: {html}"
        );
    }
}

/// Highlighting never changes the text, never emits anything but our spans, never panics.
#[test]
fn property_text_survives_for_any_input() {
    const ALPHABET: &[&str] = &[
        "\"", "'", "`", "\\", "/", "*", "#", "-", "+", "<", ">", "!", "=", ":", "[", "]", "{", "}",
        "\n", " ", "\t", "a", "fn", "if", "SELECT", "0x1F", "1.5", "é", "😀", "&", "--", "@@",
        "<!--", "-->", "/*", "*/", "'''", "\"\"\"", "$", "@media", "<a ", "=\"",
    ];
    const LANGS: &[&str] = &[
        "rust", "python", "js", "json", "bash", "css", "sql", "go", "java", "cpp", "yaml", "toml",
        "html", "svg", "diff",
    ];
    let mut rng = Rng::new(0x5eed_4a11);
    for case in 0..4000 {
        let len = rng.below(40);
        let code: String = (0..len)
            .map(|_| ALPHABET[rng.below(ALPHABET.len())])
            .collect();
        let lang = LANGS[case % LANGS.len()];
        let html = hl(lang, &code);
        assert_eq!(
            text_of(&html).as_deref(),
            Ok(code.as_str()),
            "{lang} {code:?}"
        );
    }
}

#[test]
fn property_arbitrary_bytes() {
    let mut rng = Rng::new(0xb17e5);
    for case in 0..2000 {
        let bytes: Vec<u8> = (0..rng.below(64)).map(|_| rng.next() as u8).collect();
        let code = String::from_utf8_lossy(&bytes);
        let lang = ["rust", "yaml", "html", "diff", "toml", "c"][case % 6];
        let html = hl(lang, &code);
        assert_eq!(text_of(&html).as_deref(), Ok(&*code), "{lang} {code:?}");
    }
}

/// A long single line costs time linear in its length (line state is tracked, not rescanned).
#[test]
fn long_lines_stay_linear() {
    let code = "key: value ".repeat(50_000);
    let html = hl("yaml", &code);
    assert_eq!(text_of(&html).as_deref(), Ok(code.as_str()));
}
