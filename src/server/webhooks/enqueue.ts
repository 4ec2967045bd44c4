import { sql, type SQL } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { rowsOf } from "@/server/db/rows-of";
import { auditActions, type AuditAction } from "@/lib/audit-actions";

/** An audit entry as written: what its webhooks carry (secrets already redacted from `changes`). */
export interface AuditEntryEvent {
  id: number;
  teamId: string;
  projectId: string | null;
  action: AuditAction;
  actor: { type: string; label: string };
  target: { type: string; id: string; label: string };
  changes: unknown;
  at: Date;
  /** A webhook of the team that gets this entry whatever actions it chose. */
  alsoTell?: string | null;
}

/**
 * One delivery per webhook of the team that chose this action, written in the entry's own
 * transaction: the entry and its deliveries commit together or not at all. A team without webhooks
 * costs one index probe. The team's name and slug are read as they are now.
 */
export async function enqueueAuditEntry(db: Database, entry: AuditEntryEvent): Promise<void> {
  const type = `audit.${entry.action}`;
  const data = {
    auditId: entry.id,
    action: entry.action,
    says: auditActions[entry.action].says,
    actor: entry.actor,
    target: entry.target,
    projectId: entry.projectId,
    changes: entry.changes ?? null,
  };
  await db.execute(sql`
    insert into webhook_deliveries (webhook_id, team_id, event_key, event_type, payload, next_attempt_at)
    select w.id, w.team_id, ${`audit:${entry.id}`}, ${type},
      jsonb_build_object('type', ${type}::text, 'timestamp', ${entry.at.toISOString()}::text,
        'data', ${JSON.stringify(data)}::jsonb || jsonb_build_object('team',
          jsonb_build_object('id', t.id, 'slug', t.slug, 'name', t.name))),
      ${entry.at.toISOString()}::timestamptz
    from team_webhooks w join teams t on t.id = w.team_id
    where w.team_id = ${entry.teamId}
      and (${type} = any(w.events) or w.id = ${entry.alsoTell ?? null}::uuid)
    on conflict (webhook_id, event_key) do nothing`);
}

/**
 * The current alerts (seen since `since`, not resolved) of every team, one delivery per webhook that
 * chose its kind: a new window of an alert is a new row, so a new delivery, and enqueueing again
 * (another check, another instance) adds nothing. Answers how many were added.
 */
export async function enqueueCurrentAlerts(
  db: Database,
  options: { since: Date; now: Date; dashboardUrl: string },
): Promise<number> {
  const result = await db.execute(sql`
    with added as (
    insert into webhook_deliveries (webhook_id, team_id, event_key, event_type, payload, next_attempt_at)
    select w.id, w.team_id, 'alert:' || a.id, 'alert.' || a.kind,
      jsonb_build_object('type', 'alert.' || a.kind, 'timestamp', ${utc(sql`a.first_seen_at`)},
        'data', jsonb_build_object('alertId', a.id, 'kind', a.kind, 'message', a.message, 'window', a.window,
          'firstSeenAt', ${utc(sql`a.first_seen_at`)},
          'team', jsonb_build_object('id', t.id, 'slug', t.slug, 'name', t.name),
          'project', case when p.id is null then null else jsonb_build_object('id', p.id, 'slug', p.slug) end,
          'link', ${options.dashboardUrl} || '/t/' || t.slug || coalesce('/p/' || p.slug, ''))),
      ${options.now.toISOString()}::timestamptz
    from alert_events a
    join team_webhooks w on w.team_id = a.team_id and ('alert.' || a.kind) = any(w.events)
    join teams t on t.id = a.team_id
    left join projects p on p.id = a.project_id
    where a.resolved_at is null and a.last_seen_at >= ${options.since.toISOString()}::timestamptz
    on conflict (webhook_id, event_key) do nothing
    returning 1)
    select count(*)::int as added from added`);
  return rowsOf<{ added: number }>(result)[0]?.added ?? 0;
}

/** An instant as JSON writes it (`…Z`), whatever the database session's time zone. */
const utc = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
