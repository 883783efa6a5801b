// Records the `tools/list` of real MCP servers (over stdio, as their own packages start them)
// into one JSON file, the input of the tool-budget measurement
// (`cargo test -p skiff-core tool_budget -- --nocapture`). Listing tools calls no API, so
// the servers that need an account get placeholder credentials.
//
//   node scripts/list-tools.mjs <node_modules folder holding the servers and @modelcontextprotocol/sdk> <out.json> [python bin folder]
//
// The optional third argument is a virtualenv's bin folder with PyPI's mcp-server-git and
// mcp-server-time installed (their tools join the list).
import { createRequire } from 'node:module';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const [modules, out, pyBin] = process.argv.slice(2);
if (!modules || !out) {
  console.error('usage: node scripts/list-tools.mjs <node_modules> <out.json>');
  process.exit(2);
}
const require = createRequire(path.join(modules, 'x.js'));
const { Client } = await import(require.resolve('@modelcontextprotocol/sdk/client/index.js'));
const { StdioClientTransport } = await import(require.resolve('@modelcontextprotocol/sdk/client/stdio.js'));

const scratch = mkdtempSync(path.join(tmpdir(), 'skiff-tools-'));
const servers = [
  ['everything', '@modelcontextprotocol/server-everything', 'dist/index.js', ['stdio'], {}],
  ['github', '@modelcontextprotocol/server-github', 'dist/index.js', [], { GITHUB_PERSONAL_ACCESS_TOKEN: 'placeholder' }],
  ['gitlab', '@modelcontextprotocol/server-gitlab', 'dist/index.js', [], { GITLAB_PERSONAL_ACCESS_TOKEN: 'placeholder' }],
  ['filesystem', '@modelcontextprotocol/server-filesystem', 'dist/index.js', [scratch], {}],
  ['memory', '@modelcontextprotocol/server-memory', 'dist/index.js', [], { MEMORY_FILE_PATH: path.join(scratch, 'memory.json') }],
  ['slack', '@modelcontextprotocol/server-slack', 'dist/index.js', [], { SLACK_BOT_TOKEN: 'placeholder', SLACK_TEAM_ID: 'T0' }],
  ['sequential-thinking', '@modelcontextprotocol/server-sequential-thinking', 'dist/index.js', [], {}],
  ['puppeteer', '@modelcontextprotocol/server-puppeteer', 'dist/index.js', [], {}],
];

const python = pyBin
  ? [
    ['git', 'mcp-server-git (PyPI)', path.join(pyBin, 'mcp-server-git'), ['--repository', path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')]],
    ['time', 'mcp-server-time (PyPI)', path.join(pyBin, 'mcp-server-time'), ['--local-timezone', 'UTC']],
  ]
  : [];

const result = [];
const all = [
  ...servers.map(([name, pkg, main, args, env]) => ({ name, pkg, main, args, env })),
  ...python.map(([name, pkg, command, args]) => ({ name, pkg, command, args, env: {} })),
];
for (const { name, pkg, main, command, args, env } of all) {
  let launch;
  if (command) {
    launch = { command, args };
  } else {
    try {
      launch = { command: process.execPath, args: [path.join(path.dirname(require.resolve(`${pkg}/package.json`)), main), ...args] };
    } catch {
      console.error(`${name}: ${pkg} is not installed under ${modules}; skipped`);
      continue;
    }
  }
  const transport = new StdioClientTransport({
    ...launch,
    env: { ...process.env, ...env },
    stderr: 'ignore',
  });
  // The capabilities Skiff declares: some servers list more tools to a client that has them.
  const client = new Client(
    { name: 'skiff-tool-budget', version: '1' },
    { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} } },
  );
  client.setRequestHandler((await import(require.resolve('@modelcontextprotocol/sdk/types.js'))).ListRootsRequestSchema, () => ({ roots: [] }));
  await client.connect(transport);
  // Tools registered once the client is known arrive with a list_changed; let them.
  await new Promise((r) => setTimeout(r, 500));
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  await client.close();
  const label = command ? pkg : `${pkg}@${require(`${pkg}/package.json`).version}`;
  console.log(`${name} (${label}): ${tools.length} tools`);
  result.push({ server: name, package: label, tools });
}
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
console.log(`${result.reduce((n, s) => n + s.tools.length, 0)} tools → ${out}`);
