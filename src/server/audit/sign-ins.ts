import { eq, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { user } from "@/server/db/schema";
import type { AuditAction } from "@/lib/audit-actions";
import type { AccountSecurityChange } from "@/server/auth/create-auth";
import { auditTrail, userActor, type AuditTrail } from "./trail";

export interface SignInOrigin {
  ip: string | null;
  userAgent: string | null;
}

/**
 * A session was made (a sign-in, or the sign-up that signs in): an instance entry as that account.
 * Answers the account's trail, for what the sign-in goes on to do (the owner adopting teams).
 */
export function recordSignIn(
  deps: { db: Database; now: () => Date },
  session: { userId: string } & SignInOrigin,
): Promise<AuditTrail | null> {
  return recordAccountEntry(deps, "account.signed_in", session);
}

const SECURITY_ACTIONS = {
  enabled: "account.second_factor_enabled",
  disabled: "account.second_factor_disabled",
  codes_renewed: "account.recovery_codes_renewed",
  passkey_added: "account.passkey_added",
  passkey_removed: "account.passkey_removed",
} as const satisfies Record<AccountSecurityChange, AuditAction>;

/** The account changed how it signs in (second factor, recovery codes, passkeys): an instance entry as it. */
export async function recordAccountSecurityChange(
  deps: { db: Database; now: () => Date },
  change: AccountSecurityChange,
  origin: { userId: string } & SignInOrigin,
): Promise<void> {
  await recordAccountEntry(deps, SECURITY_ACTIONS[change], origin);
}

async function recordAccountEntry(
  deps: { db: Database; now: () => Date },
  action: AuditAction,
  session: { userId: string } & SignInOrigin,
): Promise<AuditTrail | null> {
  const [account] = await deps.db
    .select({ id: user.id, email: user.email })
    .from(user)
    .where(eq(user.id, session.userId));
  if (!account) return null;
  const audit = auditTrail(userActor(account, session), deps.now);
  await audit.record(deps.db, { teamId: null, action, target: labelled(account) });
  return audit;
}

/**
 * A wrong password for an existing account, past the failure guard (which bounds these to its window
 * per account). An address with no account writes nothing: otherwise anyone could fill the log with
 * made-up addresses.
 */
export async function recordFailedSignIn(
  deps: { db: Database; now: () => Date },
  email: string,
  origin: SignInOrigin,
): Promise<void> {
  const [account] = await deps.db
    .select({ id: user.id, email: user.email })
    .from(user)
    .where(eq(sql`lower(${user.email})`, email.trim().toLowerCase()));
  if (!account) return;
  // Nobody is signed in: whoever typed the password is not the account's owner until proven.
  const audit = auditTrail({ type: "anonymous", id: null, label: "someone signing in", ...origin }, deps.now);
  await audit.record(deps.db, { teamId: null, action: "account.sign_in_failed", target: labelled(account) });
}

const labelled = (account: { id: string; email: string }) => ({ id: account.id, label: account.email });
