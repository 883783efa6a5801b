//! Unique ids for conversations and messages.
//!
//! Ids only need to be unique within one browser profile; they carry no meaning and must
//! never be parsed. Generation must never panic: `crypto.randomUUID` is missing on plain
//! http:// pages (non-secure contexts) and in older browsers, so there are fallbacks.

use std::cell::Cell;

use js_sys::{Function, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

thread_local! {
    static COUNTER: Cell<u32> = const { Cell::new(0) };
}

/// A random UUID v4 string (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`).
pub fn new_id() -> String {
    random_uuid().unwrap_or_else(|| format_uuid_v4(fallback_bytes()))
}

fn crypto() -> Option<JsValue> {
    Reflect::get(&js_sys::global(), &JsValue::from_str("crypto"))
        .ok()
        .filter(|c| c.is_object())
}

fn random_uuid() -> Option<String> {
    let crypto = crypto()?;
    let f: Function = Reflect::get(&crypto, &JsValue::from_str("randomUUID"))
        .ok()?
        .dyn_into()
        .ok()?;
    f.call0(&crypto).ok()?.as_string()
}

/// `getRandomValues` works in insecure contexts too; `Math.random` mixed with time and a
/// counter is the last resort, unique enough for local ids.
fn fallback_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    let filled = crypto()
        .and_then(|crypto| {
            let f: Function = Reflect::get(&crypto, &JsValue::from_str("getRandomValues"))
                .ok()?
                .dyn_into()
                .ok()?;
            let array = Uint8Array::new_with_length(16);
            f.call1(&crypto, &array).ok()?;
            array.copy_to(&mut bytes);
            Some(())
        })
        .is_some();
    if !filled {
        let now = js_sys::Date::now() as u64;
        let count = COUNTER.with(|c| {
            let n = c.get().wrapping_add(1);
            c.set(n);
            n
        });
        bytes[..6].copy_from_slice(&now.to_be_bytes()[2..]);
        bytes[6..10].copy_from_slice(&count.to_be_bytes());
        for b in &mut bytes[10..] {
            *b = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    bytes
}

fn format_uuid_v4(mut b: [u8; 16]) -> String {
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}
