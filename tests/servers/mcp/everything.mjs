#!/usr/bin/env node
// Runs the unmodified @modelcontextprotocol/server-everything transport module
// (streamableHttp or sse) bound to 127.0.0.1 only, and prints the real port as
// the first stdout line.
//
// Why a wrapper: the upstream transports call `app.listen(PORT)` with no host,
// which listens on every interface, and they log to stdout before listening.
// We patch net.Server#listen before importing them, so the upstream code
// (routes, CORS, session handling) runs exactly as published.
//
// Usage: node everything.mjs streamableHttp|sse [port]   (port 0 or absent = any free port)
// Env:   SKIFF_MCP_NPM  prefix where setup-mcp.sh installed the npm packages
//        SKIFF_MCP_PIDFILE  optional; our pid is written there
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { pathToFileURL } from "node:url";

const mode = process.argv[2];
if (mode !== "streamableHttp" && mode !== "sse") {
  console.error("usage: everything.mjs streamableHttp|sse [port]");
  process.exit(2);
}
const port = Number(process.argv[3] ?? process.env.PORT ?? 0);
const prefix =
  process.env.SKIFF_MCP_NPM ??
  path.join(process.env.SKIFF_CACHE ?? path.join(os.homedir(), ".cache", "skiff"), "mcp-npm");
const pkg = path.join(prefix, "node_modules", "@modelcontextprotocol", "server-everything");

// stdout belongs to us: first line is the port. Upstream chatter goes to stderr.
const writeOut = process.stdout.write.bind(process.stdout);
console.log = (...a) => console.error(...a);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

const origListen = net.Server.prototype.listen;
let bound = false;
net.Server.prototype.listen = function (...args) {
  if (bound) return origListen.apply(this, args);
  bound = true;
  const cb = args.find((a) => typeof a === "function");
  this.once("listening", () => {
    writeOut(`${this.address().port}\n`);
  });
  this.once("error", (err) => {
    console.error(`everything.mjs: cannot listen on 127.0.0.1:${port}: ${err.message}`);
    process.exit(1);
  });
  return origListen.call(this, port, "127.0.0.1", cb);
};

if (process.env.SKIFF_MCP_PIDFILE) fs.writeFileSync(process.env.SKIFF_MCP_PIDFILE, `${process.pid}\n`);
process.on("SIGTERM", () => process.exit(0));
await import(pathToFileURL(path.join(pkg, "dist", "transports", `${mode === "sse" ? "sse" : "streamableHttp"}.js`)).href);
