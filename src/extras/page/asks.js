// Prompts (`/`), the sampling approval card and a server's roots (issue 13 items 5, 8, 9).
//
// This file paints and performs; it decides nothing. The machines are skiff_core's
// `mcp::ask_ui` (exported by src/extras/src/asks.rs as PromptUi, SamplingUi, RootsUi): they
// write the HTML (escaped), say what a key or a click does, and build every argument sent to
// the host. Here: one delegated listener per surface reading `data-act`, the host calls
// (src/extras/README.md), focus, and where things sit on the page.
//
// Surfaces:
// - the `/` picker and a prompt's argument form: a panel right above the composer (the page
//   calls ops.slash while the message box starts with "/"); focus stays in the box while the
//   list is open, whose keys this file takes first (capture) so Enter chooses, not sends;
// - sampling cards: one modal <dialog> holding every pending request (top layer, so it shows
//   above Settings too); nothing reaches the model before Approve;
// - the roots editor: a modal <dialog> opened from a server card.

export const css = 'asks.css';

const COMPOSER_ID = 'composer-input';
const COMPLETE_DELAY_MS = 150;

// ---------------------------------------------------------------------------------------
// Shared: announcements, notices, dialogs.

let live = null;
/** Says `text` to screen readers (a polite status region of our own). */
function announce(text) {
  if (!text) return;
  if (!live || !live.isConnected) {
    live = document.createElement('div');
    live.className = 'ask-sr';
    live.setAttribute('role', 'status');
    document.body.append(live);
  }
  live.textContent = '';
  // A new text node after a tick is announced even when the sentence repeats.
  setTimeout(() => { live.textContent = text; }, 30);
}

/** A sentence the user sees for a while, bottom right (with a Dismiss), e.g. a refused request. */
function notice(text, error = false) {
  if (!text) return;
  const box = document.createElement('div');
  box.className = error ? 'ask-notice ask-notice-error' : 'ask-notice';
  box.setAttribute('role', error ? 'alert' : 'status');
  const p = document.createElement('span');
  p.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'small';
  close.textContent = 'Dismiss';
  close.addEventListener('click', () => box.remove());
  box.append(p, close);
  document.body.append(box);
  setTimeout(() => box.remove(), 12_000);
}

const sentence = (err) => (err && err.message) || String(err || 'Something went wrong.');

/**
 * A modal <dialog> of ours: keys stay inside it (the page's own listeners on the window, its
 * Settings focus trap and shortcuts, never see them), Escape runs `onEscape`, and closing
 * returns focus to what had it.
 */
function modal(className, labelledBy, onEscape) {
  const dialog = document.createElement('dialog');
  dialog.className = `ask-dialog ${className}`;
  if (labelledBy) dialog.setAttribute('aria-labelledby', labelledBy);
  dialog.addEventListener('keydown', (ev) => {
    ev.stopPropagation();
    if (ev.key === 'Escape' && !ev.isComposing) {
      ev.preventDefault();
      onEscape(ev);
    }
  });
  // Escape's default closes a modal dialog without us: do what onEscape says instead.
  dialog.addEventListener('cancel', (ev) => ev.preventDefault());
  const opener = document.activeElement;
  document.body.append(dialog);
  dialog.showModal();
  dialog.restoreFocus = () => {
    if (opener && opener.isConnected && typeof opener.focus === 'function') opener.focus();
    else document.getElementById(COMPOSER_ID)?.focus();
  };
  return dialog;
}

function focusIn(root, selector) {
  if (!selector) return;
  const el = root.querySelector(selector);
  if (el) el.focus();
}

// ---------------------------------------------------------------------------------------
// The `/` prompt picker and argument form.

/** The open panel: {ui, panel, box, mode: 'list' | 'form', timers}, or null. */
let prompt = null;
/** Escape closed the list: it stays closed until the box no longer starts with "/". */
let dismissed = false;
/** Set while the servers are being asked for (the picker opens once, with the box's text then). */
let pendingTyped = null;

function composer() {
  return document.getElementById(COMPOSER_ID);
}

function closePrompt(focusBox = false) {
  if (!prompt) return;
  const { panel, box, ui } = prompt;
  for (const t of prompt.timers.values()) clearTimeout(t);
  panel.remove();
  box.removeEventListener('focusout', onBoxBlur);
  box.removeAttribute('aria-controls');
  box.removeAttribute('aria-activedescendant');
  box.removeAttribute('aria-autocomplete');
  ui.free();
  prompt = null;
  if (focusBox && box.isConnected) box.focus();
}

function paintList() {
  const { ui, panel, box } = prompt;
  panel.className = 'ask-panel ask-picker';
  panel.removeAttribute('role');
  panel.removeAttribute('aria-labelledby');
  panel.innerHTML = ui.picker_html();
  box.setAttribute('aria-controls', ui.list_id());
  box.setAttribute('aria-autocomplete', 'list');
  const active = ui.active_id();
  if (active) {
    box.setAttribute('aria-activedescendant', active);
    panel.querySelector(`#${active}`)?.scrollIntoView({ block: 'nearest' });
  } else {
    box.removeAttribute('aria-activedescendant');
  }
  announceSoon(ui.status());
}

let statusTimer = 0;
/** The list's count, once typing pauses (not on every key). */
function announceSoon(text) {
  clearTimeout(statusTimer);
  statusTimer = setTimeout(() => announce(text), 400);
}

function paintForm(focus) {
  const { ui, panel, box } = prompt;
  panel.className = 'ask-panel ask-prompt';
  panel.setAttribute('role', 'dialog');
  panel.setAttribute('aria-labelledby', 'ask-form-title');
  box.removeAttribute('aria-controls');
  box.removeAttribute('aria-activedescendant');
  box.removeAttribute('aria-autocomplete');
  panel.innerHTML = ui.form_html();
  if (focus) focusIn(panel, focus);
}

function paintSuggestions(i) {
  const el = prompt?.panel.querySelector(`#${prompt.ui.suggest_id(i)}`);
  if (el) el.innerHTML = prompt.ui.suggestions_html(i);
}

/** Keys typed in the message box while the list is open come here first (capture). */
function onKey(ev) {
  if (!prompt || prompt.mode !== 'list' || ev.target !== prompt.box) return;
  if (ev.isComposing || ev.shiftKey || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  // Home and End stay the box's (they move the caret in what was typed).
  if (!['ArrowUp', 'ArrowDown', 'Enter', 'Tab', 'Escape'].includes(ev.key)) return;
  const what = prompt.ui.key(ev.key);
  if (what === 'ignored') return;
  ev.preventDefault();
  ev.stopPropagation();
  if (what === 'moved') paintList();
  else if (what === 'close') {
    dismissed = true;
    closePrompt(true);
  } else if (what === 'chosen') chosen();
}
document.addEventListener('keydown', onKey, true);

/** What follows "/" while the box (up to the caret) opens the picker, else undefined. */
function slashQuery(box, ctx) {
  return ctx.wasm.slash_query(box.value.slice(0, box.selectionStart ?? box.value.length));
}

/** Boxes whose typing this file follows (the composer may be drawn anew). */
const watched = new WeakSet();
/**
 * Typing in the box: the list follows what is typed, and goes when the page's trigger no
 * longer holds (no "/" at the start, or a space after the name: "/usr/bin is" is text).
 */
function watchBox(box, ctx) {
  if (watched.has(box)) return;
  watched.add(box);
  box.addEventListener('input', () => {
    const q = slashQuery(box, ctx);
    if (q === undefined) {
      if (!box.value.startsWith('/')) dismissed = false;
      if (prompt?.mode === 'list') closePrompt();
    } else if (prompt?.mode === 'list' && prompt.box === box) {
      prompt.ui.set_typed(q);
      paintList();
    }
  });
}

function onBoxBlur(ev) {
  if (!prompt || prompt.mode !== 'list') return;
  // Focus left for somewhere other than the list (a click in the list keeps it: mousedown
  // is prevented there).
  if (ev.relatedTarget && prompt.panel.contains(ev.relatedTarget)) return;
  setTimeout(() => {
    if (prompt && prompt.mode === 'list' && document.activeElement !== prompt.box) closePrompt();
  }, 0);
}

/** The page: the box starts with "/", and `typed` follows it. */
async function slash(typed, ctx) {
  const box = composer();
  if (box) watchBox(box, ctx);
  if (!box || slashQuery(box, ctx) === undefined) {
    if (prompt?.mode === 'list') closePrompt();
    return;
  }
  if (prompt) {
    if (prompt.mode === 'list') {
      prompt.ui.set_typed(typed);
      paintList();
    }
    return;
  }
  if (dismissed) return;
  if (pendingTyped !== null) {
    pendingTyped = typed;
    return;
  }
  pendingTyped = typed;
  let servers;
  try {
    servers = await ctx.host('servers');
  } catch (err) {
    pendingTyped = null;
    notice(`The prompts could not be listed: ${sentence(err)}`, true);
    return;
  }
  pendingTyped = null;
  if (prompt || dismissed || !box.isConnected) return;
  const now = slashQuery(box, ctx);
  if (now === undefined) return;
  openPicker(new ctx.wasm.PromptUi(JSON.stringify(servers ?? []), now), box, ctx);
}

function openPicker(ui, box, ctx) {
  const panel = document.createElement('div');
  panel.id = 'ask-panel';
  const form = box.closest('form.composer');
  if (form?.parentElement) form.parentElement.insertBefore(panel, form);
  else box.parentElement.insertBefore(panel, box);
  prompt = { ui, panel, box, ctx, mode: 'list', timers: new Map() };
  box.addEventListener('focusout', onBoxBlur);
  // A click on an option must not take focus from the box first.
  panel.addEventListener('mousedown', (ev) => {
    if (prompt?.mode === 'list' && ev.target.closest('[data-act]')) ev.preventDefault();
  });
  panel.addEventListener('click', onPanelClick);
  panel.addEventListener('input', onFormInput);
  panel.addEventListener('focusin', onFormFocus);
  panel.addEventListener('submit', (ev) => {
    ev.preventDefault();
    insertPrompt();
  });
  panel.addEventListener('keydown', onFormKey);
  paintList();
}

function chosen() {
  const { ui } = prompt;
  prompt.mode = 'form';
  if (!ui.needs_form()) {
    insertPrompt();
    return;
  }
  paintForm('#ask-arg-0');
  announce(`Arguments for /${ui.chosen_name()}`);
}

function onPanelClick(ev) {
  if (!prompt) return;
  const el = ev.target.closest('[data-act]');
  if (!el) return;
  const [verb, a, b] = el.dataset.act.split(':');
  if (verb === 'choose' && prompt.mode === 'list') {
    if (prompt.ui.click(Number(a))) chosen();
  } else if (verb === 'cancel') {
    closePrompt(true);
  } else if (verb === 'pick') {
    const i = Number(a);
    const value = prompt.ui.pick(i, Number(b));
    if (value === undefined) return;
    const input = prompt.panel.querySelector(`[data-arg-index="${i}"]`);
    if (input) {
      input.value = value;
      input.focus();
    }
    paintSuggestions(i);
  }
}

function onFormInput(ev) {
  const input = ev.target.closest('[data-arg-index]');
  if (!prompt || !input) return;
  const i = Number(input.dataset.argIndex);
  prompt.ui.set_value(i, input.value);
  complete(i);
}

function onFormFocus(ev) {
  const input = ev.target.closest?.('[data-arg-index]');
  if (!prompt || !input) return;
  complete(Number(input.dataset.argIndex));
}

/** Asks the server for argument i's suggestions once typing pauses. */
function complete(i) {
  const p = prompt;
  clearTimeout(p.timers.get(i));
  p.timers.set(i, setTimeout(async () => {
    if (prompt !== p) return;
    const request = p.ui.completion(i);
    if (!request) return;
    const typed = p.panel.querySelector(`[data-arg-index="${i}"]`)?.value ?? '';
    try {
      const result = await p.ctx.host('request', JSON.parse(request));
      if (prompt === p && p.ui.suggested(i, typed, JSON.stringify(result ?? null))) paintSuggestions(i);
    } catch (err) {
      // Suggestions are a help, not a step: a server without them leaves the field as is.
      console.debug('completion/complete failed', err);
    }
  }, COMPLETE_DELAY_MS));
}

function onFormKey(ev) {
  if (!prompt || prompt.mode !== 'form' || ev.isComposing) return;
  const field = ev.target.closest?.('.ask-field');
  const input = field?.querySelector('[data-arg-index]');
  const chips = field ? [...field.querySelectorAll('.ask-suggestion')] : [];
  const at = chips.indexOf(ev.target);
  // Arrows walk from a field into its suggestions and along them; Up from the first goes
  // back to the field.
  if (input && chips.length && ['ArrowDown', 'ArrowUp', 'ArrowRight', 'ArrowLeft'].includes(ev.key)) {
    const forward = ev.key === 'ArrowDown' || ev.key === 'ArrowRight';
    if (at < 0 && ev.key !== 'ArrowDown') return;
    ev.preventDefault();
    if (at < 0) chips[0].focus();
    else if (forward) chips[Math.min(at + 1, chips.length - 1)].focus();
    else if (at === 0) input.focus();
    else chips[at - 1].focus();
    return;
  }
  if (ev.key !== 'Escape') return;
  // Ours: the page must not take Escape (it would stop an answer being written).
  ev.preventDefault();
  ev.stopPropagation();
  if (input && prompt.ui.clear_suggestions(Number(input.dataset.argIndex))) {
    paintSuggestions(Number(input.dataset.argIndex));
    input.focus();
    return;
  }
  closePrompt(true);
}

async function insertPrompt() {
  const p = prompt;
  if (!p) return;
  const out = JSON.parse(p.ui.submit());
  if (out.close) return closePrompt(true);
  if (out.draw !== undefined) {
    paintForm(out.draw);
    return;
  }
  paintForm(null);
  let result;
  try {
    result = await p.ctx.host('request', out.get);
  } catch (err) {
    if (prompt !== p) return;
    p.ui.failed(`The server could not give the prompt: ${sentence(err)}`);
    paintForm('.ask-insert');
    return;
  }
  if (prompt !== p) return;
  const got = JSON.parse(p.ui.got(JSON.stringify(result ?? null)));
  if (got.error) {
    paintForm('.ask-insert');
    return;
  }
  try {
    await p.ctx.host('insert', got.insert);
  } catch (err) {
    if (prompt !== p) return;
    p.ui.failed(`The prompt could not be added to the conversation: ${sentence(err)}`);
    paintForm('.ask-insert');
    return;
  }
  const name = p.ui.chosen_name();
  const box = p.box;
  closePrompt();
  // The "/…" typed to find the prompt is done with; Leptos reads the box on `input`.
  if (box.isConnected && box.value.startsWith('/')) {
    box.value = '';
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }
  dismissed = false;
  box.focus();
  announce(`Inserted the prompt /${name} into the conversation.`);
}

// ---------------------------------------------------------------------------------------
// Sampling: every pending request as a card in one modal dialog.

let sampling = null; // { ui, dialog, list } once the first request came

function samplingUi(ctx) {
  if (!sampling) sampling = { ui: new ctx.wasm.SamplingUi(), dialog: null, list: null, ctx, models: '{}', picked: new Map() };
  return sampling;
}

// The model that answered each server last (`{profile_id, model}`), offered first next time.
const MODEL_KEY = 'skiff.sampling.model.';

function cardEl(id) {
  return sampling?.list?.querySelector(`section.ask-card[id="${id}"]`) ?? null;
}

function paintCard(id) {
  const el = cardEl(id);
  if (!el) return;
  el.innerHTML = sampling.ui.html(id);
  // While the card asks, "Answer with" the user's models (ask_ui::model_pick decides the list).
  const actions = el.querySelector('[data-act="approve"]')?.closest('.ask-actions');
  if (!actions) return;
  const remembered = localStorage.getItem(MODEL_KEY + sampling.ui.server_id(id)) ?? 'null';
  const picker = sampling.ctx.wasm.sampling_model_picker(id, sampling.models, remembered, sampling.picked.get(id) ?? -1);
  actions.insertAdjacentHTML('beforebegin', picker);
}

function openSamplingDialog() {
  if (sampling.dialog) return;
  const dialog = modal('ask-sampling', null, (ev) => {
    // Escape answers the request it was pressed in (or the oldest) as its Deny or Dismiss.
    const card = ev.target.closest?.('section.ask-card') ?? sampling.list.querySelector('section.ask-card');
    card?.querySelector('[data-act="deny"], [data-act="dismiss"]')?.click();
  });
  dialog.setAttribute('aria-label', 'Requests to use your model');
  const list = document.createElement('div');
  list.className = 'ask-cards';
  dialog.append(list);
  dialog.addEventListener('click', onCardClick);
  dialog.addEventListener('input', (ev) => {
    const card = ev.target.closest('section.ask-card');
    if (card && ev.target.name === 'last') sampling.ui.set_draft(card.id, ev.target.value);
    if (card && ev.target.name === 'model') sampling.picked.set(card.id, Number(ev.target.value));
  });
  sampling.dialog = dialog;
  sampling.list = list;
}

async function showCard(id, ctx) {
  const s = samplingUi(ctx);
  // The user's models now (profiles may have changed since the last card).
  s.models = JSON.stringify(await ctx.host('models').catch(() => ({})));
  openSamplingDialog();
  const section = document.createElement('section');
  section.className = 'ask-card';
  section.id = id;
  section.tabIndex = -1;
  section.setAttribute('aria-labelledby', `${id}-title`);
  s.list.append(section);
  paintCard(id);
  // The card, not Approve: a user typing Enter elsewhere must not approve by accident.
  if (s.list.children.length === 1) section.focus();
  announce(`${s.ui.server_name(id)} wants to use your model. Approve or deny the request.`);
}

function removeCard(id) {
  sampling.ui.remove(id);
  cardEl(id)?.remove();
  if (!sampling.list.children.length) {
    const dialog = sampling.dialog;
    sampling.dialog = null;
    sampling.list = null;
    dialog.close();
    dialog.remove();
    dialog.restoreFocus();
  } else {
    sampling.list.querySelector('section.ask-card')?.focus();
  }
}

async function onCardClick(ev) {
  const button = ev.target.closest('[data-act]');
  const card = ev.target.closest('section.ask-card');
  if (!button || !card) return;
  const id = card.id;
  const { ui, ctx } = sampling;
  const name = ui.server_name(id);
  const act = button.dataset.act;
  if (act === 'dismiss') {
    removeCard(id);
  } else if (act === 'deny') {
    const answer = ui.deny(id);
    removeCard(id);
    if (!answer) return;
    try {
      await ctx.host('answer', JSON.parse(answer));
      announce(`Denied ${name}'s request to use your model.`);
    } catch (err) {
      notice(`${name} was not told of the refusal: ${sentence(err)}`, true);
    }
  } else if (act === 'approve') {
    const box = card.querySelector('textarea[name="last"]');
    if (box) ui.set_draft(id, box.value);
    const pick = card.querySelector('select[name="model"]');
    const choice = pick ? ctx.wasm.sampling_model_choice(sampling.models, Number(pick.value)) : '';
    const arg = ui.approve(id);
    paintCard(id);
    if (!arg) {
      focusIn(card, 'textarea[name="last"]');
      return;
    }
    card.focus();
    const call = JSON.parse(arg);
    if (choice) {
      call.choice = JSON.parse(choice);
      localStorage.setItem(MODEL_KEY + ui.server_id(id), choice);
    }
    await sample(id, call);
  }
}

async function sample(id, arg) {
  const { ui, ctx } = sampling;
  const name = ui.server_name(id);
  let result;
  try {
    result = await ctx.host('sample', arg);
  } catch (err) {
    if (!cardEl(id)) return; // denied or gone meanwhile
    ui.failed(id, `Your model could not answer: ${sentence(err)}`);
    paintCard(id);
    return;
  }
  if (!cardEl(id)) return;
  const out = JSON.parse(ui.sampled(id, JSON.stringify(result ?? null)));
  if (out.error !== undefined) {
    paintCard(id);
    return;
  }
  // The tool calls the model asks for are said on the card before they go back (the server
  // runs them, never Skiff).
  const said = ui.chunk(id, '');
  const stream = cardEl(id)?.querySelector('.ask-stream');
  if (stream && said !== undefined) stream.textContent = said;
  try {
    await ctx.host('answer', out.answer);
  } catch (err) {
    ui.failed(id, `The answer could not be sent to ${name}: ${sentence(err)}`);
    paintCard(id);
    return;
  }
  removeCard(id);
  announce(`Sent your model's answer to ${name}.`);
}

// ---------------------------------------------------------------------------------------
// Roots.

async function roots(serverId, ctx) {
  let name = serverId;
  try {
    const servers = await ctx.host('servers');
    const s = (servers ?? []).find((x) => x && x.id === serverId);
    if (s?.name) name = s.name;
  } catch {
    // The name is a nicety: the id names the server as well.
  }
  const key = ctx.wasm.roots_storage_key(serverId);
  let stored = null;
  try {
    stored = localStorage.getItem(key);
  } catch (err) {
    notice(`The roots could not be read: ${sentence(err)}`, true);
    return;
  }
  const ui = new ctx.wasm.RootsUi(serverId, name, stored ?? undefined);
  let dialog = null;
  const close = () => {
    dialog.close();
    dialog.remove();
    ui.free();
    dialog.restoreFocus();
  };
  const paint = (focus) => {
    dialog.innerHTML = ui.html();
    focusIn(dialog, focus);
  };
  const pairs = () => {
    const form = dialog.querySelector('form.ask-root-add');
    return JSON.stringify(form ? [...new FormData(form)].map(([k, v]) => [k, String(v)]) : []);
  };
  const act = async (what) => {
    const out = JSON.parse(ui.act(what, pairs()));
    if (out.draw !== undefined) paint(out.draw);
    else if (out.close) close();
    else if (out.save) {
      try {
        localStorage.setItem(out.save.key, out.save.value);
      } catch (err) {
        ui.failed(`The roots were not saved (the browser's storage refused: ${sentence(err)}).`);
        paint('#ask-root-uri');
        return;
      }
      ui.stored();
      close();
      const count = JSON.parse(out.save.value).roots.length;
      announce(`Saved ${count} root${count === 1 ? '' : 's'} for ${name}.`);
      if (out.save.announce) {
        try {
          await ctx.host('roots', { server: serverId });
        } catch (err) {
          notice(`The roots are saved; ${name} will get them when it next asks (${sentence(err)}).`);
        }
      }
    }
  };
  dialog = modal('ask-roots', 'ask-roots-title', () => act('cancel'));
  dialog.addEventListener('click', (ev) => {
    const el = ev.target.closest('[data-act]');
    if (!el) return;
    ev.preventDefault();
    act(el.dataset.act);
  });
  dialog.addEventListener('submit', (ev) => {
    ev.preventDefault();
    act('add');
  });
  paint('#ask-root-uri');
}

// ---------------------------------------------------------------------------------------

export const ops = {
  slash: (arg, ctx) => slash(String(arg ?? ''), ctx),
  roots: (arg, ctx) => roots(String(arg ?? ''), ctx),
};

/** The one question this file answers; others (elicitation) belong to other features. */
const SAMPLING = 'sampling/createMessage';

export async function onEvent(event, ctx) {
  if (!event || typeof event !== 'object') return;
  if (event.kind === 'ask' && event.method === SAMPLING) {
    const s = samplingUi(ctx);
    const out = JSON.parse(s.ui.ask(JSON.stringify(event), Date.now()));
    if (out.show) {
      await showCard(out.show, ctx);
      return;
    }
    if (out.sentence) notice(out.sentence, true);
    try {
      await ctx.host('answer', out.refuse);
    } catch (err) {
      console.warn('could not refuse a request', err);
    }
  } else if (event.kind === 'ask-gone' && sampling) {
    const id = sampling.ui.gone(JSON.stringify(event));
    if (id) {
      paintCard(id);
      announce(`${sampling.ui.server_name(id)} no longer waits for an answer.`);
    }
  } else if (event.kind === 'chunk' && sampling && typeof event.id === 'string') {
    const text = sampling.ui.chunk(event.id, String(event.text ?? ''));
    const el = text === undefined ? null : cardEl(event.id)?.querySelector('.ask-stream');
    if (el) el.textContent = text;
  } else if (event.kind === 'lists' && prompt?.mode === 'list') {
    // A server's prompts changed while the list is open: read them again.
    const p = prompt;
    try {
      const servers = await ctx.host('servers');
      if (prompt === p && p.mode === 'list') {
        p.ui.refresh(JSON.stringify(servers ?? []));
        paintList();
      }
    } catch (err) {
      console.debug('could not read the servers again', err);
    }
  }
}
