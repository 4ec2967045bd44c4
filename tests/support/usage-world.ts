import { eq, sql } from "drizzle-orm";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import type { KeyValue } from "@/server/coordination/types";
import { createUpstashClient } from "@/server/coordination/upstash-client";
import { createUpstashKeyValue } from "@/server/coordination/upstash-key-value";
import { usageRecord } from "@/server/db/schema";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createApiKey } from "@/server/tenancy/create-api-key";
import { createCounters } from "@/server/coordination/counters";
import { createUsageWindow } from "@/server/usage/usage-window";
import { addUsage } from "@/server/usage/database-buffer";
import { createTestDatabase } from "./database";
import { startRealRedis, type RealRedis } from "./redis";
import { setupAudit } from "./audit";

export type CoordinationKind = "in-process" | "redis-server";

/**
 * A database with one project, a KeyValue of the given kind (its own redis-server: a flush sweeps every
 * bucket, so it must not share Redis with other test files), and a tally of every increment buffered,
 * which the flushed totals must equal exactly.
 */
export async function createUsageWorld(kind: CoordinationKind) {
  const database = await createTestDatabase();
  const redis: RealRedis | null = kind === "redis-server" ? await startRealRedis() : null;
  const kv: KeyValue = redis ? createUpstashKeyValue(createUpstashClient(redis.settings)) : createMemoryKeyValue();
  const secretBox = createSecretBox("test-master");
  const { project } = await bootstrap(
    { db: database.db, secretBox, audit: setupAudit, now: () => new Date() },
    { teamSlug: "acme", projectSlug: "site", keyName: "first" },
  );
  const tally = new Map<string, { requests: number; bytes: number }>();

  return {
    db: database.db,
    kv,
    redis,
    projectId: project.id,
    async newKey(projectId = project.id) {
      return (
        await createApiKey(
          { db: database.db, secretBox, audit: setupAudit, now: () => new Date() },
          { projectId },
          { name: "k" },
        )
      ).id;
    },
    /** Buffers `count` requests of `bytes` each through the request path's own function. */
    async serve(apiKeyId: string, at: Date, count: number, bytes = 100, projectId = project.id) {
      const usage = createUsageWindow({ kv, counters: createCounters(), logSampled: () => {} }, 0);
      await Promise.all(
        Array.from({ length: count }, () => usage.add({ projectId, apiKeyId, requests: 1, bytes, transforms: 0, at })),
      );
      const sum = tally.get(apiKeyId) ?? { requests: 0, bytes: 0 };
      tally.set(apiKeyId, { requests: sum.requests + count, bytes: sum.bytes + count * bytes });
    },
    /** The same into usage_buffer, as the request log writes it when there is no shared Redis. */
    async serveInDatabase(apiKeyId: string, at: Date, count: number, bytes = 100, projectId = project.id) {
      await addUsage(
        database.db,
        Array.from({ length: count }, () => ({
          projectId,
          apiKeyId,
          requests: 1 as const,
          bytes,
          transforms: 0 as const,
          at,
        })),
      );
      const sum = tally.get(apiKeyId) ?? { requests: 0, bytes: 0 };
      tally.set(apiKeyId, { requests: sum.requests + count, bytes: sum.bytes + count * bytes });
    },
    expected: (apiKeyId: string) => tally.get(apiKeyId) ?? { requests: 0, bytes: 0 },
    async recorded(apiKeyId: string) {
      const [row] = await database.db
        .select({
          requests: sql<string>`coalesce(sum(${usageRecord.requests}), 0)`,
          bytes: sql<string>`coalesce(sum(${usageRecord.bytes}), 0)`,
        })
        .from(usageRecord)
        .where(eq(usageRecord.apiKeyId, apiKeyId));
      return { requests: Number(row!.requests), bytes: Number(row!.bytes) };
    },
    async close() {
      await database.close();
      await redis?.stop();
    },
  };
}

export type UsageWorld = Awaited<ReturnType<typeof createUsageWorld>>;

/** A minute `minutesAgo` before `now`, inside that minute. */
export const minutesBefore = (now: Date, minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000);
