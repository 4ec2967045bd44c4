import { sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { auditLog } from "@/server/db/schema";
import { auditActions, type AuditAction } from "@/lib/audit-actions";
import { enqueueAuditEntry } from "@/server/webhooks/enqueue";
import { redacted, type AuditChanges } from "./changes";

/** Who a change is written down as: from the session (dashboard), the command line, or the server. */
export interface AuditActor {
  /** `anonymous`: nobody signed in (a wrong password); its address is all that is known. */
  type: "user" | "cli" | "system" | "anonymous";
  /** The user's id; null for the command line and the server. */
  id: string | null;
  /** The user's e-mail at the time, `command line`, or the server's part. */
  label: string;
  ip: string | null;
  userAgent: string | null;
}

export interface AuditEvent {
  /** Null for an instance entry (sign-ins, a team's deletion). */
  teamId: string | null;
  projectId?: string | null;
  action: AuditAction;
  target: { id: string; label: string };
  changes?: AuditChanges | null;
  /** A webhook of the team told of this entry whatever actions it chose (a stream leaving it). */
  alsoTell?: string | null;
}

export interface AuditTrail {
  /** Writes one entry through `db`: pass the change's transaction, so both commit or neither does. */
  record(db: Database, event: AuditEvent): Promise<void>;
}

/** A user agent is the client's to write: kept to a length that says what it is. */
const USER_AGENT_MAX = 256;
const LABEL_MAX = 200;

export function auditTrail(actor: AuditActor, now: () => Date): AuditTrail {
  const userAgent = actor.userAgent?.slice(0, USER_AGENT_MAX) || null;
  return {
    async record(db, event) {
      const instance = "instance" in auditActions[event.action];
      const teamId = instance ? null : event.teamId;
      const changes = redacted(event.changes);
      const createdAt = now();
      if (!teamId) {
        await insertEntry(db);
        return;
      }
      // A team's entries take their ids one transaction at a time (held to its commit): an entry never
      // commits below one already visible, so the audit stream's cursor passes none (audit-stream/).
      await db.transaction(async (tx) => {
        await lockTeamAudit(tx, teamId);
        const entry = await insertEntry(tx);
        // The team's webhooks that chose this action, in the same transaction as the entry.
        if (entry)
          await enqueueAuditEntry(tx, {
            id: entry.id,
            teamId,
            projectId: event.projectId ?? null,
            action: event.action,
            actor: { type: actor.type, label: actor.label.slice(0, LABEL_MAX) },
            target: { type: auditActions[event.action].target, id: entry.targetId, label: entry.targetLabel },
            changes,
            at: createdAt,
            alsoTell: event.alsoTell ?? null,
          });
      });

      async function insertEntry(on: Database) {
        const [entry] = await on
          .insert(auditLog)
          .values({
            teamId,
            projectId: event.projectId ?? null,
            actorType: actor.type,
            actorId: actor.id,
            actorLabel: actor.label.slice(0, LABEL_MAX),
            action: event.action,
            targetType: auditActions[event.action].target,
            targetId: event.target.id.slice(0, LABEL_MAX),
            targetLabel: event.target.label.slice(0, LABEL_MAX),
            changes,
            ip: actor.ip,
            userAgent,
            createdAt,
          })
          .returning({ id: auditLog.id, targetLabel: auditLog.targetLabel, targetId: auditLog.targetId });
        return entry;
      }
    },
  };
}

/**
 * Holds the team's audit entries until this transaction ends: the ones begun before have committed (or
 * rolled back) and the next wait. What the audit stream's cursor is set from sees every entry there is.
 */
export async function lockTeamAudit(tx: Database, teamId: string): Promise<void> {
  // The team row's key share first, which the entry's foreign key takes anyway: a transaction holding
  // the row (an adoption, a webhook's change) then records without meeting one that holds the lock.
  await tx.execute(sql`
    select pg_advisory_xact_lock(hashtextextended(${`audit:${teamId}`}, 0))
    from (select id from teams where id = ${teamId} for key share) as team`);
}

/** A signed-in user, by the e-mail they have now, from where the request came. */
export const userActor = (
  user: { id: string; email: string },
  origin: { ip: string | null; userAgent: string | null },
): AuditActor => ({ type: "user", id: user.id, label: user.email, ...origin });

export const systemActor = (part: string): AuditActor => ({
  type: "system",
  id: null,
  label: part,
  ip: null,
  userAgent: null,
});

export const commandLineActor: AuditActor = {
  type: "cli",
  id: null,
  label: "command line",
  ip: null,
  userAgent: null,
};
