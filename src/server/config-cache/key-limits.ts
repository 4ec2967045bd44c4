/**
 * A key's transforms (result-cache misses) per minute and per day when its columns are null. A page of
 * 30 images with 6 srcset widths in 3 negotiated formats is at most 540 variants, all of which a cold CDN
 * may ask for in its first minute: 600 lets it through. 100,000 a day bounds what a leaked key costs
 * (about 3.3 CPU-hours at the 120 ms a 12 MP JPEG takes, docs/benchmarks.md). docs/architecture.md.
 */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
export const DEFAULT_RATE_LIMIT_PER_DAY = 100_000;

/** The limits a key is held to: its own, else the defaults. The image route and the dashboard both ask. */
export function effectiveKeyLimits(key: { rateLimitPerMinute: number | null; rateLimitPerDay: number | null }): {
  perMinute: number;
  perDay: number;
} {
  return {
    perMinute: key.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    perDay: key.rateLimitPerDay ?? DEFAULT_RATE_LIMIT_PER_DAY,
  };
}
