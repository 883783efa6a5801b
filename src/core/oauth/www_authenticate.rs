//! `WWW-Authenticate` as RFC 9110 §11.6.1 writes it, and the Bearer challenge RFC 6750 §3 and
//! RFC 9728 §5.1 put in it (`resource_metadata`, `scope`, `error`, `error_description`).
//!
//! A header is a comma-separated list of challenges whose parameters are themselves
//! comma-separated, so a comma only says "next item"; whether that item is a parameter or a
//! new challenge is decided by whether a `=` follows its name. Browsers join repeated headers
//! with ", ", which this grammar reads the same way. Input comes from any server: the parser
//! never panics, never allocates more than the input's size, and says what is wrong as a typed
//! error instead of guessing.

use std::fmt;

/// One challenge: its scheme (lower-cased), and either a token68 or parameters (names
/// lower-cased, values unquoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    pub token68: Option<String>,
    pub params: Vec<(String, String)>,
}

impl Challenge {
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WwwAuthenticateError {
    /// A character where a scheme or parameter name should start.
    Unexpected { at: usize, found: char },
    /// A quoted string that never closes.
    UnterminatedQuote { at: usize },
    /// The same parameter twice in one challenge (RFC 9110 §11.2: each name at most once);
    /// refused because the two values could be read either way.
    DuplicateParameter(String),
}

impl fmt::Display for WwwAuthenticateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WwwAuthenticateError::Unexpected { at, found } => write!(
                f,
                "the server's WWW-Authenticate header has an unexpected {found:?} at position {at}"
            ),
            WwwAuthenticateError::UnterminatedQuote { at } => write!(
                f,
                "the server's WWW-Authenticate header has a quote opened at position {at} that never closes"
            ),
            WwwAuthenticateError::DuplicateParameter(name) => write!(
                f,
                "the server's WWW-Authenticate header gives {name} twice in one challenge"
            ),
        }
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// RFC 9110 `token68` characters (before its trailing `=`s).
fn is_token68_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~+/".contains(c)
}

struct Cursor<'a> {
    chars: Vec<(usize, char)>,
    i: usize,
    src: &'a str,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).map(|(_, c)| *c)
    }
    fn pos(&self) -> usize {
        self.chars
            .get(self.i)
            .map(|(p, _)| *p)
            .unwrap_or(self.src.len())
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r' | '\n')) {
            self.i += 1;
        }
    }
    fn skip_ws_and_commas(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r' | '\n' | ',')) {
            self.i += 1;
        }
    }
    fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let mut s = String::new();
        while let Some(c) = self.peek().filter(|c| f(*c)) {
            s.push(c);
            self.i += 1;
        }
        s
    }
    fn unexpected(&self) -> WwwAuthenticateError {
        WwwAuthenticateError::Unexpected {
            at: self.pos(),
            found: self.peek().unwrap_or('\0'),
        }
    }

    /// After a name and optional whitespace: is this `name = value` (a parameter), rather than
    /// a token68 ending in `=` or a new challenge? Looks ahead without moving.
    fn at_param_equals(&self) -> bool {
        let mut j = self.i;
        while matches!(self.chars.get(j), Some((_, ' ' | '\t'))) {
            j += 1;
        }
        if !matches!(self.chars.get(j), Some((_, '='))) {
            return false;
        }
        j += 1;
        while matches!(self.chars.get(j), Some((_, ' ' | '\t'))) {
            j += 1;
        }
        // `a==` or `a=` at the end / before a comma is a token68's padding.
        matches!(self.chars.get(j), Some((_, c)) if *c == '"' || is_tchar(*c))
    }

    fn quoted(&mut self) -> Result<String, WwwAuthenticateError> {
        let start = self.pos();
        self.i += 1; // the opening quote
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err(WwwAuthenticateError::UnterminatedQuote { at: start }),
                Some('"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some('\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(c) => {
                            out.push(c);
                            self.i += 1;
                        }
                        None => return Err(WwwAuthenticateError::UnterminatedQuote { at: start }),
                    }
                }
                Some(c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

/// Parse one or more `WWW-Authenticate` values into their challenges, in order.
pub fn parse(headers: &[&str]) -> Result<Vec<Challenge>, WwwAuthenticateError> {
    let mut out = Vec::new();
    for h in headers {
        parse_one(h, &mut out)?;
    }
    Ok(out)
}

fn parse_one(src: &str, out: &mut Vec<Challenge>) -> Result<(), WwwAuthenticateError> {
    let mut c = Cursor {
        chars: src.char_indices().collect(),
        i: 0,
        src,
    };
    loop {
        c.skip_ws_and_commas();
        if c.peek().is_none() {
            return Ok(());
        }
        let scheme = c.take_while(is_tchar);
        if scheme.is_empty() {
            return Err(c.unexpected());
        }
        let mut challenge = Challenge {
            scheme: scheme.to_ascii_lowercase(),
            token68: None,
            params: Vec::new(),
        };
        c.skip_ws();
        // A token68 (`Basic abc==`) is one run of its characters plus `=` padding, followed by
        // the end or a comma, and not a `name=value`.
        let save = c.i;
        let t = c.take_while(is_token68_char);
        if !t.is_empty() && !c.at_param_equals() {
            let pad = c.take_while(|ch| ch == '=');
            c.skip_ws();
            if matches!(c.peek(), None | Some(',')) {
                challenge.token68 = Some(format!("{t}{pad}"));
                out.push(challenge);
                continue;
            }
        }
        c.i = save;
        // Parameters, until the next item is a new challenge (a name with no `=` after it).
        loop {
            c.skip_ws_and_commas();
            let before = c.i;
            let name = c.take_while(is_tchar);
            if name.is_empty() {
                if c.peek().is_none() {
                    break;
                }
                return Err(c.unexpected());
            }
            if !c.at_param_equals() {
                // The start of the next challenge: give the name back.
                c.i = before;
                break;
            }
            c.skip_ws();
            c.i += 1; // '='
            c.skip_ws();
            let value = match c.peek() {
                Some('"') => c.quoted()?,
                Some(ch) if is_tchar(ch) => c.take_while(is_tchar),
                // `at_param_equals` saw a quote or a token character here.
                _ => return Err(c.unexpected()),
            };
            let name = name.to_ascii_lowercase();
            if challenge.param(&name).is_some() {
                return Err(WwwAuthenticateError::DuplicateParameter(name));
            }
            challenge.params.push((name, value));
            c.skip_ws();
            match c.peek() {
                None | Some(',') => {}
                _ => return Err(c.unexpected()),
            }
        }
        out.push(challenge);
    }
}

/// What a Bearer challenge tells an MCP client.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BearerChallenge {
    /// RFC 9728 §5.1: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// RFC 6750 §3: the scopes the request needs, space-separated in the header.
    pub scope: Vec<String>,
    /// RFC 6750 §3.1: `invalid_request`, `invalid_token`, `insufficient_scope`, ...
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl BearerChallenge {
    /// The first Bearer challenge among the headers, `Ok(None)` when there is none (a server
    /// that only offers Basic, or no header at all). A `DPoP` challenge counts as one: a server
    /// that takes DPoP-bound tokens challenges with that scheme and the same parameters
    /// (RFC 9449 §7.1), `resource_metadata` included.
    pub fn from_headers(headers: &[&str]) -> Result<Option<BearerChallenge>, WwwAuthenticateError> {
        let all = parse(headers)?;
        Ok(all
            .iter()
            .find(|c| c.scheme == "bearer" || c.scheme == "dpop")
            .map(|c| BearerChallenge {
                resource_metadata: c
                    .param("resource_metadata")
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
                scope: split_scope(c.param("scope").unwrap_or("")),
                error: c.param("error").map(String::from),
                error_description: c.param("error_description").map(String::from),
            }))
    }

    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// Whether a 403 with this challenge asks for more scope: `insufficient_scope`, or no
    /// error at all but a `scope` (servers, the conformance suite's among them, that put the
    /// error only in the JSON body). Any other error is an ordinary refusal.
    pub fn asks_for_scope(&self) -> bool {
        match self.error.as_deref() {
            Some("insufficient_scope") => true,
            None => !self.scope.is_empty(),
            Some(_) => false,
        }
    }
}

/// A space-separated scope string as a list, without empties or repeats, in order.
pub fn split_scope(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in s.split([' ', '\t']).filter(|s| !s.is_empty()) {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_the_spec_example() {
        let h = "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource\",\n                         scope=\"files:read\"";
        let b = BearerChallenge::from_headers(&[h]).unwrap().unwrap();
        assert_eq!(
            b.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(b.scope, vec!["files:read"]);
        assert_eq!(b.error, None);
    }

    #[test]
    fn reads_insufficient_scope_with_description() {
        let h = r#"Bearer error="insufficient_scope", scope="files:read files:write  user:profile", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="Additional file write permission required""#;
        let b = BearerChallenge::from_headers(&[h]).unwrap().unwrap();
        assert!(b.is_insufficient_scope());
        assert!(b.asks_for_scope());
        let quiet = BearerChallenge::from_headers(&[
            r#"Bearer scope="a b", resource_metadata="https://x""#,
        ])
        .unwrap()
        .unwrap();
        assert!(quiet.asks_for_scope() && !quiet.is_insufficient_scope());
        let dpop =
            BearerChallenge::from_headers(&[r#"DPoP resource_metadata="https://m/.well-known/x""#])
                .unwrap()
                .unwrap();
        assert_eq!(
            dpop.resource_metadata.as_deref(),
            Some("https://m/.well-known/x")
        );
        let other = BearerChallenge::from_headers(&[r#"Bearer error="invalid_token", scope="a""#])
            .unwrap()
            .unwrap();
        assert!(!other.asks_for_scope());
        assert!(!BearerChallenge::default().asks_for_scope());
        assert_eq!(b.scope, vec!["files:read", "files:write", "user:profile"]);
        assert_eq!(
            b.error_description.as_deref(),
            Some("Additional file write permission required")
        );
    }

    #[test]
    fn several_challenges_token68_and_case() {
        let h = r#"Basic realm="a, b", Negotiate abc+/==, BEARER Realm=x, ERROR=invalid_token, Digest nonce="n""#;
        let all = parse(&[h]).unwrap();
        assert_eq!(
            all.iter().map(|c| c.scheme.as_str()).collect::<Vec<_>>(),
            vec!["basic", "negotiate", "bearer", "digest"]
        );
        assert_eq!(all[0].param("realm"), Some("a, b"));
        assert_eq!(all[1].token68.as_deref(), Some("abc+/=="));
        assert_eq!(all[2].param("realm"), Some("x"));
        assert_eq!(all[2].param("error"), Some("invalid_token"));
        assert_eq!(all[3].param("nonce"), Some("n"));
        let b = BearerChallenge::from_headers(&[h]).unwrap().unwrap();
        assert_eq!(b.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn headers_apart_or_joined_read_the_same() {
        let apart = parse(&["Basic realm=\"x\"", "Bearer scope=\"a\""]).unwrap();
        let joined = parse(&["Basic realm=\"x\", Bearer scope=\"a\""]).unwrap();
        assert_eq!(apart, joined);
    }

    #[test]
    fn quoted_strings_unescape() {
        let b = BearerChallenge::from_headers(&[
            r#"Bearer error_description="say \"no\" \\ ok", scope="a""#,
        ])
        .unwrap()
        .unwrap();
        assert_eq!(b.error_description.as_deref(), Some(r#"say "no" \ ok"#));
        assert_eq!(b.scope, vec!["a"]);
    }

    #[test]
    fn bare_schemes_and_empty_headers() {
        assert_eq!(BearerChallenge::from_headers(&[]).unwrap(), None);
        assert_eq!(BearerChallenge::from_headers(&["Basic"]).unwrap(), None);
        let b = BearerChallenge::from_headers(&["Bearer"]).unwrap().unwrap();
        assert_eq!(b, BearerChallenge::default());
        let b = BearerChallenge::from_headers(&[" , Bearer ,, "])
            .unwrap()
            .unwrap();
        assert_eq!(b, BearerChallenge::default());
    }

    #[test]
    fn malformed_input_is_a_typed_error() {
        assert_eq!(
            parse(&[r#"Bearer scope="a"#]),
            Err(WwwAuthenticateError::UnterminatedQuote { at: 13 })
        );
        assert_eq!(
            parse(&[r#"Bearer scope="a\"#]),
            Err(WwwAuthenticateError::UnterminatedQuote { at: 13 })
        );
        // `scope=` with nothing after it is, by the grammar, a token68 with padding: no scope.
        let b = BearerChallenge::from_headers(&["Bearer scope= ,"])
            .unwrap()
            .unwrap();
        assert!(b.scope.is_empty());
        assert!(matches!(
            parse(&["\"Bearer\""]),
            Err(WwwAuthenticateError::Unexpected { at: 0, found: '"' })
        ));
        assert!(matches!(
            parse(&["Bearer a=b c"]),
            Err(WwwAuthenticateError::Unexpected { .. })
        ));
        assert_eq!(
            parse(&[r#"Bearer resource_metadata="https://a", Resource_Metadata="https://evil""#]),
            Err(WwwAuthenticateError::DuplicateParameter(
                "resource_metadata".into()
            ))
        );
        let e = parse(&["Bearer realm=x, =y"]).unwrap_err();
        assert!(e.to_string().contains("unexpected '='"), "{e}");
    }

    proptest! {
        #[test]
        fn never_panics(s in "[ ,=\"\\\\a-zA-Z0-9_+/\\t\u{e9}\u{1F600}]{0,64}") {
            let _ = parse(&[&s]);
            let _ = BearerChallenge::from_headers(&[&s]);
        }

        #[test]
        fn never_panics_on_anything(s in "\\PC{0,80}") {
            let _ = parse(&[&s]);
        }

        #[test]
        fn a_written_challenge_reads_back(
            meta in "https://[a-z]{1,8}\\.com/[a-z/]{0,10}",
            scopes in proptest::collection::vec("[a-z:]{1,8}", 0..4),
            desc in "[ -~]{0,20}",
        ) {
            let scope = scopes.join(" ");
            let esc = desc.replace('\\', "\\\\").replace('"', "\\\"");
            let h = format!(r#"Basic realm="r", Bearer resource_metadata="{meta}", scope="{scope}", error_description="{esc}""#);
            let b = BearerChallenge::from_headers(&[&h]).unwrap().unwrap();
            prop_assert_eq!(b.resource_metadata.as_deref(), Some(meta.as_str()));
            prop_assert_eq!(b.scope, split_scope(&scope));
            prop_assert_eq!(b.error_description.as_deref(), Some(desc.as_str()));
        }
    }
}
