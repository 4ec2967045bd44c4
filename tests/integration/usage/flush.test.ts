import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisKeys } from "@/server/coordination/keys";
import { apiKeys, projects, usageFlushLedger, usageRecord } from "@/server/db/schema";
import { flushUsageBuffer, type FlushOptions } from "@/server/usage/flush-usage-buffer";
import { need } from "../../support/services";
import { createUsageWorld, minutesBefore, type CoordinationKind, type UsageWorld } from "../../support/usage-world";

const options: FlushOptions = {
  safetyLagMs: 60_000,
  bucketsPerBatch: 2,
  releaseChunk: 1,
  lockTtlSeconds: 30,
  budgetMs: 60_000,
};

for (const kind of ["in-process", "redis-server"] satisfies CoordinationKind[]) {
  const needs = kind === "redis-server" ? need("redis-server") : need();
  describe.skipIf(needs.skip)(needs.title(`usage flush (${kind})`), () => {
    let world: UsageWorld;
    const now = () => new Date();
    const flush = (extra: Partial<Parameters<typeof flushUsageBuffer>[0]> = {}) =>
      flushUsageBuffer({ kv: world.kv, db: world.db, now, ...extra }, options);

    beforeAll(async () => {
      world = await createUsageWorld(kind);
    }, 60_000);
    afterAll(() => world?.close());

    it("applies ready buckets once, per UTC date, leaves recent ones, and deletes what it applied", async () => {
      const key = await world.newKey();
      // The last UTC midnight at least ten minutes ago: just after midnight, a bucket of 23:59:30 is
      // still too recent to flush, and the test would wait for what the flush rightly leaves.
      const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
      const midnight = new Date(
        Date.UTC(tenMinutesAgo.getUTCFullYear(), tenMinutesAgo.getUTCMonth(), tenMinutesAgo.getUTCDate()),
      );
      const [lastOfYesterday, firstOfToday, recent] = [
        new Date(midnight.getTime() - 30_000),
        new Date(midnight.getTime() + 30_000),
        now(),
      ];
      const old = minutesBefore(now(), 5);
      await world.serve(key, lastOfYesterday, 3, 1000);
      await world.serve(key, firstOfToday > old ? old : firstOfToday, 4, 10);
      await world.serve(key, old, 2, 7);
      const tallyBeforeRecent = world.expected(key);
      await world.serve(key, recent, 5, 1);

      const report = await flush();
      expect(report).toMatchObject({
        outcome: "flushed",
        requests: tallyBeforeRecent.requests,
        bytes: tallyBeforeRecent.bytes,
        droppedRequests: 0,
      });
      expect(report.buckets.skippedRecent).toBe(1);
      expect(await world.recorded(key)).toEqual(tallyBeforeRecent);
      const rows = await world.db.select().from(usageRecord).where(eq(usageRecord.apiKeyId, key));
      expect(new Set(rows.map((r) => r.date))).toContain(lastOfYesterday.toISOString().slice(0, 10));
      expect(await world.kv.ttl(redisKeys.usageBucket(lastOfYesterday))).toBe(-2);
      expect(await world.kv.getHash(redisKeys.usageBucket(recent))).not.toEqual({});

      const again = await flush();
      expect(again).toMatchObject({ requests: 0, rows: 0 });
      expect(await world.recorded(key)).toEqual(tallyBeforeRecent);
      // The recent bucket is applied once it is old enough.
      await flushUsageBuffer({ kv: world.kv, db: world.db, now: () => new Date(Date.now() + 3 * 60_000) }, options);
      expect(await world.recorded(key)).toEqual(world.expected(key));
    });

    it.each(["scanned", "claimed", "ledger-written", "committed", "released-chunk"] as const)(
      "counts exactly once when a flush crashes at %s and a later one re-runs",
      async (step) => {
        const key = await world.newKey();
        const start = now(); // one instant: a minute turning mid-loop would merge two buckets
        for (let m = 2; m <= 6; m++) await world.serve(key, minutesBefore(start, m), m, 3 * m);
        // Past the first batch, so the crash is mid-run; a release crashes between two claims of a batch.
        const crashOn = step === "scanned" ? 1 : step === "released-chunk" ? 3 : 2;
        let reached = 0;
        const crash = async (at: string) => {
          if (at === step && ++reached === crashOn) throw new Error(`crash at ${step}`);
        };
        await expect(flush({ faults: crash })).rejects.toThrow(`crash at ${step}`);
        // A killed process does not release its lock: until it expires, flushes stand aside.
        await world.kv.set(redisKeys.usageFlushLock(), "dead-process", { ttlSeconds: 30 });
        expect((await flush()).outcome).toBe("locked");
        await world.kv.del([redisKeys.usageFlushLock()]);
        // Late increments for the same minutes, before the re-run.
        await world.serve(key, minutesBefore(now(), 3), 4, 11);

        await flush();
        await flush(); // picks up anything that waited beside a pending claim
        expect(await world.recorded(key)).toEqual(world.expected(key));
        for (let m = 2; m <= 6; m++)
          expect(await world.kv.ttl(redisKeys.usageBucket(minutesBefore(start, m)))).toBe(-2);
      },
    );

    it("stands aside while another flush holds the lock, so concurrent flushes apply each bucket once", async () => {
      const key = await world.newKey();
      const start = now(); // one instant: a minute turning mid-loop would merge two buckets
      for (let m = 2; m <= 9; m++) await world.serve(key, minutesBefore(start, m), 10);
      const reports = await Promise.all(Array.from({ length: 5 }, () => flush()));
      expect(reports.filter((r) => r.outcome === "flushed")).toHaveLength(1);
      expect(await world.recorded(key)).toEqual(world.expected(key));
    });

    it("applies a claim once when its lock expired and a second flush took over mid-run", async () => {
      const key = await world.newKey();
      const start = now(); // one instant: a minute turning mid-loop would merge two buckets
      for (let m = 2; m <= 5; m++) await world.serve(key, minutesBefore(start, m), 6, 5);
      let resume!: () => void;
      const paused = new Promise<void>((resolve) => (resume = resolve));
      let stalled!: () => void;
      const stalling = new Promise<void>((resolve) => (stalled = resolve));
      const first = flush({
        faults: async (at) => {
          if (at !== "claimed") return;
          stalled();
          await paused; // a long pause: the lock expires meanwhile
        },
      });
      await stalling;
      await world.kv.del([redisKeys.usageFlushLock()]);
      const second = await flush();
      expect(second.outcome).toBe("flushed");
      resume();
      const firstReport = await first.catch((error: Error) => error);
      // The stalled flush finds its claim already applied (ledger) or its lock gone; either way nothing is counted twice.
      if (!(firstReport instanceof Error)) expect(firstReport.buckets.alreadyApplied).toBeGreaterThan(0);
      await flush();
      expect(await world.recorded(key)).toEqual(world.expected(key));
      const ledger = await world.db.select().from(usageFlushLedger);
      expect(new Set(ledger.map((r) => `${r.bucket}|${r.claim}`)).size).toBe(ledger.length);
    });

    it("keeps increments that land in a bucket while it is being flushed, and after it was deleted", async () => {
      const key = await world.newKey();
      const minute = minutesBefore(now(), 4);
      await world.serve(key, minute, 5, 20);
      await flush({ faults: async (at) => (at === "claimed" ? world.serve(key, minute, 3, 20) : undefined) });
      expect((await world.recorded(key)).requests).toBe(5); // the late three wait beside the claim
      await flush();
      expect(await world.recorded(key)).toEqual(world.expected(key));
      await world.serve(key, minute, 2, 20); // a straggler for a minute already flushed and deleted
      await flush();
      expect(await world.recorded(key)).toEqual(world.expected(key));
    });

    it("leaves the buckets past its time budget for the next run", async () => {
      const key = await world.newKey();
      const start = now(); // one instant: a minute turning mid-loop would merge two buckets
      for (let m = 2; m <= 6; m++) await world.serve(key, minutesBefore(start, m), 2);
      const spent = await flushUsageBuffer({ kv: world.kv, db: world.db, now }, { ...options, budgetMs: -1 });
      expect(spent.buckets).toMatchObject({ applied: 0, deferred: 5 });
      expect(await world.recorded(key)).toEqual({ requests: 0, bytes: 0 });
      expect((await flush()).buckets.deferred).toBe(0);
      expect(await world.recorded(key)).toEqual(world.expected(key));
    });

    it("drops usage of keys and projects deleted before or during the flush, and says how much", async () => {
      const kept = await world.newKey();
      const gone = await world.newKey();
      const doomed = await world.newKey();
      const [otherProject] = await world.db
        .insert(projects)
        .values({ teamId: (await world.db.select().from(projects))[0]!.teamId, name: "gone", slug: `gone-${kind}` })
        .returning();
      const ofDeletedProject = await world.newKey(otherProject!.id);
      const minute = minutesBefore(now(), 3);
      await world.serve(kept, minute, 4);
      await world.serve(gone, minute, 6);
      await world.serve(doomed, minute, 2);
      await world.serve(ofDeletedProject, minute, 3, 100, otherProject!.id);
      await world.db.delete(apiKeys).where(eq(apiKeys.id, gone));
      await world.db.delete(projects).where(eq(projects.id, otherProject!.id));
      await world.kv.incrementHash(redisKeys.usageBucket(minute), { "not-a-field": 1, "x|y|req": 2 }, 600);
      const report = await flush({
        faults: async (at) => void (at === "claimed" && (await world.db.delete(apiKeys).where(eq(apiKeys.id, doomed)))),
      });
      expect(report.droppedRequests).toBe(6 + 2 + 3);
      expect(await world.recorded(kept)).toEqual(world.expected(kept));
      expect(await world.kv.ttl(redisKeys.usageBucket(minute))).toBe(-2);
    });
  });
}
