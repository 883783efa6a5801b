// Puts Skiff's Content-Security-Policy into DIST/index.html, after the build wrote it and before
// scripts/pwa-precache.mjs hashes the build. The page holds API keys and shows text from
// models and MCP servers, so even if a rendering bug let markup through, the browser must
// refuse to run it:
// - scripts: this origin's files, plus the one inline script by its sha256 (computed here
//   from the exact bytes the build wrote, since the app's module script names this build's
//   hashed files); plus
//   'wasm-unsafe-eval' to compile the module. No other inline script, no eval, no handlers.
// - connect-src is open: providers and MCP servers are wherever the user points them.
// - images and audio: this origin, data: (tool results) and blob:; no plugins, no <base>, no
//   form posts.
// - frames: 'self' only, for the code-block previews (pwa/preview.html, loaded sandboxed with
//   allow-scripts alone, so it runs in an opaque origin). Chromium makes an about:srcdoc frame
//   inherit this policy, so a srcdoc preview could run no inline script or style at all; a
//   frame loaded from this origin gets its own policy (no network) instead. 'self' also
//   refuses every navigation the preview attempts to any other origin (meta refresh,
//   location, links). A path cannot be named without the host, which varies by deployment.
// A <meta> policy cannot set frame-ancestors or reporting; a host that can send headers may
// add them. The e2e suite fails on any securitypolicyviolation (tests/e2e/harness.mjs).
//   node scripts/csp.mjs DIST
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dist = path.resolve(process.argv[2] ?? 'dist');
const file = path.join(dist, 'index.html');
let html = readFileSync(file, 'utf8');
if (html.includes('http-equiv=Content-Security-Policy') || html.includes('http-equiv="Content-Security-Policy"')) {
  console.error('csp: index.html already has a policy (run on a fresh build only)');
  process.exit(1);
}
const inline = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)]
  .filter((m) => !/\bsrc=/.test(m[0].slice(0, m[0].indexOf('>'))))
  .map((m) => `'sha256-${createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
if (inline.length !== 1) {
  console.error(`csp: expected exactly one inline script (the app's module script), found ${inline.length}`);
  process.exit(1);
}
const policy = [
  "default-src 'self'",
  `script-src 'self' ${inline.join(' ')} 'wasm-unsafe-eval'`,
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' data: blob:",
  "connect-src * http: https: ws: wss:",
  "worker-src 'self'",
  "manifest-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
// First in <head>, before anything it governs.
const at = html.search(/<meta charset=[^>]*>/i);
if (at < 0) {
  console.error('csp: no <meta charset> in index.html to put the policy after');
  process.exit(1);
}
const end = html.indexOf('>', at) + 1;
html = html.slice(0, end) + meta + html.slice(end);
writeFileSync(file, html);
console.log(`csp: policy written (${inline.length} inline script hashes)`);
