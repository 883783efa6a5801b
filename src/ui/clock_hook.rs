//! One ticking clock for the whole page, in the shape of leptos-use's `use_timestamp` and
//! `use_interval_fn` (without the dependency: the page budget is tight).
//!
//! Every "N s ago", "reconnecting in N s" and "Running… 1.2 s" reads the same `now` signal.
//! The browser interval behind it starts with the first subscriber, runs at the shortest period
//! any live subscriber asked for, and is cleared when the last one goes away (its owner is
//! cleaned up), so an idle page has no timer at all.
//!
//! The signal is created under the clock's own owner, never a caller's: a component that
//! unmounts must not dispose a value other components still read.

use std::cell::RefCell;
use std::time::Duration;

use crate::stores::reactive::effect;
use leptos::prelude::*;

use crate::platform::clock;

struct Clock {
    /// Owns `now`; kept so the signal lives as long as the page.
    _owner: Owner,
    now: RwSignal<f64>,
    /// Live subscriptions: (id, requested period in ms).
    subscribers: Vec<(u64, u64)>,
    next_id: u64,
    /// The running interval and its period.
    running: Option<(u64, IntervalHandle)>,
}

thread_local! {
    static CLOCK: RefCell<Option<Clock>> = const { RefCell::new(None) };
}

fn with_clock<R>(f: impl FnOnce(&mut Clock) -> R) -> R {
    CLOCK.with(|cell| {
        let mut slot = cell.borrow_mut();
        let clock = slot.get_or_insert_with(|| {
            // `new_root` makes itself the current owner; the caller's owner is put back so
            // what the caller creates next is still its own.
            let caller = Owner::current();
            let owner = Owner::new_root(None);
            let now = owner.with(|| RwSignal::new(clock::now_ms()));
            match caller {
                Some(c) => c.set(),
                None => owner.clone().unset(),
            }
            Clock {
                _owner: owner,
                now,
                subscribers: Vec::new(),
                next_id: 0,
                running: None,
            }
        });
        f(clock)
    })
}

/// Starts, restarts or stops the interval so it matches the shortest requested period.
fn reschedule(c: &mut Clock) {
    let wanted = c.subscribers.iter().map(|(_, p)| *p).min();
    if c.running.as_ref().map(|(p, _)| *p) == wanted {
        return;
    }
    if let Some((_, handle)) = c.running.take() {
        handle.clear();
    }
    if let Some(period) = wanted {
        let now = c.now;
        // The tick only sets the signal; it never borrows the clock, so whatever the update
        // runs may subscribe or unsubscribe.
        if let Ok(handle) = set_interval_with_handle(
            move || now.set(clock::now_ms()),
            Duration::from_millis(period),
        ) {
            c.running = Some((period, handle));
        }
    }
}

/// Subscribes the current owner to ticks every `period` until it is cleaned up.
fn subscribe(period: Duration) -> RwSignal<f64> {
    let period = (period.as_millis() as u64).max(16);
    let (id, now) = with_clock(|c| {
        let id = c.next_id;
        c.next_id += 1;
        c.subscribers.push((id, period));
        reschedule(c);
        (id, c.now)
    });
    // A subscriber that arrives between ticks starts from the present, not the last tick.
    now.set(clock::now_ms());
    on_cleanup(move || {
        with_clock(|c| {
            c.subscribers.retain(|(i, _)| *i != id);
            reschedule(c);
        })
    });
    now
}

/// The page's `now` (ms since the epoch), ticking at least every `period` while the calling
/// component lives.
pub fn use_timestamp(period: Duration) -> Signal<f64> {
    subscribe(period).read_only().into()
}

/// Like [`use_timestamp`], ticking only while `active` is true (a running tool call), so a
/// finished card costs no timer.
pub fn use_timestamp_while(
    active: impl Fn() -> bool + Send + Sync + 'static,
    period: Duration,
) -> Signal<f64> {
    let now = with_clock(|c| c.now);
    effect(move || {
        if active() {
            subscribe(period);
        }
    });
    now.read_only().into()
}
