import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "@/server/db/client";
import { purgeResults } from "@/server/tenancy/cache-purge";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createTestApp, filesStore, type TestApp } from "../../support/app";
import { createTestDatabase } from "../../support/database";
import { makeGrain, makeJpeg } from "../../support/images";
import { startOrigin, type Origin } from "../../support/origin";
import { startS3, type LocalS3 } from "../../support/s3";
import { setupAudit } from "../../support/audit";
import type { TestSettings } from "../../support/settings";

let origin: Origin;
let photo: Buffer;
let grain: Buffer;
let version = 1;
const dirs: string[] = [];

beforeAll(async () => {
  photo = await makeJpeg(640, 480);
  grain = await makeGrain(120, 90);
  origin = await startOrigin({
    "/photo.jpg": (_request, response) => {
      response.writeHead(200, {
        "Content-Type": "image/jpeg",
        "Content-Length": photo.length,
        ETag: `"v${version}"`,
        "Cache-Control": "max-age=3600",
      });
      response.end(photo);
    },
    "/grain.png": (_request, response) => {
      response.writeHead(200, { "Content-Type": "image/png", "Content-Length": grain.length });
      response.end(grain);
    },
  });
});

afterAll(async () => {
  await s3?.stop();
  await origin.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A result store's settings at a size (the environment's variables). */
type Store = (maxBytes: number) => TestSettings;

/** A files store under `dataDir/results`. */
const filesIn =
  (dataDir: string): Store =>
  (maxBytes) =>
    filesStore(dataDir, maxBytes);

function storeDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-results-"));
  dirs.push(dir);
  return dir;
}

const source = () => `http://${origin.host}/photo.jpg`;

function app(store: Store, database: DatabaseHandle, env: TestSettings = {}): Promise<TestApp> {
  return createTestApp({
    database,
    sourceHosts: [origin.host, "local"],
    env: { ...store(64 * 1024 * 1024), ...env },
  });
}

// CI's PostgreSQL + Redis run has an S3-compatible server: the restart case runs on it too.
const s3Run = process.env.TEST_S3_ENDPOINT !== undefined;
let s3: LocalS3 | undefined;
async function bucketStore(): Promise<Store> {
  const server = (s3 ??= await startS3());
  const bucket = await server.bucket();
  return (maxBytes) => server.storeEnv(bucket, maxBytes);
}

const transforms = (t: TestApp) => t.services.counters.get("result_tier_transform");
const fromStore = (t: TestApp) => t.services.counters.get("result_tier_store");

describe("result store", () => {
  it.each(["files", ...(s3Run ? ["s3"] : [])])(
    "keeps a quiet team's results while another team's new variants overflow the store (%s)",
    async (kind) => {
      const database = await createTestDatabase();
      const store = kind === "files" ? filesIn(storeDir()) : await bucketStore();
      try {
        const shared = await createTestApp({
          database,
          sourceHosts: [origin.host],
          env: { ...store(40 * 1024), OPTSTUFF_RESULT_CACHE_BYTES: "0" },
        });
        const quiet = await bootstrap(
          { db: database.db, secretBox: shared.services.secretBox, audit: setupAudit, now: () => new Date() },
          {
            teamSlug: "quiet",
            projectSlug: "quiet-site",
            keyName: "k",
            sourceHosts: [origin.host],
            allowLoopback: true,
          },
        );
        const quietPath = (width: number) =>
          shared.signedPath(`w_${width},f_webp`, source(), { key: quiet.key, slug: quiet.project.slug });
        for (const width of [40, 48, 56]) expect((await shared.fetch(quietPath(width))).status).toBe(200);
        await shared.services.delivery.results!.drain();
        for (let i = 0; i < 60; i++)
          expect((await shared.fetch(shared.signedPath(`w_${60 + i * 4},f_webp`, source()))).status).toBe(200);
        await shared.services.delivery.results!.drain();
        const kept = shared.services.delivery.results!.store;
        // A bucket is pruned by the daily maintenance (files as they are written).
        if (kind === "s3") await kept.prune();
        expect(kept.size().bytes).toBeLessThanOrEqual(40 * 1024);
        if (kind === "files") {
          expect(kept.projectSize(shared.projectId)!.objects).toBeLessThan(60); // the flood evicted its own
          expect(kept.projectSize(quiet.project.id)!.objects).toBe(3);
        }
        const before = fromStore(shared);
        for (const width of [40, 48, 56]) expect((await shared.fetch(quietPath(width))).status).toBe(200);
        expect(fromStore(shared) - before).toBe(3); // all three still in the store: none transformed again
        await shared.settled();
        await shared.close();
      } finally {
        await database.close();
      }
    },
    120_000,
  );

  it.each(["files", ...(s3Run ? ["s3"] : [])])(
    "keeps 50 results across a restart (%s): none is made again, byte for byte, and a new key finds them",
    async (kind) => {
      const database = await createTestDatabase();
      const store = kind === "files" ? filesIn(storeDir()) : await bucketStore();
      try {
        const first = await app(store, database);
        const widths = Array.from({ length: 50 }, (_, i) => 40 + i * 8);
        const before = new Map<number, { body: Buffer; etag: string | null }>();
        for (const width of widths) {
          const response = await first.fetch(first.signedPath(`w_${width},f_webp`, source()));
          expect(response.status).toBe(200);
          before.set(width, { body: Buffer.from(await response.arrayBuffer()), etag: response.headers.get("etag") });
        }
        expect(transforms(first)).toBe(50);
        await first.close(); // drains the write-backs

        const downloads = origin.requests.length;
        const restarted = await app(store, database); // bootstrap makes a new key: keys are not part of result keys
        for (const width of widths) {
          const response = await restarted.fetch(restarted.signedPath(`w_${width},f_webp`, source()));
          expect(response.status).toBe(200);
          expect(response.headers.get("etag")).toBe(before.get(width)!.etag);
          expect(Buffer.from(await response.arrayBuffer()).equals(before.get(width)!.body)).toBe(true);
        }
        expect(transforms(restarted)).toBe(0);
        expect(fromStore(restarted)).toBe(50);
        expect(origin.requests.length).toBe(downloads);
        await restarted.settled();
        expect(restarted.outcomes.every((o) => o.cache === "store")).toBe(true);
        await restarted.close();
      } finally {
        await database.close();
      }
    },
    120_000,
  );

  it.each(["files", ...(s3Run ? ["s3"] : [])])(
    "keeps q_auto's choice with the result (%s): after a restart the same bytes, quality and score, nothing searched again",
    async (kind) => {
      const database = await createTestDatabase();
      const store = kind === "files" ? filesIn(storeDir()) : await bucketStore();
      try {
        const first = await app(store, database, { OPTSTUFF_RESULT_CACHE_BYTES: "0" });
        const path = first.signedPath("w_320,q_auto,f_webp", source());
        const made = await first.fetch(path);
        expect(made.status).toBe(200);
        const chosen = made.headers.get("x-optstuff-quality");
        expect(chosen).toMatch(/^\d{1,3}; score=\d+\.\d$/);
        const body = Buffer.from(await made.arrayBuffer());
        await first.close();

        const restarted = await app(store, database, { OPTSTUFF_RESULT_CACHE_BYTES: "0" });
        const served = await restarted.fetch(restarted.signedPath("w_320,q_auto,f_webp", source()));
        expect(served.headers.get("x-optstuff-quality")).toBe(chosen);
        expect(Buffer.from(await served.arrayBuffer()).equals(body)).toBe(true);
        expect(transforms(restarted)).toBe(0);
        // A fixed quality reports nothing: only a measured choice has a score.
        const fixed = await restarted.fetch(restarted.signedPath("w_320,q_70,f_webp", source()));
        expect(fixed.headers.get("x-optstuff-quality")).toBeNull();
        // A level out of reach stays said so once stored.
        const grain = restarted.signedPath("w_120,q_auto:best,f_webp", `http://${origin.host}/grain.png`);
        const unreached = (await restarted.fetch(grain)).headers.get("x-optstuff-quality");
        expect(unreached).toMatch(/; unreached$/);
        await restarted.settled();
        await restarted.close(); // drains the write-back
        const again = await app(store, database, { OPTSTUFF_RESULT_CACHE_BYTES: "0" });
        expect((await again.fetch(grain)).headers.get("x-optstuff-quality")).toBe(unreached);
        expect(transforms(again)).toBe(0);
        await again.settled();
        await again.close();
      } finally {
        await database.close();
      }
    },
    120_000,
  );

  it("makes a damaged stored result again instead of serving it", async () => {
    const database = await createTestDatabase();
    const root = storeDir();
    const store = filesIn(root);
    try {
      const first = await app(store, database);
      const good = Buffer.from(await (await first.fetch(first.signedPath("w_200,f_png", source()))).arrayBuffer());
      await first.close();
      const [file] = walk(path.join(root, "results", "objects"));
      const stored = readFileSync(file!);
      stored.writeUInt8(stored.readUInt8(stored.length - 20) ^ 0x55, stored.length - 20);
      writeFileSync(file!, stored);

      const restarted = await app(store, database);
      const response = await restarted.fetch(restarted.signedPath("w_200,f_png", source()));
      const body = Buffer.from(await response.arrayBuffer());
      expect(response.status).toBe(200);
      expect(body.equals(good)).toBe(true);
      const { width, height } = await sharp(body).metadata();
      expect([width, height]).toEqual([200, 150]);
      expect(transforms(restarted)).toBe(1);
      expect(fromStore(restarted)).toBe(0);
      await restarted.close();
    } finally {
      await database.close();
    }
  }, 60_000);

  it("serves by transforming when the store cannot be used, and counts it", async () => {
    const database = await createTestDatabase();
    try {
      // A store whose directory cannot be created: every read and write fails.
      const broken = path.join(storeDir(), "a-file");
      writeFileSync(broken, "not a directory");
      const t = await app(filesIn(broken), database);
      for (const width of [120, 130]) {
        const response = await t.fetch(t.signedPath(`w_${width},f_webp`, source()));
        expect(response.status).toBe(200);
        expect((await sharp(Buffer.from(await response.arrayBuffer())).metadata()).width).toBe(width);
      }
      await t.services.delivery.results!.drain();
      expect(transforms(t)).toBe(2);
      expect(t.services.counters.get("result_store_failure_read")).toBe(2);
      expect(t.services.counters.get("result_store_failure_write")).toBe(2);
      await t.close();
    } finally {
      await database.close();
    }
  });

  it("purges one source on every tier: a new ETag, the old one no longer answers 304, the source is fetched again", async () => {
    const database = await createTestDatabase();
    const store = filesIn(storeDir());
    try {
      const t = await app(store, database, { OPTSTUFF_SOURCE_CACHE_BYTES: String(16 * 1024 * 1024) });
      const path1 = t.signedPath("w_160,f_webp", source());
      const other = t.signedPath("w_160,f_webp", "local/photo.jpg");
      const first = await t.fetch(path1);
      const oldEtag = first.headers.get("etag")!;
      const oldBody = Buffer.from(await first.arrayBuffer());
      expect((await t.fetch(t.signedPath("w_170,f_webp", source()))).status).toBe(200);
      expect((await t.fetch(other)).status).toBe(200);
      const otherEtag = (await t.fetch(other)).headers.get("etag");
      await t.services.delivery.results!.drain();
      const downloads = origin.requests.length;
      expect(downloads).toBeGreaterThanOrEqual(1);
      expect(first.headers.get("cache-tag")).toContain(t.services.publicNames.projectTag(t.projectId));

      // The origin now serves another picture under the same URL; the integrator purges it.
      photo = await makeJpeg(320, 640);
      version = 2;
      const teamId = (await t.services.config.getProject(t.projectId))!.teamId;
      const purged = await purgeResults(
        {
          ...t.services.dashboard.tenancy,
          audit: setupAudit,
          store: t.services.delivery.results!.store,
          logger: t.services.logger,
          publicNames: t.services.publicNames,
        },
        { teamId, projectId: t.projectId },
        { source: `${source()}?ignored=1`, actorId: null },
      );
      expect(purged.deletedObjects).toBe(2);
      expect(first.headers.get("cache-tag")).toContain(purged.cdnTag);

      const conditional = await t.fetch(path1, { headers: { "If-None-Match": oldEtag } });
      expect(conditional.status).toBe(200);
      const newEtag = conditional.headers.get("etag");
      expect(newEtag).not.toBe(oldEtag);
      const body = Buffer.from(await conditional.arrayBuffer());
      expect(body.equals(oldBody)).toBe(false);
      expect((await sharp(body).metadata()).height).toBe(320); // 160 wide from the new 320 × 640 picture
      expect(origin.requests.length).toBe(downloads + 1);
      // The new ETag answers 304 before any work; the other source was not purged.
      expect((await t.fetch(path1, { headers: { "If-None-Match": newEtag! } })).status).toBe(304);
      expect((await t.fetch(other)).headers.get("etag")).toBe(otherEtag);
      await t.close();
    } finally {
      photo = await makeJpeg(640, 480);
      version = 1;
      await database.close();
    }
  }, 60_000);
});

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}
