import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestDatabase } from "../../support/database";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { startRealRedis, type RealRedis } from "../../support/redis";
import { startPgBouncer, type Pooler } from "../../support/pgbouncer";
import { startS3, type LocalS3 } from "../../support/s3";
import { need } from "../../support/services";
import { buildSignedUrl } from "../../support/signed-url";
import { setupAudit } from "../../support/audit";

// Two instances need one shared PostgreSQL: this runs in CI's PostgreSQL + Redis run.
const needs = need("postgresql", "redis-server");
const pooling = need("postgresql", "redis-server", "pgbouncer");

/**
 * How the two instances reach what they share: Redis through the Upstash REST endpoint, or over TCP;
 * the last as a self-hosted fleet runs, PostgreSQL through PgBouncer in transaction mode and results
 * in an S3-compatible bucket.
 */
const SETUPS = [
  { name: "Redis over REST", transport: "rest", pooled: false, s3: false, needs },
  { name: "Redis over TCP", transport: "tcp", pooled: false, s3: false, needs },
  { name: "Redis over TCP, PgBouncer, S3", transport: "tcp", pooled: true, s3: true, needs: pooling },
] as const;
type Setup = (typeof SETUPS)[number];
const MASTER = "two-instances-master";

let database: DatabaseHandle & { url?: string };
let redis: RealRedis;
let origin: Origin;
let pooler: Promise<Pooler> | undefined;
let s3: Promise<LocalS3> | undefined;
const children: ChildProcess[] = [];

async function startInstance(setup: Setup): Promise<string> {
  const shared = setup.transport === "tcp" ? redis.tcp : redis.settings;
  // Started once, by whichever instance asks first (the two start together).
  if (setup.pooled) pooler ??= startPgBouncer(database.url!, 4);
  if (setup.s3) s3 ??= startS3();
  const bucket = setup.s3 ? await (await s3!).bucket() : null;
  const config = JSON.stringify({
    databaseUrl: setup.pooled ? (await pooler!).url : database.url,
    pooled: setup.pooled,
    redis: shared,
    master: MASTER,
    resultStore: bucket ? (await s3!).storeEnv(bucket, 10_000_000) : undefined,
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

beforeAll(async () => {
  if (needs.skip) return;
  [database, redis, origin] = await Promise.all([
    createTestDatabase(),
    startRealRedis(),
    startOrigin({ "/a.png": serveBytes(await makePng(16, 16), "image/png") }),
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
  await redis?.stop();
  await (await pooler)?.stop();
  await (await s3)?.stop();
  await database?.close();
});

for (const setup of SETUPS)
  describe.skipIf(setup.needs.skip)(
    setup.needs.title(`two instances sharing PostgreSQL and Redis (${setup.name})`),
    () => {
      it("see a revocation made on the other within 2 seconds", async () => {
        const { project, key } = await bootstrap(
          { db: database.db, secretBox: createSecretBox(MASTER), audit: setupAudit, now: () => new Date() },
          {
            teamSlug: `shared-${SETUPS.indexOf(setup)}`,
            projectSlug: "site",
            keyName: "k",
            sourceHosts: [origin.host],
            allowLoopback: true,
          },
        );
        const [a, b] = await Promise.all([startInstance(setup), startInstance(setup)]);
        const image = (base: string, n: number) =>
          buildSignedUrl({
            baseUrl: base,
            projectSlug: project.slug,
            ...key,
            operations: `w_${n}`,
            source: `http://${origin.host}/a.png`,
          });

        // Both instances hold the key in L1 and Redis holds it too.
        expect((await fetch(image(a, 1))).status).toBe(200);
        expect((await fetch(image(b, 2))).status).toBe(200);

        const revokedAt = Date.now();
        expect((await fetch(`${a}/admin/revoke?key=${key.publicKey}`, { method: "POST" })).status).toBe(204);
        expect((await fetch(image(a, 3))).status).toBe(401); // at once where the change was made

        let seenAfterMs = Number.POSITIVE_INFINITY;
        for (let n = 4; Date.now() - revokedAt < 5_000; n++) {
          if ((await fetch(image(b, n))).status === 401) {
            seenAfterMs = Date.now() - revokedAt;
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        console.log(`revocation visible on the other instance after ${seenAfterMs} ms`);
        expect(seenAfterMs).toBeLessThanOrEqual(2_000);
      }, 60_000);
    },
  );
