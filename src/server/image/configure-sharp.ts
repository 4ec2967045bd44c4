import sharp from "sharp";

export interface SharpSettings {
  /** libvips threads per image. Default 1: see below. */
  threadsPerImage?: number;
  /** The fontconfig file SVG text is drawn with (image/settings.ts: fontConfigOf); null: the machine's fonts. */
  fontConfigFile?: string | null;
}

/**
 * Process-wide libvips settings, applied once by the composition root (not at import, so tests and
 * scripts that import this module do not change global state by accident).
 *
 * - One libvips thread per image: the scheduler already runs two transforms per core, and each runs on
 *   its own libuv thread. More threads per image would oversubscribe the cores further without more
 *   throughput (measured: 2 threads per image was slower), and on glibc without jemalloc every extra thread keeps its own
 *   malloc arena, which is how sharp servers grow to gigabytes (sharp itself defaults to 1 there).
 * - No libvips operation cache: every request brings new bytes, so cached operations are never reused,
 *   they only hold up to 50 MB of memory.
 */
export function configureSharp(settings: SharpSettings = {}): void {
  sharp.concurrency(Math.max(1, settings.threadsPerImage ?? 1));
  sharp.cache(false);
  // SVG <text> is drawn by librsvg through fontconfig, which reads this variable once, at the first
  // text it lays out. Machines differ in fonts (Vercel's functions have none: text came out as empty
  // boxes), so the same URL drew differently per instance; bundled fonts make it the same everywhere.
  // eslint-disable-next-line no-restricted-syntax -- a write for fontconfig (C), not configuration read here
  if (settings.fontConfigFile) process.env.FONTCONFIG_FILE = settings.fontConfigFile;
}
