// Where the first visit's time to "input ready" goes: Chromium traces of cold loads (a fresh
// context each, no service worker), summarised as the page's main-thread time by kind of work
// before the message box takes input, and when the files it waits for arrived.
//
//   node scripts/trace-ready.mjs [runs] [DIST ...]     (default: 5 runs of $SKIFF_DIST or dist/)
//
// With several builds, the loads alternate between them (A B A B …), so a machine whose load
// changes during the run skews both alike; compare their medians, never two separate runs.
//
// Kinds (each trace event counted by its self time, so a lazy compile inside a call is not
// counted twice):
//   compile      wasm decoding and compiling on the main thread (streaming, and the functions
//                V8 compiles lazily the first time they run: most of the mount's cost)
//   instantiate  creating the wasm instance (imports, memory, data segments)
//   script       running JS and wasm (the glue, the app's mount, effects), less the compiling
//   style+layout style, layout, paint
//   parse        HTML and CSS parsing
//   loading      navigation, the document's setup
//   other        the rest of the main thread's busy time
//   not running  none of these: waiting for the network, for background compilation, or (on a
//                loaded machine) for a core
// Times are the main thread's CPU time (a trace event's thread time), so another process's
// load shows as "not running", not as slower work.
// "Input ready" is what scripts/bench-size.mjs measures: the message box is in the page and
// not disabled.
import { launchBrowser, startStaticServer, distDir } from '../tests/e2e/harness.mjs';
import path from 'node:path';

const args = process.argv.slice(2);
const runs = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 5;
const dirs = args.length > 0 ? args.map((d) => path.resolve(d)) : [distDir()];

const KINDS = [
  ['compile', /^(wasm\.(Compile|OnBytes|FinishStreaming|GetStreaming|NewNativeModule|PublishCode|AddCompiledCode|FinishAsync|OnCompilation|StartStreaming|Decode)|v8\.wasm\.compile|v8\.compile|V8\.Compile)/],
  ['instantiate', /^(v8\.newInstance|wasm\.(InstanceBuilder|SyncInstantiate|AsyncInstantiate))/],
  // A task's own time is mostly script: the glue's continuation after `await init` runs the
  // wasm (the whole mount) from a microtask, which the trace names no event of its own.
  ['script', /^(RunTask|ThreadControllerImpl::RunTask|v8\.callFunction|FunctionCall|EvaluateScript|v8\.evaluateModule|v8\.run|RunMicrotasks|TimerFire|FireIdleCallback|FireAnimationFrame|EventDispatch|V8\.Execute|v8\.produce)/],
  ['style+layout', /^(Layout|UpdateLayoutTree|PrePaint|Paint|Layerize|Commit|RecalcStyle|UpdateLayer|HitTest)/],
  ['parse', /^(ParseHTML|ParseAuthorStyleSheet)/],
  ['loading', /^(DocumentLoader|LocalWindowProxy|V8\.DeserializeContext|ContextCreated|InstallConditional|NavigationBodyLoader|CommitLoad|ResourceFetcher|URLLoader|ThrottlingURLLoader|ResourceRequestSender|MojoURLLoaderClient)/],
];
const kindOf = (name) => KINDS.find(([, re]) => re.test(name))?.[0] ?? 'other';

/** One cold load of `dir`: input ready, main-thread self time by kind, and arrivals. */
async function load(browser, site) {
  const context = await browser.newContext();
  await context.addInitScript(() => {
    const ready = () => {
      const box = document.querySelector('textarea[aria-label="Message"]');
      if (box && !box.disabled && window.__inputReadyAt === undefined) window.__inputReadyAt = performance.now();
    };
    new MutationObserver(ready).observe(document, { subtree: true, childList: true, attributes: true });
  });
  const page = await context.newPage();
  await browser.startTracing(page, {
    categories: ['devtools.timeline', 'v8', 'v8.wasm', 'disabled-by-default-v8.wasm.detailed', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'loading'],
  });
  await page.goto(site.url + '/');
  await page.waitForFunction(() => window.__inputReadyAt !== undefined, null, { timeout: 60_000 });
  const readyAt = await page.evaluate(() => window.__inputReadyAt);
  const arrived = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('resource')
    .map((e) => [e.name.split('/').pop().replace(/-[0-9a-f]{16}/, '').replace(/_bg\.wasm$/, '.wasm'), e.responseEnd])));
  const trace = JSON.parse((await browser.stopTracing()).toString());
  await context.close();

  const events = trace.traceEvents;
  const key = (e) => `${e.pid}:${e.tid}`;
  // The page's main thread: the CrRendererMain thread that instantiated the wasm (a run may
  // have several renderer threads: the blank page before navigation, the preview frame).
  const renderers = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map(key));
  const instantiated = events.find((e) => renderers.has(key(e)) && (e.name === 'v8.newInstance' || e.name === 'wasm.SyncInstantiate'));
  if (!instantiated) throw new Error('trace-ready: no renderer thread instantiated the wasm');
  const main = key(instantiated);
  const navStart = events.find((e) => e.name === 'navigationStart')?.ts
    ?? Math.min(...events.filter((e) => e.ts).map((e) => e.ts));
  const end = navStart + readyAt * 1000;
  // Complete events on one thread nest; a stack gives each its self time (its duration less
  // its children's), clipped to input ready.
  const xs = events.filter((e) => key(e) === main && e.ph === 'X' && e.dur && e.ts < end).sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const by = Object.fromEntries([...KINDS.map(([k]) => k), 'other'].map((k) => [k, 0]));
  const stack = [];
  // Thread time (`tdur`), not wall time: on a loaded machine a task's wall time includes the
  // moments the thread was not running at all; an event cut by input ready counts in proportion.
  const cpu = (e) => (e.tdur ?? e.dur) * (Math.max(0, Math.min(e.ts + e.dur, end) - e.ts) / e.dur);
  const close = (until) => {
    while (stack.length > 0 && stack.at(-1).e.ts + stack.at(-1).e.dur <= until) {
      const { e, children } = stack.pop();
      by[kindOf(e.name)] += Math.max(0, cpu(e) - children) / 1000;
    }
  };
  for (const e of xs) {
    close(e.ts);
    if (stack.length > 0) stack.at(-1).children += cpu(e);
    stack.push({ e, children: 0 });
  }
  close(Infinity);
  const busy = Object.values(by).reduce((a, b) => a + b, 0);
  // Not running on the main thread: waiting for the network, for background compilation, or
  // for a core (on a loaded machine).
  by['not running'] = Math.max(0, readyAt - busy);
  return { readyAt, by, arrived };
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const sites = await Promise.all(dirs.map((d) => startStaticServer(d)));
const browser = await launchBrowser();
const results = dirs.map(() => []);
try {
  for (let run = 0; run < runs; run++) {
    for (let i = 0; i < dirs.length; i++) {
      const r = await load(browser, sites[i]);
      results[i].push(r);
      const kinds = Object.entries(r.by).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');
      console.log(`run ${run + 1} ${path.basename(dirs[i])}: input ready ${r.readyAt.toFixed(0)} ms (${kinds})`);
    }
  }
  for (let i = 0; i < dirs.length; i++) {
    const rs = results[i];
    console.log(`\n${dirs[i]}: median of ${rs.length} cold loads`);
    console.log(`  input ready ${median(rs.map((r) => r.readyAt)).toFixed(0)} ms (${Math.min(...rs.map((r) => r.readyAt)).toFixed(0)}–${Math.max(...rs.map((r) => r.readyAt)).toFixed(0)})`);
    for (const k of Object.keys(rs[0].by)) console.log(`  ${median(rs.map((r) => r.by[k])).toFixed(1).padStart(7)} ms  ${k}`);
    const files = Object.keys(rs[0].arrived).filter((f) => !f.startsWith('chunk-'));
    const arrivals = files.map((f) => `${f} ${median(rs.map((r) => r.arrived[f] ?? NaN)).toFixed(0)}`);
    console.log(`  arrived (ms after navigation): ${arrivals.join(', ')}`);
  }
} finally {
  await browser.close();
  await Promise.all(sites.map((s) => s.stop()));
}
