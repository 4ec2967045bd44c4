import {
  DEFAULT_LEVEL,
  DEFAULT_QUALITY,
  QUALITY_LEVELS,
  type ImageOperations,
  type QualityLevel,
} from "@/server/image";

/**
 * Widths a w_auto answer is rounded up to: the hint is an unsigned header, so without steps one signed
 * URL could be made into thousands of variants (each a transform and a cache entry). These are
 * next/image's default widths, plus small ones.
 */
export const AUTO_WIDTHS = [64, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920, 2048, 3840, 8192] as const;
/** Ratios dpr_auto rounds up to, for the same reason. */
export const AUTO_DPRS = [1, 1.5, 2, 2.5, 3, 4] as const;
/** Save-Data: on lowers the quality to this share of what it would have been. */
const SAVE_DATA_SHARE = 0.6;

export interface HintedOperations {
  /** Concrete operations: no auto left, so the variant key names what is made. */
  operations: ImageOperations;
  /** Request headers the answer depends on: the response's Vary, and its Accept-CH. */
  hints: string[];
}

/**
 * Client hints count only where the URL opts in (w_auto, dpr_auto): then Sec-CH-Width, Sec-CH-DPR and
 * Save-Data choose the width, ratio and quality, each rounded to a few steps; without the opt-in they
 * are ignored and nothing varies on them.
 */
export function applyClientHints(ops: ImageOperations, headers: Headers): HintedOperations {
  if (!ops.autoWidth && !ops.autoDpr) return { operations: ops, hints: [] };
  const { autoWidth, autoDpr, ...operations } = ops;
  const hints: string[] = [];
  if (autoDpr) {
    hints.push("Sec-CH-DPR");
    const dpr = stepUp(AUTO_DPRS, decimalHeader(headers.get("sec-ch-dpr")));
    if (dpr !== undefined && dpr !== 1) operations.dpr = dpr;
  }
  if (autoWidth) {
    hints.push("Sec-CH-Width");
    // The hint is in device pixels: divided by the ratio here, multiplied by it again when resizing.
    const device = stepUp(AUTO_WIDTHS, decimalHeader(headers.get("sec-ch-width")));
    if (device !== undefined) operations.width = Math.max(1, Math.round(device / (operations.dpr ?? 1)));
  }
  hints.push("Save-Data");
  if (headers.get("save-data")?.trim().toLowerCase() === "on" && !operations.placeholder) {
    // q_auto searches its own quality: Save-Data asks it for the next level down instead.
    if (operations.qualityTarget || operations.format === "best")
      operations.qualityTarget = lowerLevel(operations.qualityTarget ?? DEFAULT_LEVEL);
    else operations.quality = Math.max(10, Math.round(startingQuality(operations) * SAVE_DATA_SHARE));
  }
  return { operations, hints };
}

function lowerLevel(level: QualityLevel): QualityLevel {
  const levels = Object.keys(QUALITY_LEVELS) as QualityLevel[]; // best first
  return levels[Math.min(levels.indexOf(level) + 1, levels.length - 1)]!;
}

/** q_ or the default on its scale (f_auto's AVIF reads it as WebP's; an explicit f_avif has its own). */
function startingQuality(ops: ImageOperations): number {
  return ops.quality ?? (ops.format === "avif" ? DEFAULT_QUALITY.avif : DEFAULT_QUALITY.webp);
}

/** A structured-header decimal (`2`, `1.5`); anything else is no hint. */
function decimalHeader(value: string | null): number | undefined {
  if (value === null || !/^\s*[0-9]{1,5}(\.[0-9]{1,3})?\s*$/.test(value)) return undefined;
  const n = Number(value);
  return n > 0 ? n : undefined;
}

/** The first step at or above `value` (the largest step past the end); undefined stays undefined. */
function stepUp<T extends number>(steps: readonly T[], value: number | undefined): T | undefined {
  if (value === undefined) return undefined;
  return steps.find((step) => step >= value) ?? steps[steps.length - 1];
}
