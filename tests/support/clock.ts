/**
 * Waits, when needed, until `needMs` fit before the window's next edge. A sliding window weighs the
 * previous window down as a new one starts (and floors the result), so a burst that straddles an edge
 * admits more than the limit, or no longer fills a small one: tests counting up to a limit start clear of it.
 */
export async function clearOfWindowEdge(windowMs = 60_000, needMs = 6_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}
