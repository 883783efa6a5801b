// Minifies the wasm-bindgen JS glue in DIST with terser, and updates the file's integrity
// attribute in index.html. Trunk's own minifier gives up on this file ("Failed to minify JS:
// RequiredTokenNotFound"); shipped as written it cost 2.5 KiB gzip of the page's budget
// (scripts/bench-size.sh): 1.2 for comments and indentation, 1.3 for long local names.
//
// terser (an npm devDependency) parses the module, so exports and the string-keyed import
// object wasm-bindgen's wasm module links against stay as they are. Without terser (a machine
// that skipped npm) the glue falls back to a line-based pass that only drops whole comment
// lines and leading whitespace. Either result must pass `node --check`, or the file is left
// untouched.
//   node scripts/strip-glue.mjs DIST
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dist = path.resolve(process.argv[2] ?? 'dist');
const glue = readdirSync(dist).filter((f) => /^skiff-[0-9a-f]+\.js$/.test(f));
if (glue.length !== 1) {
  console.error(`strip-glue: expected one skiff-<hash>.js in ${dist}, found ${glue.length}`);
  process.exit(1);
}
const file = path.join(dist, glue[0]);
const src = readFileSync(file, 'utf8');

function strip(text) {
  const out = [];
  let inBlock = false;
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (inBlock) {
      if (t.includes('*/')) {
        if (!t.endsWith('*/')) return null; // code after a comment's end: not handled
        inBlock = false;
      }
      continue;
    }
    if (t === '' || t.startsWith('//')) continue;
    if (t.startsWith('/*')) {
      if (!t.includes('*/')) inBlock = true;
      else if (!t.endsWith('*/')) return null;
      continue;
    }
    if ((t.match(/`/g) ?? []).length % 2 !== 0) return null;
    out.push(t);
  }
  return inBlock ? null : `${out.join('\n')}\n`;
}

async function minify(text) {
  let terser;
  try {
    terser = await import('terser');
  } catch {
    return null;
  }
  try {
    const out = await terser.minify(text, { module: true, compress: true, mangle: true });
    return out.code ? `${out.code}\n` : null;
  } catch (e) {
    console.error(`strip-glue: terser failed (${e.message}); stripping comments only`);
    return null;
  }
}

const stripped = (await minify(src)) ?? strip(src);
if (stripped === null) {
  console.error('strip-glue: left as is (a construct this line-based pass does not handle)');
  process.exit(0);
}
const check = path.join(dist, '.strip-glue-check.mjs');
writeFileSync(check, stripped);
try {
  execFileSync(process.execPath, ['--check', check], { stdio: 'pipe' });
} catch (e) {
  console.error(`strip-glue: left as is (the result does not parse: ${e.stderr})`);
  process.exit(0);
} finally {
  execFileSync('rm', ['-f', check]);
}
writeFileSync(file, stripped);
const sri = (s) => `sha384-${createHash('sha384').update(s, 'utf8').digest('base64')}`;
const index = path.join(dist, 'index.html');
const html = readFileSync(index, 'utf8');
const updated = html.split(sri(src)).join(sri(stripped));
if (updated === html) {
  console.error('strip-glue: the glue\'s integrity attribute was not found in index.html');
  writeFileSync(file, src);
  process.exit(1);
}
writeFileSync(index, updated);
console.log(`strip-glue: ${glue[0]} ${src.length} → ${stripped.length} bytes`);
