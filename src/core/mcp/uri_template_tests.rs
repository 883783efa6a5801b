//! Every example of RFC 6570 section 3.2 (levels 1 to 4), with the RFC's variables, plus the
//! shapes MCP servers send and malformed templates.

use super::*;

fn rfc(name: &str) -> Option<Value> {
    let t = |s: &str| Some(Value::Text(s.into()));
    let l = |v: &[&str]| Some(Value::List(v.iter().map(|s| s.to_string()).collect()));
    match name {
        "count" => l(&["one", "two", "three"]),
        "dom" => l(&["example", "com"]),
        "dub" => t("me/too"),
        "hello" => t("Hello World!"),
        "half" => t("50%"),
        "var" => t("value"),
        "who" => t("fred"),
        "base" => t("http://example.com/home/"),
        "path" => t("/foo/bar"),
        "list" => l(&["red", "green", "blue"]),
        "keys" => Some(Value::Pairs(vec![
            ("semi".into(), ";".into()),
            ("dot".into(), ".".into()),
            ("comma".into(), ",".into()),
        ])),
        "v" => t("6"),
        "x" => t("1024"),
        "y" => t("768"),
        "empty" => t(""),
        "empty_keys" => Some(Value::Pairs(Vec::new())),
        _ => None,
    }
}

const EXAMPLES: &[(&str, &str)] = &[
    // 3.2.1 variable expansion
    ("{count}", "one,two,three"),
    ("{count*}", "one,two,three"),
    ("{/count}", "/one,two,three"),
    ("{/count*}", "/one/two/three"),
    ("{;count}", ";count=one,two,three"),
    ("{;count*}", ";count=one;count=two;count=three"),
    ("{?count}", "?count=one,two,three"),
    ("{?count*}", "?count=one&count=two&count=three"),
    ("{&count*}", "&count=one&count=two&count=three"),
    // 3.2.2 simple string expansion
    ("{var}", "value"),
    ("{hello}", "Hello%20World%21"),
    ("{half}", "50%25"),
    ("O{empty}X", "OX"),
    ("O{undef}X", "OX"),
    ("{x,y}", "1024,768"),
    ("{x,hello,y}", "1024,Hello%20World%21,768"),
    ("?{x,empty}", "?1024,"),
    ("?{x,undef}", "?1024"),
    ("?{undef,y}", "?768"),
    ("{var:3}", "val"),
    ("{var:30}", "value"),
    ("{list}", "red,green,blue"),
    ("{list*}", "red,green,blue"),
    ("{keys}", "semi,%3B,dot,.,comma,%2C"),
    ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
    // 3.2.3 reserved expansion
    ("{+var}", "value"),
    ("{+hello}", "Hello%20World!"),
    ("{+half}", "50%25"),
    ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
    ("{+base}index", "http://example.com/home/index"),
    ("O{+empty}X", "OX"),
    ("O{+undef}X", "OX"),
    ("{+path}/here", "/foo/bar/here"),
    ("here?ref={+path}", "here?ref=/foo/bar"),
    ("up{+path}{var}/here", "up/foo/barvalue/here"),
    ("{+x,hello,y}", "1024,Hello%20World!,768"),
    ("{+path,x}/here", "/foo/bar,1024/here"),
    ("{+path:6}/here", "/foo/b/here"),
    ("{+list}", "red,green,blue"),
    ("{+list*}", "red,green,blue"),
    ("{+keys}", "semi,;,dot,.,comma,,"),
    ("{+keys*}", "semi=;,dot=.,comma=,"),
    // 3.2.4 fragment expansion
    ("{#var}", "#value"),
    ("{#hello}", "#Hello%20World!"),
    ("{#half}", "#50%25"),
    ("foo{#empty}", "foo#"),
    ("foo{#undef}", "foo"),
    ("{#x,hello,y}", "#1024,Hello%20World!,768"),
    ("{#path,x}/here", "#/foo/bar,1024/here"),
    ("{#path:6}/here", "#/foo/b/here"),
    ("{#list}", "#red,green,blue"),
    ("{#list*}", "#red,green,blue"),
    ("{#keys}", "#semi,;,dot,.,comma,,"),
    ("{#keys*}", "#semi=;,dot=.,comma=,"),
    // 3.2.5 label expansion with dot-prefix
    ("{.who}", ".fred"),
    ("{.who,who}", ".fred.fred"),
    ("{.half,who}", ".50%25.fred"),
    ("www{.dom*}", "www.example.com"),
    ("X{.var}", "X.value"),
    ("X{.empty}", "X."),
    ("X{.undef}", "X"),
    ("X{.var:3}", "X.val"),
    ("X{.list}", "X.red,green,blue"),
    ("X{.list*}", "X.red.green.blue"),
    ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
    ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
    ("X{.empty_keys}", "X"),
    ("X{.empty_keys*}", "X"),
    // 3.2.6 path segment expansion
    ("{/who}", "/fred"),
    ("{/who,who}", "/fred/fred"),
    ("{/half,who}", "/50%25/fred"),
    ("{/who,dub}", "/fred/me%2Ftoo"),
    ("{/var}", "/value"),
    ("{/var,empty}", "/value/"),
    ("{/var,undef}", "/value"),
    ("{/var,x}/here", "/value/1024/here"),
    ("{/var:1,var}", "/v/value"),
    ("{/list}", "/red,green,blue"),
    ("{/list*}", "/red/green/blue"),
    ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
    ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
    ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
    // 3.2.7 path-style parameter expansion
    ("{;who}", ";who=fred"),
    ("{;half}", ";half=50%25"),
    ("{;empty}", ";empty"),
    ("{;v,empty,who}", ";v=6;empty;who=fred"),
    ("{;v,bar,who}", ";v=6;who=fred"),
    ("{;x,y}", ";x=1024;y=768"),
    ("{;x,y,empty}", ";x=1024;y=768;empty"),
    ("{;x,y,undef}", ";x=1024;y=768"),
    ("{;hello:5}", ";hello=Hello"),
    ("{;list}", ";list=red,green,blue"),
    ("{;list*}", ";list=red;list=green;list=blue"),
    ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
    ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
    // 3.2.8 form-style query expansion
    ("{?who}", "?who=fred"),
    ("{?half}", "?half=50%25"),
    ("{?x,y}", "?x=1024&y=768"),
    ("{?x,y,empty}", "?x=1024&y=768&empty="),
    ("{?x,y,undef}", "?x=1024&y=768"),
    ("{?var:3}", "?var=val"),
    ("{?list}", "?list=red,green,blue"),
    ("{?list*}", "?list=red&list=green&list=blue"),
    ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
    ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
    // 3.2.9 form-style query continuation
    ("{&who}", "&who=fred"),
    ("{&half}", "&half=50%25"),
    ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
    ("{&x,y,empty}", "&x=1024&y=768&empty="),
    ("{&var:3}", "&var=val"),
    ("{&list}", "&list=red,green,blue"),
    ("{&list*}", "&list=red&list=green&list=blue"),
    ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
    ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
];

#[test]
fn every_example_of_rfc_6570_section_3_2() {
    let mut wrong = Vec::new();
    for (template, want) in EXAMPLES {
        let got = UriTemplate::parse(template)
            .map(|t| t.expand(rfc))
            .unwrap_or_else(|e| e.to_string());
        if got != *want {
            wrong.push(format!("{template}: got {got}, want {want}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_form_value_cannot_add_a_segment_or_a_query() {
    let t =
        UriTemplate::parse("weather://{city}/now{?units,lang}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.variables(), ["city", "units", "lang"]);
    let values = |city: &str, units: &str| {
        vec![
            ("city".to_string(), city.to_string()),
            ("units".to_string(), units.to_string()),
            ("lang".to_string(), String::new()),
        ]
    };
    assert_eq!(
        t.expand_strings(&values("Zürich", "metric")),
        "weather://Z%C3%BCrich/now?units=metric"
    );
    assert_eq!(
        t.expand_strings(&values("a/b?x=1#y", "")),
        "weather://a%2Fb%3Fx%3D1%23y/now"
    );
    // Reserved expansion is the template's choice: a path keeps its slashes.
    let files = UriTemplate::parse("file:///{+path}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        files.expand_strings(&[("path".into(), "home/me/a b.txt".into())]),
        "file:///home/me/a%20b.txt"
    );
    // server-everything's template.
    let everything =
        UriTemplate::parse("test://static/resource/{id}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        everything.expand_strings(&[("id".into(), "7".into())]),
        "test://static/resource/7"
    );
    // Repeated names are one field.
    let twice = UriTemplate::parse("{a}/{a}{?a}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(twice.variables(), ["a"]);
}

#[test]
fn malformed_templates_are_sentences() {
    for (template, error) in [
        ("x{a", TemplateError::Unclosed),
        ("x}a", TemplateError::StrayBrace),
        ("{=a}", TemplateError::BadOperator('=')),
        ("{}", TemplateError::BadName(String::new())),
        ("{a b}", TemplateError::BadName("a b".into())),
        ("{a..b}", TemplateError::BadName("a..b".into())),
        ("{a:0}", TemplateError::BadPrefix("0".into())),
        ("{a:10000}", TemplateError::BadPrefix("10000".into())),
        ("{a:x}", TemplateError::BadPrefix("x".into())),
    ] {
        assert_eq!(
            UriTemplate::parse(template),
            Err(error.clone()),
            "{template}"
        );
    }
    assert_eq!(
        TemplateError::BadOperator('!').to_string(),
        "The server's URI template is not valid: the operator ! is reserved by RFC 6570 and means nothing yet."
    );
    // Names may hold dots and %-triplets.
    let t = UriTemplate::parse("{a.b,%41c}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.variables(), ["a.b", "%41c"]);
    // A literal with characters a URI cannot hold is encoded; a %-triplet stays.
    let t = UriTemplate::parse("a b%20c{x}").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.expand(|_| None), "a%20b%20c");
}
