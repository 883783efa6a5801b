#!/usr/bin/env node
// HARNESS CHECK ONLY — NOT SKIFF. A minimal MCP client built on the official TypeScript SDK
// (@modelcontextprotocol/sdk, installed in $SKIFF_MCP_NPM as a dependency of server-everything).
// It exists to prove that the conformance plumbing (conformance.mjs, loopback binding, the CORS
// proxy prefix) lets a correct client pass; its results say nothing about Skiff.
//
// Invoked by the suite as: <command> <server URL>, with MCP_CONFORMANCE_SCENARIO set.
// Env SKIFF_CORS_PROXY (e.g. http://127.0.0.1:8099/): prefix the server URL with the CORS proxy,
// exactly as Skiff's "proxy" setting does, so the run also proves the proxy path.
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const prefix =
  process.env.SKIFF_MCP_NPM ??
  path.join(process.env.SKIFF_CACHE ?? path.join(os.homedir(), ".cache", "skiff"), "mcp-npm");
const req = createRequire(path.join(prefix, "node_modules", "x.js"));
const load = async (spec) => import(pathToFileURL(req.resolve(spec)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { ElicitRequestSchema } = await load("@modelcontextprotocol/sdk/types.js");

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const serverUrl = process.argv[process.argv.length - 1];
const url = (process.env.SKIFF_CORS_PROXY ?? "") + serverUrl;
console.log(`sdk-reference-client: scenario=${scenario} url=${url}`);

const capabilities = scenario.startsWith("elicitation") ? { elicitation: { form: { applyDefaults: true } } } : {};
const client = new Client({ name: "sdk-reference-client", version: "0.0.0" }, { capabilities });
if (capabilities.elicitation) {
  // Accept with no content: the SDK fills in the schema defaults (SEP-1034).
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: {} }));
}
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
console.log(`connected: protocol ${transport.protocolVersion ?? "?"}, server ${JSON.stringify(client.getServerVersion())}`);

if (scenario !== "initialize") {
  const { tools } = await client.listTools();
  console.log(`tools: ${tools.map((t) => t.name).join(", ")}`);
  const call = async (name, args) => {
    const res = await client.callTool({ name, arguments: args });
    console.log(`${name} -> ${JSON.stringify(res.content)}`);
  };
  if (scenario === "tools_call") await call("add_numbers", { a: 5, b: 3 });
  else if (scenario === "sse-retry") await call("test_reconnection", {});
  else if (scenario.startsWith("elicitation")) await call("test_client_elicitation_defaults", {});
  else for (const t of tools) await call(t.name, {});
}
await transport.terminateSession().catch(() => {});
await client.close();
console.log("done");
