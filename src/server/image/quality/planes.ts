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
const SRGB_TO_LINEAR = Float32Array.from({ length: 256 }, (_, i) => {
  const v = i / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
});

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
): Planes {
  const planes = emptyPlanes(width, height);
  const [r, g, b] = planes.channels;
  for (let i = 0, p = 0; i < width * height; i++, p += channelCount) {
    if (channelCount === 3) {
      r[i] = SRGB_TO_LINEAR[pixels[p]!]!;
      g[i] = SRGB_TO_LINEAR[pixels[p + 1]!]!;
      b[i] = SRGB_TO_LINEAR[pixels[p + 2]!]!;
      continue;
    }
    const alpha = pixels[p + 3]! / 255;
    r[i] = decode(alpha * (pixels[p]! / 255) + (1 - alpha) * background);
    g[i] = decode(alpha * (pixels[p + 1]! / 255) + (1 - alpha) * background);
    b[i] = decode(alpha * (pixels[p + 2]! / 255) + (1 - alpha) * background);
  }
  return planes;
}

function decode(v: number): number {
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

/** Half the size, each pixel the mean of a 2×2 block (the last row and column repeat at odd sizes). */
export function halved(source: Planes): Planes {
  const width = Math.ceil(source.width / 2);
  const height = Math.ceil(source.height / 2);
  const out = emptyPlanes(width, height);
  const lastX = source.width - 1;
  const lastY = source.height - 1;
  for (let c = 0; c < 3; c++) {
    const from = source.channels[c]!;
    const to = out.channels[c]!;
    for (let y = 0; y < height; y++) {
      const row0 = Math.min(2 * y, lastY) * source.width;
      const row1 = Math.min(2 * y + 1, lastY) * source.width;
      for (let x = 0; x < width; x++) {
        const x0 = Math.min(2 * x, lastX);
        const x1 = Math.min(2 * x + 1, lastX);
        to[y * width + x] = (from[row0 + x0]! + from[row0 + x1]! + from[row1 + x0]! + from[row1 + x1]!) * 0.25;
      }
    }
  }
  return out;
}
