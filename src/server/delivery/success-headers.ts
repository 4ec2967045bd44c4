import type { MeasuredQuality } from "@/server/image";

/** The header naming the error a fallback answer stands in for (its public code). */
export const FALLBACK_HEADER = "X-OptStuff-Fallback";

export interface SuccessHeaderInput {
  /** Absent on a 304, which is answered before the output format is known. */
  contentType?: string;
  svg?: boolean;
  /** The format came from Accept (f_auto). */
  negotiated: boolean;
  /** Absent on a fallback answer: a revalidation must not keep the stand-in once the source works. */
  etag?: string;
  /** How long caches may keep the answer (answer-context.ts: until the signature expires, at most a year). */
  maxSeconds: number;
  /** The URL's final image without an expiry: it never changes (contract §4). */
  immutable: boolean;
  /** The public code of the error a fallback answer stands in for (answer-fallback.ts). */
  fallbackFor?: string;
  refererRestricted: boolean;
  requestId: string;
  serverTiming: string;
  /** Client hints the URL opted into (w_auto, dpr_auto): the answer varies on them. */
  hints?: readonly string[];
  /** Cache-Tag / Surrogate-Key values: what a purge tells a CDN to drop (docs/caching.md). */
  tags: readonly string[];
  /** What q_auto chose (a 200 only: a 304 is answered before the output is known). */
  measured?: MeasuredQuality;
}

/** Headers shared by 200 and 304 (a 304 repeats the caching headers of the 200 it stands for). */
export function successHeaders(input: SuccessHeaderInput): Headers {
  const headers = new Headers({
    "Cache-Control": cacheControl(input.maxSeconds, input.immutable),
    // RFC 9213: what a CDN keeps, stated apart from the browser's header. Vercel's CDN reads it before
    // Cache-Control (and strips s-maxage from what it passes on); Cloudflare and Akamai read it too.
    "CDN-Cache-Control": `public, max-age=${input.maxSeconds}`,
    "X-Content-Type-Options": "nosniff",
    "X-Request-Id": input.requestId,
    "Server-Timing": input.serverTiming,
  });
  if (input.etag) headers.set("ETag", input.etag);
  if (input.fallbackFor) headers.set(FALLBACK_HEADER, input.fallbackFor);
  // Each CDN reads its own spelling (Cloudflare Cache-Tag, Fastly Surrogate-Key, Vercel Vercel-Cache-Tag).
  if (input.tags.length > 0) {
    headers.set("Cache-Tag", input.tags.join(","));
    headers.set("Surrogate-Key", input.tags.join(" "));
    headers.set("Vercel-Cache-Tag", input.tags.join(","));
  }
  if (input.contentType) headers.set("Content-Type", input.contentType);
  const hints = input.hints ?? [];
  const vary = [input.negotiated ? "Accept" : null, input.refererRestricted ? "Referer" : null, ...hints].filter(
    Boolean,
  );
  if (vary.length > 0) headers.set("Vary", vary.join(", "));
  // Asks the browser for the hints on its next requests to this origin (a page on another origin
  // delegates them itself: docs/url-format.md).
  if (hints.length > 0) headers.set("Accept-CH", hints.join(", "));
  // Contract §3: the chosen quality and its score, as the result was stored, and a level out of reach.
  if (input.measured) {
    const { quality, score, unreached } = input.measured;
    headers.set("X-OptStuff-Quality", `${quality}; score=${score.toFixed(1)}${unreached ? "; unreached" : ""}`);
  }
  // An SVG opened directly as a document must not run anything it carries.
  if (input.svg) headers.set("Content-Security-Policy", "default-src 'none'");
  return headers;
}

export function cacheControl(maxSeconds: number, immutable: boolean): string {
  return `public, max-age=${maxSeconds}, s-maxage=${maxSeconds}${immutable ? ", immutable" : ""}`;
}

export function serverTiming(phases: Record<string, number>): string {
  return Object.entries(phases)
    .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`)
    .join(", ");
}
