import type { TransformLimits } from "./types";

/** Defaults for TransformLimits, for callers (and tests) without their own configuration. */
export const DEFAULT_TRANSFORM_LIMITS: Readonly<TransformLimits> = {
  /** 50 MP over all decoded frames: a 8K photo, or a 100-frame 700×700 animation. */
  maxInputPixels: 50_000_000,
  maxOutputDimension: 8192,
  /**
   * 24 MP (a 6000×4000 camera photo): a detailed WebP at q99 of 40 MP ran past the 20 s budget here
   * (bench:hostile), and 8192² would be 67 MP.
   */
  maxOutputPixels: 24_000_000,
  /** 3840×2160, next/image's largest default width at 16:9: about 6 s of AVIF at q99 on one core. */
  maxAvifPixels: 3840 * 2160,
  maxFrames: 500,
  /** Long enough for a large AVIF encode on a slow core, short enough to free the slot. */
  timeoutMs: 20_000,
};
