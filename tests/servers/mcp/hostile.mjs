// A scripted hostile or broken MCP server, for the tests of Skiff's connection supervisor
// (src/core/mcp/supervisor.rs). Plain node:http, no dependencies, bound to 127.0.0.1 only.
//
//   node hostile.mjs MODE [PORT]      prints the port on its first line, then serves
//
// It speaks legacy Streamable HTTP (2025-06-18) with sessions, answering POSTs with JSON, and
// offers a GET stream for server messages. CORS is open (and exposes Mcp-Session-Id) so the
// page can reach it. MODE decides how it misbehaves:
//
//   normal      a well-behaved server with one tool, `echo` (answering after `delay_ms`
//               when the arguments ask for it). Killed and restarted quickly on
//               the same port, it forgets every session and answers the old one the way the
//               TypeScript SDK does: 400 "Bad Request: No valid session ID provided".
//   silent      accepts every request and never answers (the handshake hangs forever).
//   flood-list  well-behaved, but its GET stream sends 500 tools/list_changed a second.
//   flood-ping  well-behaved, but its GET stream sends 1,000 pings a second.
//   ws-drop     accepts every WebSocket upgrade, then drops the connection at once
//               (an abnormal close, code 1006, every time).
//
// GET /stats answers what it saw so far as JSON: {posts, lists, pingAnswers, upgrades,
// upgradeTimes, sessions, deletes, iconFetches, preflights}. Its serverInfo offers two icons: an SVG a
// client must not show, then a PNG at GET /icon.png on its own origin. It never touches the
// network beyond 127.0.0.1.
import { createServer } from "node:http";
import { createHash, randomUUID } from "node:crypto";

const mode = process.argv[2] ?? "normal";
const port = Number(process.argv[3] ?? 0);
const MODES = ["normal", "silent", "flood-list", "flood-ping", "ws-drop"];
if (!MODES.includes(mode)) {
  console.error(`hostile.mjs: unknown mode ${mode} (known: ${MODES.join(", ")})`);
  process.exit(2);
}

const stats = { posts: 0, lists: 0, pingAnswers: 0, upgrades: 0, upgradeTimes: [], sessions: 0, deletes: 0, iconFetches: 0, preflights: [] };
// A 1×1 opaque PNG.
const ICON_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const sessions = new Set();

const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "*",
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  "Access-Control-Expose-Headers": "Mcp-Session-Id",
};

function send(res, status, body, extra = {}) {
  const headers = { ...CORS, ...extra };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  res.writeHead(status, headers);
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

const noSession = { jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" }, id: null };

function answer(msg) {
  switch (msg.method) {
    case "initialize":
      return {
        protocolVersion: "2025-06-18",
        capabilities: { tools: { listChanged: true } },
        serverInfo: {
          name: `hostile-${mode}`,
          version: "1",
          icons: [
            { src: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0naHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmcnLz4=", mimeType: "image/svg+xml" },
            { src: `http://127.0.0.1:${server.address().port}/icon.png`, mimeType: "image/png", sizes: ["1x1"] },
          ],
        },
      };
    case "tools/list":
      stats.lists += 1;
      return {
        tools: [{ name: "echo", description: "Echoes its message.", inputSchema: { type: "object", properties: { message: { type: "string" } } } }],
      };
    case "tools/call":
      return { content: [{ type: "text", text: `Echo: ${msg.params?.arguments?.message ?? ""}` }] };
    case "ping":
      return {};
    default:
      return undefined;
  }
}

/** The server messages a flood mode pushes on a GET stream, `n` per 10 ms tick. */
function startFlood(res) {
  let seq = 0;
  const perTick = mode === "flood-list" ? 5 : 10;
  const timer = setInterval(() => {
    let chunk = "";
    for (let i = 0; i < perTick; i++) {
      const msg = mode === "flood-list"
        ? { jsonrpc: "2.0", method: "notifications/tools/list_changed" }
        : { jsonrpc: "2.0", id: `srv-${seq++}`, method: "ping" };
      chunk += `event: message\ndata: ${JSON.stringify(msg)}\n\n`;
    }
    res.write(chunk);
  }, 10);
  res.on("close", () => clearInterval(timer));
}

function readBody(req) {
  return new Promise((resolve) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => resolve(body));
  });
}

const server = createServer(async (req, res) => {
  if (req.method === "OPTIONS") {
    stats.preflights.push(String(req.headers["access-control-request-method"] ?? ""));
    return send(res, 204);
  }
  if (req.method === "GET" && req.url === "/stats") return send(res, 200, stats);
  if (req.method === "GET" && req.url === "/icon.png") {
    stats.iconFetches += 1;
    res.writeHead(200, { ...CORS, "Content-Type": "image/png" });
    return res.end(ICON_PNG);
  }
  if (mode === "silent") {
    // Accept, then say nothing, ever (the connection stays open until the client leaves).
    res.writeHead(200, { ...CORS, "Content-Type": "text/event-stream" });
    res.flushHeaders();
    return;
  }
  const sid = req.headers["mcp-session-id"];
  if (req.method === "GET") {
    if (!sid || !sessions.has(sid)) return send(res, 400, noSession);
    res.writeHead(200, { ...CORS, "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.flushHeaders();
    if (mode === "flood-list" || mode === "flood-ping") startFlood(res);
    return;
  }
  if (req.method === "DELETE") {
    stats.deletes += 1;
    sessions.delete(sid);
    return send(res, 200);
  }
  if (req.method !== "POST") return send(res, 405);
  stats.posts += 1;
  let msg;
  try {
    msg = JSON.parse(await readBody(req));
  } catch {
    return send(res, 400, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
  }
  if (msg.method === "initialize") {
    const fresh = randomUUID();
    sessions.add(fresh);
    stats.sessions += 1;
    return send(res, 200, { jsonrpc: "2.0", id: msg.id, result: answer(msg) }, { "Mcp-Session-Id": fresh });
  }
  if (!sid || !sessions.has(sid)) return send(res, 400, noSession);
  if (msg.method === undefined) {
    // A response to one of our pings.
    if (String(msg.id).startsWith("srv-")) stats.pingAnswers += 1;
    return send(res, 202);
  }
  if (msg.id === undefined) return send(res, 202);
  // `echo` with `delay_ms` answers late, so a call can be in flight across re-lists.
  const delay = Number(msg.params?.arguments?.delay_ms ?? 0);
  if (msg.method === "tools/call" && delay > 0) await new Promise((r) => setTimeout(r, Math.min(delay, 10_000)));
  const result = answer(msg);
  if (result === undefined) {
    return send(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
  }
  return send(res, 200, { jsonrpc: "2.0", id: msg.id, result });
});

// ws-drop: complete the WebSocket handshake, then drop the TCP connection without a close
// frame (the browser reports code 1006).
server.on("upgrade", (req, socket) => {
  stats.upgrades += 1;
  stats.upgradeTimes.push(Date.now());
  if (mode !== "ws-drop") return socket.destroy();
  const key = req.headers["sec-websocket-key"] ?? "";
  const accept = createHash("sha1").update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  const protocol = String(req.headers["sec-websocket-protocol"] ?? "").split(",")[0].trim();
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Accept: ${accept}\r\n` +
      (protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : "") +
      "\r\n",
  );
  setTimeout(() => socket.destroy(), 50);
});

server.listen(port, "127.0.0.1", () => {
  console.log(server.address().port);
});
