//! Attachments between the page and the blob store: a picked, pasted or dropped file becomes
//! an `Attachment` record whose bytes are stored once under their SHA-256; a request's history
//! gets its bytes back; a chip gets its bytes. An image the model returned is stored the same
//! way and added to the answer's attachments ([`keep_returned`]).
//!
//! What is accepted, at what size, and how an image is scaled are `skiff_core::attach`'s
//! decisions; this only performs them. A blob that is gone is `None`, never an error that
//! stops a conversation.

use leptos::prelude::*;
use skiff_core::attach;
use skiff_core::records::attachment::{Attachment, Kind, PDF, TEXT};
use skiff_core::records::message::Message;
use skiff_core::seam::image_out::{self, ImageOut};
use skiff_core::seam::piece;

use crate::platform::files;
use crate::platform::idb::IdbError;
use crate::stores::conversations::{ConversationsStore, Loaded};
use crate::stores::live_message::LiveMessage;

/// Hash `bytes` and store them once under that hash; the hash comes back, or a sentence
/// naming `name` (`attach::not_stored`).
pub(crate) async fn put(
    store: ConversationsStore,
    name: &str,
    mime: &str,
    bytes: &[u8],
) -> Result<String, String> {
    let failed = |quota, detail: &str| attach::not_stored(name, quota, detail);
    let hash = files::sha256_hex(bytes, name)
        .await
        .map_err(|e| failed(false, &e))?;
    let Some(db) = store.idb().await else {
        return Err(failed(
            false,
            "files need the browser's database (IndexedDB), which is not available here.",
        ));
    };
    db.put_blob(&hash, mime, bytes).await.map_err(|e| match e {
        IdbError::QuotaExceeded => failed(true, ""),
        e => failed(false, &e.to_string()),
    })?;
    Ok(hash)
}

/// Check, read, scale (images), hash and store one file. The record comes back with its bytes
/// in `data` for the pending chip's thumbnail; every refusal is a sentence naming the file.
pub async fn prepare(store: ConversationsStore, file: web_sys::File) -> Result<Attachment, String> {
    let name = file.name();
    let mut mime = file.type_();
    let kind = attach::classify(&name, &mime, file.size() as u64).map_err(|e| e.to_string())?;
    let mut dims = [0u32; 4];
    let bytes = match kind {
        Kind::Image => {
            let image = files::bitmap(&file, &name).await?;
            let (w, h) = (image.width(), image.height());
            dims = [w, h, w, h];
            let scaled = match attach::scale_plan(&mime, w, h) {
                Some((sw, sh, out)) => {
                    dims[..2].copy_from_slice(&[sw, sh]);
                    mime = out.into();
                    Some(files::encode(&image, sw, sh, out, &name).await)
                }
                None => None,
            };
            image.close();
            match scaled {
                Some(b) => b?,
                None => files::bytes(&file, &name).await?,
            }
        }
        Kind::Pdf => {
            mime = PDF.into();
            files::bytes(&file, &name).await?
        }
        Kind::Text => {
            let b = files::bytes(&file, &name).await?;
            attach::check_text(&name, &b).map_err(|e| e.to_string())?;
            mime = TEXT.into();
            b
        }
    };
    let hash = put(store, &name, &mime, &bytes).await?;
    let [w, h, ow, oh] = dims;
    Ok(Attachment {
        name,
        mime,
        size: bytes.len() as u64,
        hash,
        w,
        h,
        ow,
        oh,
        data: Some(bytes.into()),
    })
}

/// The stored bytes of `hash`, or `None` when they are gone (cleared storage) or unreadable.
pub async fn load(store: ConversationsStore, hash: &str) -> Option<Vec<u8>> {
    store
        .idb()
        .await?
        .get_blob(hash)
        .await
        .ok()?
        .map(|b| b.bytes)
}

/// Store an image the model returned and add it to `live`'s attachments, so it is shown and
/// saved with the conversation. When it cannot be stored, the sentence saying so comes back,
/// for the caller to put in the answer after the text before it.
pub async fn keep_returned(
    store: ConversationsStore,
    conv: Loaded,
    live: LiveMessage,
    image: ImageOut,
) -> Result<(), String> {
    let ImageOut { mime, bytes } = image;
    let name = live.attachments.with_value(|a| image_out::name(a, mime));
    let hash = put(store, &name, mime, &bytes).await?;
    live.add_attachment(Attachment {
        name,
        mime: mime.into(),
        size: bytes.len() as u64,
        hash,
        // Its size is left out: only a chip's label shows it, and decoding the image for it
        // costs the page more than it gives.
        w: 0,
        h: 0,
        ow: 0,
        oh: 0,
        data: None,
    });
    store.save_throttled(&conv);
    Ok(())
}

/// Give every attachment in `history` that travels (`seam::piece::travels`) its bytes for one
/// request; missing ones stay empty (core then sends the words without them).
pub async fn fill(store: ConversationsStore, history: &mut [Message]) {
    for m in history.iter_mut().filter(|m| piece::travels(m)) {
        for a in &mut m.attachments {
            if a.data.is_none() {
                a.data = load(store, &a.hash).await.map(Into::into);
            }
        }
    }
}
