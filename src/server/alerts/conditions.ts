import { and, eq, gt, gte, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import { DEFAULT_ALERT_SETTINGS, type AlertSettings } from "@/lib/schemas/alerts";
import { capAmount, capUnit, SPEND_CAPS } from "@/lib/schemas/spend-cap";
import { periodOf } from "@/server/spend-caps/periods";
import { capUses, readKeySpending } from "@/server/spend-caps/spending";
import { dayOf } from "@/server/analytics/date-range";
import { DEFAULT_RATE_LIMIT_PER_DAY } from "@/server/config-cache/key-limits";
import { rateLimitSubjects } from "@/server/coordination/keys";
import type { RateLimiter } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import {
  apiKeys,
  projects,
  requestMinuteStats,
  sourceBuckets,
  teamAlertSettings,
  usageRecord,
} from "@/server/db/schema";

/** The alerts a team can have; each names its window: at most one mail per alert, subject and window. */
export const ALERT_KINDS = ["keyDayLimit", "errorRate", "keyExpiry", "bucketCredentials", "keySpendCap"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** The error rate is over this many minutes, and only once a project had this many requests in them. */
export const ERROR_RATE_MINUTES = 15;
export const ERROR_RATE_MIN_REQUESTS = 20;
/** A key is announced this long before it expires. */
export const KEY_EXPIRY_NOTICE_DAYS = 7;
/** Limiter calls in flight at once while reading keys' day windows. */
const LIMITER_CALLS_AT_ONCE = 8;

export interface FoundAlert {
  teamId: string;
  projectId: string;
  kind: AlertKind;
  subjectId: string;
  window: string;
  message: string;
}

export interface ConditionDeps {
  db: Database;
  limiter: Pick<RateLimiter, "used">;
  now: Date;
}

type Settings = (teamId: string) => AlertSettings;

const percent = (part: number, whole: number) => Math.floor((part * 100) / whole);

/**
 * Keys past the team's share of their transforms per day (the limiter's own day window, at the key's
 * limit or the default): one a UTC day. Only keys that delivered enough since yesterday could have: a
 * transform is delivered, or is the AVIF made after a delivered interim answer, so a key made at most
 * twice what it delivered; the limiter is asked about those alone.
 */
async function keyDayLimits({ db, limiter, now }: ConditionDeps): Promise<FoundAlert[]> {
  const s = teamAlertSettings;
  // The team's share: its own, none when it turned the alert off, else the default.
  const share = sql<
    number | null
  >`case when ${s.teamId} is null then ${DEFAULT_ALERT_SETTINGS.keyDayLimitPercent} else ${s.keyDayLimitPercent} end`;
  const perDay = sql<number>`coalesce(${apiKeys.rateLimitPerDay}, ${DEFAULT_RATE_LIMIT_PER_DAY})`;
  const keys = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      publicKey: apiKeys.publicKey,
      max: perDay,
      share,
      projectId: projects.id,
      project: projects.name,
      teamId: projects.teamId,
    })
    .from(usageRecord)
    .innerJoin(apiKeys, eq(apiKeys.id, usageRecord.apiKeyId))
    .innerJoin(projects, eq(projects.id, apiKeys.projectId))
    .leftJoin(s, eq(s.teamId, projects.teamId))
    .where(
      and(
        gte(usageRecord.date, dayOf(now.getTime() - 86_400_000)),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
      ),
    )
    .groupBy(apiKeys.id, projects.id, s.teamId, s.keyDayLimitPercent)
    .having(sql`${share} is not null and sum(${usageRecord.requests}) * 2 * 100 >= ${perDay} * ${share}`);
  const found: FoundAlert[] = [];
  for (let i = 0; i < keys.length; i += LIMITER_CALLS_AT_ONCE) {
    const batch = keys.slice(i, i + LIMITER_CALLS_AT_ONCE);
    const used = await Promise.all(
      batch.map((key) =>
        // A limiter that cannot answer skips the key this minute; the next check asks again.
        limiter.used("day", rateLimitSubjects.keyTransforms(key.publicKey), key.max).catch(() => 0),
      ),
    );
    batch.forEach((key, j) => {
      const made = used[j]!;
      if (made * 100 < key.share! * key.max) return;
      found.push({
        teamId: key.teamId,
        projectId: key.projectId,
        kind: "keyDayLimit",
        subjectId: key.id,
        window: `day:${dayOf(now.getTime())}`,
        message: `Key "${key.name}" of ${key.project} has made ${made} of its ${key.max} transforms per day (${percent(made, key.max)} %; the alert is at ${key.share} %).`,
      });
    });
  }
  return found;
}

/** Projects whose failed requests over the last 15 minutes reach the team's share: one a UTC hour. */
async function errorRates({ db, now }: ConditionDeps): Promise<FoundAlert[]> {
  const m = requestMinuteStats;
  const since = new Date(now.getTime() - ERROR_RATE_MINUTES * 60_000);
  const failed = sql<number>`sum(${m.failed})::float8`;
  const requests = sql<number>`sum(${m.requests})::float8`;
  const rows = await db
    .select({ projectId: projects.id, project: projects.name, teamId: projects.teamId, requests, failed })
    .from(m)
    .innerJoin(projects, eq(projects.id, m.projectId))
    .where(and(gt(m.minute, since), lte(m.minute, now)))
    .groupBy(projects.id)
    // Only the projects with something to say: at least one failure among enough requests.
    .having(sql`${requests} >= ${ERROR_RATE_MIN_REQUESTS} and ${failed} > 0`);
  const settingsOf = await settingsFor(db, rows);
  return rows.flatMap((row) => {
    const share = settingsOf(row.teamId).errorRatePercent;
    if (share === null || row.failed * 100 < share * row.requests) return [];
    return [
      {
        teamId: row.teamId,
        projectId: row.projectId,
        kind: "errorRate" as const,
        subjectId: row.projectId,
        window: `hour:${now.toISOString().slice(0, 13)}`,
        message: `${row.project}: ${row.failed} of ${row.requests} requests failed in the last ${ERROR_RATE_MINUTES} minutes (${percent(row.failed, row.requests)} %; the alert is at ${share} %).`,
      },
    ];
  });
}

/** Keys that expire within 7 days: one per key and expiry (a key given a new expiry is announced again). */
async function keyExpiries({ db, now }: ConditionDeps): Promise<FoundAlert[]> {
  const until = new Date(now.getTime() + KEY_EXPIRY_NOTICE_DAYS * 86_400_000);
  const keys = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      expiresAt: apiKeys.expiresAt,
      projectId: projects.id,
      project: projects.name,
      teamId: projects.teamId,
    })
    .from(apiKeys)
    .innerJoin(projects, eq(projects.id, apiKeys.projectId))
    .where(and(isNull(apiKeys.revokedAt), gt(apiKeys.expiresAt, now), lte(apiKeys.expiresAt, until)));
  const settingsOf = await settingsFor(db, keys);
  return keys
    .filter((key) => settingsOf(key.teamId).keyExpiry)
    .map((key) => {
      const at = key.expiresAt!.toISOString();
      return {
        teamId: key.teamId,
        projectId: key.projectId,
        kind: "keyExpiry" as const,
        subjectId: key.id,
        window: `expires:${at}`,
        message: `Key "${key.name}" of ${key.project} expires on ${at.slice(0, 16).replace("T", " ")} UTC: URLs signed with it stop working then.`,
      };
    });
}

/** A key's spend cap is announced at this share, and again when it is reached. */
export const SPEND_CAP_NOTICE_PERCENT = 80;

/**
 * Capped keys at 80 % of a cap, and at 100 % (its new transforms refused): one of each per key, cap
 * and period, whatever the team's settings (whoever set a cap wants to hear of it). Read from flushed
 * usage, as the cap itself is enforced.
 */
async function keySpendCaps({ db, now }: ConditionDeps): Promise<FoundAlert[]> {
  const keys = await readKeySpending(db, now);
  return keys.flatMap((key) =>
    capUses(key)
      .filter((use) => use.percent >= SPEND_CAP_NOTICE_PERCENT)
      .map((use) => {
        const { period } = SPEND_CAPS[use.cap];
        const reached = use.spent >= use.limit;
        const start = dayOf(periodOf(period, now).start.getTime());
        const said = `Key "${key.name}" of ${key.project} has spent ${capAmount(use.cap, use.spent)} of its ${capAmount(use.cap, use.limit)} ${capUnit(use.cap)} (${use.percent} %)`;
        return {
          teamId: key.teamId,
          projectId: key.projectId,
          kind: "keySpendCap" as const,
          subjectId: key.id,
          window: `${use.cap}:${start}:${reached ? "reached" : SPEND_CAP_NOTICE_PERCENT}`,
          message: reached
            ? `${said}: its new transforms are refused until the ${period} ends; images already made are still served.`
            : `${said}; at 100 % its new transforms are refused until the ${period} ends.`,
        };
      }),
  );
}

/** Buckets whose credentials the last probe saw refused (bucket-probe.ts): one a UTC day while they are. */
async function bucketCredentials({ db, now }: ConditionDeps): Promise<FoundAlert[]> {
  const buckets = await db
    .select({
      id: sourceBuckets.id,
      alias: sourceBuckets.alias,
      failure: sourceBuckets.credentialsFailure,
      projectId: projects.id,
      project: projects.name,
      teamId: projects.teamId,
    })
    .from(sourceBuckets)
    .innerJoin(projects, eq(projects.id, sourceBuckets.projectId))
    .where(isNotNull(sourceBuckets.credentialsFailure));
  const settingsOf = await settingsFor(db, buckets);
  return buckets
    .filter((bucket) => settingsOf(bucket.teamId).bucketCredentials)
    .map((bucket) => ({
      teamId: bucket.teamId,
      projectId: bucket.projectId,
      kind: "bucketCredentials" as const,
      subjectId: bucket.id,
      window: `day:${dayOf(now.getTime())}`,
      message: `Bucket "${bucket.alias}" of ${bucket.project}: ${bucket.failure}. Images from it fail until its credentials are fixed.`,
    }));
}

/**
 * The settings of the teams these rows belong to (the defaults where a team chose none), read for
 * those teams alone: each condition selects only the subjects in trouble, not every team.
 */
async function settingsFor(db: Database, rows: readonly { teamId: string }[]): Promise<Settings> {
  const teamIds = [...new Set(rows.map((row) => row.teamId))];
  const chosen = new Map<string, AlertSettings>();
  for (let i = 0; i < teamIds.length; i += 1000) {
    const part = await db
      .select()
      .from(teamAlertSettings)
      .where(inArray(teamAlertSettings.teamId, teamIds.slice(i, i + 1000)));
    for (const row of part) chosen.set(row.teamId, row);
  }
  return (teamId) => chosen.get(teamId) ?? DEFAULT_ALERT_SETTINGS;
}

/** Every alert that holds now, at each team's own settings. */
export async function findAlerts(deps: ConditionDeps): Promise<FoundAlert[]> {
  const found = await Promise.all([
    keyDayLimits(deps),
    errorRates(deps),
    keyExpiries(deps),
    bucketCredentials(deps),
    keySpendCaps(deps),
  ]);
  return found.flat();
}
