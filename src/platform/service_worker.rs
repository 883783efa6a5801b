//! The page's side of the offline service worker (`sw.js`, which `scripts/pwa-precache.mjs`
//! writes from `pwa/sw.template.js` at build time): register it, say when a new deployment's
//! worker is installed and waiting, and hand over to it when the user asks.
//!
//! It never activates a new worker by itself: a running answer must not have its code swapped
//! under it. Browsers without service workers (plain http off localhost, some private modes)
//! simply get no offline copy; nothing here fails loudly for that.

use std::cell::Cell;
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::{spawn_local, JsFuture};
use web_sys::{
    ServiceWorker, ServiceWorkerContainer, ServiceWorkerRegistration, ServiceWorkerState,
};

/// How often an open page asks the server whether a new deployment exists (browsers also check
/// on every navigation).
const UPDATE_CHECK_MS: u32 = 30 * 60 * 1000;

/// The registered worker, once registration finished.
#[derive(Clone)]
pub struct Registration {
    reg: ServiceWorkerRegistration,
    /// Set when the user asked for the new version: the next `controllerchange` reloads.
    reload_requested: Rc<Cell<bool>>,
}

fn container() -> Option<ServiceWorkerContainer> {
    let navigator = web_sys::window()?.navigator();
    // Absent (undefined) outside secure contexts: calling into it would throw.
    let present =
        js_sys::Reflect::has(&navigator, &JsValue::from_str("serviceWorker")).unwrap_or(false);
    present.then(|| navigator.service_worker())
}

/// Register `sw.js` (relative, so the scope is wherever the page was deployed) and call
/// `on_waiting` when a new version is installed and waiting while this page runs an older one,
/// and `on_registered` once with the registration. Errors are logged: offline support is an
/// addition, never a reason for the page not to work.
pub fn register(on_registered: impl Fn(Registration) + 'static, on_waiting: impl Fn() + 'static) {
    let Some(container) = container() else {
        return;
    };
    let on_waiting: Rc<dyn Fn()> = Rc::new(on_waiting);
    let promise = container.register("sw.js");
    spawn_local(async move {
        let reg = match JsFuture::from(promise).await {
            Ok(v) => match v.dyn_into::<ServiceWorkerRegistration>() {
                Ok(reg) => reg,
                Err(_) => return,
            },
            Err(e) => {
                leptos::logging::warn!(
                    "Skiff works without an offline copy: the service worker did not register ({})",
                    super::js_error_text(&e)
                );
                return;
            }
        };
        let reload_requested = Rc::new(Cell::new(false));
        watch(&container, &reg, on_waiting, reload_requested.clone());
        on_registered(Registration {
            reg,
            reload_requested,
        });
    });
}

/// The listeners live as long as the page (they are leaked on purpose: the page never
/// unregisters its worker, and each is registered once).
fn watch(
    container: &ServiceWorkerContainer,
    reg: &ServiceWorkerRegistration,
    on_waiting: Rc<dyn Fn()>,
    reload_requested: Rc<Cell<bool>>,
) {
    // A page with no controller is the first visit: its worker is the first install, not an
    // update, and takes over without a reload.
    let has_controller = {
        let container = container.clone();
        move || container.controller().is_some()
    };
    if reg.waiting().is_some() && has_controller() {
        on_waiting();
    }
    let reg_for_found = reg.clone();
    let found = Closure::<dyn Fn()>::new(move || {
        let Some(worker) = reg_for_found.installing() else {
            return;
        };
        let on_waiting = on_waiting.clone();
        let has_controller = has_controller.clone();
        let watched: ServiceWorker = worker.clone();
        let state = Closure::<dyn Fn()>::new(move || {
            if watched.state() == ServiceWorkerState::Installed && has_controller() {
                on_waiting();
            }
        });
        worker.set_onstatechange(Some(state.as_ref().unchecked_ref()));
        state.forget();
    });
    reg.set_onupdatefound(Some(found.as_ref().unchecked_ref()));
    found.forget();

    let changed = Closure::<dyn Fn()>::new(move || {
        if reload_requested.get() {
            if let Some(w) = web_sys::window() {
                let _ = w.location().reload();
            }
        }
    });
    container.set_oncontrollerchange(Some(changed.as_ref().unchecked_ref()));
    changed.forget();

    let reg = reg.clone();
    gloo_timers::callback::Interval::new(UPDATE_CHECK_MS, move || update_quietly(&reg)).forget();
}

/// Ask for an update, and swallow a refusal: Chromium rejects `update()` while the
/// registration is busy (still installing), and an unhandled rejection is an uncaught error
/// in the console. Nothing is lost: the next check (on the timer, or when the network comes
/// back) asks again.
fn update_quietly(reg: &ServiceWorkerRegistration) {
    if let Ok(promise) = reg.update() {
        spawn_local(async move {
            let _ = JsFuture::from(promise).await;
        });
    }
}

impl Registration {
    /// Ask the server now whether a new deployment exists (after the network came back).
    pub fn check_for_update(&self) {
        update_quietly(&self.reg);
    }

    /// Switch to the waiting version: it takes over, and the page reloads when it has. With
    /// nothing waiting (it was replaced meanwhile), a plain reload gets the newest.
    pub fn activate_waiting(&self) {
        match self.reg.waiting() {
            Some(worker) => {
                self.reload_requested.set(true);
                if worker
                    .post_message(&JsValue::from_str("skiff:activate"))
                    .is_err()
                {
                    reload();
                }
            }
            None => reload(),
        }
    }
}

/// Load the page again (its newest version, when a new worker controls it).
pub fn reload() {
    if let Some(w) = web_sys::window() {
        let _ = w.location().reload();
    }
}
