import type { TransformLimits } from "./types";

/** Defaults for TransformLimits, for callers (and tests) without their own configuration. */
export const DEFAULT_TRANSFORM_LIMITS: Readonly<TransformLimits> = {
  /** 50 MP over all decoded frames: a 8K photo, or a 100-frame 700×700 animation. */
  maxInputPixels: 50_000_000,
  maxOutputDimension: 8192,
  /** 40 MP: a WebP of that size encodes in about 4 s on one core (measured); 8192² would be 67 MP. */
  maxOutputPixels: 40_000_000,
  /** 3840×2160, next/image's largest default width at 16:9: about 6 s of AVIF at q99 on one core. */
  maxAvifPixels: 3840 * 2160,
  maxFrames: 500,
  /** Long enough for a large AVIF encode on a slow core, short enough to free the slot. */
  timeoutMs: 20_000,
};
