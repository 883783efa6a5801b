// The page's wasm after Trunk's build, made smaller in two steps: exports nothing in the page
// can call are removed (with the code only they reach and their JS classes in the glue), and
// wasm-opt runs once more with passes that restructure control flow; then both files'
// integrity attributes in index.html are updated.
//
// Why the second pass: `--flatten --rereloop` rebuilds each function's control flow from its
// basic blocks, after which `-Oz` finds more to fold; measured on this page: 6 KiB gzip less
// than Trunk's `-Oz` alone (`-Oz` again, or `--converge`, gains 0.2). It costs about 30 s.
//
// Why: leptos depends on server_fn even in a client-only build, and server_fn on wasm-streams,
// whose `#[wasm_bindgen]` classes (IntoUnderlyingSource, IntoUnderlyingByteSource,
// IntoUnderlyingSink) are exports. An export is a root that neither LTO nor wasm-opt may
// remove, so their Rust code shipped in every page although Skiff never builds a stream from
// Rust. Here those entries leave the export section and wasm-opt removes what only they reached.
//
// Safe by construction: only exports whose names match DROP are removed; every other export
// stays a root. The JS classes are removed only when each one's braces balance and the result
// passes `node --check`; otherwise the classes stay (they call the wasm only when constructed,
// which nothing does). A missing wasm-opt (a machine without npm) leaves DIST as it was.
//   node scripts/shrink-wasm.mjs DIST
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const DROP = /intounderlying/i;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = path.resolve(process.argv[2] ?? 'dist');
const files = readdirSync(dist);
const wasmName = files.find((f) => /^skiff-[0-9a-f]+_bg\.wasm$/.test(f));
const jsName = files.find((f) => /^skiff-[0-9a-f]+\.js$/.test(f));
if (!wasmName || !jsName) {
  console.error(`shrink-wasm: expected skiff-<hash>.js and skiff-<hash>_bg.wasm in ${dist}`);
  process.exit(1);
}
const wasmOpt = path.join(root, 'node_modules', '.bin', 'wasm-opt');
if (!existsSync(wasmOpt)) {
  console.log('shrink-wasm: wasm-opt is not installed (npm ci); the page keeps every export');
  process.exit(0);
}

const leb128 = (n) => {
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
  let at = 8;
  const leb = () => {
    let n = 0, shift = 0, b;
    do { b = bytes[at++]; n += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return n;
  };
  const parts = [bytes.subarray(0, 8)];
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
    const body = Buffer.concat([leb128(kept.length), ...kept]);
    parts.push(Buffer.from([7]), leb128(body.length), body);
    at = end;
  }
  return Buffer.concat(parts);
}

/** The names of the module's exports, read from its export section (id 7). */
function exportNames(bytes) {
  let at = 8;
  const leb = () => {
    let n = 0, shift = 0, b;
    do { b = bytes[at++]; n += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
    return n;
  };
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id === 7) {
      const names = [];
      for (let count = leb(); count > 0; count--) {
        const len = leb();
        names.push(Buffer.from(bytes.subarray(at, at + len)).toString('utf8'));
        at += len;
        at += 1; // kind
        leb(); // index
      }
      return names;
    }
    at = end;
  }
  return [];
}

const wasmFile = path.join(dist, wasmName);
const names = exportNames(readFileSync(wasmFile));
const dropped = names.filter((n) => DROP.test(n));

const work = mkdtempSync(path.join(tmpdir(), 'skiff-dce-'));
// The same wasm-opt flags Trunk ran (index.html's data-wasm-opt-params).
const params = /data-wasm-opt-params="([^"]*)"/.exec(readFileSync(path.join(root, 'index.html'), 'utf8'));
const optParams = (params?.[1] ?? '').split(/\s+/).filter(Boolean);
const cut = path.join(work, 'cut.wasm');
const out = path.join(work, 'out.wasm');
writeFileSync(cut, withoutExports(readFileSync(wasmFile), (n) => DROP.test(n)));
// wasm-opt then removes what only those exports reached. (binaryen's wasm-metadce does that in
// one step but writes the functions in another order, which gzips 23 KiB worse.)
const deeper = ['--flatten', '--rereloop', '-Oz', '-Oz'];
execFileSync(wasmOpt, [cut, '-o', out, ...optParams, ...deeper], { stdio: ['ignore', 'ignore', 'inherit'] });
const left = exportNames(readFileSync(out));
const lost = names.filter((n) => !DROP.test(n) && !left.includes(n));
if (lost.length > 0 || left.some((n) => DROP.test(n))) {
  console.error(`shrink-wasm: wasm-opt changed other exports (${lost.join(', ')}); the page keeps every export`);
  process.exit(0);
}
const before = readFileSync(wasmFile).length;
writeFileSync(path.join(work, 'before.wasm'), readFileSync(wasmFile));
const wasm = readFileSync(out);
writeFileSync(wasmFile, wasm);

// The glue's classes for them: `export class IntoUnderlyingX{...}` and its dispose line.
const jsFile = path.join(dist, jsName);
const js = readFileSync(jsFile, 'utf8');
function withoutClasses(text) {
  let s = text;
  const removed = [];
  for (;;) {
    const m = /export class (IntoUnderlying\w+)\{/.exec(s);
    if (!m) break;
    let depth = 0, i = m.index + m[0].length - 1;
    for (; i < s.length; i++) {
      if (s[i] === '{') depth++;
      else if (s[i] === '}' && --depth === 0) break;
    }
    if (depth !== 0) return null;
    s = s.slice(0, m.index) + s.slice(i + 1);
    removed.push(m[1]);
  }
  for (const name of removed) {
    s = s.split(`Symbol.dispose&&(${name}.prototype[Symbol.dispose]=${name}.prototype.free);`).join('');
    // Anything else that names the class would throw when the module loads: keep the glue.
    if (new RegExp(`\\b${name}\\b`).test(s)) return null;
  }
  return s;
}
let glue = withoutClasses(js);
if (glue !== null) {
  const check = path.join(work, 'glue.mjs');
  writeFileSync(check, glue);
  try {
    execFileSync(process.execPath, ['--check', check], { stdio: 'ignore' });
  } catch {
    glue = null;
  }
}
if (glue !== null) writeFileSync(jsFile, glue);

const sri = (b) => `sha384-${createHash('sha384').update(b).digest('base64')}`;
const indexFile = path.join(dist, 'index.html');
let index = readFileSync(indexFile, 'utf8');
const oldWasm = readFileSync(path.join(work, 'before.wasm'));
for (const [name, oldBytes, newBytes] of [[wasmName, oldWasm, wasm], [jsName, js, glue ?? js]]) {
  const next = index.split(sri(oldBytes)).join(sri(newBytes));
  if (next === index && sri(oldBytes) !== sri(newBytes)) {
    console.error(`shrink-wasm: ${name}'s integrity attribute was not found in index.html`);
    process.exit(1);
  }
  index = next;
}
writeFileSync(indexFile, index);
console.log(`shrink-wasm: ${dropped.length} exports removed, control flow rebuilt: wasm ${before} → ${wasm.length} bytes${glue === null ? '; the glue keeps its classes' : ''}`);
