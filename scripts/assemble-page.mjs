// Assembles the page in DIST from what scripts/build.sh made in WORK: the main wasm and its
// wasm-bindgen glue, the chunks wasm-split cut out of it (one per on-demand surface, see
// src/ui/lazy.rs) and their loader, the stylesheets and the static files. It does what Trunk
// did for us before the page was split (Trunk cannot split: trunk issue #1022):
//
// - wasm: exports nothing in the page can call leave the main module (see DROP below), then
//   wasm-opt runs with index.html's flags and the deeper passes; each chunk gets the same flags.
// - JS: the glue loses the JS classes of those exports and is minified with terser, like the
//   chunk loader; a result that does not pass `node --check` fails the build.
// - names: every file is named by a hash of its content (skiff-<hash>.js, ...), so a static
//   host may cache them forever; the glue and the chunk loader import each other, so those
//   two share one hash of both.
// - index.html: the repository's index.html without its build directives, with one joined,
//   minified stylesheet (lightningcss), a modulepreload of the glue and of the chunk loader it
//   imports, a preload of the wasm (all with integrity), and the module script that starts the
//   app. Every URL is relative (./), so the built page works from any static host and sub-path.
// - chunks are fetched with their integrity too (the loader's fetch gets `integrity`).
//
// It prints each file with its size; scripts/bench-size.sh measures what the first visit
// waits for. Anything unexpected fails the build rather than shipping a page that cannot start.
//   node scripts/assemble-page.mjs WORK DIST
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { DEEPER_FLAGS, FLAGS, optimizeAll } from './wasm-opt-lanes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [work, dist] = process.argv.slice(2).map((p) => path.resolve(p));
if (!work || !dist) {
  console.error('usage: node scripts/assemble-page.mjs WORK DIST');
  process.exit(2);
}
const fail = (why) => {
  console.error(`assemble-page: ${why}`);
  process.exit(1);
};
const sha = (bytes, n = 16) => createHash('sha256').update(bytes).digest('hex').slice(0, n);
// SHA-256, the shortest digest Subresource Integrity takes: the chunk loader on the critical
// path names each of the 127 modules with its digest, 20 incompressible characters fewer than
// SHA-384 each (about 2 KiB gzip).
const sri = (bytes) => `sha256-${createHash('sha256').update(bytes).digest('base64')}`;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const wasmOpt = path.join(root, 'node_modules', '.bin', 'wasm-opt');
if (!existsSync(wasmOpt)) fail('node_modules/.bin/wasm-opt is missing: run scripts/setup.sh (npm ci)');

// ---- wasm-opt -------------------------------------------------------------------------------
// binaryen's API in one warm worker thread per core (scripts/wasm-opt-lanes.mjs, which says why
// and holds the flags); the wasm-opt command itself is only run to check that it writes the
// same bytes (SKIFF_CHECK_WASM_OPT=1, for a binaryen upgrade).
// SKIFF_FAST_OPT=1 skips the deeper passes (a quicker build for trying a change; never for a
// release).
const deeper = !process.env.SKIFF_FAST_OPT;
/** Optimizes [input, output] pairs, as many at once as the machine has cores, and says how long. */
async function optAll(jobs) {
  const t0 = Date.now();
  const times = await optimizeAll(jobs, { deeper, lanes: os.availableParallelism() }).catch((e) => fail(e.message));
  const slowest = times.sort((a, b) => b[1] - a[1]).slice(0, 3).map(([n, t]) => `${n} ${t.toFixed(0)} s`).join(', ');
  console.log(`wasm-opt: ${jobs.length} modules in ${((Date.now() - t0) / 1000).toFixed(0)} s (slowest: ${slowest})`);
  if (process.env.SKIFF_CHECK_WASM_OPT) {
    for (const [input, output] of jobs) {
      const cli = `${output}.cli`;
      const flags = [...FLAGS, ...(deeper ? DEEPER_FLAGS : [])];
      execFileSync(wasmOpt, [input, '-o', cli, ...flags], { stdio: ['ignore', 'ignore', 'ignore'] });
      if (!readFileSync(cli).equals(readFileSync(output))) fail(`binaryen's API and the wasm-opt command differ on ${path.basename(input)}`);
    }
    console.log(`wasm-opt: the command wrote the same bytes for all ${jobs.length} modules`);
  }
}

// leptos depends on server_fn even in a client-only build, and server_fn on wasm-streams, whose
// `#[wasm_bindgen]` classes (IntoUnderlyingSource, ...) are exports: roots neither LTO nor
// wasm-opt may remove. Skiff never builds a stream from Rust, so they leave the export section
// here and wasm-opt removes what only they reached.
const DROP = /intounderlying/i;

/** Export names of a module. */
function exportNames(bytes) {
  return WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name);
}

const lebBytes = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return Buffer.from(out);
};

/** The module with the exports whose names `drop` matches left out of its export section. */
function withoutExports(bytes, drop) {
  const parts = [bytes.subarray(0, 8)];
  let at = 8;
  const leb = () => {
    let n = 0, shift = 0, b;
    do { b = bytes[at++]; n += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return n;
  };
  while (at < bytes.length) {
    const start = at;
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id !== 7) {
      parts.push(bytes.subarray(start, end));
      at = end;
      continue;
    }
    const kept = [];
    for (let count = leb(); count > 0; count--) {
      const entry = at;
      const len = leb();
      const name = Buffer.from(bytes.subarray(at, at + len)).toString('utf8');
      at += len + 1;
      leb();
      if (!drop(name)) kept.push(bytes.subarray(entry, at));
    }
    const body = Buffer.concat([lebBytes(kept.length), ...kept]);
    parts.push(Buffer.from([7]), lebBytes(body.length), body);
    at = end;
  }
  return Buffer.concat(parts);
}

// ---- JS -------------------------------------------------------------------------------------
async function minify(name, text) {
  const terser = await import('terser').catch(() => fail('terser is missing: run scripts/setup.sh (npm ci)'));
  const out = await terser.minify(text, { module: true, compress: true, mangle: true });
  if (!out.code) fail(`terser returned nothing for ${name}`);
  const check = path.join(work, `.check-${name}.mjs`);
  writeFileSync(check, out.code);
  try {
    execFileSync(process.execPath, ['--check', check], { stdio: 'pipe' });
  } catch (e) {
    fail(`${name} does not parse after minifying: ${e.stderr}`);
  }
  return `${out.code}\n`;
}

/** The glue without `export class IntoUnderlyingX{...}` (their exports are gone). */
function withoutClasses(text) {
  let s = text;
  for (;;) {
    const m = /export class (IntoUnderlying\w+)\s*\{/.exec(s);
    if (!m) return s;
    let depth = 0, i = m.index + m[0].length - 1;
    for (; i < s.length; i++) {
      if (s[i] === '{') depth++;
      else if (s[i] === '}' && --depth === 0) break;
    }
    if (depth !== 0) fail(`unbalanced braces in the glue's class ${m[1]}`);
    s = s.slice(0, m.index) + s.slice(i + 1);
    // Its FinalizationRegistry (`const IntoUnderlyingXFinalization = ...;`) and its
    // `if (Symbol.dispose) IntoUnderlyingX.prototype[...] = ...;` line.
    s = s.replace(new RegExp(`const ${m[1]}Finalization[^;]*\\)\\);?\\n?`), '');
    s = s.replace(new RegExp(`if \\(Symbol\\.dispose\\) ${m[1]}\\.prototype[^;]*;\\n?`), '');
    if (new RegExp(`\\b${m[1]}\\b`).test(s)) fail(`the glue still names ${m[1]} after its class was removed`);
  }
}

// ---- inputs ---------------------------------------------------------------------------------
const glueIn = path.join(work, 'bindgen', 'skiff.js');
const mainIn = path.join(work, 'bindgen', 'skiff_bg.wasm');
const splitDir = path.join(work, 'split');
const loaderIn = path.join(splitDir, '__wasm_split.js');
for (const f of [glueIn, mainIn, loaderIn]) if (!existsSync(f)) fail(`${f} is missing`);
const chunkNames = readdirSync(splitDir).filter((f) => f.endsWith('.wasm') && f !== 'skiff.wasm').sort();

mkdirSync(dist, { recursive: true });
const written = [];
const write = (name, bytes) => {
  writeFileSync(path.join(dist, name), bytes);
  written.push([name, bytes]);
  return name;
};

// Main wasm: without the dropped exports, then optimized. Every other export must survive.
const mainRaw = readFileSync(mainIn);
const before = exportNames(mainRaw);
const cut = path.join(work, 'main.cut.wasm');
const mainOpt = path.join(work, 'main.opt.wasm');
writeFileSync(cut, withoutExports(mainRaw, (n) => DROP.test(n)));
// The main module and every chunk at once (see optAll).
const chunkOut = (name) => path.join(work, `${name}.opt`);
await optAll([[cut, mainOpt], ...chunkNames.map((name) => [path.join(splitDir, name), chunkOut(name)])]);
const mainBytes = readFileSync(mainOpt);
const after = exportNames(mainBytes);
const lost = before.filter((n) => !DROP.test(n) && !after.includes(n));
if (lost.length > 0) fail(`wasm-opt removed exports the glue or the chunks need: ${lost.join(', ')}`);

// Chunks: optimized with the same flags; named by content. The loader fetches them by name.
const chunkFiles = new Map();
for (const name of chunkNames) {
  const bytes = readFileSync(chunkOut(name));
  // wasm-split names a split point's module `split_<chunk>` and code that several split points
  // share `chunk_<n>` (loaded with whichever needs it first).
  const stem = name.replace(/\.wasm$/, '');
  const surface = stem.startsWith('split_') ? stem.slice('split_'.length) : `shared-${stem.replace(/^chunk_/, '')}`;
  const hashed = write(`chunk-${surface.replace(/_/g, '-')}-${sha(bytes)}.wasm`, bytes);
  chunkFiles.set(name, { hashed, integrity: sri(bytes) });
}

// The loader: chunk names and integrity. It is written by wasm-split as
//   fetch(new URL("./split_x.wasm", import.meta.url))
// and every chunk it names must be one we wrote.
let loader = readFileSync(loaderIn, 'utf8');
loader = loader.replace(/fetch\(new URL\("\.\/([^"]+\.wasm)", import\.meta\.url\)\)/g, (whole, name) => {
  const chunk = chunkFiles.get(name);
  if (!chunk) fail(`the chunk loader names ${name}, which wasm-split did not write`);
  return `fetch(new URL("./${chunk.hashed}", import.meta.url), { integrity: "${chunk.integrity}" })`;
});
for (const name of chunkFiles.keys()) {
  if (!loader.includes(chunkFiles.get(name).hashed)) fail(`the chunk loader never loads ${name}`);
}

// The glue, and one hash for the glue and the loader (they import each other by name).
let glue = withoutClasses(readFileSync(glueIn, 'utf8'));
// Only the module specifiers change: the glue's import object keeps the key "./__wasm_split.js",
// which is the import module name inside the wasm.
const IMPORT_LOADER = /from\s*"\.\/__wasm_split\.js"/g;
const IMPORT_GLUE = /from\s*"\.\/skiff\.js"/g;
// A page without split points has no loader to import (wasm-split still writes one).
const split = IMPORT_LOADER.test(glue);
if (!split && chunkFiles.size > 0) fail('the glue does not import ./__wasm_split.js, yet wasm-split wrote chunks');
if (split && !IMPORT_GLUE.test(loader)) fail('the chunk loader does not import ./skiff.js');
const pair = sha(`${glue}\0${loader}`);
const glueName = `skiff-${pair}.js`;
const loaderName = `chunks-${pair}.js`;
glue = await minify('glue', glue.replace(IMPORT_LOADER, `from "./${loaderName}"`));
const wasmName = write(`skiff-${pair}_bg.wasm`, mainBytes);
write(glueName, glue);
if (split) write(loaderName, await minify('loader', loader.replace(IMPORT_GLUE, `from "./${glueName}"`)));

// ---- CSS ------------------------------------------------------------------------------------
// Joined in index.html's order (the cascade), then minified: each stylesheet compressed on its
// own paid for the rules and properties they share once per file.
const template = readFileSync(path.join(root, 'index.html'), 'utf8');
const attr = (tag, name) => tag.match(new RegExp(`\\s${name}=("([^"]*)"|'([^']*)')`))?.slice(2).find((v) => v !== undefined);
const directives = [...template.matchAll(/<link\b[^>]*\bdata-build\b[^>]*\/?>/g)].map((m) => m[0]);
const cssSources = directives.filter((t) => attr(t, 'rel') === 'css').map((t) => attr(t, 'href'));
const copies = directives.filter((t) => attr(t, 'rel') === 'copy-file').map((t) => attr(t, 'href'));
if (cssSources.length === 0) fail('index.html names no stylesheet (<link data-build rel="css">)');
const css = cssSources.map((href) => readFileSync(path.join(root, href), 'utf8')).join('\n');
const { transform } = await import('lightningcss').catch(() => fail('lightningcss is missing: run scripts/setup.sh (npm ci)'));
const minCss = Buffer.from(transform({ filename: 'skiff.css', code: Buffer.from(css), minify: true }).code);
const cssName = write(`skiff-${sha(minCss)}.css`, minCss);

// ---- static files ---------------------------------------------------------------------------
for (const href of copies) {
  const name = path.basename(href);
  copyFileSync(path.join(root, href), path.join(dist, name));
  written.push([name, readFileSync(path.join(dist, name))]);
}

// ---- index.html -----------------------------------------------------------------------------
const file = (name) => readFileSync(path.join(dist, name));
const start = [
  `<link rel="stylesheet" href="./${cssName}" integrity="${sri(minCss)}">`,
  `<link rel="modulepreload" href="./${glueName}" integrity="${sri(file(glueName))}" crossorigin="anonymous">`,
  // The glue imports the chunk loader, and a module runs only once its imports are there:
  // without this the loader's fetch starts only after the glue has arrived, one round trip
  // after everything else (Chromium does not preload a preloaded module's imports).
  ...(split ? [`<link rel="modulepreload" href="./${loaderName}" integrity="${sri(file(loaderName))}" crossorigin="anonymous">`] : []),
  `<link rel="preload" href="./${wasmName}" as="fetch" type="application/wasm" integrity="${sri(mainBytes)}" crossorigin="anonymous">`,
  // The app: the glue instantiates the main wasm and mounts it; `wasmBindings` is what the
  // glue exports (tests and the worker bridge reach the page through it).
  `<script type="module">import init,*as b from"./${glueName}";await init({module_or_path:"./${wasmName}"});window.wasmBindings=b;</script>`,
].join('');
let html = template;
for (const d of directives) html = html.replace(d, '');
// Comments are for readers of the repository; the build drops them and the indentation.
html = html.replace(/<!--[\s\S]*?-->/g, '').replace(/>\s+</g, '><').replace(/\n\s*/g, '\n').trim();
if (!html.includes('</head>')) fail('index.html has no </head>');
html = html.replace('</head>', `${start}</head>`);
write('index.html', `${html}\n`);

// ---- report ---------------------------------------------------------------------------------
for (const [name, bytes] of written.sort((a, b) => a[0].localeCompare(b[0]))) {
  console.log(`assemble-page: ${name.padEnd(48)} ${kib(bytes.length).padStart(10)} ${kib(gzipSync(bytes, { level: 9 }).length).padStart(10)} gzip`);
}
