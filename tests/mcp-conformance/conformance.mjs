#!/usr/bin/env node
// Runs the unmodified @modelcontextprotocol/conformance CLI (dist/index.js) with every server it
// starts bound to 127.0.0.1.
//
// Why a wrapper: its scenario servers call `listen(0)` with no host, i.e. on all interfaces,
// and hand the client `http://localhost:PORT…`. Tests here stay on loopback, so we patch
// net.Server to bind 127.0.0.1 instead before loading the CLI. Arguments pass
// through unchanged: `node conformance.mjs client --command "…" --scenario initialize`.
// Needs Node >= 22 (run it with $SKIFF_NODE22). SKIFF_CONFORMANCE_VERSION picks the suite (one of
// tests/mcp-conformance/package.json's `conformance-<version>` aliases; default the newest);
// SKIFF_CONFORMANCE_NPM locates the prefix they are installed in (scripts/setup-mcp.sh).
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import os from "node:os";
import { pathToFileURL } from "node:url";

// Patch the step after argument parsing: listen(0) with no host reaches _listen2 with a null
// address (meaning "all interfaces") synchronously; giving listen() a host instead would add an
// async DNS lookup, and the suite reads server.address().port right after listen() returns.
const origListen2 = net.Server.prototype._listen2;
if (typeof origListen2 !== "function") {
  console.error("conformance.mjs: this Node has no net.Server#_listen2; cannot force 127.0.0.1");
  process.exit(1);
}
net.Server.prototype._listen2 = function (address, port, addressType, ...rest) {
  if (address === null || address === undefined || address === "::" || address === "0.0.0.0") {
    return origListen2.call(this, "127.0.0.1", port, 4, ...rest);
  }
  return origListen2.call(this, address, port, addressType, ...rest);
};

const prefix =
  process.env.SKIFF_CONFORMANCE_NPM ??
  path.join(process.env.SKIFF_CACHE ?? path.join(os.homedir(), ".cache", "skiff"), "mcp-conformance");
const version = process.env.SKIFF_CONFORMANCE_VERSION || "0.2.0-alpha.12";
const entry = path.join(prefix, "node_modules", `conformance-${version}`, "dist", "index.js");
if (!fs.existsSync(entry)) {
  console.error(`conformance.mjs: no conformance suite ${version} at ${entry} (run scripts/setup-mcp.sh)`);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
