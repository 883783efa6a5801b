use super::template::*;

fn values<'a>(input: &'a str) -> TemplateValues<'a> {
    TemplateValues {
        input,
        model: "gpt-4o-mini",
        provider: "OpenAI-compatible",
        cutoff: "2023-10",
        time: "Tuesday, 24 November 2026, 01:52 (UTC+00:00, Europe/London)",
        lang: "en-GB",
    }
}

#[test]
fn fills_every_known_placeholder_and_keeps_unknown_braces() {
    let t = "{{ServiceProvider}} runs {{model}} ({{cutoff}}) at {{time}} in {{lang}}: {{input}} {{other}} {{";
    assert_eq!(
        fill(t, &values("hi")),
        "OpenAI-compatible runs gpt-4o-mini (2023-10) at Tuesday, 24 November 2026, 01:52 (UTC+00:00, Europe/London) in en-GB: hi {{other}} {{"
    );
}

#[test]
fn an_empty_model_is_named_as_the_servers_default() {
    let v = TemplateValues {
        model: " ",
        ..values("")
    };
    assert_eq!(fill("{{model}}", &v), "the server's default model");
}

#[test]
fn the_input_template_never_drops_the_users_words() {
    assert_eq!(
        fill_input("{{input}}", &values("a {{model}}")),
        "a {{model}}"
    );
    assert_eq!(fill_input("", &values("x")), "x");
    assert_eq!(
        fill_input("Answer in {{lang}}: {{input}}", &values("why?")),
        "Answer in en-GB: why?"
    );
    assert_eq!(fill_input("Be terse.", &values("why?")), "Be terse.\nwhy?");
}

#[test]
fn the_default_system_template_names_date_time_zone_and_math() {
    let s = fill(DEFAULT_SYSTEM_TEMPLATE, &values(""));
    assert!(s.contains("Tuesday, 24 November 2026, 01:52 (UTC+00:00, Europe/London)"));
    assert!(s.contains("gpt-4o-mini (OpenAI-compatible)"));
    assert!(s.contains("\\(x^2\\)") && s.contains("$$e = mc^2$$"));
    assert!(!s.contains("{{"));
}

#[test]
fn local_time_in_words() {
    // 2026-11-24T01:52:30Z
    let t = 1_795_485_150_000.0;
    assert_eq!(
        local_time_text(t, 0, "Etc/UTC"),
        "Tuesday, 24 November 2026, 01:52 (UTC+00:00, Etc/UTC)"
    );
    // West of UTC the date rolls back a day.
    assert_eq!(
        local_time_text(t, -330, ""),
        "Monday, 23 November 2026, 20:22 (UTC-05:30)"
    );
    assert_eq!(
        local_time_text(0.0, 60, "Europe/Berlin"),
        "Thursday, 1 January 1970, 01:00 (UTC+01:00, Europe/Berlin)"
    );
    // A leap day and a negative epoch.
    assert_eq!(
        local_time_text(951_782_400_000.0, 0, ""),
        "Tuesday, 29 February 2000, 00:00 (UTC+00:00)"
    );
    assert_eq!(
        local_time_text(-1_000.0, 0, ""),
        "Wednesday, 31 December 1969, 23:59 (UTC+00:00)"
    );
}

#[test]
fn cutoffs_come_from_the_table_only() {
    assert_eq!(knowledge_cutoff("gpt-4o-mini"), "2023-10");
    assert_eq!(knowledge_cutoff("openai/gpt-4o"), "2023-10");
    assert_eq!(knowledge_cutoff("gpt-4-0613"), "2021-09");
    assert_eq!(knowledge_cutoff("claude-sonnet-4-20250514"), "2025-03");
    assert_eq!(knowledge_cutoff("qwen2.5-7b"), "unknown");
    assert_eq!(knowledge_cutoff(""), "unknown");
}
