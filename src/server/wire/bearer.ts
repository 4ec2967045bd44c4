import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Whether `Authorization: Bearer <secret>` carries exactly `secret`. Both sides are hashed first and
 * compared in constant time, so the comparison reveals neither the secret nor its length.
 */
export function bearerMatches(authorization: string | null, secret: string): boolean {
  const given = authorization?.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : "";
  return timingSafeEqual(digest(given), digest(secret)) && given !== "";
}
