use super::*;

fn form(name: &str, url: &str) -> ServerForm {
    ServerForm {
        name: name.into(),
        url: url.into(),
        ..ServerForm::default()
    }
}

fn new_server() -> ServerConfig {
    ServerConfig::new("", "", "")
}

fn read(f: &ServerForm) -> Result<ServerConfig, FormError> {
    f.to_config(&new_server(), &[])
}

fn err(f: &ServerForm) -> String {
    read(f).unwrap_err().to_string()
}

#[test]
fn a_plain_form_makes_a_server() {
    let mut f = form(" everything ", " http://127.0.0.1:3001/mcp ");
    f.headers = "Authorization: Bearer a:b\n\nX-Team: red".into();
    f.proxy = " http://127.0.0.1:8089/ ".into();
    f.max_attempts = "3".into();
    f.request_timeout_s = "2.5".into();
    f.ping_interval_s = "".into();
    let c = read(&f).unwrap();
    assert_eq!(c.name, "everything");
    assert_eq!(c.url, "http://127.0.0.1:3001/mcp");
    assert_eq!(c.headers.len(), 2);
    assert_eq!(c.proxy.as_deref(), Some("http://127.0.0.1:8089/"));
    assert_eq!(c.max_attempts, Some(3));
    assert_eq!(c.request_timeout_ms, 2500);
    assert_eq!(c.ping_interval_ms, None);
    // An empty name takes the URL; empty numbers take their defaults.
    let c = read(&form("", "wss://h.example/ws")).unwrap();
    assert_eq!(c.name, "wss://h.example/ws");
    assert_eq!(c.request_timeout_ms, 60_000);
    assert_eq!(c.max_attempts, None);
}

#[test]
fn editing_keeps_the_id_and_switch_and_round_trips() {
    let mut stored = ServerConfig::new("ev", "everything", "http://a/mcp");
    stored.enabled = false;
    stored.headers = vec![("X-A".into(), "1".into())];
    stored.max_attempts = Some(4);
    let f = ServerForm::from_config(&stored);
    assert_eq!(f.request_timeout_s, "60");
    assert_eq!(f.ping_interval_s, "30");
    // The server itself is in the list and is no duplicate of itself.
    let back = f.to_config(&stored, std::slice::from_ref(&stored)).unwrap();
    assert_eq!(back, stored);
}

#[test]
fn the_url_must_be_one_skiff_can_reach() {
    assert_eq!(
        err(&form("bad", "ftp://127.0.0.1/mcp")),
        "The URL must start with http://, https://, ws:// or wss://."
    );
    assert_eq!(read(&form("x", "  ")), Err(FormError::UrlMissing));
    assert_eq!(
        read(&form("x", "127.0.0.1:3001")),
        Err(FormError::UrlScheme)
    );
    assert_eq!(read(&form("x", "http:///mcp")), Err(FormError::UrlNoHost));
    assert_eq!(
        read(&form("x", "http://user@:80/")),
        Err(FormError::UrlNoHost)
    );
    assert_eq!(
        read(&form("x", "http://a b/mcp")),
        Err(FormError::UrlSpaces)
    );
    assert_eq!(
        read(&form("x", "http://h:99999/")),
        Err(FormError::UrlBadPort)
    );
    assert_eq!(
        read(&form("x", "http://h:80a/")),
        Err(FormError::UrlBadPort)
    );
    assert!(read(&form("x", "HTTP://[::1]:3001/mcp")).is_ok());
    assert!(read(&form("x", "https://u:p@h.example:8443/mcp?x=1")).is_ok());
}

#[test]
fn the_transport_must_fit_the_scheme() {
    let mut f = form("x", "http://h/mcp");
    f.transport = TransportChoice::WebSocket;
    assert_eq!(err(&f), "WebSocket needs a ws:// or wss:// URL.");
    let mut f = form("x", "ws://h/");
    f.transport = TransportChoice::Sse;
    assert_eq!(
        err(&f),
        "HTTP+SSE (deprecated) needs an http:// or https:// URL."
    );
    f.transport = TransportChoice::Auto;
    assert!(read(&f).is_ok());
    f.transport = TransportChoice::WebSocket;
    assert!(read(&f).is_ok());
    // Headers and a CORS proxy mean nothing to a WebSocket.
    f.headers = "Authorization: Bearer x".into();
    assert_eq!(read(&f), Err(FormError::HeadersOnWebSocket));
    f.headers.clear();
    f.proxy = "http://127.0.0.1:8089/".into();
    assert_eq!(read(&f), Err(FormError::ProxyOnWebSocket));
}

#[test]
fn header_lines_a_browser_would_drop_are_refused_by_line() {
    let header_err = |h: &str| {
        let mut f = form("x", "http://h/");
        f.headers = h.into();
        err(&f)
    };
    assert_eq!(
        header_err("Bearer abc"),
        "Headers: Line 1: expected \"Name: value\"."
    );
    assert_eq!(
        header_err("ok: 1\nbad name: 2"),
        "Headers: Line 2: \"bad name\" is not a valid header name."
    );
    assert!(header_err("X: 1\n\nCookie: a=b")
        .starts_with("Headers: Line 3: a browser does not let a page set \"Cookie\""));
    assert!(header_err("Sec-Fetch-Mode: cors").contains("Line 1"));
    assert!(header_err("Proxy-Authorization: x").contains("Line 1"));
    assert!(header_err("X-Emoji: 👍").contains("cannot carry"));
    assert!(header_err("X-Ctl: a\u{7}b").contains("cannot carry"));
    assert_eq!(
        read_header_lines("X-Latin: café\tx").unwrap(),
        [("X-Latin".to_string(), "café\tx".to_string())]
    );
}

#[test]
fn the_proxy_and_numbers_are_checked() {
    let with = |edit: fn(&mut ServerForm)| {
        let mut f = form("x", "http://h/mcp");
        edit(&mut f);
        read(&f)
    };
    assert_eq!(
        with(|f| f.proxy = "127.0.0.1:8089".into()),
        Err(FormError::ProxyScheme)
    );
    assert_eq!(
        with(|f| f.proxy = "ws://p/".into()),
        Err(FormError::ProxyScheme)
    );
    assert_eq!(
        with(|f| f.max_attempts = "0".into()),
        Err(FormError::MaxAttempts)
    );
    assert_eq!(
        with(|f| f.max_attempts = "-1".into()),
        Err(FormError::MaxAttempts)
    );
    assert_eq!(
        with(|f| f.max_attempts = "2.5".into()),
        Err(FormError::MaxAttempts)
    );
    assert_eq!(
        with(|f| f.request_timeout_s = "0".into()),
        Err(FormError::Timeout)
    );
    assert_eq!(
        with(|f| f.request_timeout_s = "NaN".into()),
        Err(FormError::Timeout)
    );
    assert_eq!(
        with(|f| f.request_timeout_s = "3601".into()),
        Err(FormError::Timeout)
    );
    assert_eq!(
        with(|f| f.ping_interval_s = "0.5".into()),
        Err(FormError::PingInterval)
    );
    assert_eq!(
        with(|f| f.ping_interval_s = "0".into())
            .unwrap()
            .ping_interval_ms,
        None
    );
    assert_eq!(
        with(|f| f.ping_interval_s = "15".into())
            .unwrap()
            .ping_interval_ms,
        Some(15_000)
    );
    assert!(FormError::MaxAttempts
        .to_string()
        .ends_with("or empty for no limit."));
}

#[test]
fn no_two_servers_share_a_name_or_a_url() {
    let existing = [
        ServerConfig::new("ev", "Everything", "http://127.0.0.1:3001/mcp"),
        ServerConfig::new("py", "python", "ws://127.0.0.1:3003/"),
    ];
    let new = new_server();
    assert_eq!(
        form("everything", "http://other/mcp").to_config(&new, &existing),
        Err(FormError::DuplicateName {
            name: "Everything".into()
        })
    );
    assert_eq!(
        form("again", "HTTP://127.0.0.1:3001/mcp/").to_config(&new, &existing),
        Err(FormError::DuplicateUrl {
            other: "Everything".into()
        })
    );
    assert_eq!(
        form("again", "ws://127.0.0.1:3003")
            .to_config(&new, &existing)
            .unwrap_err()
            .to_string(),
        "The server \"python\" already has this URL."
    );
    // A path differing in case is another endpoint.
    assert!(form("again", "http://127.0.0.1:3001/MCP")
        .to_config(&new, &existing)
        .is_ok());
    // Editing a server may keep its own name and URL, but not take another's.
    let ev = &existing[0];
    assert!(form("Everything", &ev.url).to_config(ev, &existing).is_ok());
    assert!(form("python", &ev.url).to_config(ev, &existing).is_err());
}

#[test]
fn a_name_cannot_hide_characters() {
    assert_eq!(
        read(&form("echo\u{202E}txt", "http://h/")),
        Err(FormError::NameHidden)
    );
    assert_eq!(
        read(&form("ec\u{200B}ho", "http://h/")),
        Err(FormError::NameHidden)
    );
    assert!(read(&form("Météo 天気", "http://h/")).is_ok());
}
