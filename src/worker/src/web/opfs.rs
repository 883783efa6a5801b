//! The models directory in the origin private file system: list, read, write, move and
//! delete, plus a `Read + Seek` adapter over a sync access handle so candle reads tensors
//! straight from the file (the file is never held in memory as a whole).

use super::js::{error_text, field};
use js_sys::{Function, Promise, Reflect, Uint8Array};
use std::io::{self, Read, Seek, SeekFrom};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemGetDirectoryOptions,
    FileSystemGetFileOptions, FileSystemReadWriteOptions, FileSystemSyncAccessHandle,
};

pub(crate) async fn models_dir() -> Result<FileSystemDirectoryHandle, JsValue> {
    let root: FileSystemDirectoryHandle =
        JsFuture::from(super::js::scope().navigator().storage().get_directory())
            .await?
            .dyn_into()?;
    let opts = FileSystemGetDirectoryOptions::new();
    opts.set_create(true);
    JsFuture::from(root.get_directory_handle_with_options(crate::store::MODELS_DIR, &opts))
        .await?
        .dyn_into()
}

/// The names in the directory.
pub(crate) async fn list(dir: &FileSystemDirectoryHandle) -> Result<Vec<String>, JsValue> {
    let it = dir.keys();
    let mut names = Vec::new();
    loop {
        let step = JsFuture::from(it.next()?).await?;
        if field(&step, "done").as_bool().unwrap_or(true) {
            break;
        }
        if let Some(name) = field(&step, "value").as_string() {
            names.push(name);
        }
    }
    Ok(names)
}

pub(crate) async fn file(
    dir: &FileSystemDirectoryHandle,
    name: &str,
    create: bool,
) -> Result<FileSystemFileHandle, JsValue> {
    let opts = FileSystemGetFileOptions::new();
    opts.set_create(create);
    JsFuture::from(dir.get_file_handle_with_options(name, &opts))
        .await?
        .dyn_into()
}

///
/// A worker ended mid-load (the panel's Cancel) releases its handle some time after it is
/// gone, and until then the browser refuses another; so that refusal is retried for a few
/// seconds before it counts.
pub(crate) async fn sync_handle(
    handle: &FileSystemFileHandle,
) -> Result<FileSystemSyncAccessHandle, JsValue> {
    const TRIES: u32 = 40;
    let mut tries = 0;
    loop {
        match JsFuture::from(handle.create_sync_access_handle()).await {
            Ok(h) => return h.dyn_into(),
            Err(e)
                if tries < TRIES
                    && matches!(
                        super::js::error_name(&e).as_str(),
                        "NoModificationAllowedError" | "InvalidStateError"
                    ) =>
            {
                tries += 1;
                super::js::sleep_ms(100).await;
            }
            Err(e) => return Err(e),
        }
    }
}

/// A whole small file as text (sidecars).
pub(crate) async fn read_text(
    dir: &FileSystemDirectoryHandle,
    name: &str,
) -> Result<String, JsValue> {
    let handle = file(dir, name, false).await?;
    let f: web_sys::File = JsFuture::from(handle.get_file()).await?.dyn_into()?;
    let text = JsFuture::from(f.text()).await?;
    text.as_string()
        .ok_or_else(|| JsValue::from_str("not text"))
}

/// Replaces a small file's content (sidecars).
pub(crate) async fn write_text(
    dir: &FileSystemDirectoryHandle,
    name: &str,
    text: &str,
) -> Result<(), JsValue> {
    let handle = file(dir, name, true).await?;
    let sync = sync_handle(&handle).await?;
    let result = (|| {
        sync.truncate_with_u32(0)?;
        let opts = FileSystemReadWriteOptions::new();
        opts.set_at(0.0);
        sync.write_with_u8_array_and_options(text.as_bytes(), &opts)?;
        sync.flush()
    })();
    sync.close();
    result
}

/// Deletes an entry; a missing one is not an error (the goal is that it is gone).
pub(crate) async fn remove(dir: &FileSystemDirectoryHandle, name: &str) -> Result<(), JsValue> {
    match JsFuture::from(dir.remove_entry(name)).await {
        Ok(_) => Ok(()),
        Err(e) if super::js::error_name(&e) == "NotFoundError" => Ok(()),
        Err(e) => Err(e),
    }
}

/// Renames a file within its directory (`FileSystemHandle.move`, which web-sys does not
/// bind yet).
pub(crate) async fn rename(handle: &FileSystemFileHandle, new_name: &str) -> Result<(), JsValue> {
    let mv: Function = Reflect::get(handle, &"move".into())?
        .dyn_into()
        .map_err(|_| {
            JsValue::from_str("This browser cannot rename files in its private storage; update it.")
        })?;
    let p: Promise = mv.call1(handle, &JsValue::from_str(new_name))?.dyn_into()?;
    JsFuture::from(p).await.map(|_| ())
}

/// `Read + Seek` over a sync access handle.
pub(crate) struct SyncReader {
    handle: FileSystemSyncAccessHandle,
    pos: u64,
    size: u64,
}

impl SyncReader {
    pub(crate) fn new(handle: FileSystemSyncAccessHandle) -> Result<Self, JsValue> {
        let size = handle.get_size()? as u64;
        Ok(Self {
            handle,
            pos: 0,
            size,
        })
    }

    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    pub(crate) fn close(self) {
        self.handle.close();
    }
}

impl Read for SyncReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.pos >= self.size {
            return Ok(0);
        }
        let opts = FileSystemReadWriteOptions::new();
        opts.set_at(self.pos as f64);
        let n = self
            .handle
            .read_with_u8_array_and_options(buf, &opts)
            .map_err(|e| io::Error::other(error_text(&e)))? as usize;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SyncReader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let pos = match to {
            SeekFrom::Start(p) => p as i128,
            SeekFrom::End(d) => self.size as i128 + d as i128,
            SeekFrom::Current(d) => self.pos as i128 + d as i128,
        };
        if pos < 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start",
            ));
        }
        self.pos = pos as u64;
        Ok(self.pos)
    }
}

/// Appends a chunk (a JS Uint8Array, written without copying it into wasm memory).
pub(crate) fn write_at(
    sync: &FileSystemSyncAccessHandle,
    chunk: &Uint8Array,
    at: u64,
) -> Result<u64, JsValue> {
    let opts = FileSystemReadWriteOptions::new();
    opts.set_at(at as f64);
    let n = sync.write_with_js_u8_array_and_options(chunk, &opts)? as u64;
    Ok(n)
}
