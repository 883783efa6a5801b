//! Enums that carry their own names: the strings a `<select>` value, a CSS class or a
//! `data-*` attribute uses come from the enum (`ALL`, `as_str`, `FromStr`), never from a match
//! written in a component, so adding a variant cannot leave a select or a class behind.
//!
//! A leaf: records, wire formats and settings all name their enums through it, so it imports
//! nothing of Skiff.

use std::fmt;

/// A name that is none of an enum's names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What was being named, e.g. "theme".
    pub kind: &'static str,
    pub value: String,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\" is not a {} Skiff knows.", self.value, self.kind)
    }
}

impl std::error::Error for UnknownName {}

/// `named_enum!(Type, "kind", { Variant => "name", ... })` gives `Type::ALL`, `as_str()` and
/// `FromStr`, which round-trip by construction.
macro_rules! named_enum {
    ($ty:ident, $kind:literal, { $($var:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant, in the order a `<select>` lists them.
            pub const ALL: &'static [$ty] = &[$($ty::$var),+];

            /// The stable name for `<select>` values, CSS classes and `data-*` attributes.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($ty::$var => $name),+
                }
            }
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::names::UnknownName;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok($ty::$var),)+
                    other => Err($crate::names::UnknownName {
                        kind: $kind,
                        value: other.to_string(),
                    }),
                }
            }
        }
    };
}
pub(crate) use named_enum;

#[cfg(test)]
mod tests {
    use crate::mcp::config::TransportChoice;
    use crate::records::approval::ApprovalRule;
    use crate::records::tool_mode::{ToolMode, ToolModeSetting};
    use crate::settings::Theme;

    /// Every name parses back to its variant, names are distinct, and junk is refused.
    fn round_trips<T>(all: &[T], as_str: fn(T) -> &'static str)
    where
        T: Copy + PartialEq + std::fmt::Debug + std::str::FromStr,
        T::Err: std::fmt::Debug,
    {
        let mut seen = Vec::new();
        for &v in all {
            let name = as_str(v);
            assert_eq!(name.parse::<T>().unwrap(), v, "{name}");
            assert!(!seen.contains(&name), "{name} twice");
            seen.push(name);
        }
        assert!("no-such-name".parse::<T>().is_err());
        assert!("".parse::<T>().is_err());
    }

    #[test]
    fn every_named_enum_round_trips() {
        round_trips(Theme::ALL, Theme::as_str);
        round_trips(ToolModeSetting::ALL, ToolModeSetting::as_str);
        round_trips(ToolMode::ALL, ToolMode::as_str);
        round_trips(ApprovalRule::ALL, ApprovalRule::as_str);
        round_trips(TransportChoice::ALL, TransportChoice::as_str);
        round_trips(
            crate::provider::ProviderKind::ALL,
            crate::provider::ProviderKind::as_str,
        );
        assert_eq!(Theme::ALL.len(), 3);
        assert_eq!(ApprovalRule::ALL.len(), 3);
        assert_eq!(TransportChoice::ALL.len(), 4);
    }

    #[test]
    fn unknown_names_say_what_they_are() {
        let e = "purple".parse::<Theme>().unwrap_err();
        assert_eq!(e.to_string(), "\"purple\" is not a theme Skiff knows.");
    }

    /// Where a name is also stored, it is the stored (serde) name, so the two cannot drift.
    #[test]
    fn names_match_the_stored_names() {
        for &t in Theme::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
        }
        for &m in ToolModeSetting::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
        for &r in ApprovalRule::ALL {
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
    }
}
