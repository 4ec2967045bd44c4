import { eq } from "drizzle-orm";
import type { Counters } from "@/server/coordination/counters";
import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { apiKeys, projects } from "@/server/db/schema";
import type { ActivityMemo } from "./activity-memo";

export interface ActivityDeps {
  kv: KeyValue;
  db: Database;
  counters: Counters;
  /** What this instance already asked within the window (activity-memo.ts). */
  activity: ActivityMemo;
}

/**
 * `SET usage:apikey:{id} 1 NX EX 30` gates the lastUsedAt write: whichever instance wins the SET
 * writes, every other skips, so each key and project costs at most one database write per 30 s
 * across all instances. Each instance asks once per key and window (the memo): a busy key costs one
 * SET per instance per 30 s, not two commands a request. If Redis fails the write is skipped
 * (activity is informational).
 */
export async function touchActivity(
  deps: ActivityDeps,
  ids: { apiKeyId: string; projectId: string },
  at: Date,
): Promise<void> {
  const keyKey = redisKeys.apiKeyActivity(ids.apiKeyId);
  const projectKey = redisKeys.projectActivity(ids.projectId);
  const askKey = !deps.activity.askedRecently(keyKey, at.getTime());
  const askProject = !deps.activity.askedRecently(projectKey, at.getTime());
  if (!askKey && !askProject) return;
  const once = { ttlSeconds: TTL_SECONDS.activity, onlyIfAbsent: true };
  const [keyWon, projectWon] = await withBudget(
    "activityThrottle",
    Promise.all([askKey && deps.kv.set(keyKey, "1", once), askProject && deps.kv.set(projectKey, "1", once)]),
  );
  const writes: Promise<unknown>[] = [];
  if (keyWon) writes.push(deps.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, ids.apiKeyId)));
  if (projectWon)
    writes.push(deps.db.update(projects).set({ lastActivityAt: at }).where(eq(projects.id, ids.projectId)));
  deps.counters.increment("activity_writes", writes.length);
  await Promise.all(writes);
}
