//! The header's word about enabled servers that are not serving tools: which are down, and
//! which only wait for the user to sign in. A server that needs a sign-in is not down (it
//! answered, and said who it wants), and calling it so sent users to look for a broken server.
//!
//! Pure: names in, one sentence out (or none).

/// What the header's badge says: `down` servers first, then those `signing_in` (waiting for
/// the user's sign-in). `None` when both are empty.
pub fn down_badge(down: &[String], signing_in: &[String]) -> Option<String> {
    let list = |names: &[String]| names.join(", ");
    let down_part = match down.len() {
        0 => None,
        1 => Some(format!("MCP server down: {}", down[0])),
        n => Some(format!("{n} MCP servers down: {}", list(down))),
    };
    let sign_part = match signing_in.len() {
        0 => None,
        _ => Some(format!("Sign in to use {}", list(signing_in))),
    };
    match (down_part, sign_part) {
        (Some(d), Some(s)) => Some(format!("{d} · {s}")),
        (d, s) => d.or(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_server_waiting_for_a_sign_in_is_not_called_down() {
        assert_eq!(down_badge(&[], &[]), None);
        assert_eq!(
            down_badge(&names(&["Linear"]), &[]).as_deref(),
            Some("MCP server down: Linear")
        );
        assert_eq!(
            down_badge(&names(&["A", "B"]), &[]).as_deref(),
            Some("2 MCP servers down: A, B")
        );
        assert_eq!(
            down_badge(&[], &names(&["Linear"])).as_deref(),
            Some("Sign in to use Linear")
        );
        assert_eq!(
            down_badge(&names(&["A"]), &names(&["Linear", "Notion"])).as_deref(),
            Some("MCP server down: A · Sign in to use Linear, Notion")
        );
    }
}
