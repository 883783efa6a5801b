#!/usr/bin/env node
// Writes Skiff's OAuth Client ID Metadata Document into a built page and tells the module where
// the page is served:
//   node scripts/write-client-metadata.mjs <dist> <public https URL of the page's directory>
// A document's URL is its client id, and a static build cannot know where it will be served,
// so this runs only when that address is given: by scripts/build-extras.sh when
// SKIFF_PUBLIC_URL is set, and by the conformance command for auth/basic-cimd on a copy of
// the build it serves at that address. The document itself comes from
// skiff_core::oauth::client (through the built module's wasm), so the build and the sign-in
// cannot disagree on it. It lands beside index.html as client-metadata.json
// (skiff_core::oauth::client::METADATA_PATH); extras/oauth.js gets the address, and uses the
// document only where the page runs at it.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [distArg, publicUrl] = process.argv.slice(2);
if (!distArg || !publicUrl) {
  console.error('usage: write-client-metadata.mjs <dist> <public https URL>');
  process.exit(2);
}
const dist = resolve(distArg);
const extras = `${dist}/extras`;
const glue = await import(pathToFileURL(`${extras}/skiff_extras.js`).href);
glue.initSync({ module: readFileSync(`${extras}/skiff_extras_bg.wasm`) });
const doc = glue.oauth_client_metadata(publicUrl);
if (!doc) {
  console.error(`write-client-metadata: ${publicUrl} is not an https address; a client metadata document needs one`);
  process.exit(1);
}
writeFileSync(`${dist}/client-metadata.json`, doc + '\n');
const js = readFileSync(`${extras}/oauth.js`, 'utf8');
const line = "const PUBLIC_URL = '';";
if (!js.includes(line)) {
  console.error('write-client-metadata: extras/oauth.js has no PUBLIC_URL line (already written?)');
  process.exit(1);
}
writeFileSync(`${extras}/oauth.js`, js.replace(line, `const PUBLIC_URL = ${JSON.stringify(publicUrl)};`));
console.log(`write-client-metadata: client id ${JSON.parse(doc).client_id}`);
