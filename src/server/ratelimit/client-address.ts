import { timingSafeEqual } from "node:crypto";
import { isIPv4, isIPv6 } from "node:net";

/**
 * The header in which our server (scripts/server.mjs, what `npm start` runs) hands every request the
 * address of the socket it came in on. The server overwrites any copy a client sends, so under it the
 * value is a fact, not a claim. Keep the name in step with scripts/peer-address.mjs (a test checks it).
 */
export const PEER_ADDRESS_HEADER = "x-optstuff-peer-address";

/** Where a CDN in front proves it is the one speaking (OPTSTUFF_CDN_SECRET). */
export const CDN_SECRET_HEADER = "x-optstuff-cdn-secret";

/** How this deployment learns who a client is (ratelimit/settings.ts: clientAddressesOf). */
export interface ClientAddressPolicy {
  /** Reverse proxies in front (self-hosted), each appending to X-Forwarded-For. */
  trustedHops: number;
  /**
   * On Vercel: its edge replaces X-Forwarded-For with the one address it saw, and no server of ours
   * stamps the peer header there, so a peer header is whatever the client sent.
   */
  vercel: boolean;
  /** A CDN in front naming the client in a header of its own, believed only with the shared secret. */
  cdn: { addressHeader: string; secret: string } | null;
}

export const directClients: ClientAddressPolicy = { trustedHops: 0, vercel: false, cdn: null };

/**
 * The client's address as a rate-limit identity.
 * - A CDN that sent the shared secret: its header names the client (a request around the CDN, without
 *   the secret, is counted by the address that reached us, which a client cannot choose).
 * - On Vercel: X-Forwarded-For as Vercel's edge wrote it.
 * - Self-hosted, `trustedHops` reverse proxies each appending the address they received the request
 *   from to X-Forwarded-For; entries further left were written by the client and prove nothing, so:
 * - no proxy: the socket's address, stamped by our server. A client can put anything in
 *   X-Forwarded-For: `next start` fills it from the socket only when the client sent none.
 * - N proxies: the N-th entry from the right, the one the outermost proxy appended.
 * Without the stamp (`next dev`, a plain `next start`) the last X-Forwarded-For entry is all there is;
 * docs/self-hosting.md says to start with `npm start` or put a proxy in front.
 * IPv6 addresses are reduced to their /64 network (written as an address, `2001:db8:1:2::`, which
 * better-auth's own address check accepts): one subscriber holds a whole /64 and could otherwise take
 * a fresh identity per request.
 */
export function clientAddress(headers: Headers, policy: ClientAddressPolicy): string {
  if (policy.cdn && sameSecret(headers.get(CDN_SECRET_HEADER), policy.cdn.secret))
    return identity(headers.get(policy.cdn.addressHeader)?.trim() ?? "unknown");
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (policy.vercel) return identity(chain.at(-1) ?? "unknown");
  const trustedHops = policy.trustedHops;
  const peer = headers.get(PEER_ADDRESS_HEADER)?.trim() || undefined;
  if (trustedHops > 0 && chain.length >= trustedHops) return identity(chain[chain.length - trustedHops]!);
  // A request that passed fewer proxies than configured reached us around them: its socket is all we know.
  return identity(peer ?? chain.at(-1) ?? "unknown");
}

function sameSecret(given: string | null, secret: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

function identity(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (isIPv4(address)) return address;
  if (isIPv6(address)) return `${ipv6Groups(address).slice(0, 4).join(":")}::`;
  // Anything else came from a header a client may have written: never let it size a limiter's key.
  return "unknown";
}

/** The eight groups of an IPv6 address, lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const [head = "", tail] = address.toLowerCase().replace(/%.*$/, "").split("::");
  const split = (part: string) => (part === "" ? [] : part.split(":"));
  const left = split(head);
  const right = tail === undefined ? [] : split(tail);
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  return groups.map((group) => (group.includes(".") ? group : Number.parseInt(group, 16).toString(16)));
}
