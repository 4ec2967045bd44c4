import { asc, eq, sql } from "drizzle-orm";
import type { AuditTrail } from "@/server/audit/trail";
import type { Database } from "@/server/db/client";
import { twoFactor, user } from "@/server/db/schema";
import { AppError } from "@/server/errors";

export interface AccountRow {
  email: string;
  name: string;
  secondFactor: boolean;
  createdAt: Date;
}

/** Every account of the instance, oldest first: who has a second factor. */
export function listAccounts(db: Pick<Database, "select">): Promise<AccountRow[]> {
  return db
    .select({ email: user.email, name: user.name, secondFactor: user.twoFactorEnabled, createdAt: user.createdAt })
    .from(user)
    .orderBy(asc(user.createdAt));
}

/**
 * The operator's way back in for someone who lost both the authenticator app and the recovery codes:
 * the account's factor is removed (its secret and codes deleted) and its password signs in alone until
 * it sets up a new one. Audited as the command line; an account without one changes nothing.
 */
export async function resetSecondFactor(
  deps: { db: Database; audit: AuditTrail },
  email: string,
): Promise<{ changed: boolean }> {
  return deps.db.transaction(async (tx) => {
    const [account] = await tx
      .select({ id: user.id, email: user.email, on: user.twoFactorEnabled })
      .from(user)
      .where(eq(sql`lower(${user.email})`, email.trim().toLowerCase()))
      .for("update");
    if (!account) throw new AppError("NOT_FOUND", { message: `No account has the address ${email}` });
    const [removed] = await tx
      .delete(twoFactor)
      .where(eq(twoFactor.userId, account.id))
      .returning({ id: twoFactor.id });
    if (!account.on && !removed) return { changed: false };
    await tx.update(user).set({ twoFactorEnabled: false, updatedAt: new Date() }).where(eq(user.id, account.id));
    await deps.audit.record(tx, {
      teamId: null,
      action: "account.second_factor_disabled",
      target: { id: account.id, label: account.email },
    });
    return { changed: true };
  });
}
