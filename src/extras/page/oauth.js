// Signing in to remote MCP servers with OAuth 2.1 + PKCE (issue 10), the page's IO for
// skiff_core::oauth::AuthMachine (one per server, through the wasm's OAuthServer).
//
// The machine decides everything (which metadata to fetch, who Skiff is to the server, whether
// a callback is trusted, when to refresh, what the card says); this file performs: fetch,
// random bytes and SHA-256 (WebCrypto), the popup or full-page redirect, the encrypted store,
// the Account dialog, and the page's three questions (src/extras/README.md):
//   auth-header {server, url}   → the Authorization value for a request, or ""
//   auth-401 {server, url, status, challenge, authorization} → a fresh value, or ""
//   auth (server id)            → the Account dialog
// It never logs or shows a token, and a token only goes to URLs its resource covers (the
// machine's `access`).
//
// Tokens at rest: AES-GCM under a non-extractable key that lives in IndexedDB
// ("skiff-oauth"/"keys"), one localStorage record per issuer and resource, the record's own
// key as additional data; a copy of localStorage alone decrypts nothing.

export const css = 'oauth.css';

const BOOT = 'skiff.extras.boot';
const MY_BOOT = 'skiff.extras.boot.oauth';
const RECORD = 'skiff.oauth.cred.'; // + issuer + " " + resource
const CLIENT_ID = 'skiff.oauth.client.'; // + server id: a pre-registered client id
const SECRET = 'skiff.oauth.secret.'; // + server id: its client secret, encrypted like tokens
const METHOD = 'skiff.oauth.method.'; // + server id: how Skiff signs in (core SignInMethod)
const KEY = 'skiff.oauth.key.'; // + server id: its private key (PEM), encrypted like tokens
const IDP_ENDPOINT = 'skiff.oauth.idp.endpoint.'; // + server id: the IdP's token endpoint
const IDP_CLIENT = 'skiff.oauth.idp.client.'; // + server id: Skiff's client id at the IdP
const ID_TOKEN = 'skiff.oauth.idtoken.'; // + server id: the user's ID token, encrypted like tokens
const PENDING = 'skiff.oauth.pending'; // sessionStorage, full-page redirect only
const RETURNED = 'skiff.oauth.returned'; // sessionStorage: the callback URL after a redirect
const CHANNEL = 'skiff-oauth';
const POPUP = 'popup,width=520,height=720';

/** server id → {id, info, m, waiters, timer, popup, watch, enabled, state, connectOnSignIn} */
const entries = new Map();
const creating = new Map();
/** state → server id, for the popup's answer */
const byState = new Map();
let nextWaiter = 1;
let ctxRef = null;

// ----- small helpers -----

const b64 = (bytes) => btoa(String.fromCharCode(...new Uint8Array(bytes)));
const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const random = (n) => crypto.getRandomValues(new Uint8Array(n));

async function servers(ctx) {
  // At start the page may not have finished starting: try for a few seconds.
  for (let i = 0; ; i++) {
    try {
      return (await ctx.host('servers')) ?? [];
    } catch (e) {
      if (i >= 20) throw e;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

// ----- the encrypted store -----

let keyPromise = null;
function tokenKey() {
  keyPromise ??= new Promise((resolve, reject) => {
    const open = indexedDB.open('skiff-oauth', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('keys');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const get = db.transaction('keys').objectStore('keys').get('tokens');
      get.onerror = () => reject(get.error);
      get.onsuccess = async () => {
        if (get.result) return resolve(get.result);
        try {
          const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
          const tx = db.transaction('keys', 'readwrite');
          tx.objectStore('keys').put(key, 'tokens');
          tx.oncomplete = () => resolve(key);
          tx.onerror = () => reject(tx.error);
        } catch (e) {
          reject(e);
        }
      };
    };
  });
  return keyPromise;
}

const recordName = (c) => `${RECORD}${c.issuer} ${c.resource}`;

/** Encrypt `text` into localStorage `name` (the name is the additional data: a record copied
 * under another name does not decrypt). */
async function seal(name, text) {
  const iv = random(12);
  const ad = new TextEncoder().encode(name);
  const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: ad }, await tokenKey(), new TextEncoder().encode(text));
  localStorage.setItem(name, JSON.stringify({ v: 1, iv: b64(iv), ct: b64(ct) }));
}

/** The text sealed under `name`; throws when it does not decrypt. */
async function unseal(name) {
  const rec = JSON.parse(localStorage.getItem(name));
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: unb64(rec.iv), additionalData: new TextEncoder().encode(name) },
    await tokenKey(),
    unb64(rec.ct),
  );
  return new TextDecoder().decode(plain);
}

/** A value sealed under `name`, or null when there is none or it does not decrypt. */
async function sealed(name) {
  if (!localStorage.getItem(name)) return null;
  try {
    return await unseal(name);
  } catch {
    return null;
  }
}

const clientSecret = (id) => sealed(SECRET + id);

/** Sign out forgets what signs in without the user, so nothing signs in again by itself. */
function forgetSecrets(id) {
  for (const k of [SECRET, KEY, ID_TOKEN]) localStorage.removeItem(k + id);
}

async function saveCredentials(creds) {
  await seal(recordName(creds), JSON.stringify(creds));
  // index.html imports the module at start while credentials exist (README.md).
  localStorage.setItem(BOOT, '1');
  localStorage.setItem(MY_BOOT, '1');
}

function deleteCredentials(issuer, resource) {
  localStorage.removeItem(recordName({ issuer, resource }));
  if (!Object.keys(localStorage).some((k) => k.startsWith(RECORD))) localStorage.removeItem(MY_BOOT);
  // skiff.extras.boot is shared with the other features: left for them to clear.
}

/** Every stored record that decrypts; one that does not is left where it is, never overwritten. */
let storedPromise = null;
function stored() {
  storedPromise ??= (async () => {
    const out = [];
    const names = Object.keys(localStorage).filter((k) => k.startsWith(RECORD));
    if (!names.length) return out;
    for (const name of names) {
      try {
        out.push(await unseal(name));
      } catch (e) {
        console.warn(`Skiff: the stored sign-in ${name.slice(RECORD.length)} cannot be decrypted (${e?.name ?? e}); it is kept as it is.`);
      }
    }
    return out;
  })();
  return storedPromise;
}

// ----- one machine per server -----

// The page's public address when the build wrote Skiff's Client ID Metadata Document
// (scripts/build-extras.sh replaces this line when SKIFF_PUBLIC_URL is set).
const PUBLIC_URL = '';

/** Whether that document is served beside this copy of the page (its URL is the client id,
 * so it only counts where the page runs at the address it was built for). */
function metadataServed() {
  if (!PUBLIC_URL) return false;
  try {
    return new URL('.', PUBLIC_URL).href === new URL('.', document.baseURI).href;
  } catch {
    return false;
  }
}

/** The page's description of server `id`; `patient`: at start the list may still be filling. */
async function findServer(ctx, id, patient = false) {
  for (let i = 0; ; i++) {
    const info = (await servers(ctx)).find((s) => s.id === id);
    if (info || !patient || i >= 40) return info ?? null;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function entryFor(ctx, id, pending = null) {
  if (entries.has(id)) return entries.get(id);
  if (creating.has(id)) return creating.get(id);
  const p = (async () => {
    const info = await findServer(ctx, id, pending != null);
    if (!info || !info.url || info.transport === 'websocket') return null;
    const found = (await stored()).find((c) => ctx.wasm.oauth_covers(c, info.url));
    const key = await sealed(KEY + id);
    const setup = {
      server_url: info.url,
      page_base: document.baseURI,
      metadata_written: metadataServed(),
      client_id: localStorage.getItem(CLIENT_ID + id) || null,
      client_secret: await clientSecret(id),
      proxy: info.proxy || null,
      stored: found ? JSON.parse(found) : null,
      pending,
      legacy_fallback: true,
      method: localStorage.getItem(METHOD + id) || 'browser',
      key_alg: (key && ctx.wasm.oauth_key_alg(key)) || null,
      idp_token_endpoint: localStorage.getItem(IDP_ENDPOINT + id) || null,
      idp_client_id: localStorage.getItem(IDP_CLIENT + id) || null,
      id_token: await sealed(ID_TOKEN + id),
    };
    const e = {
      id,
      info,
      m: new ctx.wasm.OAuthServer(JSON.stringify(setup)),
      waiters: new Map(),
      timer: 0,
      popup: null,
      watch: 0,
      enabled: false,
      state: null,
      connectOnSignIn: false,
      tick: 0,
    };
    entries.set(id, e);
    return e;
  })();
  creating.set(id, p);
  try {
    return await p;
  } finally {
    creating.delete(id);
  }
}

function report(e, extra = {}) {
  const status = JSON.parse(e.m.status(Date.now()));
  ctxRef
    ?.host('auth', { server: e.id, enabled: e.enabled, status: status?.sentence ?? null, ...extra })
    .catch((err) => console.warn(`Skiff: the page did not take the sign-in status: ${err.message}`));
}

function enable(e) {
  if (e.enabled) return;
  e.enabled = true;
  report(e);
}

/** The card's "expires in …" is a sentence at one moment: say it again each minute. */
function keepFresh(e) {
  if (e.tick) return;
  e.tick = setInterval(() => {
    if (e.state === 'signed-in') report(e);
  }, 60_000);
}

/** Perform everything the machine asks, then arm its timer. */
function drive(e) {
  const cmds = JSON.parse(e.m.poll(Date.now()));
  for (const c of cmds) perform(e, c);
  clearTimeout(e.timer);
  const at = e.m.next_timeout();
  if (at != null) {
    // Timers longer than ~24 days overflow; an hour at a time is plenty.
    const wait = Math.min(Math.max(0, at - Date.now()), 3_600_000);
    e.timer = setTimeout(() => {
      e.m.timeout(Date.now());
      drive(e);
    }, wait);
  }
}

function perform(e, c) {
  switch (c.op) {
    case 'fetch':
      doFetch(e, c);
      break;
    case 'pkce':
      doPkce(e);
      break;
    case 'sign':
      doSign(e, c);
      break;
    case 'open':
      openAuthorization(e, c.url, c.pending);
      break;
    case 'close':
      closePopup(e);
      sessionStorage.removeItem(PENDING);
      break;
    case 'store':
      saveCredentials(c.credentials).catch((err) =>
        console.warn(`Skiff: the sign-in could not be stored (${err?.name ?? err}); it lasts until the page closes.`),
      );
      break;
    case 'delete':
      deleteCredentials(c.issuer, c.resource);
      break;
    case 'resume':
      e.waiters.get(c.waiter)?.(c.authorization);
      e.waiters.delete(c.waiter);
      break;
    case 'fail':
      e.waiters.get(c.waiter)?.('');
      e.waiters.delete(c.waiter);
      break;
    case 'status': {
      const was = e.state;
      e.state = c.state;
      // A request that waited on a grant is sent again with its token: no reconnect then.
      const connect = c.state === 'signed-in' && (was === 'exchanging' || e.connectOnSignIn) && e.waiters.size === 0;
      if (connect) e.connectOnSignIn = false;
      if (c.state === 'failed') closePopup(e);
      e.enabled = true;
      keepFresh(e);
      report(e, connect ? { connect: true } : {});
      repaint(e.id);
      break;
    }
  }
}

async function doFetch(e, c) {
  const headers = c.headers;
  const secret = headers.some(([n]) => n.toLowerCase() === 'authorization');
  try {
    const r = await fetch(c.url, {
      method: c.method,
      headers,
      body: c.body ?? undefined,
      credentials: 'omit',
      cache: 'no-store',
      // A client secret in a header must not follow a redirect elsewhere.
      redirect: secret ? 'error' : 'follow',
    });
    const text = await r.text();
    e.m.response(Date.now(), c.id, r.status, text);
  } catch (err) {
    e.m.fetch_failed(Date.now(), c.id, await blockedByCors(c.url), String(err?.message ?? err));
  }
  drive(e);
}

/** A fetch that failed while online: if a no-cors GET reaches the server, CORS blocked it. */
async function blockedByCors(url) {
  if (!navigator.onLine) return false;
  try {
    await fetch(url, { mode: 'no-cors', credentials: 'omit', cache: 'no-store' });
    return true;
  } catch {
    return false;
  }
}

async function doPkce(e) {
  const bytes = random(32);
  const verifier = ctxRef.wasm.OAuthServer.verifier(bytes);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  e.m.pkce(Date.now(), bytes, digest, random(16));
  drive(e);
}

/** The client assertion: the machine gives the bytes, the stored key signs them (WebCrypto's
 * ECDSA signature is already JOSE's r || s). */
async function doSign(e, c) {
  const input = e.m.assertion(Date.now(), c.id, random(16));
  if (input == null) return drive(e);
  try {
    const pem = await sealed(KEY + e.id);
    if (!pem) throw new Error('no private key is stored for this server');
    const alg =
      c.alg === 'RS256'
        ? { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }
        : { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const key = await crypto.subtle.importKey('pkcs8', ctxRef.wasm.oauth_key_der(pem), alg, false, ['sign']);
    const sig = await crypto.subtle.sign(alg, key, new TextEncoder().encode(input));
    e.m.signature(Date.now(), c.id, new Uint8Array(sig), undefined);
  } catch (err) {
    e.m.signature(Date.now(), c.id, new Uint8Array(0), `${err?.name ?? 'Error'}: ${err?.message ?? err}`);
  }
  drive(e);
}

// ----- the authorization page: popup, or a full-page redirect -----

function openAuthorization(e, url, pending) {
  byState.set(pending.state, e.id);
  if (e.popup && !e.popup.closed) {
    e.popup.location.replace(url);
    watchPopup(e);
    return;
  }
  const w = window.open(url, 'skiff-oauth', POPUP);
  if (w) {
    e.popup = w;
    watchPopup(e);
    return;
  }
  // The popup was blocked: go there in this tab and resume at start (boot) from the callback.
  sessionStorage.setItem(PENDING, JSON.stringify({ server: e.id, pending }));
  localStorage.setItem(BOOT, '1');
  localStorage.setItem(MY_BOOT, '1');
  location.assign(url);
}

function watchPopup(e) {
  clearInterval(e.watch);
  e.watch = setInterval(() => {
    if (!e.popup || !e.popup.closed) return;
    clearInterval(e.watch);
    e.popup = null;
    // The callback's message may still be on its way: give it a moment before calling it off.
    setTimeout(() => {
      e.m.closed(Date.now());
      drive(e);
    }, 1000);
  }, 400);
}

function closePopup(e) {
  clearInterval(e.watch);
  if (e.popup && !e.popup.closed) e.popup.close();
  e.popup = null;
}

function onCallback(url) {
  const state = ctxRef.wasm.oauth_callback_state(url);
  const id = byState.get(state) ?? [...entries.values()].find((x) => x.state === 'waiting-for-user')?.id;
  const e = entries.get(id);
  if (!e) return;
  byState.delete(state);
  e.m.callback(Date.now(), url);
  drive(e);
}

let channel = null;
function listen() {
  if (channel) return;
  channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (ev) => {
    if (ev.data?.kind === 'callback' && typeof ev.data.url === 'string') onCallback(ev.data.url);
  };
}

// ----- the Account dialog -----

let dialog = null; // {id, root, returnTo}

function paint(e, info) {
  const { wasm } = ctxRef;
  const ws = info?.transport === 'websocket';
  const clientId = localStorage.getItem(CLIENT_ID + dialog.id) || null;
  const secretSaved = !!localStorage.getItem(SECRET + dialog.id);
  const proxy = info?.proxy || null;
  const id = dialog.id;
  const grant = JSON.stringify({
    method: localStorage.getItem(METHOD + id) || 'browser',
    key_saved: !!localStorage.getItem(KEY + id),
    idp_token_endpoint: localStorage.getItem(IDP_ENDPOINT + id) || null,
    idp_client_id: localStorage.getItem(IDP_CLIENT + id) || null,
    id_token_saved: !!localStorage.getItem(ID_TOKEN + id),
    notice: dialog.notice ?? null,
  });
  return e
    ? e.m.dialog(info?.name ?? id, ws, clientId, secretSaved, proxy, Date.now(), grant)
    : wasm.oauth_dialog_idle(info?.name ?? id, ws, clientId, secretSaved, proxy, grant);
}

function repaint(id) {
  if (!dialog || dialog.id !== id) return;
  const focused = document.activeElement?.dataset?.act;
  // What the user typed or chose and has not saved survives a repaint (a status change).
  const typed = [...dialog.panel.querySelectorAll('.oauth-advanced input, .oauth-advanced textarea')].map((x) => [
    x.id,
    x.type === 'radio' ? x.checked : x.value,
  ]);
  const open = dialog.root.querySelector('details.oauth-advanced')?.open;
  dialog.panel.innerHTML = paint(entries.get(id), dialog.info);
  for (const [fid, v] of typed) {
    const x = fid && dialog.panel.querySelector(`#${fid}`);
    if (!x) continue;
    if (x.type === 'radio') x.checked = v;
    else x.value = v;
  }
  if (open) dialog.root.querySelector('details.oauth-advanced').open = true;
  (dialog.root.querySelector(`[data-act="${focused}"]`) ?? dialog.root.querySelector('[data-act]'))?.focus();
}

function closeDialog() {
  if (!dialog) return;
  dialog.root.remove();
  document.removeEventListener('keydown', dialog.onKey, true);
  dialog.returnTo?.focus?.();
  dialog = null;
}

async function openDialog(ctx, id) {
  closeDialog();
  const info = (await servers(ctx)).find((s) => s.id === id);
  // A machine takes the server's address and CORS proxy when made. After an edit of either
  // (the way out the CORS sentence gives), it is made again: one not signed in starts afresh,
  // a signed-in one comes back from its stored record (if it still covers the address), so the
  // next sign-in and every refresh go the new way. Not while requests wait on it.
  const old = entries.get(id);
  const moved = old && info && (old.info?.url !== info.url || (old.info?.proxy || null) !== (info.proxy || null));
  if (moved && old.waiters.size === 0) {
    clearTimeout(old.timer);
    closePopup(old);
    entries.delete(id);
  }
  const root = document.createElement('div');
  root.className = 'oauth-backdrop';
  const panel = document.createElement('div');
  panel.className = 'oauth-dialog';
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-modal', 'true');
  panel.setAttribute('aria-labelledby', 'oauth-dialog-title');
  root.append(panel);
  const onKey = (ev) => {
    if (ev.key === 'Escape') {
      ev.stopPropagation();
      ev.preventDefault();
      closeDialog();
    } else if (ev.key === 'Tab') {
      // Keep focus inside the dialog.
      const f = [...panel.querySelectorAll('button, input, textarea, summary')].filter((x) => x.offsetParent !== null);
      if (!f.length) return;
      const first = f[0];
      const last = f[f.length - 1];
      if (ev.shiftKey && document.activeElement === first) {
        ev.preventDefault();
        last.focus();
      } else if (!ev.shiftKey && document.activeElement === last) {
        ev.preventDefault();
        first.focus();
      }
    }
  };
  dialog = { id, info, root, panel, onKey, returnTo: document.activeElement };
  panel.innerHTML = paint(entries.get(id) ?? (await entryIfStored(ctx, id)), info);
  root.addEventListener('click', (ev) => {
    if (ev.target === root) return closeDialog();
    const act = ev.target.closest('[data-act]')?.dataset.act;
    if (act) onAction(ctx, id, act);
  });
  document.addEventListener('keydown', onKey, true);
  document.body.append(root);
  panel.querySelector('[data-act]')?.focus();
}

/** The entry for a server whose credentials are stored, without creating one for any other. */
async function entryIfStored(ctx, id) {
  const info = (await servers(ctx)).find((s) => s.id === id);
  if (!info?.url) return null;
  const has = (await stored()).some((c) => ctx.wasm.oauth_covers(c, info.url));
  return has ? entryFor(ctx, id) : null;
}

function onAction(ctx, id, act) {
  if (act === 'close') return closeDialog();
  if (act === 'sign-in') {
    // A popup needs the click: open it now, blank, and send it to the authorization page once
    // the machine has it ready (discovery may still run). Blocked → full-page redirect later.
    // A way without a browser window opens none (the machine closes one it did not need).
    const browser = (localStorage.getItem(METHOD + id) || 'browser') === 'browser';
    const popup = browser ? window.open('', 'skiff-oauth', POPUP) : null;
    entryFor(ctx, id).then((e) => {
      if (!e) {
        popup?.close();
        return;
      }
      if (popup) {
        e.popup = popup;
        watchPopup(e);
      }
      enable(e);
      e.connectOnSignIn = true;
      e.m.sign_in(Date.now());
      drive(e);
      repaint(id);
    });
    return;
  }
  if (act === 'sign-out') {
    const e = entries.get(id);
    if (!e) return;
    e.m.sign_out(Date.now());
    drive(e);
    forgetSecrets(id);
    // The machine holds the forgotten secrets: the next sign-in starts from the store.
    clearTimeout(e.timer);
    closePopup(e);
    entries.delete(id);
    repaint(id);
    return;
  }
  if (act === 'save-client') {
    const field = (sel) => dialog?.root.querySelector(sel)?.value ?? '';
    const v = field('#oauth-client-id').trim();
    const secret = field('#oauth-client-secret');
    const method = dialog?.root.querySelector('input[name="method"]:checked')?.value ?? 'browser';
    const key = field('#oauth-private-key').trim();
    const idpEndpoint = field('#oauth-idp-token-endpoint').trim();
    const idpClient = field('#oauth-idp-client-id').trim();
    const idToken = field('#oauth-id-token').trim();
    // A key that cannot sign is refused here, where it was pasted, with core's sentence.
    const keyError = key ? ctx.wasm.oauth_key_check(key) : '';
    if (dialog) dialog.notice = keyError || null;
    if (keyError) {
      repaint(id);
      dialog?.root.querySelector('#oauth-private-key')?.focus();
      return;
    }
    (async () => {
      localStorage.setItem(METHOD + id, method);
      if (v) {
        localStorage.setItem(CLIENT_ID + id, v);
        if (secret) await seal(SECRET + id, secret);
        if (key) await seal(KEY + id, key);
      } else {
        localStorage.removeItem(CLIENT_ID + id);
        localStorage.removeItem(SECRET + id);
        localStorage.removeItem(KEY + id);
      }
      for (const [name, value] of [
        [IDP_ENDPOINT, idpEndpoint],
        [IDP_CLIENT, idpClient],
      ]) {
        if (value) localStorage.setItem(name + id, value);
        else localStorage.removeItem(name + id);
      }
      if (idToken) await seal(ID_TOKEN + id, idToken);
      // The machine takes its client id when made: a server not signed in starts afresh with it.
      const e = entries.get(id);
      if (e && !e.m.signed_in()) {
        clearTimeout(e.timer);
        closePopup(e);
        entries.delete(id);
      }
      if (dialog?.id === id) {
        for (const sel of ['#oauth-client-secret', '#oauth-private-key', '#oauth-id-token']) {
          const input = dialog.root.querySelector(sel);
          if (input) input.value = '';
        }
      }
      repaint(id);
    })().catch((err) => console.warn(`Skiff: the client id could not be saved: ${err?.name ?? err}`));
  }
}

// ----- the page's questions -----

const bearerChallenge = (c) => c == null || /(^|,)\s*bearer(\s|,|$)/i.test(c);

export const ops = {
  'auth-header': async (arg, ctx) => {
    ctxRef = ctx;
    listen();
    const { server, url } = JSON.parse(arg);
    const e = entries.get(server) ?? (await entryIfStored(ctx, server));
    if (!e) return '';
    const w = nextWaiter++;
    const a = JSON.parse(e.m.access(Date.now(), w, url));
    if (a.kind === 'wait') {
      const p = new Promise((res) => e.waiters.set(w, res));
      drive(e);
      return p;
    }
    drive(e);
    return a.kind === 'bearer' ? a.value : '';
  },

  'auth-401': async (arg, ctx) => {
    ctxRef = ctx;
    listen();
    const { server, url, status, challenge, authorization } = JSON.parse(arg);
    // Another scheme (Basic, a proprietary one) is not an OAuth sign-in.
    if (!bearerChallenge(challenge)) return '';
    const e = await entryFor(ctx, server);
    if (!e) return '';
    const w = nextWaiter++;
    const p = new Promise((res) => e.waiters.set(w, res));
    if (status === 403) {
      if (!e.m.forbidden(Date.now(), w, challenge ?? undefined)) {
        e.waiters.delete(w);
        return '';
      }
    } else {
      e.m.unauthorized(Date.now(), w, url, authorization ?? undefined, challenge ?? undefined);
    }
    enable(e);
    drive(e);
    return p;
  },

  auth: async (arg, ctx) => {
    ctxRef = ctx;
    listen();
    await openDialog(ctx, arg);
    return '';
  },
};

export async function onEvent(event, ctx) {
  ctxRef = ctx;
  if (event.kind !== 'boot') return;
  listen();
  // Back from a full-page redirect: finish that sign-in first.
  const returned = sessionStorage.getItem(RETURNED);
  const saved = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(RETURNED);
  if (returned && saved) {
    sessionStorage.removeItem(PENDING);
    try {
      const { server, pending } = JSON.parse(saved);
      const e = await entryFor(ctx, server, pending);
      if (e) {
        e.connectOnSignIn = true;
        enable(e);
        e.m.callback(Date.now(), returned);
        drive(e);
      }
    } catch (err) {
      console.warn(`Skiff: the sign-in that left for the authorization page cannot be resumed: ${err.message}`);
    }
  }
  // Every server with stored credentials asks for its token from now on.
  const creds = await stored();
  if (!creds.length) return;
  for (const info of await servers(ctx)) {
    if (!info.url || entries.has(info.id) || !creds.some((c) => ctx.wasm.oauth_covers(c, info.url))) continue;
    const e = await entryFor(ctx, info.id);
    if (!e) continue;
    // A request the page sent before this ran went without the token; its 401 comes back
    // here (auth-401) and is answered with it, so no reconnect is needed.
    e.enabled = true;
    keepFresh(e);
    report(e);
    drive(e);
  }
}
