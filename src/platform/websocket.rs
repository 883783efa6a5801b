//! A browser `WebSocket` as a sender plus a stream of events, for MCP's `ws://` transport.
//!
//! Why: MCP over WebSocket is one JSON-RPC message per text frame, on a socket opened with the
//! subprotocol `mcp`. The session logic lives in `skiff-core`; this module only opens the
//! socket, sends text frames, and reports open / message / error / close exactly as the
//! browser did. It must never parse frames, reconnect, or decide what a close code means.
//!
//! Browsers cannot set request headers on a WebSocket handshake, so custom headers (e.g.
//! `Authorization`) cannot travel this way; the caller has to say so to the user.

use std::fmt;

use futures::channel::mpsc;
use futures::StreamExt;
use js_sys::{Array, ArrayBuffer, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{BinaryType, CloseEvent, MessageEvent};

use super::js_error_text;

/// The close code for "normal closure" (RFC 6455 §7.4.1).
pub const NORMAL_CLOSURE: u16 = 1000;

/// What happened on the socket, in the order the browser reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WsEvent {
    /// The handshake finished; `protocol` is the subprotocol the server picked ("" if none).
    Open {
        protocol: String,
    },
    Text(String),
    /// A binary frame, passed on untouched (MCP uses text frames only).
    Binary(Vec<u8>),
    /// The browser's `error` event. It carries no detail by design; a `Closed` follows.
    Error,
    /// The socket is closed; nothing more will arrive. `code` 1006 means it dropped without a
    /// closing handshake (server killed, network gone, or the handshake was refused).
    Closed {
        code: u16,
        reason: String,
        was_clean: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WsError {
    /// The browser refused to open the socket (bad URL or scheme, blocked port, mixed content).
    Open(String),
    /// `send` on a socket that is not open, or another browser refusal.
    Send(String),
}

impl fmt::Display for WsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WsError::Open(detail) => write!(
                f,
                "The browser refused to open the WebSocket: {detail}. Check that the URL starts \
                 with ws:// or wss:// (wss:// is required when this page is on https://)."
            ),
            WsError::Send(detail) => write!(
                f,
                "Could not send on the WebSocket ({detail}); the connection is not open."
            ),
        }
    }
}

impl std::error::Error for WsError {}

type Handler<T> = Closure<dyn FnMut(T)>;

/// An open (or opening) WebSocket. Dropping it closes the socket with code 1000 and detaches
/// every handler, so no callback outlives it.
pub struct WebSocket {
    socket: web_sys::WebSocket,
    events: Option<mpsc::UnboundedReceiver<WsEvent>>,
    _on_open: Handler<web_sys::Event>,
    _on_message: Handler<MessageEvent>,
    _on_error: Handler<web_sys::Event>,
    _on_close: Handler<CloseEvent>,
}

impl fmt::Debug for WebSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebSocket")
            .field("url", &self.socket.url())
            .field("ready_state", &self.socket.ready_state())
            .finish()
    }
}

impl WebSocket {
    /// Start opening a socket to `url`, offering `protocols` (MCP: `["mcp"]`). Events arrive
    /// through [`WebSocket::next_event`] (or [`WebSocket::take_events`]), starting with `Open`
    /// or with `Error` + `Closed` when the handshake fails.
    pub fn connect(url: &str, protocols: &[&str]) -> Result<WebSocket, WsError> {
        let list = Array::new();
        for p in protocols {
            list.push(&JsValue::from_str(p));
        }
        let socket = web_sys::WebSocket::new_with_str_sequence(url, &list)
            .map_err(|e| WsError::Open(js_error_text(&e)))?;
        socket.set_binary_type(BinaryType::Arraybuffer);
        let (tx, rx) = mpsc::unbounded::<WsEvent>();

        let on_open = {
            let tx = tx.clone();
            let socket = socket.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                let _ = tx.unbounded_send(WsEvent::Open {
                    protocol: socket.protocol(),
                });
            })
        };
        let on_message = {
            let tx = tx.clone();
            Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
                let _ = tx.unbounded_send(message_event(&e.data()));
            })
        };
        let on_error = {
            let tx = tx.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
                let _ = tx.unbounded_send(WsEvent::Error);
            })
        };
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
            let _ = tx.unbounded_send(WsEvent::Closed {
                code: e.code(),
                reason: e.reason(),
                was_clean: e.was_clean(),
            });
            // Nothing can follow a close: ending the stream lets readers finish.
            tx.close_channel();
        });
        socket.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        socket.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        socket.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        socket.set_onclose(Some(on_close.as_ref().unchecked_ref()));

        Ok(WebSocket {
            socket,
            events: Some(rx),
            _on_open: on_open,
            _on_message: on_message,
            _on_error: on_error,
            _on_close: on_close,
        })
    }

    /// The next event; `None` after `Closed` (or once the events were taken). Cancel-safe.
    pub async fn next_event(&mut self) -> Option<WsEvent> {
        self.events.as_mut()?.next().await
    }

    /// Hand the event stream to another task (the socket stays here for sending).
    pub fn take_events(&mut self) -> Option<mpsc::UnboundedReceiver<WsEvent>> {
        self.events.take()
    }

    /// Send one text frame.
    pub fn send_text(&self, text: &str) -> Result<(), WsError> {
        if self.socket.ready_state() != web_sys::WebSocket::OPEN {
            return Err(WsError::Send(format!(
                "the socket is {}",
                state_name(self.socket.ready_state())
            )));
        }
        self.socket
            .send_with_str(text)
            .map_err(|e| WsError::Send(js_error_text(&e)))
    }

    /// Start the closing handshake. Idempotent; a `Closed` event follows.
    pub fn close(&self, code: u16, reason: &str) {
        let state = self.socket.ready_state();
        if state == web_sys::WebSocket::CLOSING || state == web_sys::WebSocket::CLOSED {
            return;
        }
        if self
            .socket
            .close_with_code_and_reason(code, reason)
            .is_err()
        {
            // Only an invalid code or an over-long reason is refused; close plainly then.
            let _ = self.socket.close();
        }
    }

    pub fn is_open(&self) -> bool {
        self.socket.ready_state() == web_sys::WebSocket::OPEN
    }

    /// The subprotocol the server accepted ("" before `Open`, or if it accepted none).
    pub fn protocol(&self) -> String {
        self.socket.protocol()
    }

    pub fn url(&self) -> String {
        self.socket.url()
    }
}

impl Drop for WebSocket {
    fn drop(&mut self) {
        self.close(NORMAL_CLOSURE, "");
        self.socket.set_onopen(None);
        self.socket.set_onmessage(None);
        self.socket.set_onerror(None);
        self.socket.set_onclose(None);
    }
}

fn message_event(data: &JsValue) -> WsEvent {
    if let Some(text) = data.as_string() {
        return WsEvent::Text(text);
    }
    if let Some(buf) = data.dyn_ref::<ArrayBuffer>() {
        return WsEvent::Binary(Uint8Array::new(buf).to_vec());
    }
    // binaryType is set to arraybuffer, so a Blob cannot arrive; report it as empty binary.
    WsEvent::Binary(Vec::new())
}

fn state_name(state: u16) -> &'static str {
    match state {
        web_sys::WebSocket::CONNECTING => "still connecting",
        web_sys::WebSocket::OPEN => "open",
        web_sys::WebSocket::CLOSING => "closing",
        _ => "closed",
    }
}
