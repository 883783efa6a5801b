#!/usr/bin/env node
// Writes Skiff's OAuth Client ID Metadata Document into a built page and tells the page where
// it is served:
//   node scripts/write-client-metadata.mjs <dist> <public https URL of the page's directory>
// A document's URL is its client id, and a static build cannot know where it will be served,
// so this runs only when that address is given: by the build when SKIFF_PUBLIC_URL is set
// (before sw.js is written, so the service worker precaches the changed index.html), and by
// the conformance command for auth/basic-cimd on a copy of the build it serves at that address.
//
// - The document comes from skiff_core::oauth::client (`cargo run --example client_metadata`),
//   so the build and the sign-in cannot disagree on it. It lands beside index.html as
//   client-metadata.json (skiff_core::oauth::client::METADATA_PATH).
// - index.html gets `<meta name="skiff-public-url" content="…">`
//   (skiff_core::oauth::stored::PUBLIC_URL_META): the sign-in uses the document as its client
//   id only where the page runs at that address (client::metadata_served).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [distArg, publicUrl] = process.argv.slice(2);
if (!distArg || !publicUrl) {
  console.error('usage: write-client-metadata.mjs <dist> <public https URL>');
  process.exit(2);
}
const dist = resolve(distArg);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let doc;
try {
  doc = execFileSync('cargo', ['run', '--quiet', '-p', 'skiff-core', '--example', 'client_metadata', '--', publicUrl], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
} catch {
  console.error(`write-client-metadata: no document for ${publicUrl}`);
  process.exit(1);
}
writeFileSync(`${dist}/client-metadata.json`, doc + '\n');

const index = `${dist}/index.html`;
const html = readFileSync(index, 'utf8');
if (html.includes('name="skiff-public-url"')) {
  console.error('write-client-metadata: index.html already names its public address');
  process.exit(1);
}
const attr = publicUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const meta = `<meta name="skiff-public-url" content="${attr}">`;
if (!html.includes('</head>')) {
  console.error('write-client-metadata: index.html has no </head>');
  process.exit(1);
}
writeFileSync(index, html.replace('</head>', `${meta}\n</head>`));
console.log(`write-client-metadata: client id ${JSON.parse(doc).client_id}`);
