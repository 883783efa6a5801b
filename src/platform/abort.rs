//! A cloneable wrapper over the browser's `AbortController`, so the UI can cancel a request
//! (the "Stop" button) while the runner is still awaiting its body.
//!
//! It only forwards to the browser; it must never decide *when* to abort.

use web_sys::{AbortController, AbortSignal};

use super::fetch::FetchError;

/// Cancels one in-flight `fetch` and its body stream. Clones share the same controller,
/// so aborting any clone aborts them all.
#[derive(Clone, Debug)]
pub struct AbortHandle {
    controller: AbortController,
}

impl AbortHandle {
    pub fn new() -> Result<Self, FetchError> {
        AbortController::new()
            .map(|controller| Self { controller })
            .map_err(|e| {
                FetchError::Browser(format!(
                    "this browser cannot cancel requests ({})",
                    super::js_error_text(&e)
                ))
            })
    }

    /// Idempotent: aborting twice, or after the response finished, is harmless.
    pub fn abort(&self) {
        self.controller.abort();
    }

    pub fn signal(&self) -> AbortSignal {
        self.controller.signal()
    }

    pub fn is_aborted(&self) -> bool {
        self.controller.signal().aborted()
    }
}
