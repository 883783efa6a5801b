#!/usr/bin/env node
// An MCP server that runs its own tool loop through the client's model (sampling with tools,
// MCP 2025-11-25 / SEP-1577), for tests/e2e/sampling.test.mjs. It is the published
// @modelcontextprotocol/sdk (the copy scripts/setup-mcp.sh installs), whose `createMessage`
// checks the client's `sampling.tools` capability and the tool_use/tool_result pairing, over
// Streamable HTTP with sessions, bound to 127.0.0.1 only, with CORS for the page.
//
// Tool `weather_report {city}`: asks the client's model (sampling/createMessage) with the tool
// `get_weather` offered; while the model answers `stopReason: "toolUse"`, it runs get_weather
// itself (the client never does) and asks again with the tool_result blocks; it returns the
// model's final text as "Final answer: ...", and each request it sent in `structuredContent`.
//
//   node sampling_tools.mjs [port]     prints the port on its first line, then serves /mcp
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";

const prefix =
  process.env.SKIFF_MCP_NPM ??
  path.join(process.env.SKIFF_CACHE ?? path.join(os.homedir(), ".cache", "skiff"), "mcp-npm");
const sdk = (p) =>
  import(pathToFileURL(path.join(prefix, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", p)).href);
const { Server } = await sdk("server/index.js");
const { StreamableHTTPServerTransport } = await sdk("server/streamableHttp.js");
const { ListToolsRequestSchema, CallToolRequestSchema, isInitializeRequest } = await sdk("types.js");

const GET_WEATHER = {
  name: "get_weather",
  description: "Current weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
/** The tool the server runs for the model: fixed weather, so a test can assert on it. */
function getWeather(input) {
  const city = typeof input?.city === "string" ? input.city : "";
  if (!city) return { content: [{ type: "text", text: "get_weather needs a city." }], isError: true };
  return { content: [{ type: "text", text: `Sunny, 21 degrees in ${city}` }] };
}
/** Model rounds before the server gives up (a model that keeps calling tools). */
const MAX_ROUNDS = 3;

function build() {
  const server = new Server({ name: "sampling-tools", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "weather_report",
        description: "Ask the client's model for a weather report; it may call get_weather.",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    if (req.params.name !== "weather_report") {
      return { content: [{ type: "text", text: `Unknown tool ${req.params.name}` }], isError: true };
    }
    const city = String(req.params.arguments?.city ?? "Paris");
    const messages = [{ role: "user", content: { type: "text", text: `What is the weather in ${city}?` } }];
    const sent = [];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const params = {
        messages: structuredClone(messages),
        systemPrompt: "You report the weather. Call get_weather for facts.",
        tools: [GET_WEATHER],
        toolChoice: { mode: "auto" },
        maxTokens: 200,
      };
      sent.push(params);
      // On the tool call's own response stream (Streamable HTTP), as a nested request must go.
      const r = await server.createMessage(params, { relatedRequestId: extra.requestId });
      const content = Array.isArray(r.content) ? r.content : [r.content];
      if (r.stopReason !== "toolUse") {
        const text = content.filter((c) => c.type === "text").map((c) => c.text).join("");
        return {
          content: [{ type: "text", text: `Final answer: ${text}` }],
          structuredContent: { rounds: round + 1, sent, last: r },
        };
      }
      messages.push({ role: "assistant", content });
      messages.push({
        role: "user",
        content: content
          .filter((c) => c.type === "tool_use")
          .map((c) => ({ type: "tool_result", toolUseId: c.id, ...(c.name === "get_weather" ? getWeather(c.input) : { content: [{ type: "text", text: `No tool ${c.name}` }], isError: true }) })),
      });
    }
    return { content: [{ type: "text", text: `The model still called tools after ${MAX_ROUNDS} rounds.` }], isError: true };
  });
  return server;
}

const transports = new Map();
const CORS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "*",
  "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
  "Access-Control-Expose-Headers": "Mcp-Session-Id, Mcp-Protocol-Version",
};

async function readJson(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

const httpServer = http.createServer(async (req, res) => {
  for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
  if (req.method === "OPTIONS") return res.writeHead(204).end();
  if (new URL(req.url, "http://x").pathname !== "/mcp") return res.writeHead(404).end();
  try {
    const body = req.method === "POST" ? await readJson(req) : undefined;
    const sid = req.headers["mcp-session-id"];
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport) {
      if (sid || req.method !== "POST" || !isInitializeRequest(body)) {
        res.writeHead(sid ? 404 : 400, { "Content-Type": "application/json" });
        return res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message: "No such session" } }));
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (err) {
    console.error("sampling_tools.mjs:", err);
    if (!res.headersSent) res.writeHead(500).end();
  }
});

process.on("SIGTERM", () => process.exit(0));
httpServer.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${httpServer.address().port}\n`);
});
