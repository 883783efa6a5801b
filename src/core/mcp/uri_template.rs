//! RFC 6570 URI templates, levels 1 to 4: what an MCP server's resource template
//! (`resources/templates/list`, e.g. `file:///{+path}` or `weather://{city}/now{?units}`) asks
//! for, and the URI a filled form reads.
//!
//! It exists so the resource browser's form is built from the template's variables
//! ([`UriTemplate::variables`]) and the URI sent to `resources/read` is the one the RFC
//! defines, percent-encoding included: a value typed by the user can never add a path segment
//! or a query the template did not have (`{city}` with `a/b` reads `a%2Fb`). A template a
//! server sends is untrusted text: anything malformed is a [`TemplateError`], never a panic.
//! Pure: no IO, no clock.

use std::fmt;

/// A variable's value. The form gives strings; lists and pairs are the RFC's other two kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Text(String),
    List(Vec<String>),
    Pairs(Vec<(String, String)>),
}

/// Why a template cannot be used, as a sentence for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    Unclosed,
    StrayBrace,
    BadOperator(char),
    BadName(String),
    BadPrefix(String),
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("The server's URI template is not valid: ")?;
        match self {
            TemplateError::Unclosed => f.write_str("an expression opened with { is never closed."),
            TemplateError::StrayBrace => f.write_str("a } closes nothing."),
            TemplateError::BadOperator(c) => {
                write!(
                    f,
                    "the operator {c} is reserved by RFC 6570 and means nothing yet."
                )
            }
            TemplateError::BadName(n) => write!(f, "\u{201c}{n}\u{201d} is not a variable name."),
            TemplateError::BadPrefix(p) => write!(
                f,
                "\u{201c}{p}\u{201d} is not a prefix length (a number from 1 to 9999)."
            ),
        }
    }
}

impl std::error::Error for TemplateError {}

#[derive(Debug, Clone, PartialEq, Eq)]
struct VarSpec {
    name: String,
    prefix: Option<usize>,
    explode: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression { op: Op, vars: Vec<VarSpec> },
}

/// An expression's operator and what it implies (RFC 6570 Appendix A's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryContinue,
}

impl Op {
    fn from_char(c: char) -> Option<Op> {
        Some(match c {
            '+' => Op::Reserved,
            '#' => Op::Fragment,
            '.' => Op::Label,
            '/' => Op::Path,
            ';' => Op::PathParam,
            '?' => Op::Query,
            '&' => Op::QueryContinue,
            _ => return None,
        })
    }

    fn first(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved => "",
            Op::Fragment => "#",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query => "?",
            Op::QueryContinue => "&",
        }
    }

    fn sep(self) -> &'static str {
        match self {
            Op::Simple | Op::Reserved | Op::Fragment => ",",
            Op::Label => ".",
            Op::Path => "/",
            Op::PathParam => ";",
            Op::Query | Op::QueryContinue => "&",
        }
    }

    fn named(self) -> bool {
        matches!(self, Op::PathParam | Op::Query | Op::QueryContinue)
    }

    /// What follows a named variable whose value is empty.
    fn if_empty(self) -> &'static str {
        if matches!(self, Op::Query | Op::QueryContinue) {
            "="
        } else {
            ""
        }
    }

    /// Whether reserved characters and existing %-triplets pass through unencoded.
    fn allow_reserved(self) -> bool {
        matches!(self, Op::Reserved | Op::Fragment)
    }
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    pub fn parse(template: &str) -> Result<UriTemplate, TemplateError> {
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            let open = rest.find('{');
            let close = rest.find('}');
            if close.is_some_and(|c| open.is_none_or(|o| c < o)) {
                return Err(TemplateError::StrayBrace);
            }
            let Some(open) = open else {
                parts.push(Part::Literal(rest.to_string()));
                break;
            };
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_string()));
            }
            let body_and_rest = &rest[open + 1..];
            let end = body_and_rest.find('}').ok_or(TemplateError::Unclosed)?;
            parts.push(expression(&body_and_rest[..end])?);
            rest = &body_and_rest[end + 1..];
        }
        Ok(UriTemplate { parts })
    }

    /// Every variable name, once each, in the order they first appear (the form's fields).
    pub fn variables(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Expression { vars, .. } = part {
                for v in vars {
                    if !out.contains(&v.name.as_str()) {
                        out.push(&v.name);
                    }
                }
            }
        }
        out
    }

    /// Whether `name` appears only in query expressions (`{?units}`, `{&page}`): a form may
    /// leave it empty and the URI simply has no such parameter.
    pub fn optional(&self, name: &str) -> bool {
        let mut seen = false;
        for part in &self.parts {
            if let Part::Expression { op, vars } = part {
                if vars.iter().any(|v| v.name == name) {
                    if !matches!(op, Op::Query | Op::QueryContinue) {
                        return false;
                    }
                    seen = true;
                }
            }
        }
        seen
    }

    /// The URI with each variable's value from `lookup` (`None`: undefined, left out as the
    /// RFC says).
    pub fn expand(&self, lookup: impl Fn(&str) -> Option<Value>) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                // Literals are the server's own; characters a URI cannot hold are encoded.
                Part::Literal(text) => encode_into(&mut out, text, true),
                Part::Expression { op, vars } => {
                    let mut first = true;
                    for spec in vars {
                        let Some(value) = lookup(&spec.name).filter(is_defined) else {
                            continue;
                        };
                        out.push_str(if first { op.first() } else { op.sep() });
                        first = false;
                        expand_var(&mut out, *op, spec, &value);
                    }
                }
            }
        }
        out
    }

    /// [`UriTemplate::expand`] with every value a string, as a form gives them; an empty
    /// field is undefined, so an optional query part (`{?units}`) is left out.
    pub fn expand_strings(&self, values: &[(String, String)]) -> String {
        self.expand(|name| {
            values
                .iter()
                .find(|(n, v)| n == name && !v.is_empty())
                .map(|(_, v)| Value::Text(v.clone()))
        })
    }
}

fn is_defined(v: &Value) -> bool {
    match v {
        Value::Text(_) => true,
        Value::List(l) => !l.is_empty(),
        Value::Pairs(p) => !p.is_empty(),
    }
}

fn expression(body: &str) -> Result<Part, TemplateError> {
    let mut chars = body.chars();
    let op = match chars.next() {
        Some(c) if "=,!@|".contains(c) => return Err(TemplateError::BadOperator(c)),
        Some(c) => Op::from_char(c),
        None => return Err(TemplateError::BadName(String::new())),
    };
    let list = if op.is_some() { chars.as_str() } else { body };
    let vars = list
        .split(',')
        .map(varspec)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Part::Expression {
        op: op.unwrap_or(Op::Simple),
        vars,
    })
}

fn varspec(text: &str) -> Result<VarSpec, TemplateError> {
    let (name, prefix, explode) = if let Some(name) = text.strip_suffix('*') {
        (name, None, true)
    } else if let Some((name, len)) = text.split_once(':') {
        let n = len
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=9999).contains(n) && !len.starts_with('0') && len.len() <= 4)
            .ok_or_else(|| TemplateError::BadPrefix(len.to_string()))?;
        (name, Some(n), false)
    } else {
        (text, None, false)
    };
    if !valid_name(name) {
        return Err(TemplateError::BadName(name.to_string()));
    }
    Ok(VarSpec {
        name: name.to_string(),
        prefix,
        explode,
    })
}

/// varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded.
fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || b[0] == b'.' || b[b.len() - 1] == b'.' {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_alphanumeric() || c == b'_' => i += 1,
            b'.' if b[i - 1] != b'.' => i += 1,
            b'%' if b.len() > i + 2
                && b[i + 1].is_ascii_hexdigit()
                && b[i + 2].is_ascii_hexdigit() =>
            {
                i += 3
            }
            _ => return false,
        }
    }
    true
}

fn expand_var(out: &mut String, op: Op, spec: &VarSpec, value: &Value) {
    let reserved = op.allow_reserved();
    let named_prefix = |out: &mut String, name: &str, empty: bool| {
        out.push_str(name);
        out.push_str(if empty { op.if_empty() } else { "=" });
    };
    match value {
        Value::Text(s) => {
            if op.named() {
                named_prefix(out, &spec.name, s.is_empty());
            }
            let cut: String = match spec.prefix {
                Some(n) => s.chars().take(n).collect(),
                None => s.clone(),
            };
            encode_into(out, &cut, reserved);
        }
        Value::List(items) if !spec.explode => {
            if op.named() {
                named_prefix(out, &spec.name, false);
            }
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                encode_into(out, item, reserved);
            }
        }
        Value::List(items) => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(op.sep());
                }
                if op.named() {
                    named_prefix(out, &spec.name, item.is_empty());
                }
                encode_into(out, item, reserved);
            }
        }
        Value::Pairs(pairs) if !spec.explode => {
            if op.named() {
                named_prefix(out, &spec.name, false);
            }
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                encode_into(out, k, reserved);
                out.push(',');
                encode_into(out, v, reserved);
            }
        }
        Value::Pairs(pairs) => {
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(op.sep());
                }
                encode_into(out, k, reserved);
                out.push_str(if op.named() && v.is_empty() {
                    op.if_empty()
                } else {
                    "="
                });
                encode_into(out, v, reserved);
            }
        }
    }
}

/// Percent-encode `text` (UTF-8) into `out`, keeping unreserved characters and, when
/// `reserved`, the reserved set and %-triplets already present.
fn encode_into(out: &mut String, text: &str, reserved: bool) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let keep = c.is_ascii_alphanumeric()
            || b"-._~".contains(&c)
            || (reserved && b":/?#[]@!$&'()*+,;=".contains(&c));
        if keep {
            out.push(c as char);
        } else if reserved
            && c == b'%'
            && b.len() > i + 2
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            out.push_str(&text[i..i + 3]);
            i += 3;
            continue;
        } else {
            out.push('%');
            out.push(HEX[usize::from(c >> 4)] as char);
            out.push(HEX[usize::from(c & 15)] as char);
        }
        i += 1;
    }
}

#[cfg(test)]
#[path = "uri_template_tests.rs"]
mod tests;
