// Joins the stylesheets Trunk emitted into DIST into one file, in the order index.html links
// them, and replaces their <link> tags with one (with its own integrity hash).
//
// Why: each stylesheet is compressed on its own, so the rules and custom properties they share
// are paid for once per file. Joined, the seven files take 2 KiB less gzip of the page's budget
// (scripts/bench-size.sh), and the first visit makes one request instead of seven. The sources
// stay split by feature under style/; only the build output is joined.
//
// Order is the cascade: files are concatenated exactly in link order, so every rule keeps its
// precedence. Anything unexpected (no stylesheet links, a linked file missing from DIST, an
// integrity hash that does not match the file) fails the build rather than shipping a page
// without its styles.
//   node scripts/join-css.mjs DIST
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const dist = path.resolve(process.argv[2] ?? 'dist');
const index = path.join(dist, 'index.html');
const html = readFileSync(index, 'utf8');

const fail = (why) => {
  console.error(`join-css: ${why}`);
  process.exit(1);
};
const sri = (bytes) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
const attr = (tag, name) => tag.match(new RegExp(`\\s${name}=("([^"]*)"|'([^']*)'|([^\\s>]+))`))?.slice(2).find((v) => v !== undefined);

const links = [...html.matchAll(/<link\b[^>]*>/g)]
  .map((m) => m[0])
  .filter((tag) => attr(tag, 'rel') === 'stylesheet' && /\.css$/.test(attr(tag, 'href') ?? ''));
if (links.length === 0) fail('index.html links no stylesheet');
if (links.length === 1) {
  console.log('join-css: one stylesheet already');
  process.exit(0);
}

const parts = links.map((tag) => {
  const href = attr(tag, 'href');
  const file = path.join(dist, href.replace(/^\.\//, ''));
  let bytes;
  try {
    bytes = readFileSync(file);
  } catch {
    fail(`${href} is linked but not in ${dist}`);
  }
  const integrity = attr(tag, 'integrity');
  if (integrity && integrity !== sri(bytes)) fail(`${href} does not match its integrity hash`);
  return { tag, file, bytes };
});

// A newline between files: a file that ends inside a comment or without a final newline must
// not run into the next one's first rule.
const joined = Buffer.concat(parts.flatMap((p) => [p.bytes, Buffer.from('\n')]));
const hash = createHash('sha256').update(joined).digest('hex').slice(0, 16);
const name = `style-${hash}.css`;
writeFileSync(path.join(dist, name), joined);

let out = html.replace(parts[0].tag, `<link href=./${name} integrity=${sri(joined)} rel=stylesheet>`);
for (const p of parts.slice(1)) out = out.replace(p.tag, '');
writeFileSync(index, out);
for (const p of parts) rmSync(p.file);
console.log(`join-css: ${parts.length} stylesheets → ${name} (${joined.length} bytes)`);
