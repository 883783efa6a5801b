// Resources, templates, subscriptions and the `@` picker (issue 13 items 1–4).
//
// This file performs; it decides nothing. The store, the read plan, what a result becomes,
// the markup and every sentence come from wasm (`Resources`, src/extras/src/resources.rs →
// skiff_core::mcp::res_ui). Here: the host's requests, localStorage and IndexedDB, painting
// the HTML core writes, and one delegated listener per surface reading `data-act`.
//
// Stored: localStorage "skiff.extras.resources" (the store, versioned; never written while it
// could not be read), IndexedDB "skiff-extras"/"blobs" (bytes by SHA-256), and
// "skiff.extras.boot" while a subscription must resume after a reload.

export const css = 'resources.css';

const BOOT_KEY = 'skiff.extras.boot';
const COMPOSER = '#composer-input';

let R = null; // the wasm Resources: the store
let wasm = null;

function store(ctx) {
  if (!R) {
    wasm = ctx.wasm;
    let raw;
    try {
      raw = localStorage.getItem(wasm.Resources.key()) ?? undefined;
    } catch {
      raw = undefined;
    }
    R = new wasm.Resources(raw);
    if (!R.locked()) sweep().catch(() => {});
  }
  return R;
}

/** Bytes no kept copy names (a read cut short between storing and keeping) are deleted. Never
 * while the store is locked: its copies are unknown, so every hash might still be named. */
async function sweep() {
  const keep = new Set(JSON.parse(R.hashes()));
  const keys = await idb('readonly', (s) => s.getAllKeys());
  await idbDelete((keys ?? []).filter((k) => !keep.has(k)));
}

/** Writes the store (unless locked) and the boot flag; a full storage is a sentence. */
function save() {
  const text = R.save();
  try {
    if (text !== undefined) localStorage.setItem(wasm.Resources.key(), text);
    if (R.needs_boot()) localStorage.setItem(BOOT_KEY, '1');
    else localStorage.removeItem(BOOT_KEY);
  } catch (e) {
    toast(`Skiff could not save its MCP resources: the browser's storage refused (${e.name}). What you see is kept until you close the page.`, true);
  }
}

async function refreshServers(ctx) {
  const servers = await ctx.host('servers');
  R.sync(JSON.stringify(servers ?? []));
  save();
}

// ---------- IndexedDB: bytes by hash ----------

let dbPromise = null;
function db() {
  dbPromise ??= new Promise((resolve, reject) => {
    const req = indexedDB.open('skiff-extras', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('blobs');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  return dbPromise;
}

async function idb(mode, fn) {
  const d = await db();
  return new Promise((resolve, reject) => {
    const tx = d.transaction('blobs', mode);
    const req = fn(tx.objectStore('blobs'));
    tx.oncomplete = () => resolve(req?.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

const idbPut = (hash, bytes) => idb('readwrite', (s) => s.put(bytes, hash));
const idbGet = (hash) => idb('readonly', (s) => s.get(hash));
const idbDelete = (hashes) =>
  hashes.length ? idb('readwrite', (s) => { for (const h of hashes) s.delete(h); return null; }) : Promise.resolve();

function unb64(text) {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function b64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

async function sha256(bytes) {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

// ---------- reading through the cache ----------

/** The kept copy's parts with their bytes loaded, or null. */
async function cachedParts(server, uri) {
  const json = R.cached_parts(server, uri, Date.now());
  if (!json) return null;
  const parts = JSON.parse(json);
  for (const p of parts) {
    if (p.data != null || !p.hash) continue;
    const bytes = await idbGet(p.hash).catch(() => null);
    if (bytes) p.data = p.binary ? b64(new Uint8Array(bytes)) : new TextDecoder().decode(bytes);
  }
  return parts;
}

/** Reads from the server and keeps the copy (bytes to IndexedDB first). */
async function fetchParts(ctx, server, uri) {
  const result = await ctx.host('request', { server, method: 'resources/read', params: { uri } });
  const out = JSON.parse(R.parse_read(uri, JSON.stringify(result ?? null)));
  if (out.error) throw new Error(out.error);
  for (const p of out.parts) {
    if (!p.to_store) continue;
    try {
      const bytes = p.binary ? unb64(p.data) : new TextEncoder().encode(p.data);
      p.hash = await sha256(bytes);
      await idbPut(p.hash, bytes);
    } catch {
      // No IndexedDB or no crypto.subtle (an insecure origin): the copy is shown and
      // attached but not kept (core's keep refuses a part without its hash).
      delete p.hash;
    }
  }
  const freed = JSON.parse(R.keep(server, uri, JSON.stringify(out.parts), out.ttl_ms, Date.now()));
  save();
  idbDelete(freed).catch(() => {});
  return out.parts;
}

/**
 * What to show and attach for `uri`: a fresh kept copy, a new read, or the kept copy when the
 * server is down or the read fails (with a note). Throws a sentence when there is nothing.
 */
async function load(ctx, server, uri, force = false) {
  let plan = R.plan(server, uri, Date.now());
  if (force && R.up(server)) plan = 'refresh';
  const cached = plan === 'fetch' ? null : await cachedParts(server, uri);
  if (plan === 'cached' && cached) return { parts: cached, note: '' };
  if (plan === 'unavailable') {
    throw new Error(`${R.server_name(server)} is offline and Skiff has no copy of ${uri}.`);
  }
  try {
    return { parts: await fetchParts(ctx, server, uri), note: '', old: cached };
  } catch (e) {
    if (cached) return { parts: cached, note: `Could not read it again: ${e.message} The kept copy is shown.`, error: true };
    throw e;
  }
}

/**
 * Attaches every usable part as a File, as the page asks (src/extras/README.md): named with
 * the resource's URI (the model reads text as "File: <name>"), typed with its MIME, text/plain
 * for any text. The page's own checks (size, type) apply as for a picked file.
 */
async function attachParts(ctx, server, uri, parts) {
  const name = R.display_name(server, uri);
  const refusal = R.attach_refusal(JSON.stringify(parts));
  if (refusal) throw new Error(refusal);
  const usable = parts.filter((p) => p.data != null);
  for (const p of usable) {
    const fileName = p.uri || uri;
    const file = p.binary
      ? new File([unb64(p.data)], fileName, { type: p.mime || 'application/octet-stream' })
      : new File([p.data], fileName, { type: 'text/plain' });
    await ctx.host('attach', file);
  }
  return name;
}

// ---------- toasts ----------

function toast(text, alert = false) {
  let box = document.getElementById('res-toasts');
  if (!box) {
    box = document.createElement('div');
    box.id = 'res-toasts';
    box.className = 'res-toasts';
    document.body.append(box);
  }
  const t = document.createElement('p');
  t.className = alert ? 'res-toast res-toast-error' : 'res-toast';
  t.setAttribute('role', alert ? 'alert' : 'status');
  t.textContent = text;
  box.append(t);
  setTimeout(() => t.remove(), alert ? 12000 : 6000);
}

// ---------- the browser dialog ----------

let dlg = null;

const $ = (sel) => dlg?.root.querySelector(sel);

function renderList() {
  const sel = dlg.sel?.kind === 'res' ? dlg.sel : null;
  $('#res-list').innerHTML = R.list_html(dlg.filter, dlg.query, sel?.server ?? '', sel?.uri ?? '');
}

function renderPane(focusTitle = false) {
  const pane = $('#res-pane');
  const s = dlg.sel;
  // Repainting removes the focused element: focus the pane's title again rather than lose it.
  const had = pane.contains(document.activeElement) || document.activeElement === document.body;
  focusTitle ||= had && !!s;
  dlg.root.querySelector('.res-dialog').classList.toggle('has-pane', !!s);
  if (!s) {
    pane.innerHTML = '';
    return;
  }
  if (s.kind === 'res') {
    pane.innerHTML = R.preview_html(s.server, s.uri, JSON.stringify(s.parts ?? []), !!s.reading, s.note ?? '', !!s.error, Date.now());
  } else {
    pane.innerHTML = R.template_html(s.server, s.index, JSON.stringify(s.values), JSON.stringify(s.errors ?? []));
  }
  if (focusTitle) pane.querySelector('#res-pane-title')?.focus();
}

function notice(text) {
  const n = $('#res-notice');
  if (n) n.textContent = text;
}

/** While the dialog is open, its keys (Escape, Tab) wherever focus is. */
function onKeyDoc(ev) {
  if (!dlg) return;
  if (ev.key === 'Escape' && pk) return; // the picker's Escape, not ours
  onKey(ev);
}

function closeBrowser() {
  if (!dlg) return;
  document.removeEventListener('keydown', onKeyDoc, true);
  const opener = dlg.opener;
  dlg.root.remove();
  dlg = null;
  if (opener && opener.isConnected) opener.focus();
}

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select, textarea, a[href], audio[controls], [tabindex]:not([tabindex="-1"])';

async function openResource(ctx, server, uri, force = false) {
  const sel = { kind: 'res', server, uri, parts: null, reading: true, note: '' };
  const kept = R.plan(server, uri, Date.now()) !== 'fetch' ? await cachedParts(server, uri) : null;
  sel.parts = kept;
  dlg.sel = sel;
  renderList();
  renderPane(true);
  try {
    const got = await load(ctx, server, uri, force);
    Object.assign(sel, { parts: got.parts, note: got.note, error: !!got.error, reading: false });
  } catch (e) {
    Object.assign(sel, { reading: false, note: e.message, error: true });
  }
  if (dlg?.sel === sel) {
    renderList();
    renderPane();
  }
}

async function onClick(ctx, ev) {
  if (ev.target === dlg.root) return closeBrowser();
  const btn = ev.target.closest('[data-act]');
  if (!btn || btn.disabled) return;
  const s = dlg.sel;
  switch (btn.dataset.act) {
    case 'close':
      return closeBrowser();
    case 'back':
      dlg.sel = null;
      renderList();
      renderPane();
      $('#res-search')?.focus();
      return;
    case 'reset': {
      // The damaged value is set aside, not lost: a later Skiff (or a person) may still read it.
      const key = wasm.Resources.key();
      try {
        const bad = localStorage.getItem(key);
        if (bad !== null) localStorage.setItem(`${key}.bad`, bad);
      } catch {
        return notice('The damaged value could not be set aside (storage refused), so it is kept and nothing is replaced.');
      }
      R.reset();
      save();
      await refreshServers(ctx).catch(() => {});
      renderList();
      return notice(`Started afresh. The damaged value is kept under “${key}.bad”.`);
    }
    case 'open':
      return openResource(ctx, btn.dataset.server, btn.dataset.uri);
    case 'template':
      dlg.sel = { kind: 'tpl', server: btn.dataset.server, index: Number(btn.dataset.index), values: {}, errors: [] };
      renderList();
      renderPane();
      dlg.root.querySelector('.res-form input')?.focus();
      return;
    case 'reload':
      if (s?.kind === 'res') return openResource(ctx, s.server, s.uri, true);
      return;
    case 'attach':
      if (s?.kind !== 'res' || !s.parts) return;
      try {
        const name = await attachParts(ctx, s.server, s.uri, s.parts);
        s.note = `Attached ${name}: it goes with your next message.`;
        s.error = false;
      } catch (e) {
        s.note = e.message;
        s.error = true;
      }
      renderPane();
      notice(s.note);
      return;
    case 'subscribe':
    case 'unsubscribe': {
      if (s?.kind !== 'res') return;
      const on = btn.dataset.act === 'subscribe';
      try {
        await ctx.host('request', { server: s.server, method: on ? 'resources/subscribe' : 'resources/unsubscribe', params: { uri: s.uri } });
        s.note = on ? 'Subscribed: when the server changes it, Skiff reads it again and tells you.' : 'Unsubscribed.';
        s.error = false;
      } catch (e) {
        s.note = on ? `Could not subscribe: ${e.message}` : `The server did not confirm: ${e.message} Skiff stopped following it anyway.`;
        s.error = true;
        if (on) {
          renderPane();
          return;
        }
      }
      if (on) R.subscribe(s.server, s.uri);
      else R.unsubscribe(s.server, s.uri);
      save();
      renderList();
      renderPane();
      dlg.root.querySelector(on ? '[data-act="unsubscribe"]' : '[data-act="subscribe"]')?.focus();
      return;
    }
    case 'download': {
      const p = s?.parts?.[Number(btn.dataset.part)];
      if (!p?.data) return;
      const bytes = p.binary ? unb64(p.data) : new TextEncoder().encode(p.data);
      // Always octet-stream: a blob that says text/html must never render (display::media).
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = R.download_name(p.uri || s.uri, p.mime || '');
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 30000);
      return;
    }
  }
}

function formValues(form) {
  const values = {};
  for (const input of form.querySelectorAll('input[data-field]')) values[input.dataset.field] = input.value;
  return values;
}

async function onSubmit(ctx, ev) {
  const form = ev.target.closest('.res-form');
  if (!form) return;
  ev.preventDefault();
  const s = dlg.sel;
  if (s?.kind !== 'tpl') return;
  s.values = formValues(form);
  const out = JSON.parse(R.template_expand(s.server, s.index, JSON.stringify(s.values)));
  if (out.errors) {
    s.errors = out.errors;
    renderPane();
    const first = out.errors[0]?.[0] ?? 0;
    dlg.root.querySelector(`#res-v${first}`)?.focus();
    return;
  }
  return openResource(ctx, s.server, out.uri);
}

let completeTimer = 0;
let completeSeq = 0;

function onInput(ctx, ev) {
  const t = ev.target;
  if (t.id === 'res-search') {
    dlg.query = t.value;
    renderList();
    return;
  }
  const form = t.closest?.('.res-form');
  if (!form || !t.dataset.field || dlg.sel?.kind !== 'tpl') return;
  const s = dlg.sel;
  s.values = formValues(form);
  clearTimeout(completeTimer);
  completeTimer = setTimeout(async () => {
    const params = R.completion_params(s.server, s.index, JSON.stringify(s.values), t.dataset.field);
    if (!params) return;
    const seq = ++completeSeq;
    try {
      const result = await ctx.host('request', { server: s.server, method: 'completion/complete', params: JSON.parse(params) });
      // Only the answer to the latest keystroke fills the list.
      if (seq !== completeSeq || dlg?.sel !== s) return;
      const list = document.getElementById(t.getAttribute('list'));
      if (list) list.innerHTML = R.suggestions_html(JSON.stringify(result ?? null));
    } catch {
      // Suggestions are a help: a server without completions still has a usable form.
    }
  }, 200);
}

function onKey(ev) {
  if (ev.key === 'Escape') {
    ev.preventDefault();
    ev.stopPropagation();
    if (dlg.sel && window.matchMedia('(max-width: 640px)').matches) {
      dlg.sel = null;
      renderList();
      renderPane();
      $('#res-search')?.focus();
      return;
    }
    closeBrowser();
    return;
  }
  if (ev.key !== 'Tab') return;
  const items = [...dlg.root.querySelectorAll(FOCUSABLE)].filter((el) => el.offsetParent !== null || el === document.activeElement);
  if (!items.length) return;
  const first = items[0];
  const last = items[items.length - 1];
  if (ev.shiftKey && document.activeElement === first) {
    ev.preventDefault();
    last.focus();
  } else if (!ev.shiftKey && document.activeElement === last) {
    ev.preventDefault();
    first.focus();
  }
}

async function browse(arg, ctx) {
  store(ctx);
  closePicker();
  let problem = '';
  try {
    await refreshServers(ctx);
  } catch (e) {
    problem = `The server list could not be read: ${e.message} Kept copies are shown.`;
  }
  if (dlg) closeBrowser();
  const root = document.createElement('div');
  root.className = 'res-overlay';
  dlg = { root, filter: arg || '', query: '', sel: null, opener: document.activeElement };
  root.innerHTML = R.shell_html(dlg.filter);
  document.body.append(root);
  root.addEventListener('click', (ev) => onClick(ctx, ev).catch((e) => notice(e.message)));
  root.addEventListener('submit', (ev) => onSubmit(ctx, ev).catch((e) => notice(e.message)));
  root.addEventListener('input', (ev) => onInput(ctx, ev));
  document.addEventListener('keydown', onKeyDoc, true);
  root.querySelector('#res-server').addEventListener('change', (ev) => {
    dlg.filter = ev.target.value;
    renderList();
  });
  renderList();
  if (problem) notice(problem);
  else if (R.locked()) notice(R.locked());
  root.querySelector('#res-search').focus();
}

// ---------- the @ picker ----------

let pk = null;

function composer() {
  return document.querySelector(COMPOSER);
}

function closePicker() {
  if (!pk) return;
  pk.el.remove();
  pk.ta.removeAttribute('aria-activedescendant');
  pk.ta.removeAttribute('aria-controls');
  pk.ta.removeAttribute('aria-expanded');
  pk = null;
}

function placePicker() {
  // Over the message box, as wide as it (at least 280 px, within the window).
  const r = pk.ta.getBoundingClientRect();
  const width = Math.min(Math.max(r.width, 280), window.innerWidth - 8);
  // CSSOM, not a style attribute: the page's CSP allows only its own stylesheets.
  pk.el.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - width - 4))}px`;
  pk.el.style.width = `${width}px`;
  pk.el.style.bottom = `${window.innerHeight - r.top + 4}px`;
}

function renderPicker() {
  pk.items = JSON.parse(R.picker_items(pk.query, Date.now()));
  pk.active = Math.min(pk.active, Math.max(0, pk.items.length - 1));
  pk.el.innerHTML = R.picker_html(pk.query, Date.now(), pk.active);
  if (pk.items.length) {
    pk.ta.setAttribute('aria-controls', 'res-picker-list');
    pk.ta.setAttribute('aria-activedescendant', `res-opt${pk.active}`);
    pk.el.querySelector('.res-opt.active')?.scrollIntoView({ block: 'nearest' });
  } else {
    pk.ta.removeAttribute('aria-activedescendant');
  }
  placePicker();
}

/** Opens, updates or closes the picker for the `@query` at the caret. */
function track(ctx) {
  const ta = composer();
  if (!ta || !R) return closePicker();
  const at = wasm.res_mention_at(ta.value, ta.selectionStart ?? ta.value.length);
  if (!at) return closePicker();
  const { start, query } = JSON.parse(at);
  if (!pk) {
    const el = document.createElement('div');
    el.className = 'res-picker';
    el.id = 'res-picker';
    // Keep the textarea focused while choosing with the mouse.
    el.addEventListener('mousedown', (ev) => ev.preventDefault());
    el.addEventListener('click', (ev) => {
      const opt = ev.target.closest('[data-act="pick"]');
      if (opt) choose(ctx, Number(opt.dataset.i));
    });
    document.body.append(el);
    pk = { el, ta, items: [], active: 0, start, query };
    ta.setAttribute('aria-expanded', 'true');
  }
  if (pk.query !== query) pk.active = 0;
  Object.assign(pk, { start, query });
  renderPicker();
}

async function choose(ctx, i) {
  const item = pk?.items[i];
  if (!item) return;
  const ta = pk.ta;
  const { start } = pk;
  const caret = ta.selectionStart ?? ta.value.length;
  closePicker();
  const out = JSON.parse(wasm.res_strip_mention(ta.value, start, caret));
  ta.value = out.value;
  ta.setSelectionRange(out.caret, out.caret);
  // Leptos reads the textarea on `input`.
  ta.dispatchEvent(new Event('input', { bubbles: true }));
  ta.focus();
  try {
    const got = await load(ctx, item.server, item.uri);
    const name = await attachParts(ctx, item.server, item.uri, got.parts);
    toast(got.note ? `Attached ${name}. ${got.note}` : `Attached ${name}.`, !!got.error);
  } catch (e) {
    toast(e.message, true);
  }
}

let tracked = null;
function listen(ctx) {
  const ta = composer();
  if (!ta || tracked === ta) return;
  tracked = ta;
  ta.addEventListener('input', () => track(ctx));
  ta.addEventListener('click', () => track(ctx));
  ta.addEventListener('blur', () => setTimeout(() => { if (pk && document.activeElement !== pk.ta) closePicker(); }, 0));
}

// Capture phase on window: runs before the composer's own Enter (send) handler.
window.addEventListener(
  'keydown',
  (ev) => {
    if (!pk || ev.target !== pk.ta) return;
    const n = pk.items.length;
    let handled = true;
    if (ev.key === 'ArrowDown' && n) pk.active = (pk.active + 1) % n;
    else if (ev.key === 'ArrowUp' && n) pk.active = (pk.active - 1 + n) % n;
    else if ((ev.key === 'Enter' || ev.key === 'Tab') && n && !ev.shiftKey) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      choose(pk.ctx, pk.active);
      return;
    } else if (ev.key === 'Escape') closePicker();
    else handled = false;
    if (!handled) return;
    ev.preventDefault();
    ev.stopImmediatePropagation();
    if (pk) renderPicker();
  },
  true,
);

let serversAt = 0;
let lockedShown = false;
async function mention(arg, ctx) {
  store(ctx);
  listen(ctx);
  // The browser shows it with "Start afresh"; the picker says it once.
  if (R.locked() && !lockedShown) {
    lockedShown = true;
    toast(R.locked(), true);
  }
  // The lists change rarely; asking the page on every keystroke is not needed.
  if (Date.now() - serversAt > 3000) {
    serversAt = Date.now();
    await refreshServers(ctx).catch(() => {});
  }
  track(ctx);
  if (pk) pk.ctx = ctx;
}

// ---------- events: updates, list changes, reconnects, boot ----------

async function resubscribe(ctx, server) {
  for (const uri of JSON.parse(R.subs_for(server))) {
    try {
      await ctx.host('request', { server, method: 'resources/subscribe', params: { uri } });
    } catch (e) {
      toast(`Could not subscribe again to ${R.display_name(server, uri)} on ${R.server_name(server)}: ${e.message}`, true);
    }
  }
}

async function updated(ctx, server, uri) {
  const kept = R.mark_changed(server, uri);
  save();
  if (!R.subscribed(server, uri) || !R.up(server)) {
    if (kept && dlg) renderList();
    return;
  }
  const old = await cachedParts(server, uri).catch(() => null);
  let parts;
  try {
    parts = await fetchParts(ctx, server, uri);
  } catch (e) {
    toast(`${R.display_name(server, uri)} changed, but reading it again failed: ${e.message}`, true);
    return;
  }
  const summary = R.change_summary(server, uri, JSON.stringify(old ?? []), JSON.stringify(parts));
  const s = dlg?.sel;
  if (s?.kind === 'res' && s.server === server && s.uri === uri) {
    Object.assign(s, { parts, note: summary, error: false, reading: false });
    renderPane();
    renderList();
  } else {
    if (dlg) renderList();
    toast(summary);
  }
}

/** The page's lists changed: read them again and repaint what shows them. */
async function relist(ctx) {
  await refreshServers(ctx);
  if (dlg) renderList();
  if (pk) renderPicker();
}

export async function onEvent(event, ctx) {
  if (!event || typeof event !== 'object') return;
  const kind = event.kind;
  if (kind !== 'boot' && kind !== 'notify' && kind !== 'status' && kind !== 'lists') return;
  store(ctx);
  try {
    if (kind === 'boot') {
      // Servers already ready sent their `status` before this module listened.
      const servers = await ctx.host('servers');
      R.sync(JSON.stringify(servers ?? []));
      save();
      for (const s of servers ?? []) if (s.connected) await resubscribe(ctx, s.id);
      return;
    }
    if (kind === 'status') {
      await refreshServers(ctx);
      if (event.connected) await resubscribe(ctx, event.server);
      if (dlg) renderList();
      return;
    }
    if (kind === 'lists') {
      await relist(ctx);
      return;
    }
    const method = event.method;
    if (method === 'notifications/resources/updated') {
      const uri = event.params?.uri;
      if (typeof uri === 'string') await updated(ctx, event.server, uri);
    } else if (method === 'notifications/resources/list_changed') {
      await relist(ctx);
    }
  } catch (e) {
    toast(e.message, true);
  }
}

export const ops = { browse, mention };
