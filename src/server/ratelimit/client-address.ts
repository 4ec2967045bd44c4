import { isIPv4, isIPv6 } from "node:net";

/**
 * The header in which our server (scripts/server.mjs, what `npm start` runs) hands every request the
 * address of the socket it came in on. The server overwrites any copy a client sends, so under it the
 * value is a fact, not a claim. Keep the name in step with scripts/peer-address.mjs (a test checks it).
 */
export const PEER_ADDRESS_HEADER = "x-optstuff-peer-address";

/**
 * The client's address as a rate-limit identity. `trustedHops` is the number of reverse proxies in
 * front of the app, each appending the address it received the request from to X-Forwarded-For
 * (service-options.ts counts Vercel's edge as one). Entries further left were written by the client
 * and prove nothing, so:
 * - no proxy: the socket's address, stamped by our server. A client can put anything in
 *   X-Forwarded-For: `next start` fills it from the socket only when the client sent none.
 * - N proxies: the N-th entry from the right, the one the outermost proxy appended.
 * Without the stamp (`next dev`, a plain `next start`) the last X-Forwarded-For entry is all there is;
 * docs/self-hosting.md says to start with `npm start` or put a proxy in front.
 * IPv6 addresses are reduced to their /64 network (written as an address, `2001:db8:1:2::`, which
 * better-auth's own address check accepts): one subscriber holds a whole /64 and could otherwise take
 * a fresh identity per request.
 */
export function clientAddress(headers: Headers, trustedHops: number): string {
  const chain = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const peer = headers.get(PEER_ADDRESS_HEADER)?.trim() || undefined;
  if (trustedHops > 0 && chain.length >= trustedHops) return identity(chain[chain.length - trustedHops]!);
  // A request that passed fewer proxies than configured reached us around them: its socket is all we know.
  return identity(peer ?? chain.at(-1) ?? "unknown");
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
