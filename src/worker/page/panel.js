// The panel of the models stored in this browser, shown by Skiff's Settings in a frame.
// It talks to the page's one model worker (the page hands out its bridge as `skiffModels`, see
// src/platform/local_model.rs and bridge.js): the worker renders both parts of the panel as HTML text
// (skiff_core::model_panel) and this script only paints them and posts the user's intents
// back as {op, model, job, value}. Nothing here decides what an intent does.
const host = window.parent;
const form = document.getElementById('form');
const list = document.getElementById('list');

// The page's stylesheet and theme, so the panel looks like the Settings around it.
for (const link of host.document.querySelectorAll('link[rel=stylesheet]')) {
  const copy = document.createElement('link');
  copy.rel = 'stylesheet';
  copy.href = link.href;
  document.head.prepend(copy);
}
const root = host.document.documentElement;
const theme = () => {
  if (root.dataset.theme) document.documentElement.dataset.theme = root.dataset.theme;
  else delete document.documentElement.dataset.theme;
};
theme();
new MutationObserver(theme).observe(root, { attributes: true, attributeFilter: ['data-theme'] });

// The frame grows with what it shows, so Settings scrolls as one page.
const fit = () => {
  if (window.frameElement) window.frameElement.style.height = `${document.documentElement.scrollHeight}px`;
};
new ResizeObserver(fit).observe(document.body);

const say = (sentence) => {
  list.innerHTML = '';
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = sentence;
  list.append(p);
};

const bridge = host.skiffModels;
if (typeof bridge !== 'function') {
  say('This panel belongs to Skiff: open it from Settings → Providers.');
} else {
  let models;
  try {
    models = await bridge();
  } catch (e) {
    say(`The model worker could not be loaded (${e.message}). Reload the page while online.`);
    throw e;
  }
  let worker;
  const post = (m) => worker.postMessage(m);
  const onMessage = (e) => {
    const m = e.data;
    if (m.op === 'form') form.innerHTML = m.html;
    else if (m.op === 'state') list.innerHTML = m.html;
    else return;
    fit();
  };
  const onError = (e) => say(`The model worker could not start${e.message ? `: ${e.message}` : ''}. Reload the page; the worker is stored for offline use once it has run while online.`);
  const release = () => {
    worker.removeEventListener('message', onMessage);
    worker.removeEventListener('error', onError);
  };
  const connect = () => {
    worker = models.start();
    worker.addEventListener('message', onMessage);
    worker.addEventListener('error', onError);
    post({ op: 'panel' });
  };
  connect();
  addEventListener('pagehide', release);

  // A load cannot hear a message until it ends, so its Cancel ends the worker (bridge.js) and
  // connects to a fresh one, after asking when that would also stop files being added.
  const cancelLoad = () => {
    const adding = list.querySelectorAll('.lm-job[data-kind=file]:not(:has(.error)), .lm-job[data-kind=url]:not(:has(.error))').length;
    if (adding && !confirm(`Cancelling the load also stops ${adding === 1 ? 'the model being added' : `the ${adding} models being added`}. Cancel the load?`)) return;
    release();
    models.restart();
    // The ended worker's lines (this load, adds it took with it) are gone; the new one repaints.
    for (const job of list.querySelectorAll('.lm-job')) job.remove();
    connect();
  };

  const act = (el, value) => {
    if (el.dataset.act === 'cancel_load') cancelLoad();
    else post({ op: el.dataset.act, model: el.dataset.model, job: Number(el.dataset.job), value });
  };
  const add = (files) => {
    for (const file of files) post({ op: 'add_file', file });
  };
  document.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-act]');
    if (button) act(button, button.value);
  });
  document.addEventListener('change', (e) => {
    const t = e.target;
    if (t.type === 'file') {
      add(t.files);
      t.value = '';
    } else if (t.dataset.act) {
      act(t, t.value);
    }
  });
  document.addEventListener('submit', (e) => {
    e.preventDefault();
    const url = e.target.elements.url;
    post({ op: 'add_url', url: url.value.trim() });
    url.value = '';
  });
  document.addEventListener('dragover', (e) => {
    e.preventDefault();
    document.body.classList.add('dropping');
  });
  document.addEventListener('dragleave', () => document.body.classList.remove('dropping'));
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    document.body.classList.remove('dropping');
    add(e.dataTransfer.files);
  });
}
