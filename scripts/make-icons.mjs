#!/usr/bin/env node
/**
 * Writes the app icon set, resources/icons/<N>x<N>.png (16 … 1024), as electron-builder wants it
 * (Linux takes the folder; macOS and Windows convert the 1024 and 256 px ones). No image tools
 * needed: the picture is computed pixel by pixel and written by the tiny PNG encoder below
 * (node:zlib deflates the scanlines). Deterministic, so the files only change with this script.
 * Run: node scripts/make-icons.mjs
 *
 * The picture is the app's own chart in miniature: a window of stacked regions (system, summary,
 * history, tools, free) on a dark rounded square, with the limit line across the top.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

export const ICON_SIZES = [16, 32, 48, 64, 128, 256, 512, 1024];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGBA image (`rgba`: width × height × 4 bytes) as PNG bytes: 8-bit RGBA, no filtering. */
export function encodePng(width, height, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  const raw = Buffer.alloc(height * (width * 4 + 1));
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const hex = (h) => [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)];
// The renderer's region colours (src/renderer/src/styles.css), bottom to top.
const BANDS = [
  { to: 0.16, color: hex('#98c379') }, // system
  { to: 0.3, color: hex('#c39bff') }, // summary
  { to: 0.7, color: hex('#6cb6ff') }, // history
  { to: 0.82, color: hex('#e5c07b') }, // tools
];
const BG = hex('#101318');
const FREE = hex('#262c36');
const LIMIT = hex('#ff6b6b');

/** The icon at `size` px: 4× supersampled so small sizes keep smooth corners. */
export function drawIcon(size) {
  const rgba = Buffer.alloc(size * size * 4);
  const ss = 4;
  const radius = 0.18;
  const inset = { x0: 0.24, x1: 0.76, y0: 0.2, y1: 0.82 };
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < ss; sy++) {
        for (let sx = 0; sx < ss; sx++) {
          const x = (px + (sx + 0.5) / ss) / size;
          const y = (py + (sy + 0.5) / ss) / size;
          // Rounded square: distance from the inner rectangle.
          const dx = Math.max(radius - x, 0, x - (1 - radius));
          const dy = Math.max(radius - y, 0, y - (1 - radius));
          if (dx * dx + dy * dy > radius * radius) continue;
          let c = BG;
          if (x >= inset.x0 && x <= inset.x1 && y >= inset.y0 && y <= inset.y1) {
            const fill = (inset.y1 - y) / (inset.y1 - inset.y0); // 0 at the bottom, 1 at the top
            c = BANDS.find((band) => fill <= band.to)?.color ?? FREE;
          }
          if (Math.abs(y - 0.29) < 0.018 && x >= 0.16 && x <= 0.84) c = LIMIT;
          r += c[0];
          g += c[1];
          b += c[2];
          a += 255;
        }
      }
      const n = ss * ss;
      const i = (py * size + px) * 4;
      // Colours are averaged over covered samples only; coverage becomes alpha.
      const covered = a / 255;
      rgba[i] = covered ? Math.round(r / covered) : 0;
      rgba[i + 1] = covered ? Math.round(g / covered) : 0;
      rgba[i + 2] = covered ? Math.round(b / covered) : 0;
      rgba[i + 3] = Math.round(a / n);
    }
  }
  return rgba;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'resources', 'icons');
  mkdirSync(out, { recursive: true });
  for (const size of ICON_SIZES) {
    const file = join(out, `${size}x${size}.png`);
    writeFileSync(file, encodePng(size, size, drawIcon(size)));
    console.log(`wrote ${file}`);
  }
}
