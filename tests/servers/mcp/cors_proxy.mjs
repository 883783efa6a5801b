#!/usr/bin/env node
// CORS-adding proxy for the tests: npm `cors-anywhere`, bound to 127.0.0.1 only, forwarding
// only to loopback targets, printing its port as the first stdout line.
//
// Why: the MCP conformance suite's test servers send no CORS headers, so a browser page can
// only reach them through a proxy that adds them. Skiff is configured with this proxy as the
// server's "proxy prefix": the request URL becomes http://127.0.0.1:PROXY/http://127.0.0.1:SERVER/mcp.
// cors-anywhere answers preflights itself (reflecting the requested method and headers) and
// exposes every upstream response header (so Mcp-Session-Id is readable by the page).
//
// Usage: node cors_proxy.mjs [port]        (0 or absent = any free port)
// Env:   SKIFF_MCP_NPM, SKIFF_MCP_PIDFILE (optional; our pid is written there)
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import http from "node:http";
import { createRequire } from "node:module";

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);
const prefix =
  process.env.SKIFF_MCP_NPM ??
  path.join(process.env.SKIFF_CACHE ?? path.join(os.homedir(), ".cache", "skiff"), "mcp-npm");
const require = createRequire(path.join(prefix, "node_modules", "x.js"));
const corsAnywhere = require("cors-anywhere");

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

const server = corsAnywhere.createServer({
  // Never go through an outside proxy from the environment: targets are on this machine.
  getProxyForUrl: () => "",
  // No redirects: a redirect could lead off the loopback interface.
  maxRedirects: 0,
  handleInitialRequest(req, res, location) {
    if (location && !LOOPBACK.has(location.hostname)) {
      res.writeHead(403, { "content-type": "text/plain", "access-control-allow-origin": "*" });
      res.end(`cors_proxy.mjs forwards to loopback addresses only, not ${location.hostname}\n`);
      return true;
    }
    return false;
  },
});

// cors-anywhere pipes the request into http-proxy, which aborts the upstream request only on the
// request's "aborted" event; current Node does not emit it once the request body has been read,
// so when the page closes a long-lived SSE stream (GET stream, or a POST answered with SSE) the
// upstream connection stayed open forever. That kept stale streams alive and made test servers'
// close() hang. The upstream request is created synchronously inside the request handler, so we
// note the response being handled and tie the next http.request to it.
let handling = null;
const origRequest = http.request;
http.request = function (...args) {
  const upstream = origRequest.apply(this, args);
  const res = handling;
  if (res) {
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
  }
  return upstream;
};
server.prependListener("request", (_req, res) => {
  handling = res;
});
server.on("request", () => {
  handling = null;
});

server.on("error", (err) => {
  console.error(`cors_proxy.mjs: cannot listen on 127.0.0.1:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
  if (process.env.SKIFF_MCP_PIDFILE) fs.writeFileSync(process.env.SKIFF_MCP_PIDFILE, `${process.pid}\n`);
});
process.on("SIGTERM", () => process.exit(0));
