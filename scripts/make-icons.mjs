// Renders the PWA's PNG icons from assets/icon.svg and pwa/icon-maskable.svg with the test Chromium, so the PNGs
// in the repository always match the SVG. Run after changing an icon:
//   node scripts/make-icons.mjs
// Writes pwa/icon-192.png (rounded, "any"; larger sizes use the SVG) and
// pwa/icon-maskable-512.png (full-bleed, glyph inside the 80 % safe zone, "maskable").
//
// A flat icon has a few dozen distinct colours (edges included), so each PNG is written with a
// palette when its pixels hold 256 colours or fewer: the same pixels exactly, 30-35 % fewer
// bytes than Chromium's RGBA screenshot (2.3 KiB of the page's first visit, which fetches both
// for the install prompt). More colours keep the screenshot as it is.
import { readFileSync, writeFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
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
    const shot = await page.screenshot({ omitBackground: true });
    const rgba = Buffer.from(
      await page.evaluate(async (png) => {
        const img = new Image();
        img.src = `data:image/png;base64,${png}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const g = canvas.getContext('2d');
        g.drawImage(img, 0, 0);
        return Array.from(g.getImageData(0, 0, img.width, img.height).data);
      }, shot.toString('base64')),
    );
    await page.close();
    const indexed = paletted(size, size, rgba);
    writeFileSync(path.join(root, 'pwa', out), indexed ?? shot);
    console.log(`pwa/${out} (${size}x${size}, ${indexed ? 'palette' : 'RGBA'}, ${(indexed ?? shot).length} bytes)`);
  }
} finally {
  await browser.close();
}

/// The pixels as an indexed-colour PNG (colour type 3 with a tRNS alpha table), or null when
/// they hold more than 256 colours. Canvas pixel data is unpremultiplied RGBA, as PNG stores it.
function paletted(width, height, rgba) {
  const index = new Map();
  const colours = [];
  const rows = Buffer.alloc(height * (width + 1)); // each row: filter type 0, then indices
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const key = rgba.readUInt32BE((y * width + x) * 4);
      let i = index.get(key);
      if (i === undefined) {
        if (colours.length === 256) return null;
        i = colours.length;
        index.set(key, i);
        colours.push(key);
      }
      rows[y * (width + 1) + 1 + x] = i;
    }
  }
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 3, 0, 0, 0], 8); // 8-bit indices, palette, deflate, adaptive filter, no interlace
  const plte = Buffer.alloc(colours.length * 3);
  const trns = Buffer.alloc(colours.length);
  colours.forEach((c, i) => {
    plte.writeUIntBE(c >>> 8, i * 3, 3);
    trns[i] = c & 0xff;
  });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('PLTE', plte),
    chunk('tRNS', trns),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
