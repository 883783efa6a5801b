// An MCP server whose every string is hostile: its serverInfo name, its instructions, its tool
// descriptions and its tool results come from a corpus file (tests/fixtures/hostile/), for
// tests/e2e/hostile.test.mjs. Plain node:http, no dependencies, bound to 127.0.0.1 only.
//
//   node corpus_server.mjs PAYLOADS.json     prints the port on its first line, then serves
//
// PAYLOADS.json is a JSON array of strings (the test writes it with its own placeholders
// filled in). It speaks legacy Streamable HTTP (2025-06-18) with sessions, answering POSTs with
// JSON, like hostile.mjs's `normal` mode. Tools: `corpus_echo` (returns every payload as text
// content) and one `corpus_N` per payload, whose description is that payload.
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";

const payloads = JSON.parse(readFileSync(process.argv[2], "utf8"));
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

const schema = { type: "object", properties: { message: { type: "string" } } };

function answer(msg) {
  switch (msg.method) {
    case "initialize":
      return {
        protocolVersion: "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: payloads.slice(0, 6).join(" "), version: payloads[6] ?? "1" },
        instructions: payloads.join("\n\n"),
      };
    case "tools/list":
      return {
        tools: [
          { name: "corpus_echo", description: payloads.join("\n"), inputSchema: schema },
          ...payloads.map((p, i) => ({ name: `corpus_${i}`, title: p, description: p, inputSchema: schema })),
        ],
      };
    case "tools/call":
      return {
        content: [
          ...payloads.map((text) => ({ type: "text", text })),
          { type: "resource_link", uri: "javascript:__pwned('resource-link')", name: payloads[0], description: payloads[1] },
        ],
      };
    case "ping":
      return {};
    default:
      return undefined;
  }
}

function readBody(req) {
  return new Promise((resolve) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => resolve(body));
  });
}

const server = createServer(async (req, res) => {
  if (req.method === "OPTIONS") return send(res, 204);
  const sid = req.headers["mcp-session-id"];
  if (req.method === "GET") {
    // A quiet server-message stream (the page's console would log a refused GET as an error).
    res.writeHead(200, { ...CORS, "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    res.flushHeaders();
    return;
  }
  if (req.method === "DELETE") {
    sessions.delete(sid);
    return send(res, 200);
  }
  if (req.method !== "POST") return send(res, 405);
  let msg;
  try {
    msg = JSON.parse(await readBody(req));
  } catch {
    return send(res, 400, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null });
  }
  if (msg.method === "initialize") {
    const fresh = randomUUID();
    sessions.add(fresh);
    return send(res, 200, { jsonrpc: "2.0", id: msg.id, result: answer(msg) }, { "Mcp-Session-Id": fresh });
  }
  // Legacy servers refuse anything but initialize without a session: Skiff's `server/discover`
  // probe gets this 400 and falls back to the legacy handshake.
  if (!sid || !sessions.has(sid)) return send(res, 400);
  if (msg.id === undefined || msg.method === undefined) return send(res, 202);
  const result = answer(msg);
  if (result === undefined) {
    return send(res, 200, { jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found" } });
  }
  return send(res, 200, { jsonrpc: "2.0", id: msg.id, result });
});

server.listen(0, "127.0.0.1", () => {
  console.log(server.address().port);
});
