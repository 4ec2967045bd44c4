import { AppError } from "@/server/errors";
import { bearerMatches } from "@/server/wire/bearer";

/** `Authorization: Bearer $CRON_SECRET`; without a secret the routes are closed, never open. */
export function authorizeCron(authorization: string | null, secret: string | null): void {
  if (!secret) throw new AppError("CRON_NOT_CONFIGURED");
  if (!bearerMatches(authorization, secret)) throw new AppError("CRON_UNAUTHORIZED");
}
