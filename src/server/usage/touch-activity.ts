import { eq } from "drizzle-orm";
import type { Counters } from "@/server/coordination/counters";
import { withBudget } from "@/server/coordination/failure-policy";
import { redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { apiKeys, projects } from "@/server/db/schema";

export interface ActivityDeps {
  kv: KeyValue;
  db: Database;
  counters: Counters;
}

/**
 * `SET usage:apikey:{id} 1 NX EX 30` gates the lastUsedAt write: whichever instance wins the SET
 * writes, every other skips, so each key and project costs at most one database write per 30 s
 * across all instances. If Redis fails the write is skipped (activity is informational).
 */
export async function touchActivity(
  deps: ActivityDeps,
  ids: { apiKeyId: string; projectId: string },
  at: Date,
): Promise<void> {
  const [keyWon, projectWon] = await withBudget(
    "activityThrottle",
    Promise.all([
      deps.kv.set(redisKeys.apiKeyActivity(ids.apiKeyId), "1", {
        ttlSeconds: TTL_SECONDS.activity,
        onlyIfAbsent: true,
      }),
      deps.kv.set(redisKeys.projectActivity(ids.projectId), "1", {
        ttlSeconds: TTL_SECONDS.activity,
        onlyIfAbsent: true,
      }),
    ]),
  );
  const writes: Promise<unknown>[] = [];
  if (keyWon) writes.push(deps.db.update(apiKeys).set({ lastUsedAt: at }).where(eq(apiKeys.id, ids.apiKeyId)));
  if (projectWon)
    writes.push(deps.db.update(projects).set({ lastActivityAt: at }).where(eq(projects.id, ids.projectId)));
  deps.counters.increment("activity_writes", writes.length);
  await Promise.all(writes);
}
