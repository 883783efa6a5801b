//! A `BroadcastChannel`: text messages to this origin's other tabs. IndexedDB writes raise no
//! `storage` event, so the conversations store announces its body writes here.
//!
//! Messages are opaque strings (core owns their format). A channel never hears its own
//! messages; without `BroadcastChannel` [`Channel::open`] answers `None` and nothing is sent.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, MessageEvent};

/// An open channel; dropping it closes it and removes the listener.
pub struct Channel {
    channel: BroadcastChannel,
    _on_message: Closure<dyn Fn(MessageEvent)>,
}

impl Channel {
    pub fn open(name: &str, on_message: impl Fn(String) + 'static) -> Option<Channel> {
        let channel = BroadcastChannel::new(name).ok()?;
        let callback = Closure::<dyn Fn(MessageEvent)>::new(move |e: MessageEvent| {
            if let Some(text) = e.data().as_string() {
                on_message(text);
            }
        });
        channel.set_onmessage(Some(callback.as_ref().unchecked_ref()));
        Some(Channel {
            channel,
            _on_message: callback,
        })
    }

    pub fn post(&self, text: &str) {
        if let Err(e) = self.channel.post_message(&text.into()) {
            leptos::logging::warn!("could not tell other tabs: {e:?}");
        }
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.channel.set_onmessage(None);
        self.channel.close();
    }
}
