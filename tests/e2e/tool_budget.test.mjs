// End-to-end: the tool budget. The context gauge shows what the tools' definitions cost every
// request; "Load tools on demand" (Tools picker, per conversation) sends the model only
// `find_tools` with a one-line list, the scripted model (tests/servers/openai_compat.py)
// loads `echo` through it, then calls `echo` on the real server-everything, and answers.
// Prints the tool tokens each request carried, with and without discovery.
//
// What it must never do: listen on anything but 127.0.0.1 or wait without a bound.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  startOpenAiServer, startStaticServer, launchBrowser, screenshot, collectConsoleErrors, distDir,
  rustConst, requireServerEverything,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const MODEL = 'skiff-budget-model';
const SERVER_ID = 'everything';
const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

let api, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  requireServerEverything();
  api = await startOpenAiServer({ models: [MODEL] });
  site = await startStaticServer();
  browser = await launchBrowser();
  mcp = await startServer('everything-http');
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await mcp?.stop();
});

/** What a request's tool definitions cost, the way core::pipeline::tokens counts ASCII. */
const toolTokens = (body) => Math.ceil(JSON.stringify(body.tools ?? []).length / 4);

const answerDone = (page, text) => page.waitForFunction(
  (t) => {
    const all = document.querySelectorAll('article.message-assistant');
    const a = all[all.length - 1];
    return a?.dataset.status === 'done' && a.innerText.includes(t);
  },
  text,
  { timeout: WAIT_MS },
);

test('a. the gauge shows the tools; with tools loaded on demand the model finds echo, calls it, and every request carries far fewer tool tokens', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const settings = JSON.stringify({
    v: 1,
    data: {
      base_url: `${api.url}/v1`, auto_title: false, api_key: '', model: MODEL, system_prompt: '',
      theme: 'system', tool_mode: 'native', step_limit: 15, result_char_limit: 16000,
      tool_images_to_model: false,
      approvals: { rules: { [`${SERVER_ID}\u001fecho`]: 'always' }, allow_read_only: false },
      learned_tool_modes: {},
    },
  });
  const servers = JSON.stringify({
    v: SERVERS_VERSION,
    data: { servers: [{ id: SERVER_ID, name: SERVER_ID, url: mcp.url, transport: 'auto', headers: [], enabled: true }] },
  });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settings, servers]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const wire = [];
  page.on('request', (r) => wire.push({ url: r.url(), body: r.postData() ?? '' }));
  try {
    await page.goto(site.url);
    await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
    // server-everything's tools and the built-in tools (their own chunk, attached when the page
    // is idle) both listed: at least server-everything's 13, and the count settled for a second.
    const toolCount = () => page.evaluate(() => Number((document.querySelector('.tool-picker-toggle')?.innerText || '').replace(/\D+/g, '')));
    for (let t0 = Date.now(), last = -1, since = Date.now(); ;) {
      const n = await toolCount();
      if (n !== last) [last, since] = [n, Date.now()];
      if (n >= 13 && Date.now() - since >= 1000) break;
      if (Date.now() - t0 > WAIT_MS) throw new Error(`the tools never settled (last count ${n})`);
      await page.waitForTimeout(100);
    }

    // Every tool offered: the gauge names the tools' share.
    await api.script([{ reply: 'Plain answer.' }]);
    await page.fill('textarea[aria-label="Message"]', 'Hello');
    await page.keyboard.press('Enter');
    await answerDone(page, 'Plain answer.');
    const gaugeText = await page.locator('.context-gauge-text').innerText();
    assert.match(gaugeText, /tools ≈[\d.]+k? \(\d+ %\)/, gaugeText);

    // This conversation loads tools on demand.
    await page.locator('.tool-picker-toggle').click();
    await page.locator('.tool-discovery input').check();
    await page.locator('.tool-picker-toggle').click();
    await page.waitForFunction(
      (before) => document.querySelector('.context-gauge-text')?.innerText !== before,
      gaugeText,
      { timeout: WAIT_MS },
    );
    const gaugeAfter = await page.locator('.context-gauge-text').innerText();

    await api.script([
      { tool_calls: [{ name: 'find_tools', arguments: { query: 'echo back the input' }, id: 'call_find' }] },
      { tool_calls: [{ name: 'echo', arguments: { message: 'found on demand' }, id: 'call_echo' }] },
      { reply: 'Echoed it.' },
    ]);
    await page.fill('textarea[aria-label="Message"]', 'Echo something');
    await page.keyboard.press('Enter');
    await answerDone(page, 'Echoed it.');

    const reqs = (await api.requests()).map((r) => r.body);
    assert.equal(reqs.length, 4);
    const names = (b) => (b.tools ?? []).map((t) => t.function.name);
    assert.ok(names(reqs[0]).length >= 13, `all tools first: ${names(reqs[0])}`);
    assert.deepEqual(names(reqs[1]), ['find_tools'], 'on demand: one tool');
    assert.match(reqs[1].tools[0].function.description, /\n- echo: /);
    assert.ok(names(reqs[2]).includes('echo'), `echo loaded for the next step: ${names(reqs[2])}`);
    assert.ok(names(reqs[3]).includes('echo'), 'and stays loaded');
    const echoes = wire
      .filter((r) => r.url.startsWith(new URL(mcp.url).origin) && r.body.includes('"tools/call"'))
      .map((r) => JSON.parse(r.body))
      .filter((m) => m.params?.name === 'echo');
    assert.equal(echoes.length, 1, 'echo ran once on the server');
    assert.deepEqual(echoes[0].params.arguments, { message: 'found on demand' });
    assert.equal(await page.locator('details.tool-card[data-call-id="call_echo"]').getAttribute('data-status'), 'done');

    const [all, onDemand, loaded] = [toolTokens(reqs[0]), toolTokens(reqs[1]), toolTokens(reqs[2])];
    console.log(`tool tokens per request (server-everything, ${names(reqs[0]).length} tools): all offered ≈${all}; on demand ≈${onDemand}; after loading echo ≈${loaded}. Gauge before: "${gaugeText}"; after: "${gaugeAfter}"`);
    assert.ok(onDemand < all, `${onDemand} < ${all}`);
    assert.deepEqual(errors.filter((e) => /panicked|RuntimeError|uncaught|CSP violation/i.test(e)), []);
  } catch (err) {
    await screenshot(page, 'tool-budget-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
