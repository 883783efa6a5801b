// Elicitation (issue 13 item 7): a server asks the user for input and waits. The page holds
// the server's `elicitation/create` and sends it here as an `ask` event; the question shows as
// a card in a tray pinned above the composer, over Settings too when it is open (a question
// asked from a tool's "try" form must be seen there), and the answer goes back through the
// host's `answer`.
//
// Every decision (the form, defaults, validation sentences, the answer, when the link may open,
// when a card goes) is skiff_core's `mcp::elicit::Tray`, reached through the wasm's
// `elicit_event` / `elicit_act` / `elicit_opened`; each returns the effects performed here.
// Card HTML is written by core (server text escaped); this file never builds markup from
// server text. It never opens a link on its own: only an `open` effect, which follows the
// user's click on Open, does.
export const css = 'elicit.css';
export const ops = {};

/** The tray, created on the first question. */
let tray = null;
/** Card id → the element that had focus before the card took it (focus goes back there). */
const returnTo = new Map();
let timer = 0;
let ctxRef = null;

function ensureTray() {
  if (tray?.isConnected) return tray;
  tray = document.createElement('section');
  tray.className = 'elicit-tray';
  tray.setAttribute('aria-label', 'Questions from MCP servers');
  tray.hidden = true;
  tray.addEventListener('click', onClick);
  tray.addEventListener('submit', (ev) => {
    // Never a page load; a submission that gets past `onKey` (Enter) is Accept.
    ev.preventDefault();
    const card = ev.target.closest('.elicit-card');
    if (card) act(card, 'accept');
  });
  tray.addEventListener('keydown', onKey);
  // Outside the page's own tree (Leptos owns that), so the tray is never redrawn under the
  // user, and above the modal backdrop so it shows over Settings.
  document.body.append(tray);
  return tray;
}

// Pinned just above the composer, as wide as it, and never over it; bottom of the window when
// there is no composer on screen. Re-measured while questions are shown: the composer grows
// with its text and is redrawn when the conversation changes.
function place() {
  if (!tray || tray.hidden) return;
  const composer = document.querySelector('.composer');
  const r = composer?.getBoundingClientRect();
  const h = window.innerHeight;
  if (r && r.width > 0 && r.top > 0) {
    tray.style.bottom = `${Math.max(0, h - r.top)}px`;
    tray.style.left = `${r.left}px`;
    tray.style.width = `${r.width}px`;
    tray.style.maxHeight = `${Math.max(160, Math.min(h * 0.6, r.top - 8))}px`;
  } else {
    tray.style.bottom = '0px';
    tray.style.left = '0px';
    tray.style.width = '100%';
    tray.style.maxHeight = `${h * 0.6}px`;
  }
}

// Once per page (this module is imported once).
window.addEventListener('resize', place);

function showTray() {
  const empty = tray.childElementCount === 0;
  tray.hidden = empty;
  if (empty) {
    clearInterval(timer);
    timer = 0;
  } else {
    place();
    if (!timer) timer = setInterval(place, 400);
  }
}

// A card or a notice (a refused request), by the id core gave it.
const entry = (id) => (tray ? tray.querySelector(`:scope > [id="${CSS.escape(id)}"]`) : null);

/** The form's values as the browser would submit them (checkboxes only when checked). */
function pairs(el) {
  const form = el.querySelector('form');
  if (!form) return [];
  const out = [];
  for (const [name, value] of new FormData(form)) {
    if (typeof value === 'string') out.push([name, value]);
  }
  return out;
}

function act(el, what) {
  perform(JSON.parse(ctxRef.wasm.elicit_act(el.id, what, JSON.stringify(pairs(el)))));
}

function onClick(ev) {
  const target = ev.target instanceof Element ? ev.target.closest('[data-act]') : null;
  const el = target?.closest('.elicit-tray > [id]');
  if (!el) return;
  ev.preventDefault();
  act(el, target.dataset.act);
}

// Tab moves between the tray's controls by itself: Settings' focus trap (ui::dialog) would
// otherwise pull focus back into the dialog at every Tab, leaving the card unusable from the
// keyboard. Past the tray's first or last control, Tab goes on as usual (into the dialog).
function onKey(ev) {
  // Enter in a one-line field is Accept, as in any form (the card's buttons are not submit
  // buttons, so the browser would not submit a form of several fields by itself).
  const t = ev.target;
  if (ev.key === 'Enter' && t instanceof HTMLInputElement && t.type !== 'checkbox' && !ev.isComposing) {
    const el = t.closest('.elicit-card');
    if (el && t.form) {
      ev.preventDefault();
      act(el, 'accept');
    }
    return;
  }
  if (ev.key !== 'Tab' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const items = [...tray.querySelectorAll('a[href], button, input, select, textarea')].filter(
    (e) => !e.disabled && e.getClientRects().length > 0,
  );
  const at = items.indexOf(document.activeElement);
  const inside = ev.shiftKey ? at > 0 : at < items.length - 1;
  if (inside) ev.stopPropagation();
}

function focusAway(id) {
  const active = document.activeElement;
  const had = !active || active === document.body || tray.contains(active);
  const back = returnTo.get(id);
  returnTo.delete(id);
  if (!had) return;
  // Another question still waiting is where the user is needed next.
  const next = tray.querySelector('.elicit-card');
  if (next) {
    // ...and when it is answered too, focus goes back where it was before the first.
    if (back && !returnTo.has(next.id)) returnTo.set(next.id, back);
    return next.focus();
  }
  if (back?.isConnected && back !== document.body) {
    back.focus();
    if (document.activeElement === back) return;
  }
  // The control is gone or disabled (a "try" button stays disabled until the call ends):
  // the open dialog itself, so its focus trap and Escape keep working, else the message box.
  const dialogs = document.querySelectorAll('.modal-backdrop [role="dialog"]');
  const target = dialogs[dialogs.length - 1] ?? document.getElementById('composer-input');
  target?.focus();
}

async function answer(arg) {
  try {
    await ctxRef.host('answer', arg);
  } catch (e) {
    // The question could not be answered (its connection ended meanwhile): say so in the tray.
    notice(e?.message || String(e));
  }
}

function notice(text) {
  const el = document.createElement('article');
  el.className = 'elicit-notice';
  el.setAttribute('role', 'alert');
  const p = document.createElement('p');
  p.className = 'error';
  p.textContent = text;
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'elicit-dismiss';
  b.textContent = 'Dismiss';
  b.addEventListener('click', (ev) => {
    ev.stopPropagation();
    el.remove();
    showTray();
  });
  el.append(p, b);
  ensureTray().append(el);
  showTray();
}

function perform(effects) {
  for (const fx of effects) {
    switch (fx.do) {
      case 'add': {
        const el = document.createElement('article');
        // A notice is not a question: the conformance client and e2e find questions by class.
        el.className = fx.mode === 'notice' ? 'elicit-notice' : 'elicit-card';
        el.id = fx.id;
        el.dataset.mode = fx.mode;
        el.dataset.serverName = fx.server_name;
        el.setAttribute('aria-labelledby', `${fx.id}-title`);
        el.tabIndex = -1;
        el.innerHTML = fx.html;
        ensureTray().append(el);
        showTray();
        // Focus goes to the new card unless the user is already in another one (filling a
        // form of the first question must not be interrupted by the second).
        const active = document.activeElement;
        if (fx.focus && !(active && tray.contains(active))) {
          if (active) returnTo.set(fx.id, active);
          el.focus();
          el.scrollIntoView({ block: 'nearest' });
        }
        break;
      }
      case 'draw': {
        const el = entry(fx.id);
        if (!el) break;
        el.innerHTML = fx.html;
        const f = fx.focus ? document.getElementById(fx.focus) : null;
        f?.focus();
        break;
      }
      case 'remove': {
        const el = entry(fx.id);
        if (!el) break;
        el.remove();
        showTray();
        focusAway(fx.id);
        break;
      }
      case 'answer':
        answer(fx.arg);
        break;
      case 'open': {
        // As the page did (platform::location): a new tab without a way back to Skiff. With
        // noopener, window.open returns null even when it opened, so only a throw is a refusal.
        let ok = true;
        try {
          window.open(fx.url, '_blank', 'noopener,noreferrer');
        } catch {
          ok = false;
        }
        perform(JSON.parse(ctxRef.wasm.elicit_opened(fx.id, ok)));
        break;
      }
      default:
        break;
    }
  }
}

export function onEvent(event, ctx) {
  ctxRef = ctx;
  const kind = event?.kind;
  // Sampling asks belong to asks.js: only elicitation's events are read here.
  const mine =
    (kind === 'ask' && event.method === 'elicitation/create') ||
    kind === 'ask-gone' ||
    (kind === 'notify' && event.method === 'notifications/elicitation/complete');
  if (!mine) return;
  perform(JSON.parse(ctx.wasm.elicit_event(JSON.stringify(event))));
}
