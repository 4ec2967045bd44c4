import { and, eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { account, user } from "@/server/db/schema";

export interface AccountSecurity {
  /** A code from an authenticator app (or a recovery code) is asked for after the password. */
  secondFactor: boolean;
  /** The account has a password: turning the factor on or off asks for it (a provider-only account cannot). */
  password: boolean;
}

/** What the account page shows and asks for. */
export async function accountSecurity(db: Pick<Database, "select">, userId: string): Promise<AccountSecurity> {
  const [row] = await db
    .select({ secondFactor: user.twoFactorEnabled, passwordAccount: account.id })
    .from(user)
    .leftJoin(account, and(eq(account.userId, user.id), eq(account.providerId, "credential")))
    .where(eq(user.id, userId))
    .limit(1);
  return { secondFactor: row?.secondFactor === true, password: Boolean(row?.passwordAccount) };
}
