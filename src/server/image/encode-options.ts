import type { Sharp } from "sharp";
import type { ImageOperations, OutputFormat } from "./types";

export const CONTENT_TYPES = {
  webp: "image/webp",
  avif: "image/avif",
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  svg: "image/svg+xml",
} as const satisfies Record<OutputFormat | "svg", string>;

/**
 * Default quality when q_ is absent. JPEG and WebP 80 is the usual web compromise; AVIF's scale is
 * harsher, and 50 looks about like JPEG 80 at roughly half the bytes (it is also libheif's default).
 */
export const DEFAULT_QUALITY = { jpeg: 80, webp: 80, avif: 50 } as const;
/** Placeholders are blurred anyway: quality buys nothing visible there. */
export const PLACEHOLDER_QUALITY = 40;

/**
 * AVIF effort 2 (libheif's default is 4). Measured on this project's 2-core machine, a 1200×630 AVIF
 * from a noisy 3000×2000 JPEG took 0.33 s at effort 2, 1.3 s at 3 and 6.5 s at 4, for a file no
 * smaller: past 2 the CPU goes to a few percent of bytes while other requests wait in the queue.
 */
export const AVIF_EFFORT = 2;

/**
 * With f_auto the integrator cannot know which format answers, so q_ names a look on the JPEG/WebP
 * scale, and AVIF gets the quality that looks the same: scaled by the two defaults (80 → 50), the ratio
 * Next.js's optimizer also uses. Read literally, f_auto,q_75 made AVIFs about three times the bytes of
 * the WebP at q_75 for the same look, and slower to encode. An explicit f_avif keeps q_ as it is.
 */
function avifEquivalent(quality: number): number {
  return Math.max(1, Math.round((quality * DEFAULT_QUALITY.avif) / DEFAULT_QUALITY.webp));
}

/** Output formats that can carry transparency; JPEG output is flattened onto a background first. */
export function supportsAlpha(format: OutputFormat): boolean {
  return format !== "jpeg";
}

/** GIF and WebP animate; AVIF, PNG and JPEG output take the first frame. */
export function supportsAnimation(format: OutputFormat): boolean {
  return format === "gif" || format === "webp";
}

/**
 * Sets the encoder. Only what was measured or matters is set; the rest are sharp's defaults. PNG and
 * GIF ignore q_: PNG stays lossless (quantising it is a different operation), GIF is a palette anyway.
 */
export function applyEncoder(
  image: Sharp,
  format: OutputFormat,
  ops: ImageOperations,
  /**
   * OPTSTUFF_WEBP_EFFORT, by default libwebp's own 4: effort 2 encodes 30–40 % faster for 1–5 % more
   * bytes (docs/benchmarks.md), and an image is transformed once then served from caches many times.
   */
  webpEffort: number,
): Sharp {
  const quality = (fallback: number) => ops.quality ?? (ops.placeholder ? PLACEHOLDER_QUALITY : fallback);
  switch (format) {
    case "jpeg":
      // Baseline, no mozjpeg: its trellis quantisation costs CPU on every request for a few percent.
      return image.jpeg({ quality: quality(DEFAULT_QUALITY.jpeg) });
    case "webp":
      return image.webp({ quality: quality(DEFAULT_QUALITY.webp), effort: webpEffort });
    case "avif":
      return image.avif({
        quality:
          ops.format === "auto" && ops.quality !== undefined
            ? avifEquivalent(ops.quality)
            : quality(DEFAULT_QUALITY.avif),
        effort: AVIF_EFFORT,
      });
    case "png":
      return image.png();
    case "gif":
      return image.gif();
  }
}
