//! The converter on the formulas models write, on hostile LaTeX, and on generated input.

use super::math_node;
use crate::markdown::render_tests::{check_html, Rng};
use crate::markdown::to_html::render;

fn math(latex: &str, display: bool) -> String {
    crate::markdown::to_html::to_html(&[math_node(latex, display)])
}

/// The presentation part, without the wrapper and the annotation.
fn body(latex: &str) -> String {
    let html = math(latex, false);
    let start = html.find("<semantics>").map(|i| i + "<semantics>".len());
    let end = html.find("<annotation");
    match (start, end) {
        (Some(s), Some(e)) => html[s..e].to_owned(),
        _ => panic!("{latex:?} did not convert: {html}"),
    }
}

#[test]
fn common_formulas() {
    assert_eq!(body("x"), "<mi>x</mi>");
    assert_eq!(body("x^2"), "<msup><mi>x</mi><mn>2</mn></msup>");
    assert_eq!(
        body("a_{ij}^{n+1}"),
        "<msubsup><mi>a</mi><mrow><mi>i</mi><mi>j</mi></mrow>\
         <mrow><mi>n</mi><mo>+</mo><mn>1</mn></mrow></msubsup>"
    );
    assert_eq!(body("\\frac{1}{2}"), "<mfrac><mn>1</mn><mn>2</mn></mfrac>");
    assert_eq!(body("\\sqrt{x}"), "<msqrt><mi>x</mi></msqrt>");
    assert_eq!(body("\\sqrt[3]{x}"), "<mroot><mi>x</mi><mn>3</mn></mroot>");
    assert_eq!(
        body("\\alpha\\le\\pi"),
        "<mrow><mi>α</mi><mo>≤</mo><mi>π</mi></mrow>"
    );
    assert_eq!(body("\\mathbb{R}^n"), "<msup><mi>ℝ</mi><mi>n</mi></msup>");
    assert_eq!(body("\\mathbf{v}"), "<mi>𝐯</mi>");
    assert_eq!(
        body("\\text{if } x"),
        "<mrow><mtext>if </mtext><mi>x</mi></mrow>"
    );
    assert_eq!(body("\\sin x"), "<mrow><mi>sin</mi><mi>x</mi></mrow>");
    assert_eq!(body("3.14"), "<mn>3.14</mn>");
    assert_eq!(
        body("a\\,b"),
        "<mrow><mi>a</mi><mspace width=\"0.167em\"></mspace><mi>b</mi></mrow>"
    );
    assert_eq!(
        body("\\hat{x}"),
        "<mover accent=\"true\"><mi>x</mi><mo>^</mo></mover>"
    );
    assert_eq!(
        body("\\left(\\frac{a}{b}\\right)"),
        "<mrow><mo>(</mo><mfrac><mi>a</mi><mi>b</mi></mfrac><mo>)</mo></mrow>"
    );
    assert_eq!(
        body("\\begin{pmatrix}1&0\\\\0&1\\end{pmatrix}"),
        "<mrow><mo>(</mo><mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr>\
         <mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable><mo>)</mo></mrow>"
    );
    assert_eq!(body("f'"), "<msup><mi>f</mi><mo>′</mo></msup>");
}

#[test]
fn display_limits_go_under_and_over() {
    let html = math("\\sum_{i=1}^n i", true);
    assert!(html.starts_with("<math display=\"block\"><semantics><mrow><munderover><mo>∑</mo>"));
    let inline = body("\\sum_{i=1}^n i");
    assert!(inline.starts_with("<mrow><msubsup><mo>∑</mo>"));
}

#[test]
fn the_latex_is_kept_as_written() {
    let latex = "\\int_0^1 x\\,dx < \\frac{a}{2} \\text{&}";
    let html = math(latex, true);
    assert!(html.ends_with(
        "<annotation encoding=\"application/x-tex\">\\int_0^1 x\\,dx &lt; \\frac{a}{2} \\text{&amp;}\
         </annotation></semantics></math>"
    ), "{html}");
}

#[test]
fn unknown_commands_fall_back_to_source() {
    for latex in [
        "\\href{javascript:alert(1)}{x}",
        "\\url{http://x}",
        "\\color{red}{x}",
        "\\unknowncommand",
        "{unbalanced",
        "x}",
        "\\frac{1}",
        "\\begin{evil}x\\end{evil}",
        "\\begin{matrix}x\\end{pmatrix}",
    ] {
        let html = math(latex, false);
        assert!(
            html.starts_with("<code class=\"math-src\">"),
            "{latex}: {html}"
        );
        assert!(!html.contains("<math"), "{latex}: {html}");
    }
    assert_eq!(
        math("\\href{javascript:x}{<b>}", false),
        "<code class=\"math-src\">\\href{javascript:x}{&lt;b&gt;}</code>"
    );
}

#[test]
fn text_is_escaped() {
    assert_eq!(
        body("\\text{<script>alert(1)</script> \\& \"q\"}"),
        "<mtext>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;</mtext>"
    );
    assert_eq!(
        body("a<b"),
        "<mrow><mi>a</mi><mo>&lt;</mo><mi>b</mi></mrow>"
    );
}

#[test]
fn deep_nesting_falls_back_instead_of_overflowing() {
    for latex in [
        "{".repeat(100_000) + &"}".repeat(100_000),
        "\\sqrt".repeat(100_000) + "x",
        "x^{".repeat(50_000) + "x",
        "\\frac".repeat(50_000),
    ] {
        let html = math(&latex, false);
        assert!(html.starts_with("<code"), "{}", &html[..40]);
    }
}

#[test]
fn markdown_math_in_all_four_spellings() {
    let html =
        render("Inline $a^2$ and \\(b_1\\), display $$\\frac{1}{2}\\,x$$ and\n\\[\nc\n\\]\n");
    check_html(&html).unwrap();
    assert_eq!(html.matches("<math>").count(), 2, "{html}");
    assert_eq!(
        html.matches("<math display=\"block\">").count(),
        2,
        "{html}"
    );
    // CommonMark escapes no longer eat `\,` inside display math.
    assert!(html.contains("\\frac{1}{2}\\,x</annotation>"), "{html}");
    assert!(
        html.contains("<mspace width=\"0.167em\"></mspace>"),
        "{html}"
    );
}

#[test]
fn brackets_in_code_stay_code() {
    let html = render("`\\(x\\)` and\n\n```\n\\[y\\]\n```\n");
    assert!(!html.contains("<math"), "{html}");
    assert!(html.contains("<code>\\(x\\)</code>"), "{html}");
    assert!(html.contains("\\[y\\]"), "{html}");
    // An escaped backslash is not an opener, and a blank line ends the search.
    let html = render("a \\\\(b\\\\) c\n\n\\[ open\n\nstill text \\]");
    assert!(!html.contains("<math"), "{html}");
}

#[test]
fn money_is_not_math() {
    let html = render("It costs $5 and $10.");
    assert!(!html.contains("<math"), "{html}");
    assert!(html.contains("$5 and $10"), "{html}");
}

/// Random LaTeX-ish input: never panics, always allowlisted markup, always keeps the source.
#[test]
fn property_generated_latex() {
    const PARTS: &[&str] = &[
        "x",
        "2",
        "{",
        "}",
        "^",
        "_",
        "\\frac",
        "\\sqrt",
        "[",
        "]",
        "\\left(",
        "\\right)",
        "\\alpha",
        "\\text{",
        "<",
        ">",
        "&",
        "\\\\",
        "\\begin{matrix}",
        "\\end{matrix}",
        "\\begin{cases}",
        "\\end{cases}",
        "\\mathbb{",
        "\\hat",
        "'",
        " ",
        "\\,",
        "\\",
        "é",
        "\"",
        "\\href{",
        "\\sum",
        "\\left.",
        "\\right|",
        "\\big(",
        "$",
    ];
    let mut rng = Rng::new(0x3a7e_0001);
    for _ in 0..5000 {
        let latex: String = (0..rng.below(16))
            .map(|_| PARTS[rng.below(PARTS.len())])
            .collect();
        for display in [false, true] {
            let html = math(&latex, display);
            check_html(&html).unwrap_or_else(|e| panic!("{latex:?}: {e}\n{html}"));
            let mut escaped = String::new();
            crate::markdown::to_html::escape_into(&mut escaped, &latex);
            assert!(html.contains(&escaped), "{latex:?} lost its source: {html}");
        }
    }
}

#[test]
fn footnotes_render_without_ids_or_links() {
    let html = render("Claim[^a\"].\n\n[^a\"]: Source <b>.\n");
    check_html(&html).unwrap();
    assert_eq!(
        html,
        "<p>Claim<sup class=\"footnote-ref\">a&quot;</sup>.</p>\n\
         <aside class=\"footnote\"><sup>a&quot;</sup>\n<p>Source &lt;b&gt;.</p>\n</aside>\n"
    );
}
