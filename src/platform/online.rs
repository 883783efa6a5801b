//! The page's network situation: the window's `online` event (the network came back, so a
//! waiting reconnect should happen now rather than after its backoff delay), `navigator.onLine`,
//! and whether the page itself is served over https (which decides mixed-content blocking).
//!
//! It only reports what the browser says; it must never decide to reconnect or retry.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::Window;

/// Keeps an `online` or `offline` listener registered; dropping it unregisters the listener.
pub struct OnlineListener {
    target: Option<Window>,
    event: &'static str,
    callback: Closure<dyn Fn(web_sys::Event)>,
}

impl Drop for OnlineListener {
    fn drop(&mut self) {
        if let Some(window) = &self.target {
            let _ = window.remove_event_listener_with_callback(
                self.event,
                self.callback.as_ref().unchecked_ref(),
            );
        }
    }
}

/// Calls `cb` each time the browser reports the network is back. Without a window the listener
/// is inert.
pub fn on_online(cb: impl Fn() + 'static) -> OnlineListener {
    listen("online", cb)
}

/// Calls `cb` each time the browser reports it lost the network.
pub fn on_offline(cb: impl Fn() + 'static) -> OnlineListener {
    listen("offline", cb)
}

fn listen(event: &'static str, cb: impl Fn() + 'static) -> OnlineListener {
    let callback = Closure::<dyn Fn(web_sys::Event)>::new(move |_: web_sys::Event| cb());
    let target = web_sys::window().filter(|w| {
        w.add_event_listener_with_callback(event, callback.as_ref().unchecked_ref())
            .is_ok()
    });
    OnlineListener {
        target,
        event,
        callback,
    }
}

/// `navigator.onLine`: false means surely offline; true only means "maybe online".
pub fn is_online() -> bool {
    web_sys::window()
        .map(|w| w.navigator().on_line())
        .unwrap_or(true)
}

/// Whether this page was loaded over https (so plain http:// servers are mixed content).
pub fn page_is_https() -> bool {
    web_sys::window()
        .and_then(|w| w.location().protocol().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https:"))
}
