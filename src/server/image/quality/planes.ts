/** An image as three float planes (one per channel), row-major: what the metric works on. */
export interface Planes {
  width: number;
  height: number;
  channels: [Float32Array, Float32Array, Float32Array];
}

export function emptyPlanes(width: number, height: number): Planes {
  const size = width * height;
  return { width, height, channels: [new Float32Array(size), new Float32Array(size), new Float32Array(size)] };
}

/** sRGB's transfer function, decoded for each 8-bit value once. */
const SRGB_TO_LINEAR = Float32Array.from({ length: 256 }, (_, i) => decode(i / 255));

/**
 * For one background, each (alpha, value) pair blended over it and decoded, at alpha · 256 + value:
 * built once per background (two, 256 KiB each) instead of a power per channel of every pixel.
 */
const blendedOver = new Map<number, Float32Array>();

function blendTable(background: number): Float32Array {
  let table = blendedOver.get(background);
  if (!table) {
    table = new Float32Array(256 * 256);
    for (let a = 0; a < 256; a++) {
      const alpha = a / 255;
      for (let v = 0; v < 256; v++) table[a * 256 + v] = decode(alpha * (v / 255) + (1 - alpha) * background);
    }
    blendedOver.set(background, table);
  }
  return table;
}

/**
 * 8-bit sRGB pixels (3 or 4 channels, as sharp's raw output) → linear RGB planes. With alpha, each
 * pixel is first blended over `background` (0..1, a grey), in sRGB values, as the reference does.
 */
export function linearPlanes(
  pixels: Uint8Array,
  width: number,
  height: number,
  channelCount: 3 | 4,
  background = 0.5,
  planes: Planes = emptyPlanes(width, height),
): Planes {
  const [r, g, b] = planes.channels;
  if (channelCount === 3) {
    for (let i = 0, p = 0; i < r.length; i++, p += 3) {
      r[i] = SRGB_TO_LINEAR[pixels[p]!]!;
      g[i] = SRGB_TO_LINEAR[pixels[p + 1]!]!;
      b[i] = SRGB_TO_LINEAR[pixels[p + 2]!]!;
    }
    return planes;
  }
  const blended = blendTable(background);
  for (let i = 0, p = 0; i < r.length; i++, p += 4) {
    const alpha = pixels[p + 3]! << 8;
    r[i] = blended[alpha | pixels[p]!]!;
    g[i] = blended[alpha | pixels[p + 1]!]!;
    b[i] = blended[alpha | pixels[p + 2]!]!;
  }
  return planes;
}

function decode(v: number): number {
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

/** Half the size, each pixel the mean of a 2×2 block (the last row and column repeat at odd sizes). */
export function halved(
  source: Planes,
  out: Planes = emptyPlanes(Math.ceil(source.width / 2), Math.ceil(source.height / 2)),
): Planes {
  const { width, height } = out;
  const lastX = source.width - 1;
  const lastY = source.height - 1;
  // Blocks wholly inside a row; at an odd width one more, of the last column twice.
  const whole = Math.floor(source.width / 2);
  for (let c = 0; c < 3; c++) {
    const from = source.channels[c]!;
    const to = out.channels[c]!;
    for (let y = 0; y < height; y++) {
      const row0 = Math.min(2 * y, lastY) * source.width;
      const row1 = Math.min(2 * y + 1, lastY) * source.width;
      const o = y * width;
      for (let x = 0; x < whole; x++) {
        const x0 = 2 * x;
        to[o + x] = (from[row0 + x0]! + from[row0 + x0 + 1]! + from[row1 + x0]! + from[row1 + x0 + 1]!) * 0.25;
      }
      if (whole < width) {
        to[o + whole] = (from[row0 + lastX]! + from[row0 + lastX]! + from[row1 + lastX]! + from[row1 + lastX]!) * 0.25;
      }
    }
  }
  return out;
}
