import { and, eq, gt } from "drizzle-orm";
import { parseCookies } from "better-auth/cookies";
import type { Database } from "@/server/db/client";
import { AppError } from "@/server/errors";
import { user, verification } from "@/server/db/schema";

/** better-auth's cookie for a password accepted and a second factor awaited (Secure's prefix over https). */
const challengeCookie = (secure: boolean) => `${secure ? "__Secure-" : ""}better-auth.two_factor`;

/**
 * The e-mail of the account a pending second-factor challenge belongs to, so its wrong codes count
 * against that account as wrong passwords do. The cookie is `identifier.signature`; the signature is
 * better-auth's to check (it refuses a forged one), and an identifier nobody was given finds no row.
 */
export async function challengedAccount(
  db: Pick<Database, "select">,
  cookieHeader: string | null,
  now: Date,
  secure: boolean,
): Promise<string | null> {
  if (!cookieHeader) return null;
  const name = challengeCookie(secure);
  // The cookie better-auth checks and the one read here must be the same: with two of that name they
  // could differ (a made-up one counted, the real one checked), so a request carrying two is refused.
  const named = cookieHeader.split(";").filter((pair) => pair.trim().startsWith(`${name}=`));
  if (named.length > 1) throw new AppError("INVALID_INPUT", { message: "Send one sign-in challenge cookie" });
  const raw = parseCookies(cookieHeader).get(name);
  if (!raw) return null;
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const identifier = value.slice(0, value.lastIndexOf("."));
  if (!identifier.startsWith("2fa-") || identifier.length > 100) return null;
  const [row] = await db
    .select({ email: user.email })
    .from(verification)
    .innerJoin(user, eq(user.id, verification.value))
    .where(and(eq(verification.identifier, identifier), gt(verification.expiresAt, now)))
    .limit(1);
  return row?.email ?? null;
}
