import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
import type { RegistrationPolicy } from "./registration";
import { auditTrail, systemActor } from "@/server/audit/trail";

/** Any 64-bit number of our own: instances starting together write one entry, not one each. */
const REGISTRATION_RECORD_LOCK = 0x6f707473_61756469n;

/** The policy as the log says it: `invite-only`, `open`, with the domains when there are any. */
export function describeRegistration(policy: RegistrationPolicy): string {
  return policy.emailDomains.length > 0 ? `${policy.mode}; domains: ${policy.emailDomains.join(", ")}` : policy.mode;
}

/**
 * Who may sign up is set by the environment, so it changes when a server starts with another value:
 * the start compares it with the last one recorded and writes an instance entry when it differs (the
 * first start records the first policy). Answers whether it wrote one.
 */
export async function recordRegistrationPolicy(
  deps: { db: Database; now: () => Date },
  policy: RegistrationPolicy,
): Promise<boolean> {
  const current = describeRegistration(policy);
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${REGISTRATION_RECORD_LOCK})`);
    const [last] = await tx
      .select({ changes: auditLog.changes })
      .from(auditLog)
      .where(and(eq(auditLog.action, "instance.registration_changed"), isNull(auditLog.teamId)))
      .orderBy(desc(auditLog.id))
      .limit(1);
    const before = (last?.changes?.policy?.to as string | undefined) ?? null;
    if (before === current) return false;
    await auditTrail(systemActor("server start (environment)"), deps.now).record(tx, {
      teamId: null,
      action: "instance.registration_changed",
      target: { id: "registration", label: "who may sign up" },
      changes: { policy: { from: before, to: current } },
    });
    return true;
  });
}
