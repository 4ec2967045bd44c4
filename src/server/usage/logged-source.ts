import { createHash } from "node:crypto";

/**
 * What the request log and the statistics keep of a source name: its first characters, and a hash of
 * the whole so one source can still be found exactly. The route takes sources up to 2,048 bytes
 * (parse-request.ts); kept whole, a filter matched against them costs their length on every row read,
 * which a hostile tenant chooses.
 */
export const LOGGED_SOURCE_CHARS = 256;

/** The clipped text ends in this, so a reader can tell it from a whole name. */
const CLIPPED = "…";

export function loggedSourceText(name: string): string {
  if (name.length <= LOGGED_SOURCE_CHARS) return name;
  let cut = LOGGED_SOURCE_CHARS - CLIPPED.length;
  // Never leave half of a surrogate pair behind.
  const last = name.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return name.slice(0, cut) + CLIPPED;
}

/** 128 bits of the name's SHA-256, hex: the request log's exact-source index holds it. */
export function sourceHashOf(name: string): string {
  return createHash("sha256").update(name).digest("hex").slice(0, 32);
}
