import { isIP } from "node:net";
import { formatIpv4, parseIp } from "./ip-address";

export interface ForbiddenRange {
  cidr: string;
  name: string;
  /** Loopback ranges are the only ones the development/test setting `allowLoopback` opens. */
  loopback?: true;
  /**
   * The range carries an IPv4 address inside: the verdict is the embedded address's, so
   * `::ffff:127.0.0.1` is refused as loopback while `::ffff:8.8.8.8` is not. Only `mapped` is the
   * same host as its IPv4 address, so only it honours `allowLoopback`; `nat64` and `6to4` go through
   * a gateway, and an embedded loopback there is never a development origin.
   */
  embeddedIpv4?: "mapped" | "nat64" | "6to4";
}

/**
 * Every address range a source fetch may never connect to. First match wins, so narrower entries
 * come before the ranges that contain them (for a precise name in the request log).
 */
export const forbiddenRanges = [
  { cidr: "0.0.0.0/8", name: "this network (0.0.0.0 reaches the local host on Linux)" },
  { cidr: "10.0.0.0/8", name: "private" },
  { cidr: "100.64.0.0/10", name: "carrier-grade NAT" },
  { cidr: "127.0.0.0/8", name: "loopback", loopback: true },
  { cidr: "169.254.169.254/32", name: "cloud metadata" },
  { cidr: "169.254.0.0/16", name: "link-local" },
  { cidr: "172.16.0.0/12", name: "private" },
  { cidr: "192.0.0.0/24", name: "IETF protocol assignments" },
  { cidr: "192.0.2.0/24", name: "documentation (TEST-NET-1)" },
  { cidr: "192.88.99.0/24", name: "6to4 relay anycast" },
  { cidr: "192.168.0.0/16", name: "private" },
  { cidr: "198.18.0.0/15", name: "benchmarking" },
  { cidr: "198.51.100.0/24", name: "documentation (TEST-NET-2)" },
  { cidr: "203.0.113.0/24", name: "documentation (TEST-NET-3)" },
  { cidr: "224.0.0.0/4", name: "multicast" },
  { cidr: "255.255.255.255/32", name: "limited broadcast" },
  { cidr: "240.0.0.0/4", name: "reserved" },
  { cidr: "::/128", name: "unspecified" },
  { cidr: "::1/128", name: "loopback", loopback: true },
  { cidr: "::ffff:0:0/96", name: "IPv4-mapped", embeddedIpv4: "mapped" },
  { cidr: "::/96", name: "IPv4-compatible (deprecated)" },
  // NAT64 with the well-known prefix reaches the embedded IPv4 address, so judge that one; the
  // local-use prefix places the IPv4 address differently per deployment, so it is refused outright.
  { cidr: "64:ff9b::/96", name: "NAT64", embeddedIpv4: "nat64" },
  { cidr: "64:ff9b:1::/48", name: "local-use NAT64" },
  { cidr: "100::/64", name: "discard-only" },
  { cidr: "2001::/32", name: "Teredo" },
  { cidr: "2001::/23", name: "IETF protocol assignments" },
  { cidr: "2001:db8::/32", name: "documentation" },
  { cidr: "2002::/16", name: "6to4", embeddedIpv4: "6to4" },
  { cidr: "3fff::/20", name: "documentation" },
  { cidr: "fc00::/7", name: "unique local" },
  { cidr: "fe80::/10", name: "link-local" },
  { cidr: "fec0::/10", name: "site-local (deprecated)" },
  { cidr: "ff00::/8", name: "multicast" },
  // Fail closed on the rest of the IPv6 space: only 2000::/3 is global unicast today, so anything
  // outside it is reserved or unallocated and has no business being an image origin.
  { cidr: "::/3", name: "not global unicast" },
  { cidr: "4000::/2", name: "not global unicast" },
  { cidr: "8000::/1", name: "not global unicast" },
] satisfies ForbiddenRange[];

export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

interface CompiledRange extends ForbiddenRange {
  family: 4 | 6;
  network: bigint;
  mask: bigint;
}

// Parsed once at load: a malformed entry is a programming error and must stop the process early.
const compiled: readonly CompiledRange[] = (forbiddenRanges as readonly ForbiddenRange[]).map(compile);

/**
 * Decides whether a source fetch may connect to `ip`. Anything that is not an IP address is refused.
 * `allowLoopback` (development and tests only) opens 127.0.0.0/8 and ::1, nothing else.
 */
export function classifyAddress(ip: string, allowLoopback = false): AddressVerdict {
  const parsed = parseIp(ip);
  if (!parsed) return { allowed: false, range: "not an IP address" };
  const range = compiled.find((r) => r.family === parsed.family && (parsed.value & r.mask) === r.network);
  if (!range) return { allowed: true };
  const label = `${range.cidr} (${range.name})`;
  if (range.embeddedIpv4) {
    const embedded = formatIpv4(extractIpv4(parsed.value, range.embeddedIpv4));
    const inner = classifyAddress(embedded, allowLoopback && range.embeddedIpv4 === "mapped");
    return inner.allowed ? inner : { allowed: false, range: `${label} embedding ${embedded}: ${inner.range}` };
  }
  if (range.loopback && allowLoopback) return { allowed: true };
  return { allowed: false, range: label };
}

const forbiddenNames = new Set(["localhost", "metadata", "instance-data", "metadata.google.internal"]);
// `.home.arpa` is the standardised home-network zone (RFC 8375), in the same family as `.local`.
const forbiddenSuffixes = [".localhost", ".internal", ".local", ".localdomain", ".home.arpa"];

/**
 * Names refused before any DNS lookup: local-only and cloud-metadata names, and single-label names
 * (they resolve through the server's search domains, i.e. to internal hosts). IP literals are not
 * names: they go through `classifyAddress` instead, so this returns false for them.
 */
export function isForbiddenHostname(name: string): boolean {
  const unbracketed = name.startsWith("[") && name.endsWith("]") ? name.slice(1, -1) : name;
  if (isIP(unbracketed) !== 0) return false;
  const host = unbracketed.toLowerCase().replace(/\.+$/, "");
  if (host === "" || !host.includes(".")) return true;
  return forbiddenNames.has(host) || forbiddenSuffixes.some((suffix) => host.endsWith(suffix));
}

function compile(range: ForbiddenRange): CompiledRange {
  const [address = "", prefixText = ""] = range.cidr.split("/");
  const parsed = parseIp(address);
  const prefix = Number(prefixText);
  const width = parsed?.family === 4 ? 32 : 128;
  if (!parsed || !Number.isInteger(prefix) || prefix < 0 || prefix > width) {
    throw new Error(`ip-policy: malformed range ${range.cidr}`);
  }
  const all = (1n << BigInt(width)) - 1n;
  const mask = all ^ ((1n << BigInt(width - prefix)) - 1n);
  return { ...range, family: parsed.family, network: parsed.value & mask, mask };
}

function extractIpv4(value: bigint, form: "mapped" | "nat64" | "6to4"): bigint {
  // 6to4 is 2002:AABB:CCDD::/48, the IPv4 address sitting in bits 16..47; the others end with it.
  return form === "6to4" ? (value >> 80n) & 0xffffffffn : value & 0xffffffffn;
}
