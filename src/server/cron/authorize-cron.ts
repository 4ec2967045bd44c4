import { createHash, timingSafeEqual } from "node:crypto";
import { AppError } from "@/server/errors";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * `Authorization: Bearer $CRON_SECRET`, compared in constant time (both sides hashed first, so the
 * comparison does not even reveal the secret's length). Without a secret the routes are closed.
 */
export function authorizeCron(authorization: string | null, secret: string | null): void {
  if (!secret) throw new AppError("CRON_NOT_CONFIGURED");
  const given = authorization?.startsWith("Bearer ") ? authorization.slice("Bearer ".length) : "";
  if (!timingSafeEqual(digest(given), digest(secret)) || given === "") throw new AppError("CRON_UNAUTHORIZED");
}
