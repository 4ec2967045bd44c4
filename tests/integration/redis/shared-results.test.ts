import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestDatabase } from "../../support/database";
import { makeJpeg } from "../../support/images";
import { startOrigin, type Origin } from "../../support/origin";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { need } from "../../support/services";
import { startS3, type LocalS3 } from "../../support/s3";
import { buildSignedUrl } from "../../support/signed-url";
import { setupAudit } from "../../support/audit";
import type { TestSettings } from "../../support/settings";

// Several instances need one shared PostgreSQL: this runs in CI's PostgreSQL + Redis + object store run.
const needs = need("postgresql", "redis-server");
const MASTER = "shared-results-master";

let database: DatabaseHandle & { url?: string };
let redis: RealRedis;
let s3: LocalS3;
let origin: Origin;
let photo: Buffer;
let photoVersion = 1;
const children: ChildProcess[] = [];

function startInstance(store: TestSettings, transport: "rest" | "tcp"): Promise<string> {
  const config = JSON.stringify({
    databaseUrl: database.url,
    redis: transport === "tcp" ? redis.tcp : redis.settings,
    master: MASTER,
    resultStore: store,
    sourceCacheBytes: 32 * 1024 * 1024,
    transformQueue: 32,
  });
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "tests/support/instance.ts", config], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      const port = /READY (\d+)/.exec(chunk.toString())?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
    child.once("exit", (code) => reject(new Error(`instance exited with ${code}`)));
  });
}

interface Made {
  /** Transforms the instance made itself (`optstuff_results_total{tier="transform"}`). */
  transforms: number;
  /** Store reads and writes and lease calls that failed or missed their budget: each may cost one more transform, by design. */
  misses: number;
}

async function madeBy(base: string): Promise<Made> {
  const text = await (await fetch(`${base}/admin/metrics`)).text();
  const count = (pattern: RegExp) => [...text.matchAll(pattern)].reduce((sum, m) => sum + Number(m[1]), 0);
  return {
    transforms: count(/optstuff_results_total\{tier="transform"\} (\d+)/g),
    misses:
      count(/optstuff_redis_failures_total\{use="transformLease"\} (\d+)/g) +
      count(/optstuff_result_store_failures_total\{operation="\w+"\} (\d+)/g),
  };
}

async function madeByAll(instances: string[]): Promise<Made> {
  const each = await Promise.all(instances.map(madeBy));
  return {
    transforms: each.reduce((sum, m) => sum + m.transforms, 0),
    misses: each.reduce((sum, m) => sum + m.misses, 0),
  };
}

beforeAll(async () => {
  if (needs.skip) return;
  photo = await makeJpeg(1600, 1200);
  [database, redis, s3, origin] = await Promise.all([
    createTestDatabase(),
    startRealRedis(),
    startS3(),
    startOrigin({
      "/photo.jpg": (_request, response) => {
        response.writeHead(200, {
          "Content-Type": "image/jpeg",
          "Content-Length": photo.length,
          ETag: `"v${photoVersion}"`,
          "Cache-Control": "max-age=3600",
        });
        response.end(photo);
      },
    }),
  ]);
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(
    children.map(
      (child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve))),
    ),
  );
  await origin?.close();
  await s3?.stop();
  await redis?.stop();
  await database?.close();
});

// Both ways an instance reaches Redis: the Upstash REST endpoint and TCP (REDIS_URL).
for (const transport of ["rest", "tcp"] as const)
  describe.skipIf(needs.skip)(
    needs.title(`three instances sharing PostgreSQL, Redis (${transport}) and an S3-compatible store`),
    () => {
      it("make each of 10 cold variants about once for 100 concurrent requests, and a purge on one is seen by another within 2 s", async () => {
        const { project, key, team } = await bootstrap(
          { db: database.db, secretBox: createSecretBox(MASTER), audit: setupAudit, now: () => new Date() },
          {
            teamSlug: `shared-results-${transport}`,
            projectSlug: "site",
            keyName: "k",
            sourceHosts: [origin.host],
            allowLoopback: true,
          },
        );
        const store = s3.storeEnv(await s3.bucket(), 512 * 1024 * 1024);
        const instances = await Promise.all([1, 2, 3].map(() => startInstance(store, transport)));
        const image = (base: string, width: number) =>
          buildSignedUrl({
            baseUrl: base,
            projectSlug: project.slug,
            ...key,
            operations: `w_${width},f_webp`,
            source: `http://${origin.host}/photo.jpg`,
          });

        // Instances that have served a request (connections to Redis, the store and the database open),
        // as in production before a burst.
        for (const base of instances) expect((await fetch(image(base, 50))).status).toBe(200);
        const warm = await madeByAll(instances);

        const requests = Array.from({ length: 100 }, (_, i) => image(instances[i % 3]!, 100 + 10 * (i % 10)));
        const responses = await Promise.all(requests.map((url) => fetch(url)));
        expect(responses.map((r) => r.status)).toEqual(requests.map(() => 200));
        const bodies = await Promise.all(responses.map(async (r) => Buffer.from(await r.arrayBuffer())));
        // Every answer for one variant is the same bytes, wherever it was made or read.
        for (let i = 10; i < 100; i++) expect(bodies[i]!.equals(bodies[i % 10]!)).toBe(true);

        const after = await madeByAll(instances);
        const transforms = after.transforms - warm.transforms;
        const misses = after.misses - warm.misses;
        console.log(
          `10 cold variants × 100 requests on 3 instances: ${transforms} transforms, ${misses} budget misses, ${origin.requests.length} source downloads`,
        );
        expect(transforms).toBeGreaterThanOrEqual(10);
        // About once per variant (≤ 11 for 10) while every store and lease call answers within its budget.
        // A call over its budget makes that request transform rather than wait (the failure policy); on a
        // loaded machine that happens, and each such miss is counted, so each may explain one transform.
        expect(transforms).toBeLessThanOrEqual(11 + misses);

        // A changed source, purged on instance A: instance B fetches it again within 2 s.
        const [a, b] = [instances[0]!, instances[1]!];
        const before = await fetch(image(b, 100));
        const oldEtag = before.headers.get("etag")!;
        // Another picture each time this runs (once per transport): the purge must show a new answer.
        photoVersion += 1;
        photo = await makeJpeg(1600, 1200, { orientation: photoVersion === 2 ? 6 : 3 });
        const downloads = origin.requests.length;
        const purged = await fetch(
          `${a}/admin/purge?team=${team.id}&project=${project.id}&source=${encodeURIComponent(`http://${origin.host}/photo.jpg`)}`,
          { method: "POST" },
        );
        expect(purged.status).toBe(200);
        const purgedAt = Date.now();
        let seenAfterMs = Number.POSITIVE_INFINITY;
        while (Date.now() - purgedAt < 5_000) {
          const response = await fetch(image(b, 100), { headers: { "If-None-Match": oldEtag } });
          if (response.status === 200 && origin.requests.length > downloads) {
            seenAfterMs = Date.now() - purgedAt;
            expect(response.headers.get("etag")).not.toBe(oldEtag);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        console.log(`purge on A seen by B after ${seenAfterMs} ms`);
        expect(seenAfterMs).toBeLessThanOrEqual(2_000);
      }, 120_000);
    },
  );
