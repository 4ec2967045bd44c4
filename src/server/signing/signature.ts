import { createHmac, timingSafeEqual } from "node:crypto";

/** Length of the truncated base64url signature (contract §2). */
export const SIGNATURE_LENGTH = 32;

/**
 * The signed string, byte-compatible with existing OptStuff clients: `source` is the decoded source as
 * it appeared in the URL (no scheme added), and `exp` takes part only when present.
 */
export function signaturePayload(operations: string, source: string, exp?: number | string): string {
  return exp === undefined || exp === "" ? `${operations}/${source}` : `${operations}/${source}?exp=${exp}`;
}

/**
 * The payload format is ambiguous (contract §2): a source ending in `?exp=N` signed without `exp`
 * produces the same string as that source without the suffix signed with `exp=N`. A request without
 * `exp` whose payload ends so is refused, or an expired URL could be replayed as a permanent one by
 * moving its `?exp=N` into the source (`%3Fexp%3DN`).
 */
export function endsLikeExpiry(payload: string): boolean {
  return TRAILING_EXP.test(payload);
}

const TRAILING_EXP = /\?exp=\d+$/;

export function sign(secretKey: string, payload: string): string {
  return createHmac("sha256", secretKey).update(payload, "utf8").digest("base64url").slice(0, SIGNATURE_LENGTH);
}

/** Constant-time over equal lengths; a wrong length is refused before comparing (it leaks nothing). */
export function verifySignature(secretKey: string, payload: string, signature: string): boolean {
  const expected = Buffer.from(sign(secretKey, payload), "utf8");
  const given = Buffer.from(signature, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
