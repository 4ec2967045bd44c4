/**
 * The client's address from X-Forwarded-For. Each proxy appends the address it received the request
 * from, so only entries added by our own proxies can be trusted: `trustedHops` counts the proxies in
 * front of the app whose entries are to be skipped from the right (Vercel sets the header to the
 * client address alone: 0). `next start` only fills the header with the socket address when the
 * client sent none, so an app reachable without a proxy can be given any address: run it behind a
 * proxy that sets the header (docs/architecture.md, rate limits).
 */
export function clientAddress(headers: Headers, trustedHops: number): string {
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (chain.length === 0) return headers.get("x-real-ip")?.trim() || "unknown";
  return chain[Math.max(0, chain.length - 1 - trustedHops)]!;
}
