// Renders the PWA's PNG icons from assets/icon.svg and pwa/icon-maskable.svg with the test Chromium, so the PNGs
// in the repository always match the SVG. Run after changing an icon:
//   node scripts/make-icons.mjs
// Writes pwa/icon-192.png (rounded, "any"; larger sizes use the SVG) and
// pwa/icon-maskable-512.png (full-bleed, glyph inside the 80 % safe zone, "maskable").
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../tests/e2e/harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const jobs = [
  ['icon.svg', 192, 'icon-192.png'],
  ['icon-maskable.svg', 512, 'icon-maskable-512.png'],
];
const browser = await launchBrowser();
try {
  for (const [svg, size, out] of jobs) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const markup = readFileSync(path.join(root, svg === 'icon.svg' ? 'assets' : 'pwa', svg), 'utf8');
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${markup}`,
    );
    await page.screenshot({ path: path.join(root, 'pwa', out), omitBackground: true });
    await page.close();
    console.log(`pwa/${out} (${size}x${size})`);
  }
} finally {
  await browser.close();
}
