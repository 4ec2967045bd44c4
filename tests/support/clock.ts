/**
 * Waits, when needed, until `needMs` fit before the window's next edge. A sliding window weighs the
 * previous window down as a new one starts (and floors the result), so a burst that straddles an edge
 * admits more than the limit, or no longer fills a small one: tests counting up to a limit start clear of it.
 */
export async function clearOfWindowEdge(windowMs = 60_000, needMs = 6_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/**
 * When the fixed window holding `at` ends, in Unix seconds: what `X-RateLimit-Reset` says for a refusal
 * by that window. Windows are aligned to the epoch, in @upstash/ratelimit and in process alike, so the
 * day window ends at UTC midnight whatever the key's history.
 */
export function windowEndSeconds(windowMs: number, at = Date.now()): number {
  return ((Math.floor(at / windowMs) + 1) * windowMs) / 1000;
}
