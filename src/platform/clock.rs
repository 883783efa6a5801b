//! Wall-clock time, sleeping and frame pacing for the wasm build.
//!
//! `skiff-core` takes time as a plain `now_ms: f64`; this is where that number comes from.
//! Nothing here may block the thread: every wait yields to the browser's event loop.

use futures::channel::oneshot;
use futures::future::{select, Either};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Milliseconds since the Unix epoch (`Date.now()`).
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

pub async fn sleep_ms(ms: u32) {
    gloo_timers::future::TimeoutFuture::new(ms).await;
}

/// The longest [`next_frame`] waits. Hidden tabs stop animation frames entirely; without a
/// cap a stream that paces its UI updates per frame would stall until the tab is shown.
pub const FRAME_FALLBACK_MS: u32 = 100;

/// Resolves at the next animation frame (so several stream deltas can be rendered in one
/// paint), or after [`FRAME_FALLBACK_MS`] if no frame comes (hidden tab, no window).
pub async fn next_frame() {
    let (tx, rx) = oneshot::channel::<()>();
    // `once_into_js` frees the closure after its single call, so nothing leaks per frame.
    let on_frame = Closure::once_into_js(move || {
        let _ = tx.send(());
    });
    let requested = web_sys::window()
        .map(|w| w.request_animation_frame(on_frame.unchecked_ref()).is_ok())
        .unwrap_or(false);
    if !requested {
        sleep_ms(FRAME_FALLBACK_MS).await;
        return;
    }
    let fallback = Box::pin(sleep_ms(FRAME_FALLBACK_MS));
    match select(rx, fallback).await {
        Either::Left(_) | Either::Right(_) => {}
    }
}

/// Resolves once the next frame has been painted (a task after the animation frame), or
/// after [`FRAME_FALLBACK_MS`] when no frame comes: for work the first screen does not need,
/// so that it never delays the page being drawn and the message box taking input.
pub async fn after_paint() {
    next_frame().await;
    // `next_frame` resolves inside the frame's callback, before its paint; a task queued
    // from there runs after it.
    sleep_ms(0).await;
}

/// Where the user is, for the system template's "current date and time": minutes east of UTC
/// now, the IANA zone name (empty when the browser gives none) and the browser's language.
pub struct UserPlace {
    pub offset_minutes: i32,
    pub zone: String,
    pub lang: String,
}

impl UserPlace {
    /// Where the user is, at `now_ms`, as the conversation pipeline takes it.
    pub fn at(&self, now_ms: f64) -> skiff_core::pipeline::request::UserClock<'_> {
        skiff_core::pipeline::request::UserClock {
            now_ms,
            offset_minutes: self.offset_minutes,
            zone: &self.zone,
            lang: &self.lang,
        }
    }
}

/// Minutes east of UTC now (`Date.getTimezoneOffset`, cheap: no `Intl`).
pub fn offset_minutes() -> i32 {
    // `getTimezoneOffset` is minutes *west* of UTC.
    -(js_sys::Date::new_0().get_timezone_offset().round() as i32)
}

thread_local! {
    /// The IANA zone name, read once: the first `Intl.DateTimeFormat` a page makes costs tens
    /// of milliseconds (the browser loads its locale data), and the zone does not change
    /// under a running page often enough to pay that per request.
    static ZONE: std::cell::OnceCell<String> = const { std::cell::OnceCell::new() };
}

pub fn user_place() -> UserPlace {
    let zone = ZONE.with(|z| {
        z.get_or_init(|| {
            let options =
                js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &js_sys::Object::new())
                    .resolved_options();
            js_sys::Reflect::get(&options, &"timeZone".into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default()
        })
        .clone()
    });
    let lang = web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_default();
    UserPlace {
        offset_minutes: offset_minutes(),
        zone,
        lang,
    }
}
