import { isIPv4, isIPv6 } from "node:net";

/** An IP address as a number, so ranges can be compared with plain bit arithmetic. */
export interface ParsedIp {
  family: 4 | 6;
  /** 32 bits for IPv4, 128 bits for IPv6. */
  value: bigint;
}

/**
 * Parses a textual IP address (dotted IPv4, any IPv6 spelling, with or without `[]` or a `%zone`).
 * Returns null for anything else: callers treat "not an IP" as forbidden, so this fails closed.
 * Only canonical dotted IPv4 is accepted on purpose: odd spellings (`0x7f.1`, `2130706433`) are turned
 * into dotted form by the WHATWG URL parser before they get here.
 */
export function parseIp(text: string): ParsedIp | null {
  const bare = stripZone(text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text);
  if (isIPv4(bare)) return { family: 4, value: ipv4ToBigInt(bare) };
  if (isIPv6(bare)) return { family: 6, value: ipv6ToBigInt(bare) };
  return null;
}

/** Formats a 32-bit value as dotted IPv4 (used to report embedded addresses). */
export function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join(".");
}

// A zone id (`fe80::1%eth0`) only selects an interface; it does not change which range an address is in.
function stripZone(text: string): string {
  const percent = text.indexOf("%");
  return percent === -1 ? text : text.slice(0, percent);
}

function ipv4ToBigInt(text: string): bigint {
  return text.split(".").reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

// Input is already validated by isIPv6, so this only has to expand `::` and a dotted IPv4 tail.
function ipv6ToBigInt(text: string): bigint {
  const [head = "", tail] = text.split("::");
  const left = toHextets(head);
  const right = tail === undefined ? [] : toHextets(tail);
  const missing = 8 - left.length - right.length;
  const hextets = [...left, ...Array<number>(Math.max(missing, 0)).fill(0), ...right];
  return hextets.reduce((acc, part) => (acc << 16n) | BigInt(part), 0n);
}

function toHextets(part: string): number[] {
  if (part === "") return [];
  return part.split(":").flatMap((piece) => {
    if (!piece.includes(".")) return [Number.parseInt(piece, 16)];
    const v4 = ipv4ToBigInt(piece);
    return [Number(v4 >> 16n), Number(v4 & 0xffffn)];
  });
}
