//! [`Named`]: an enum a `<select>` can list ([`super::EnumSelect`]). Core's enums carry their
//! names (`ALL`, `as_str`, `label`: `skiff_core::names`); this only points at them, so
//! a variant added in core shows up in its select with no change here.

use skiff_core::masks::PROMPT_ROLES;
use skiff_core::mcp::config::TransportChoice;
use skiff_core::provider::ProviderKind;
use skiff_core::records::message::Role;
use skiff_core::records::tool_mode::ToolModeSetting;
use skiff_core::settings::Theme;

/// An enum whose variants a select lists: every variant in order, each with the stable name
/// its `<option value>` carries and the words shown for it.
pub trait Named: Copy + PartialEq + Send + Sync + 'static {
    fn all() -> &'static [Self];
    /// The `<option>`'s value.
    fn name(self) -> &'static str;
    /// What the option says.
    fn label(self) -> &'static str;
}

/// `Named` from the enum's own `ALL`, `as_str` and `label`.
macro_rules! named {
    ($ty:ty) => {
        impl Named for $ty {
            fn all() -> &'static [Self] {
                <$ty>::ALL
            }
            fn name(self) -> &'static str {
                self.as_str()
            }
            fn label(self) -> &'static str {
                <$ty>::label(self)
            }
        }
    };
}

named!(Theme);
named!(TransportChoice);
named!(ProviderKind);
named!(ToolModeSetting);

/// A mask's context prompt says its role as the role's own name.
impl Named for Role {
    fn all() -> &'static [Self] {
        &PROMPT_ROLES
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
    fn label(self) -> &'static str {
        self.as_str()
    }
}
