// Writes DIST/sw.js from pwa/sw.template.js: the precache list is exactly the files the build
// wrote (hashed names included), and the build id is a hash of their contents, so every
// deployment with any changed byte gets a new worker and a new cache. Run by scripts/build.sh;
// tests run it again on a copied dist to stand in for a new deployment.
//   node scripts/pwa-precache.mjs DIST
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.resolve(process.argv[2] ?? 'dist');

function walk(dir, prefix = '') {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      const rel = prefix + name;
      return statSync(full).isDirectory() ? walk(full, `${rel}/`) : [rel];
    });
}

// sw.js is not its own asset; source maps and dotfiles are never fetched by the page, nor is
// the OAuth client metadata document (authorization servers fetch it).
const files = walk(dist).filter(
  (f) => f !== 'sw.js' && f !== 'client-metadata.json' && !f.endsWith('.map') && !path.basename(f).startsWith('.'),
);
if (!files.includes('index.html')) {
  console.error(`pwa-precache: ${dist}/index.html is missing; run the build first`);
  process.exit(1);
}
const hash = createHash('sha256');
for (const f of files) {
  hash.update(f).update('\0').update(readFileSync(path.join(dist, f))).update('\0');
}
const build = hash.digest('hex').slice(0, 16);
const template = readFileSync(path.join(root, 'pwa', 'sw.template.js'), 'utf8');
const out = template
  .replace("'__SKIFF_BUILD__'", JSON.stringify(build))
  .replace('__SKIFF_PRECACHE__', JSON.stringify(files, null, 2));
if (out.includes('__SKIFF_')) {
  console.error('pwa-precache: a placeholder was left in sw.js; the template and this script disagree');
  process.exit(1);
}
// Minified when terser is installed (an npm devDependency, as for the JS glue): the template's
// comments are for readers of pwa/, and every visit fetches sw.js (1 KiB gzip of the page).
let shipped = out;
try {
  const { minify } = await import('terser');
  const min = await minify(out, { compress: true, mangle: true });
  if (min.code) shipped = `${min.code}\n`;
} catch (e) {
  if (e?.code !== 'ERR_MODULE_NOT_FOUND') {
    console.error(`pwa-precache: terser failed (${e.message}); sw.js ships as written`);
  }
}
writeFileSync(path.join(dist, 'sw.js'), shipped);
console.log(`pwa-precache: sw.js for build ${build}, ${files.length} files precached`);
