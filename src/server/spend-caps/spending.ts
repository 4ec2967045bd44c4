import { and, eq, gt, gte, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { SPEND_CAPS, SPEND_CAP_NAMES, type SpendCap, type SpendCapName } from "@/lib/schemas/spend-cap";
import type { Database } from "@/server/db/client";
import { apiKeys, projects, usageRecord } from "@/server/db/schema";
import { dayOf } from "@/server/analytics/date-range";
import { periodOf } from "./periods";

/**
 * A capped key, what it spent this UTC day and month (flushed usage, the key it replaced by a rotation
 * included), and what it is held to.
 */
export interface KeySpending {
  id: string;
  name: string;
  publicKey: string;
  projectId: string;
  project: string;
  teamId: string;
  cap: SpendCap;
  capReached: SpendCapName | null;
  capReachedUntil: Date | null;
  spent: Record<SpendCapName, number>;
}

const previous = alias(apiKeys, "previous");

/** One of a key's caps against what it spent, with its share used. */
export interface CapUse {
  cap: SpendCapName;
  limit: number;
  spent: number;
  /** Whole percent, floored. */
  percent: number;
}

/**
 * Every capped, unrevoked key with its spending: one grouped read of at most a month of daily rows per
 * capped key (the partial index keeps uncapped keys out of it), whatever the fleet's traffic.
 */
export async function readKeySpending(
  db: Pick<Database, "select">,
  now: Date,
  /** One project's keys (its key list) instead of the fleet's (the check after a flush). */
  projectId?: string,
): Promise<KeySpending[]> {
  const today = dayOf(now.getTime());
  const monthStart = dayOf(periodOf("month", now).start.getTime());
  const u = usageRecord;
  const total = (column: typeof u.transforms | typeof u.bytes, todayOnly: boolean) =>
    todayOnly
      ? sql<number>`coalesce(sum(${column}) filter (where ${u.date} = ${today}), 0)::float8`
      : sql<number>`coalesce(sum(${column}), 0)::float8`;
  const rows = await db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      publicKey: apiKeys.publicKey,
      projectId: projects.id,
      project: projects.name,
      teamId: projects.teamId,
      cap: apiKeys.spendCap,
      capReached: apiKeys.capReached,
      capReachedUntil: apiKeys.capReachedUntil,
      transformsPerDay: total(u.transforms, true),
      transformsPerMonth: total(u.transforms, false),
      bytesPerDay: total(u.bytes, true),
      bytesPerMonth: total(u.bytes, false),
    })
    .from(apiKeys)
    .innerJoin(projects, eq(projects.id, apiKeys.projectId))
    // By project first, as usage_record's index is; the key's own rows and those of the key it
    // replaced (a rotation hands on the caps, not a fresh budget).
    .leftJoin(
      u,
      and(
        eq(u.projectId, apiKeys.projectId),
        gte(u.date, monthStart),
        or(
          eq(u.apiKeyId, apiKeys.id),
          inArray(
            u.apiKeyId,
            db.select({ id: previous.id }).from(previous).where(eq(previous.replacedById, apiKeys.id)),
          ),
        ),
      ),
    )
    .where(
      and(
        isNotNull(apiKeys.spendCap),
        isNull(apiKeys.revokedAt),
        // An expired key transforms nothing; it stays out of the check, however many rotations leave one.
        or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
        projectId === undefined ? undefined : eq(apiKeys.projectId, projectId),
      ),
    )
    .groupBy(apiKeys.id, projects.id);
  return rows.map(({ transformsPerDay, transformsPerMonth, bytesPerDay, bytesPerMonth, cap, ...key }) => ({
    ...key,
    cap: cap!,
    spent: { transformsPerDay, transformsPerMonth, bytesPerDay, bytesPerMonth },
  }));
}

/** Each cap the key has, against what it spent. */
export function capUses(key: Pick<KeySpending, "cap" | "spent">): CapUse[] {
  return SPEND_CAP_NAMES.flatMap((cap) => {
    const limit = key.cap[cap];
    if (limit === null || limit === undefined) return [];
    const spent = key.spent[cap];
    return [{ cap, limit, spent, percent: Math.floor((spent * 100) / limit) }];
  });
}

/**
 * The cap that holds the key back longest, of those it reached: a month's outlasts a day's. Null when
 * it reached none.
 */
export function bindingCap(uses: readonly CapUse[], now: Date): { use: CapUse; until: Date } | null {
  let binding: { use: CapUse; until: Date } | null = null;
  for (const use of uses) {
    if (use.spent < use.limit) continue;
    const until = periodOf(SPEND_CAPS[use.cap].period, now).end;
    if (!binding || until > binding.until) binding = { use, until };
  }
  return binding;
}
