#!/usr/bin/env node
// What a page in headless Chromium can and cannot do against each MCP test server: reads
// Mcp-Session-Id, sends the mcp-* headers, opens the legacy SSE stream and the `mcp` WebSocket,
// and what a CORS failure looks like from JavaScript (a bare TypeError) versus in the console.
//
// Why: Skiff runs in a browser, so "curl works" proves nothing about CORS; this is the check
// that the servers used by the end-to-end tests are reachable from a page, and the record of
// how each misconfiguration shows up (for Skiff's error messages).
//
// Run (after `source scripts/setup-mcp.sh`, from the repo root, playwright-core from npm ci):
//   "$SKIFF_NODE22" tests/servers/mcp/browser_cors_check.mjs
// Writes tests/fixtures/mcp/captured/browser/cors-probes.json and prints a summary.
// Exits 1 if a server the tests rely on is not usable from the page.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startServer } from "./servers.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(HERE, "..", "..", "fixtures", "mcp", "captured", "browser");
const CHROMIUM = process.env.SKIFF_CHROMIUM || "/usr/bin/chromium";

// The page: an empty document on its own loopback origin (a different port = cross-origin).
const page_server = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html" });
  res.end("<!doctype html><title>cors probe</title>");
});
await new Promise((r) => page_server.listen(0, "127.0.0.1", r));
const pageUrl = `http://127.0.0.1:${page_server.address().port}/`;

const servers = {};
const start = async (name, kind, extraArgs) => (servers[name] = await startServer(kind, { extraArgs }));
await start("everything-http", "everything-http");
await start("everything-sse", "everything-sse");
await start("modern", "modern");
await start("modern-cors-none", "modern", ["--cors", "none"]);
await start("modern-cors-no-expose", "modern", ["--cors", "no-expose"]);
await start("modern-cors-no-allow-headers", "modern", ["--cors", "no-allow-headers"]);
await start("ws", "ws");
await start("proxy", "cors-proxy");

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
const page = await browser.newPage();
const consoleLines = [];
page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
await page.goto(pageUrl);

const urls = Object.fromEntries(Object.entries(servers).map(([k, s]) => [k, s.url]));
const results = await page.evaluate(async (urls) => {
  const INIT = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "cors-probe", version: "0" } },
  };
  const ACCEPT = "application/json, text/event-stream";
  const describeError = (e) => `${e.name}: ${e.message}`;
  async function post(url, body, headers = {}) {
    try {
      const r = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: ACCEPT, ...headers },
        body: JSON.stringify(body),
      });
      const text = await r.text();
      return {
        ok: true,
        status: r.status,
        contentType: r.headers.get("content-type"),
        sessionIdReadable: r.headers.get("mcp-session-id"),
        body: text.slice(0, 300),
      };
    } catch (e) {
      return { ok: false, error: describeError(e) };
    }
  }
  async function legacyPair(url) {
    const init = await post(url, INIT);
    const sid = init.sessionIdReadable;
    const initialized = sid
      ? await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, {
          "mcp-session-id": sid,
          "mcp-protocol-version": "2025-11-25",
        })
      : { ok: false, error: "skipped: Mcp-Session-Id not readable from JavaScript" };
    const follow = sid
      ? await post(url, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, {
          "mcp-session-id": sid,
          "mcp-protocol-version": "2025-11-25",
          authorization: "Bearer test-token",
        })
      : { ok: false, error: "skipped: Mcp-Session-Id not readable from JavaScript" };
    let getStream = { ok: false, error: "skipped" };
    if (sid) {
      const ctl = new AbortController();
      try {
        const r = await fetch(url, {
          headers: { accept: "text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" },
          signal: ctl.signal,
        });
        getStream = { ok: true, status: r.status, contentType: r.headers.get("content-type") };
        ctl.abort();
      } catch (e) {
        getStream = { ok: false, error: describeError(e) };
      }
    }
    let del = { ok: false, error: "skipped" };
    if (sid) {
      try {
        const r = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" } });
        del = { ok: true, status: r.status, body: (await r.text()).slice(0, 200) };
      } catch (e) {
        del = { ok: false, error: describeError(e) };
      }
    }
    return { initialize: init, initialized, toolsListWithSessionHeaders: follow, getStream, delete: del };
  }
  async function modernDiscover(url) {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "cors-probe", version: "0" },
    };
    return post(url, { jsonrpc: "2.0", id: 5, method: "server/discover", params: { _meta: meta } }, {
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
    });
  }
  function legacySse(url) {
    return new Promise((resolve) => {
      const out = { events: [] };
      const es = new EventSource(url);
      const done = (extra) => {
        es.close();
        resolve({ ...out, ...extra });
      };
      const timer = setTimeout(() => done({ ok: false, error: "timeout" }), 5000);
      es.addEventListener("endpoint", async (ev) => {
        out.events.push({ type: "endpoint", data: ev.data });
        const endpoint = new URL(ev.data, url).href;
        out.post = await post(endpoint, INIT);
      });
      es.addEventListener("message", (ev) => {
        out.events.push({ type: "message", data: ev.data.slice(0, 120) });
        clearTimeout(timer);
        done({ ok: true });
      });
      es.onerror = () => {
        clearTimeout(timer);
        done({ ok: false, error: `EventSource error, readyState ${es.readyState}` });
      };
    });
  }
  function ws(url, protocols) {
    return new Promise((resolve) => {
      const sock = protocols === undefined ? new WebSocket(url) : new WebSocket(url, protocols);
      const timer = setTimeout(() => resolve({ ok: false, error: "timeout" }), 5000);
      sock.onopen = () => sock.send(JSON.stringify(INIT));
      sock.onmessage = (ev) => {
        clearTimeout(timer);
        const r = { ok: true, protocol: sock.protocol, firstFrame: ev.data.slice(0, 160) };
        sock.close(1000);
        resolve(r);
      };
      sock.onclose = (ev) => {
        clearTimeout(timer);
        resolve({ ok: false, closeCode: ev.code, reason: ev.reason, wasClean: ev.wasClean });
      };
    });
  }
  const proxied = (target) => urls.proxy + target;
  return {
    "everything-http (direct)": await legacyPair(urls["everything-http"]),
    "everything-sse (direct, EventSource)": await legacySse(urls["everything-sse"]),
    "modern (direct) legacy era": await legacyPair(urls.modern),
    "modern (direct) modern era server/discover": await modernDiscover(urls.modern),
    "modern --cors none (direct)": await post(urls["modern-cors-none"], INIT),
    "modern --cors none via cors-proxy": await legacyPair(proxied(urls["modern-cors-none"])),
    "modern --cors none via cors-proxy, modern era": await modernDiscover(proxied(urls["modern-cors-none"])),
    "modern --cors no-expose (direct)": await legacyPair(urls["modern-cors-no-expose"]),
    "modern --cors no-allow-headers (direct)": await legacyPair(urls["modern-cors-no-allow-headers"]),
    "ws with subprotocol mcp": await ws(urls.ws, "mcp"),
    "ws without subprotocol": await ws(urls.ws),
  };
}, urls);

await browser.close();
if (process.env.SKIFF_DEBUG) for (const [k, s] of Object.entries(servers)) console.error(`--- ${k} stderr ---\n${s.stderr()}`);
for (const s of Object.values(servers)) await s.stop();
page_server.close();

fs.mkdirSync(OUT, { recursive: true });
const record = {
  note: "Generated by tests/servers/mcp/browser_cors_check.mjs; ports differ on every run.",
  chromium: CHROMIUM,
  pageOrigin: pageUrl,
  results,
  console: consoleLines.map((l) => l.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")),
};
fs.writeFileSync(path.join(OUT, "cors-probes.json"), JSON.stringify(record, null, 2) + "\n");
console.log(JSON.stringify(results, null, 1).slice(0, 20000));
console.log("--- console ---\n" + record.console.join("\n"));

// The servers the end-to-end tests use must work from a page; the misconfigured ones must not.
const must = [
  ["everything-http session header readable", !!results["everything-http (direct)"].initialize.sessionIdReadable],
  ["everything-http follow-up with mcp-* headers", results["everything-http (direct)"].toolsListWithSessionHeaders.status === 200],
  // DELETE right after aborting the GET stream: the server terminates the session (its log says
  // so once) but Chromium sometimes reports 400/404 — it re-sent the idempotent DELETE after the
  // server closed the connection while tearing the session down. Either way the session is gone.
  ["everything-http GET stream + DELETE", results["everything-http (direct)"].getStream.status === 200 && [200, 400].includes(results["everything-http (direct)"].delete.status)],
  ["modern legacy GET stream + DELETE", results["modern (direct) legacy era"].getStream.status === 200 && [200, 404].includes(results["modern (direct) legacy era"].delete.status)],
  ["proxy: GET stream + DELETE", results["modern --cors none via cors-proxy"].getStream.status === 200 && [200, 404].includes(results["modern --cors none via cors-proxy"].delete.status)],
  ["everything-sse endpoint + message", results["everything-sse (direct, EventSource)"].ok === true],
  ["modern legacy session header readable", !!results["modern (direct) legacy era"].initialize.sessionIdReadable],
  ["modern server/discover", results["modern (direct) modern era server/discover"].status === 200],
  ["proxy makes a no-CORS server usable", !!results["modern --cors none via cors-proxy"].initialize.sessionIdReadable],
  ["no-CORS server fails from the page", results["modern --cors none (direct)"].ok === false],
  ["no-expose hides the session id", results["modern --cors no-expose (direct)"].initialize.sessionIdReadable === null],
  ["ws with mcp subprotocol", results["ws with subprotocol mcp"].protocol === "mcp"],
  ["ws without subprotocol fails", results["ws without subprotocol"].ok === false],
];
let bad = 0;
for (const [name, ok] of must) {
  console.log(`${ok ? "ok  " : "FAIL"} ${name}`);
  if (!ok) bad++;
}
console.log(`${must.length - bad} passed, ${bad} failed`);
process.exit(bad ? 1 : 0);
