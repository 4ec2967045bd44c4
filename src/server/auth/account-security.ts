import { and, asc, eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { account, passkey, user } from "@/server/db/schema";
import { PASSKEYS_PER_ACCOUNT } from "./passkeys";

export interface AccountSecurity {
  /** A code from an authenticator app (or a recovery code) is asked for after the password. */
  secondFactor: boolean;
  /** The account has a password: turning the factor on or off asks for it (a provider-only account cannot). */
  password: boolean;
  /** Its passkeys, oldest first: each signs in on its own. */
  passkeys: { id: string; name: string | null; createdAt: Date; synced: boolean }[];
  /** How many passkeys an account may keep. */
  passkeyLimit: number;
}

/** What the account page shows and asks for. */
export async function accountSecurity(db: Pick<Database, "select">, userId: string): Promise<AccountSecurity> {
  const [row] = await db
    .select({ secondFactor: user.twoFactorEnabled, passwordAccount: account.id })
    .from(user)
    .leftJoin(account, and(eq(account.userId, user.id), eq(account.providerId, "credential")))
    .where(eq(user.id, userId))
    .limit(1);
  const passkeys = await db
    .select({ id: passkey.id, name: passkey.name, createdAt: passkey.createdAt, synced: passkey.backedUp })
    .from(passkey)
    .where(eq(passkey.userId, userId))
    .orderBy(asc(passkey.createdAt), asc(passkey.id))
    .limit(PASSKEYS_PER_ACCOUNT);
  return {
    secondFactor: row?.secondFactor === true,
    password: Boolean(row?.passwordAccount),
    passkeys,
    passkeyLimit: PASSKEYS_PER_ACCOUNT,
  };
}
