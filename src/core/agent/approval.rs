//! Human approval of tool calls (the MCP guidance: a human in the loop). Each server+tool has a
//! rule, "ask" unless the user chose otherwise; tools annotated `readOnlyHint: true` may be
//! allowed without asking through one global switch. A "never" rule always wins.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalRule {
    #[default]
    Ask,
    Always,
    Never,
}

/// What to do with one call right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Ask,
    Allow,
    Deny,
}

/// The remembered rules, keyed by server id and the tool's own name (not the exposed name,
/// which a new conflict could change).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ApprovalPolicy {
    pub rules: BTreeMap<String, ApprovalRule>,
    /// Allow tools the server annotates `readOnlyHint: true` without asking.
    pub allow_read_only: bool,
}

impl ApprovalPolicy {
    fn key(server_id: &str, tool_name: &str) -> String {
        format!("{server_id}\u{1f}{tool_name}")
    }

    pub fn rule(&self, server_id: &str, tool_name: &str) -> ApprovalRule {
        self.rules
            .get(&Self::key(server_id, tool_name))
            .copied()
            .unwrap_or_default()
    }

    /// `Ask` is the default, so it is not stored: the map holds only real choices.
    pub fn set_rule(&mut self, server_id: &str, tool_name: &str, rule: ApprovalRule) {
        let key = Self::key(server_id, tool_name);
        if rule == ApprovalRule::Ask {
            self.rules.remove(&key);
        } else {
            self.rules.insert(key, rule);
        }
    }

    pub fn decide(&self, server_id: &str, tool_name: &str, read_only: bool) -> Decision {
        match self.rule(server_id, tool_name) {
            ApprovalRule::Never => Decision::Deny,
            ApprovalRule::Always => Decision::Allow,
            ApprovalRule::Ask if read_only && self.allow_read_only => Decision::Allow,
            ApprovalRule::Ask => Decision::Ask,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_asks_and_rules_are_per_server_and_tool() {
        let mut p = ApprovalPolicy::default();
        assert_eq!(p.decide("a", "echo", false), Decision::Ask);
        p.set_rule("a", "echo", ApprovalRule::Always);
        assert_eq!(p.decide("a", "echo", false), Decision::Allow);
        assert_eq!(p.decide("b", "echo", false), Decision::Ask);
        p.set_rule("b", "echo", ApprovalRule::Never);
        assert_eq!(p.decide("b", "echo", true), Decision::Deny);
        p.set_rule("a", "echo", ApprovalRule::Ask);
        assert!(p.rules.len() == 1);
    }

    #[test]
    fn read_only_tools_are_allowed_only_through_the_global_switch() {
        let mut p = ApprovalPolicy::default();
        assert_eq!(p.decide("a", "get", true), Decision::Ask);
        p.allow_read_only = true;
        assert_eq!(p.decide("a", "get", true), Decision::Allow);
        assert_eq!(p.decide("a", "set", false), Decision::Ask);
        p.set_rule("a", "get", ApprovalRule::Never);
        assert_eq!(p.decide("a", "get", true), Decision::Deny);
    }
}
