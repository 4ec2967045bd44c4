import { and, eq, gt } from "drizzle-orm";
import { parseCookies } from "better-auth/cookies";
import type { Database } from "@/server/db/client";
import { user, verification } from "@/server/db/schema";

/** better-auth's cookie for a password accepted and a second factor awaited, with and without Secure's prefix. */
const CHALLENGE_COOKIES = ["better-auth.two_factor", "__Secure-better-auth.two_factor"];

/**
 * The e-mail of the account a pending second-factor challenge belongs to, so its wrong codes count
 * against that account as wrong passwords do. The cookie is `identifier.signature`; the signature is
 * better-auth's to check (it refuses a forged one), and an identifier nobody was given finds no row.
 */
export async function challengedAccount(
  db: Pick<Database, "select">,
  cookieHeader: string | null,
  now: Date,
): Promise<string | null> {
  if (!cookieHeader) return null;
  const cookies = parseCookies(cookieHeader);
  const raw = CHALLENGE_COOKIES.map((name) => cookies.get(name)).find(Boolean);
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
