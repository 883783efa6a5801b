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

crate::names::named_enum!(ApprovalRule, "approval rule", {
    Ask => "ask",
    Always => "always",
    Never => "never",
});

impl ApprovalRule {
    /// What the rule `<select>` in Settings says.
    pub fn label(self) -> &'static str {
        match self {
            ApprovalRule::Ask => "Ask",
            ApprovalRule::Always => "Always allow",
            ApprovalRule::Never => "Never allow",
        }
    }

    /// The rule an approval card's "Always allow" (`allow`) or "Never allow" remembers.
    pub fn remembered(allow: bool) -> ApprovalRule {
        if allow {
            ApprovalRule::Always
        } else {
            ApprovalRule::Never
        }
    }
}

/// One remembered choice, as Settings lists it. `key` is the stored key, used as is to change
/// or forget the entry: a key written by an older build is still editable even if it would not
/// be rebuilt the same from its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    pub key: String,
    pub server_id: String,
    pub tool_name: String,
    pub rule: ApprovalRule,
}

impl ApprovalPolicy {
    /// Every remembered rule, ordered by server id then tool. A key without the separator is
    /// listed whole as the tool rather than dropped, so it can still be removed.
    pub fn list_rules(&self) -> Vec<RuleEntry> {
        self.rules
            .iter()
            .map(|(key, rule)| {
                let (server_id, tool_name) = key.split_once('\u{1f}').unwrap_or(("", key));
                RuleEntry {
                    key: key.clone(),
                    server_id: server_id.to_string(),
                    tool_name: tool_name.to_string(),
                    rule: *rule,
                }
            })
            .collect()
    }

    /// The rule stored under a key from [`ApprovalPolicy::list_rules`]; `Ask` once forgotten.
    pub fn rule_for_key(&self, key: &str) -> ApprovalRule {
        self.rules.get(key).copied().unwrap_or_default()
    }

    /// Change a listed rule. As with [`ApprovalPolicy::set_rule`], `Ask` is the default and is
    /// not stored, so choosing it forgets the entry.
    pub fn set_rule_for_key(&mut self, key: &str, rule: ApprovalRule) {
        if rule == ApprovalRule::Ask {
            self.rules.remove(key);
        } else {
            self.rules.insert(key.to_string(), rule);
        }
    }

    /// Forget the rule for one server's tool: the next call asks again.
    pub fn forget(&mut self, server_id: &str, tool_name: &str) {
        self.set_rule(server_id, tool_name, ApprovalRule::Ask);
    }

    /// Forget every rule of a removed server, so a server added later under the same id does
    /// not inherit "Always allow" choices made for another. Returns how many were forgotten.
    pub fn forget_server(&mut self, server_id: &str) -> usize {
        let before = self.rules.len();
        let prefix = format!("{server_id}\u{1f}");
        self.rules.retain(|key, _| !key.starts_with(&prefix));
        before - self.rules.len()
    }
}

#[cfg(test)]
mod editing_tests {
    use super::*;

    #[test]
    fn rules_are_listed_changed_and_forgotten_by_their_key() {
        let mut p = ApprovalPolicy::default();
        p.set_rule("b", "sum", ApprovalRule::Never);
        p.set_rule("a", "echo", ApprovalRule::Always);
        p.rules.insert("legacy-key".into(), ApprovalRule::Always);
        let listed = p.list_rules();
        let rows: Vec<_> = listed
            .iter()
            .map(|e| (e.server_id.as_str(), e.tool_name.as_str(), e.rule))
            .collect();
        assert_eq!(
            rows,
            [
                ("a", "echo", ApprovalRule::Always),
                ("b", "sum", ApprovalRule::Never),
                ("", "legacy-key", ApprovalRule::Always),
            ]
        );
        // Editing by key is the same as editing by parts.
        p.set_rule_for_key(&listed[0].key, ApprovalRule::Never);
        assert_eq!(p.decide("a", "echo", false), Decision::Deny);
        assert_eq!(p.rule_for_key(&listed[0].key), ApprovalRule::Never);
        p.set_rule_for_key("legacy-key", ApprovalRule::Ask);
        assert_eq!(p.list_rules().len(), 2);
        p.forget("b", "sum");
        assert_eq!(p.decide("b", "sum", false), Decision::Ask);
        assert_eq!(p.rule_for_key(&listed[1].key), ApprovalRule::Ask);
    }

    #[test]
    fn removing_a_server_forgets_only_its_rules() {
        let mut p = ApprovalPolicy::default();
        p.set_rule("ev", "echo", ApprovalRule::Always);
        p.set_rule("ev", "sum", ApprovalRule::Never);
        p.set_rule("ev-2", "echo", ApprovalRule::Always);
        assert_eq!(p.forget_server("ev"), 2);
        assert_eq!(p.decide("ev", "echo", false), Decision::Ask);
        assert_eq!(p.decide("ev-2", "echo", false), Decision::Allow);
    }

    #[test]
    fn the_approval_buttons_remember_always_or_never() {
        let mut p = ApprovalPolicy::default();
        p.set_rule("a", "t", ApprovalRule::remembered(true));
        assert_eq!(p.decide("a", "t", false), Decision::Allow);
        p.set_rule("a", "t", ApprovalRule::remembered(false));
        assert_eq!(p.decide("a", "t", false), Decision::Deny);
    }
}
