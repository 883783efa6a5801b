// Where the first visit's time to "input ready" goes: a Chromium trace of a cold load (fresh
// context, no service worker), summarised as the main thread's busy time per kind of work
// (wasm compile, script, layout, parse…) before the message box takes input.
//   SKIFF_DIST=dist node scripts/trace-ready.mjs [runs]
import { launchBrowser, startStaticServer, distDir } from '../tests/e2e/harness.mjs';

const runs = Number(process.argv[2] ?? 3);
const site = await startStaticServer(distDir());
const browser = await launchBrowser();
try {
  for (let run = 0; run < runs; run++) {
    const context = await browser.newContext();
    await context.addInitScript(() => {
      const ready = () => {
        const box = document.querySelector('textarea[aria-label="Message"]');
        if (box && window.__inputReadyAt === undefined) window.__inputReadyAt = performance.now();
      };
      new MutationObserver(ready).observe(document, { subtree: true, childList: true });
    });
    const page = await context.newPage();
    await browser.startTracing(page, { categories: ['devtools.timeline', 'v8', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'loading'] });
    await page.goto(site.url + '/');
    await page.waitForFunction(() => window.__inputReadyAt !== undefined, null, { timeout: 60_000 });
    const readyAt = await page.evaluate(() => window.__inputReadyAt);
    const nav = await page.evaluate(() => performance.timeOrigin * 1000);
    const trace = JSON.parse((await browser.stopTracing()).toString());
    const events = trace.traceEvents;
    // The page's main thread: a CrRendererMain thread, the busiest one.
    const renderers = new Set(events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`));
    const counts = new Map();
    for (const e of events) if (renderers.has(`${e.pid}:${e.tid}`) && e.ph === 'X') counts.set(`${e.pid}:${e.tid}`, (counts.get(`${e.pid}:${e.tid}`) ?? 0) + (e.dur ?? 0));
    const main = [...counts].sort((a, b) => b[1] - a[1])[0][0];
    const nameOf = new Map();
    const navStart = events.find((e) => e.name === 'navigationStart' || e.name === 'NavigationTiming')?.ts ?? Math.min(...events.filter((e) => e.ts).map((e) => e.ts));
    const end = navStart + readyAt * 1000;
    const by = new Map();
    for (const e of events) {
      if (`${e.pid}:${e.tid}` !== main || e.ph !== 'X' || !e.dur || e.ts > end) continue;
      if (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') continue;
      by.set(e.name, (by.get(e.name) ?? 0) + Math.min(e.dur, end - e.ts) / 1000);
    }
    const top = [...by].sort((a, b) => b[1] - a[1]).slice(0, 14);
    console.log(`run ${run + 1}: input ready ${readyAt.toFixed(0)} ms (timeOrigin ${nav.toFixed(0)})`);
    for (const [n, ms] of top) console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${n}`);
    await context.close();
  }
} finally {
  await browser.close();
  await site.stop();
}
