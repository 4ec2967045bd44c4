import { sql } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { sourceHashOf } from "@/server/usage/logged-source";

/** The 21 (status, cache tier) pairs request_stats can hold: the most rows an hour of a project can be. */
export const STATS_PAIRS = [
  ...["hit", "miss", "shared", "revalidated", "store", "later"].map((cache) => ["success", cache]),
  ...[
    "bad_request",
    "unauthorized",
    "key_revoked",
    "key_expired",
    "sig_invalid",
    "sig_expired",
    "referer_blocked",
    "source_blocked",
    "rate_limited",
    "too_large",
    "source_error",
    "unsupported_image",
    "timeout",
    "overloaded",
    "error",
  ].map((status) => [status, ""]),
] as const;

/**
 * Rows of a project's request log at the log's caps, written by one statement each (the write path
 * takes a row at a time): `failures` then `successes`, one every `everyMs` back from `newest`, each
 * source `source` (one source, so its own index holds them all), each success with operations of its own
 * (the presets-only impact groups by them).
 * The worst a tenant can leave there for its members' filters to read.
 */
export async function fillRequestLog(
  db: Database,
  projectId: string,
  options: { failures: number; successes: number; newest: Date; everyMs: number; source: string },
): Promise<void> {
  const newest = options.newest.toISOString();
  for (const [status, http, count, offset] of [
    ["source_error", 404, options.failures, 0],
    ["success", 200, options.successes, options.failures],
  ] as const) {
    if (count === 0) continue;
    await db.execute(sql`
      insert into request_log (request_id, project_id, status, http_status, source_url, source_hash, operations,
        output_format, output_bytes, processing_ms, cache, weight, created_at)
      select gen_random_uuid()::text, ${projectId}::uuid, ${status}, ${http}, ${options.source},
        ${sourceHashOf(options.source)}, 'w_' || (i % 8192 + 1) || ',h_' || i, 'webp', 1000, 12, 'miss', 1,
        ${newest}::timestamptz - make_interval(secs => (i + ${offset}) * ${options.everyMs} / 1000.0)
      from generate_series(1, ${count}) as i`);
  }
}

/**
 * A project's statistics as full as they get over 90 days: every (status, tier) pair every hour of the
 * hourly week, and every day before it folded (stats-compaction.ts); finished days' sources at their top
 * plus the folded rest, today's at the day's allowance; `variantDays` days of variants at theirs.
 */
export async function fillStatistics(
  db: Database,
  projectId: string,
  options: { sourcesToday: number; variantsPerDay: number; variantDays: number },
): Promise<void> {
  const pairs = sql.raw(`array[${STATS_PAIRS.map(([status, cache]) => `'${status}|${cache}'`).join(",")}]::text[]`);
  await db.execute(sql`
    insert into request_stats (hour, project_id, status, cache, requests, processing_ms, measured_requests,
      source_bytes, output_bytes, le_10, le_25, le_50, le_100, le_250, le_500, le_1000, le_2500, le_5000, over)
    select h, ${projectId}::uuid, split_part(p, '|', 1), split_part(p, '|', 2), 7, 70, 1, 1000, 400,
      1, 1, 1, 1, 1, 1, 1, 0, 0, 0
    from (
      select date_trunc('hour', now()) - make_interval(hours => n) as h from generate_series(0, 8 * 24 - 1) n
      union all
      select date_trunc('day', now()) - make_interval(days => d) from generate_series(8, 90) d
    ) hours, unnest(${pairs}) p
    on conflict do nothing`);
  await db.execute(sql`
    insert into request_quality_stats (day, project_id, mode, format, requests, output_bytes, measured_requests,
      measured_source_bytes, measured_output_bytes, scored_requests, score_sum, score_min)
    select (current_date - d), ${projectId}::uuid, m, f, 5, 500, 1, 1000, 100, 1, 80, 80
    from generate_series(0, 90) d, unnest(array['fixed','q_auto:good','f_best:good','maxbytes','placeholder']) m,
      unnest(array['webp','avif','jpeg','png']) f
    on conflict do nothing`);
  await db.execute(sql`
    insert into request_source_stats (day, project_id, source_hash, source_url, requests, output_bytes)
    select (current_date - d), ${projectId}::uuid, md5(d || ':' || i), 'local/' || repeat('s', 250), 1, i
    from generate_series(1, 90) d, generate_series(1, 51) i
    union all
    select current_date, ${projectId}::uuid, md5('today:' || i), 'local/' || repeat('t', 250), 1, i
    from generate_series(1, ${options.sourcesToday}) i
    on conflict do nothing`);
  await db.execute(sql`
    insert into request_variant_days (day, project_id, variant)
    select (current_date - d), ${projectId}::uuid, md5(d || ':' || i)
    from generate_series(0, ${options.variantDays - 1}) d, generate_series(1, ${options.variantsPerDay}) i
    on conflict do nothing`);
}

/** A team's audit log after `entries` scripted changes, one every `everyMs` back from now, long target names. */
export async function fillAuditLog(db: Database, teamId: string, actorId: string, entries: number, everyMs: number) {
  await db.execute(sql`
    insert into audit_log (team_id, actor_type, actor_id, actor_label, action, target_type, target_id,
      target_label, created_at)
    select ${teamId}::uuid, 'user', ${actorId}, 'script@example.com', 'api_key.updated', 'api_key', i::text,
      repeat('a', 200), now() - make_interval(secs => i * ${everyMs} / 1000.0)
    from generate_series(1, ${entries}) as i`);
}
