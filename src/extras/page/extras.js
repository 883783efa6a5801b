// Skiff's on-demand MCP module: the page imports this file the first time the user opens a
// resource browser, a prompt, the roots list, or when a server asks for sampling (README.md
// in src/extras is the contract). `run(op, arg)` is all the page calls.
//
// This file only routes: the wasm (skiff_extras, decisions and HTML from skiff_core) is loaded
// once, each feature module exports its ops, and events fan out to every feature.
import init, * as wasm from './skiff_extras.js';
import * as resources from './resources.js';
import * as asks from './asks.js';
import * as elicit from './elicit.js';

const features = [resources, asks, elicit];

// The module's stylesheets, beside the page's (same origin: the page's CSP allows them).
for (const f of features) {
  if (!f.css) continue;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL(f.css, import.meta.url).href;
  document.head.append(link);
}

const ready = init({ module_or_path: new URL('skiff_extras_bg.wasm', import.meta.url) });

/** Ask the page (src/ui/extras_host.rs): a Promise of the parsed answer; rejects with a sentence. */
const host = async (op, arg) => {
  const bindings = window.wasmBindings;
  if (!bindings || typeof bindings.skiff_host !== 'function') {
    throw new Error('Skiff has not finished starting; try again in a moment.');
  }
  // A File (op "attach") goes as it is; everything else as JSON.
  const text = await bindings.skiff_host(op, arg instanceof File ? arg : JSON.stringify(arg ?? null));
  return text ? JSON.parse(text) : null;
};

const ctx = { host, wasm };

export async function run(op, arg) {
  await ready;
  // index.html imports the module at start while anything of it must live across reloads
  // (a subscription to resume): it stores localStorage "skiff.extras.boot" for that.
  if (op === 'boot') {
    await Promise.all(features.map((f) => (f.onEvent ? f.onEvent({ kind: 'boot' }, ctx) : null)));
    return;
  }
  if (op === 'event') {
    let event;
    try {
      event = JSON.parse(arg);
    } catch {
      return;
    }
    await Promise.all(features.map((f) => (f.onEvent ? f.onEvent(event, ctx) : null)));
    return;
  }
  const feature = features.find((f) => f.ops && Object.hasOwn(f.ops, op));
  if (!feature) throw new Error(`Skiff's MCP module has no "${op}".`);
  return feature.ops[op](arg, ctx);
}

// From now on the page sends every event, not only questions (README.md).
globalThis.skiffExtrasOn = true;
