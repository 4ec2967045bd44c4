import { BlockList, isIP } from "node:net";

/**
 * Addresses that never name one visitor from the public internet: loopback, private and link-local
 * networks, carrier-grade NAT's shared space. When the per-address windows see one of these, it is a
 * proxy or load balancer in front of the app that OPTSTUFF_TRUSTED_PROXY_HOPS does not declare (nginx
 * on the same host, a Docker bridge, a cluster's ingress): counting it would put every visitor behind
 * that proxy in one window, which is the outage these windows exist to prevent.
 */
const shared = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  shared.addSubnet(network, prefix, "ipv4");
}
// `::` and `::1` (client-address.ts reduces IPv6 to its /64, so loopback arrives as `0:0:0:0::`),
// unique-local and link-local networks. IPv4-mapped addresses are checked against the IPv4 rules.
for (const [network, prefix] of [
  ["::", 127],
  ["fc00::", 7],
  ["fe80::", 10],
] as const) {
  shared.addSubnet(network, prefix, "ipv6");
}

/**
 * The identity the per-address windows count, from clientAddress() (src/server/ratelimit/client-address.ts,
 * which already reduces IPv6 to its /64 and anything unparsable to `unknown`), or null when the request
 * cannot be attributed to a visitor: the address is unknown (no socket address, nothing forwarded) or
 * not public (see above). Unattributed requests skip the per-address windows, never share one; the
 * per-key windows still bound what they cost. Availability first, as in the failure policy.
 */
export function addressSubject(address: string): string | null {
  // `unknown`, or anything else that is not an address (clientAddress never returns one): never a key.
  const family = isIP(address);
  if (family === 0) return null;
  return shared.check(address, family === 6 ? "ipv6" : "ipv4") ? null : address;
}
