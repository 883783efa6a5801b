//! LaTeX math to MathML, which browsers draw natively.
//!
//! Hand-written for the subset models actually write (fractions, scripts, roots, Greek,
//! operators, `\text`, `\mathbb`-style alphabets, accents, `\left…\right`, matrices and
//! `cases`/`aligned`). The crates measured for this were either large for the page
//! (`math-core`, ~72 KiB gzip on its own) or copied `\text{…}` into their output unescaped
//! (`latex2mathml`), which would break this module's promise below.
//!
//! What it must never do: emit a tag or attribute outside the fixed MathML set checked in
//! `render_tests.rs`, copy any input text into markup unescaped, or turn any command into a link
//! (`\href`, `\url` and every other unknown command make the whole formula fall back to its
//! source in `<code>`). The LaTeX as written is kept in an `<annotation>` so nothing is lost.

pub(crate) mod brackets;
mod symbols;

#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use symbols::SPACE_WIDTHS;
use symbols::{accent, space, styled, symbol, Symbol};

use super::node::{Attr, Class, MdNode, Tag};

/// Nesting deeper than this falls back to source: recursion depth is bounded, whatever the input.
const MAX_DEPTH: usize = 48;

/// `latex` as MathML (inline or display), or as its source in `<code class="math-src">` when
/// it uses something this converter does not know.
pub(crate) fn math_node(latex: &str, display: bool) -> MdNode {
    let mut parser = Parser {
        src: latex,
        pos: 0,
        depth: 0,
        display,
    };
    match parser.row(Stop::End) {
        Ok(body) => {
            let annotation = MdNode::el(
                Tag::Annotation,
                vec![Attr::EncodingTex],
                vec![MdNode::Text(latex.to_owned())],
            );
            let semantics = MdNode::el(Tag::Semantics, Vec::new(), vec![one(body), annotation]);
            let attrs = if display {
                vec![Attr::DisplayBlock]
            } else {
                Vec::new()
            };
            MdNode::el(Tag::Math, attrs, vec![semantics])
        }
        Err(Unsupported) => MdNode::el(
            Tag::Code,
            vec![Attr::Class(Class::MathSrc)],
            vec![MdNode::Text(latex.to_owned())],
        ),
    }
}

/// Something the converter does not handle; the caller shows the source instead.
#[derive(Debug)]
struct Unsupported;

type Parsed<T> = Result<T, Unsupported>;

/// Where a row ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    End,
    /// A closing `}`.
    Brace,
    /// A closing `]` (the index of `\sqrt[n]`).
    Bracket,
    /// `\right`.
    Right,
    /// `\end{…}`, `&` or `\\` inside an environment.
    Cell,
}

/// Each item is one complete MathML element.
type Row = Vec<MdNode>;

/// A row as one element: itself when it holds one, else an `<mrow>`.
fn one(mut row: Row) -> MdNode {
    if row.len() == 1 {
        if let Some(el) = row.pop() {
            return el;
        }
    }
    mrow(row)
}

fn mrow(row: Row) -> MdNode {
    MdNode::el(Tag::Mrow, Vec::new(), row)
}

fn leaf(tag: Tag, text: &str) -> MdNode {
    MdNode::leaf(tag, text)
}

/// How a row ended, for the environment parser.
#[derive(Debug, PartialEq, Eq)]
enum Ended {
    Normal,
    Ampersand,
    NewRow,
    EndEnv,
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    depth: usize,
    display: bool,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// A command name after `\`: letters, or one other character.
    fn command_name(&mut self) -> Parsed<&'a str> {
        let start = self.pos;
        let first = self.bump().ok_or(Unsupported)?;
        if first.is_ascii_alphabetic() {
            while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                self.bump();
            }
        }
        let src = self.src;
        Ok(&src[start..self.pos])
    }

    fn row(&mut self, stop: Stop) -> Parsed<Row> {
        self.row_ended(stop).map(|(row, _)| row)
    }

    fn row_ended(&mut self, stop: Stop) -> Parsed<(Row, Ended)> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported);
        }
        let mut row = Row::new();
        let ended = loop {
            self.skip_space();
            let Some(c) = self.peek() else {
                if stop == Stop::End {
                    break Ended::Normal;
                }
                return Err(Unsupported);
            };
            match c {
                '}' if stop == Stop::Brace => {
                    self.bump();
                    break Ended::Normal;
                }
                ']' if stop == Stop::Bracket => {
                    self.bump();
                    break Ended::Normal;
                }
                '}' => return Err(Unsupported),
                '&' if stop == Stop::Cell => {
                    self.bump();
                    break Ended::Ampersand;
                }
                '\\' if stop == Stop::Cell && self.src[self.pos..].starts_with("\\\\") => {
                    self.pos += 2;
                    break Ended::NewRow;
                }
                '\\' if stop == Stop::Cell && self.src[self.pos..].starts_with("\\end") => {
                    break Ended::EndEnv;
                }
                '\\' if stop == Stop::Right && self.src[self.pos..].starts_with("\\right") => {
                    break Ended::Normal;
                }
                '^' | '_' => {
                    // A script with no base (`^2` at the start): give it an empty one.
                    let base = mrow(Row::new());
                    let el = self.scripts(base, false)?;
                    row.push(el);
                }
                _ => {
                    let Some((el, under)) = self.atom()? else {
                        continue;
                    };
                    let el = self.scripts(el, under)?;
                    row.push(el);
                }
            }
        };
        self.depth -= 1;
        Ok((row, ended))
    }

    /// Sub- and superscripts after `base`; `under` puts them under and over it (display-mode
    /// limits).
    fn scripts(&mut self, base: MdNode, under: bool) -> Parsed<MdNode> {
        let mut sub = None;
        let mut sup = None;
        loop {
            self.skip_space();
            match self.peek() {
                Some('_') if sub.is_none() => {
                    self.bump();
                    sub = Some(self.argument()?);
                }
                Some('^') if sup.is_none() => {
                    self.bump();
                    sup = Some(self.argument()?);
                }
                Some('\'') => {
                    // f' is f^{′}.
                    self.bump();
                    if sup.is_some() {
                        return Err(Unsupported);
                    }
                    sup = Some(leaf(Tag::Mo, "′"));
                }
                _ => break,
            }
        }
        let (t2, t1, t3) = if under {
            (Tag::Munderover, Tag::Munder, Tag::Mover)
        } else {
            (Tag::Msubsup, Tag::Msub, Tag::Msup)
        };
        Ok(match (sub, sup) {
            (None, None) => base,
            (Some(b), None) => MdNode::el(t1, Vec::new(), vec![base, b]),
            (None, Some(p)) => MdNode::el(t3, Vec::new(), vec![base, p]),
            (Some(b), Some(p)) => MdNode::el(t2, Vec::new(), vec![base, b, p]),
        })
    }

    /// One argument: a `{group}`, a command, or a single character.
    fn argument(&mut self) -> Parsed<MdNode> {
        self.skip_space();
        loop {
            match self.atom()? {
                Some((el, _)) => return Ok(el),
                // A spacing-free command (`\displaystyle`) takes no slot; read on.
                None if self.pos < self.src.len() => continue,
                None => return Err(Unsupported),
            }
        }
    }

    /// A `{…}` group's raw text (for `\text` and `\begin`), braces balanced.
    fn raw_group(&mut self) -> Parsed<&'a str> {
        if !self.eat('{') {
            return Err(Unsupported);
        }
        let start = self.pos;
        let mut depth = 0usize;
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                '{' => depth += 1,
                '}' if depth == 0 => {
                    let src = self.src;
                    return Ok(&src[start..self.pos - 1]);
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        Err(Unsupported)
    }

    /// One element, and whether its scripts go under and over it. `None` for things that
    /// render nothing (`\displaystyle`, `\left.`).
    fn atom(&mut self) -> Parsed<Option<(MdNode, bool)>> {
        // Commands nest without rows (`\sqrt\sqrt\sqrt…`), so depth is counted here too.
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Unsupported);
        }
        let atom = self.atom_inner();
        self.depth -= 1;
        atom
    }

    fn atom_inner(&mut self) -> Parsed<Option<(MdNode, bool)>> {
        self.skip_space();
        let Some(c) = self.bump() else {
            return Err(Unsupported);
        };
        let el = match c {
            '{' => one(self.row(Stop::Brace)?),
            '\\' => return self.command(),
            c if c.is_ascii_digit() || c == '.' => {
                let start = self.pos - 1;
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
                    self.bump();
                }
                leaf(Tag::Mn, &self.src[start..self.pos])
            }
            c if c.is_alphabetic() => leaf(Tag::Mi, c.encode_utf8(&mut [0; 4])),
            '~' => space_el("0.25em"),
            '}' | '&' | '^' | '_' | '#' => return Err(Unsupported),
            c => leaf(Tag::Mo, c.encode_utf8(&mut [0; 4])),
        };
        Ok(Some((el, false)))
    }

    fn command(&mut self) -> Parsed<Option<(MdNode, bool)>> {
        let name = self.command_name()?;
        if let Some(sym) = symbol(name) {
            return Ok(Some(match sym {
                Symbol::Ident(s) => (leaf(Tag::Mi, s), false),
                Symbol::Op(s) => (leaf(Tag::Mo, s), false),
                Symbol::BigOp(s) => (leaf(Tag::Mo, s), self.display),
                Symbol::Func(s, limits) => (leaf(Tag::Mi, s), limits && self.display),
            }));
        }
        if let Some(width) = space(name) {
            return Ok(Some((space_el(width), false)));
        }
        if let Some(mark) = accent(name) {
            let arg = self.argument()?;
            let el = MdNode::el(
                Tag::Mover,
                vec![Attr::Accent],
                vec![arg, leaf(Tag::Mo, mark)],
            );
            return Ok(Some((el, false)));
        }
        let el = match name {
            "frac" | "dfrac" | "tfrac" | "cfrac" => {
                let num = self.argument()?;
                let den = self.argument()?;
                MdNode::el(Tag::Mfrac, Vec::new(), vec![num, den])
            }
            "binom" | "dbinom" | "tbinom" => {
                let top = self.argument()?;
                let bottom = self.argument()?;
                let frac = MdNode::el(Tag::Mfrac, vec![Attr::LineThicknessZero], vec![top, bottom]);
                mrow(vec![leaf(Tag::Mo, "("), frac, leaf(Tag::Mo, ")")])
            }
            "sqrt" => {
                if self.eat('[') {
                    let index = one(self.row(Stop::Bracket)?);
                    let radicand = self.argument()?;
                    MdNode::el(Tag::Mroot, Vec::new(), vec![radicand, index])
                } else {
                    let radicand = self.argument()?;
                    MdNode::el(Tag::Msqrt, Vec::new(), vec![radicand])
                }
            }
            "text" | "textrm" | "textit" | "textbf" | "mbox" | "textnormal" => {
                let text = self.raw_group()?;
                leaf(Tag::Mtext, &unescape_text(text))
            }
            "mathrm" | "operatorname" | "mathit" | "mathsf" | "mathtt" => {
                let text = self.raw_group()?;
                let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                if text.contains('\\') {
                    return Err(Unsupported);
                }
                if name != "mathit" && text.chars().count() == 1 {
                    MdNode::el(
                        Tag::Mi,
                        vec![Attr::MathVariantNormal],
                        vec![MdNode::Text(text)],
                    )
                } else {
                    leaf(Tag::Mi, &text)
                }
            }
            "mathbb" | "mathbf" | "mathcal" | "mathscr" | "boldsymbol" | "bm" => {
                let text = self.raw_group()?;
                let mut row = Row::new();
                for c in text.chars().filter(|c| !c.is_whitespace()) {
                    let styled = styled(name, c).ok_or(Unsupported)?;
                    let tag = if c.is_ascii_digit() { Tag::Mn } else { Tag::Mi };
                    row.push(leaf(tag, styled.encode_utf8(&mut [0; 4])));
                }
                one(row)
            }
            "left" => {
                let open = self.delimiter()?;
                let inner = self.row(Stop::Right)?;
                self.pos += "\\right".len();
                let close = self.delimiter()?;
                let mut row = Row::new();
                row.extend(open);
                row.extend(inner);
                row.extend(close);
                mrow(row)
            }
            "big" | "Big" | "bigg" | "Bigg" | "bigl" | "bigr" | "Bigl" | "Bigr" | "biggl"
            | "biggr" | "middle" => match self.delimiter()? {
                Some(el) => el,
                None => return Ok(None),
            },
            "begin" => self.environment()?,
            "displaystyle" | "textstyle" | "limits" | "nolimits" | "nonumber" | "notag" | "!" => {
                return Ok(None)
            }
            "\\" => return Ok(None),
            _ => return Err(Unsupported),
        };
        Ok(Some((el, false)))
    }

    /// A delimiter after `\left`, `\right` or `\big`: `None` for the invisible `.`.
    fn delimiter(&mut self) -> Parsed<Option<MdNode>> {
        self.skip_space();
        match self.bump().ok_or(Unsupported)? {
            '.' => Ok(None),
            '\\' => {
                let name = self.command_name()?;
                match symbol(name) {
                    Some(Symbol::Op(s)) => Ok(Some(leaf(Tag::Mo, s))),
                    _ => Err(Unsupported),
                }
            }
            c @ ('(' | ')' | '[' | ']' | '|' | '/' | '<' | '>') => {
                let c = match c {
                    '<' => '⟨',
                    '>' => '⟩',
                    c => c,
                };
                Ok(Some(leaf(Tag::Mo, c.encode_utf8(&mut [0; 4]))))
            }
            _ => Err(Unsupported),
        }
    }

    /// `\begin{name} … \end{name}` for matrices, `cases` and aligned equations.
    fn environment(&mut self) -> Parsed<MdNode> {
        let name = self.raw_group()?.trim().trim_end_matches('*');
        let (open, close) = match name {
            "matrix" | "aligned" | "align" | "gathered" | "gather" | "array" | "split"
            | "smallmatrix" | "equation" | "eqnarray" => ("", ""),
            "pmatrix" => ("(", ")"),
            "bmatrix" => ("[", "]"),
            "Bmatrix" => ("{", "}"),
            "vmatrix" => ("|", "|"),
            "Vmatrix" => ("‖", "‖"),
            "cases" => ("{", ""),
            _ => return Err(Unsupported),
        };
        if name == "array" {
            // The column spec (`{cc|c}`) only shapes lines this table does not draw.
            self.raw_group()?;
        }
        let mut rows = Vec::new();
        let mut cells = Vec::new();
        let empty_cell = MdNode::el(Tag::Mtd, Vec::new(), vec![mrow(Row::new())]);
        loop {
            let (cell, ended) = self.row_ended(Stop::Cell)?;
            cells.push(MdNode::el(Tag::Mtd, Vec::new(), vec![one(cell)]));
            match ended {
                Ended::Ampersand => {}
                Ended::NewRow | Ended::EndEnv => {
                    // A trailing `\\` before `\end` leaves an empty last row; drop it.
                    let cells = std::mem::take(&mut cells);
                    if !(ended == Ended::EndEnv && cells == [empty_cell.clone()]) {
                        rows.push(MdNode::el(Tag::Mtr, Vec::new(), cells));
                    }
                    if ended == Ended::EndEnv {
                        self.pos += "\\end".len();
                        let end = self.raw_group()?.trim().trim_end_matches('*');
                        if end != name {
                            return Err(Unsupported);
                        }
                        break;
                    }
                }
                Ended::Normal => return Err(Unsupported),
            }
        }
        let table = MdNode::el(Tag::Mtable, Vec::new(), rows);
        if open.is_empty() && close.is_empty() {
            return Ok(table);
        }
        let mut row = Row::new();
        if !open.is_empty() {
            row.push(leaf(Tag::Mo, open));
        }
        row.push(table);
        if !close.is_empty() {
            row.push(leaf(Tag::Mo, close));
        }
        Ok(mrow(row))
    }
}

fn space_el(width: &'static str) -> MdNode {
    MdNode::el(Tag::Mspace, vec![Attr::Width(width)], Vec::new())
}

/// `\text{…}` content as shown: `\{`, `\}`, `\$`, `\%`, `\&`, `\_` and `\#` lose their
/// backslash; everything else is kept as written.
fn unescape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if "{}$%&_#".contains(next) {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}
