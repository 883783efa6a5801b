//! What the user reads when a part of the page that loads on demand (a wasm chunk: Settings,
//! the MCP surfaces, the model panel...) could not be fetched.
//!
//! The loader only reports that the load failed (its details go to the console), so the
//! sentence names the likely causes the user can act on: no network on a first visit, or a
//! new version deployed since the page opened (the old chunk is gone, so only a reload helps).

use std::fmt;

/// A surface that failed to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkLoadFailure {
    /// What the user opened, as the page names it ("Settings").
    pub surface: &'static str,
    /// Whether the browser reports a network.
    pub online: bool,
}

impl fmt::Display for ChunkLoadFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let surface = self.surface;
        if self.online {
            write!(
                f,
                "{surface} could not be loaded: the browser could not fetch this part of Skiff. Retry; if it fails again, reload the page (a new version may have been published since this page opened). Nothing you entered is lost."
            )
        } else {
            write!(
                f,
                "{surface} could not be loaded because the browser is offline and this part of Skiff was not stored for offline use yet. Retry when the network is back. Nothing you entered is lost."
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_names_the_surface_and_what_helps() {
        let online = ChunkLoadFailure {
            surface: "Settings",
            online: true,
        }
        .to_string();
        assert!(online.starts_with("Settings could not be loaded"));
        assert!(online.contains("reload the page"));
        let offline = ChunkLoadFailure {
            surface: "Settings",
            online: false,
        }
        .to_string();
        assert!(offline.contains("offline"));
        assert!(offline.contains("Retry when the network is back"));
    }
}
