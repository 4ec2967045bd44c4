import { copyFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { projects } from "@/server/db/schema";
import { eq, sql } from "drizzle-orm";
import { rowsOf } from "@/server/db/rows-of";
import { bootstrapProject, startServedApp, type ServedApp } from "../support/browser";
import { fillRequestLog } from "../support/filled-log";
import { servedDashboard } from "../support/served-dashboard";
import { buildSignedUrl, signedFor } from "../support/signed-url";

/**
 * Issue 47 against the built app as `npm start` runs it, the embedded database in its own process:
 * one member's worst dashboard read, and one account's quality searches from several teams, leave
 * another tenant's sign-in, cached image and new images as fast as alone (give or take what the issue
 * allows: 200 ms, and twice the median).
 */
let app: ServedApp;
let vars: Record<string, string> = {};
const dashboard = () => servedDashboard(app.baseUrl);
const PASSWORD = "correct horse battery";
let victimEmail = "";

/** Local sources: the demo photograph, a HEIC, and a face at the right of a grey canvas. */
const root = mkdtempSync(path.join(os.tmpdir(), "optstuff-bounds-sources-"));

beforeAll(async () => {
  copyFileSync("demo/photo.jpg", path.join(root, "photo.jpg"));
  copyFileSync("tests/fixtures/heic/photo.heic", path.join(root, "photo.heic"));
  const face = await sharp("node_modules/@vladmandic/face-api/demo/sample3.jpg")
    .extract({ left: 1400, top: 180, width: 420, height: 460 })
    .toBuffer();
  const canvas = { create: { width: 2400, height: 800, channels: 3 as const, background: "#808080" } };
  await sharp(canvas)
    .composite([{ input: face, left: 1900, top: 170 }])
    .jpeg()
    .toFile(path.join(root, "face.jpg"));
  app = await startServedApp(
    {
      OPTSTUFF_LOCAL_SOURCE_ROOT: root,
      OPTSTUFF_REGISTRATION: "open",
      // Every client here is 127.0.0.1: the address windows would otherwise measure themselves.
      OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE: "100000",
      // The other tenant's sign-ins come from addresses of their own (X-Forwarded-For, one proxy hop
      // trusted), so the sign-in limit (10 a minute per address) leaves room for enough samples.
      OPTSTUFF_TRUSTED_PROXY_HOPS: "1",
      OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE: "100000",
    },
    (dataDir) => {
      vars = bootstrapProject(dataDir);
    },
  );
  // The first account adopts the demo team the command line made: the other tenant's.
  victimEmail = `victim-${Date.now()}@example.com`;
  const signedUp = await fetch(`${app.baseUrl}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.baseUrl },
    body: JSON.stringify({ email: victimEmail, password: PASSWORD, name: "Victim" }),
  });
  expect(signedUp.status).toBe(200);
  expect((await fetch(cachedImage())).status).toBe(200);
}, 180_000);

afterAll(() => app?.stop());

const cachedImage = () => signedFor(app.baseUrl, vars, "w_64", "local/photo.jpg");

async function timed(request: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await request();
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return performance.now() - started;
}

let signIns = 0;
/** The other tenant: a password sign-in (each from a new address) and a cached image, their times in ms. */
async function otherTenant() {
  const from = `198.51.100.${1 + (signIns++ % 250)}`;
  const signIn = await timed(() =>
    fetch(`${app.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: app.baseUrl, "x-forwarded-for": from },
      body: JSON.stringify({ email: victimEmail, password: PASSWORD }),
    }),
  );
  return { signIn, image: await timed(() => fetch(cachedImage())) };
}

async function whileOtherTenantWorks(read: () => Promise<Response>) {
  const alone = { signIn: 0, image: 0 };
  // Five: a password hash's time varies by tens of ms on its own; the slowest of five is what it costs.
  for (let i = 0; i < 5; i++) {
    const t = await otherTenant();
    alone.signIn = Math.max(alone.signIn, t.signIn);
    alone.image = Math.max(alone.image, t.image);
  }
  const during = { signIn: 0, image: 0 };
  let done = false;
  const started = performance.now();
  const reading = read().finally(() => (done = true));
  do {
    const t = await otherTenant();
    during.signIn = Math.max(during.signIn, t.signIn);
    during.image = Math.max(during.image, t.image);
  } while (!done);
  const response = await reading;
  return { response, readMs: performance.now() - started, alone, during };
}

/**
 * Until the server's table upkeep has gathered the request log's statistics after `since`: those of
 * each partition holding its rows (db/day-partitions.ts: today's, and the default for yesterday's).
 */
async function analyzedSince(database: DatabaseHandle, since: Date): Promise<void> {
  const deadline = Date.now() + 150_000;
  const partitions = sql`(select distinct tableoid from request_log)`;
  for (;;) {
    const [row] = rowsOf<{ at: Date | string | null }>(
      await database.db.execute(
        sql`select min(coalesce(last_analyze, '-infinity')) as at from pg_stat_user_tables where relid in ${partitions}`,
      ),
    );
    if (row?.at && new Date(row.at) > since) return;
    if (Date.now() > deadline) throw new Error("the request log was never analysed after it was filled");
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function ownTeam(cookie: string, slug: string, first: boolean) {
  const made = await dashboard().mutate(cookie, first ? "account.completeOnboarding" : "account.createTeam", {
    name: slug,
    slug,
  });
  expect(made.status).toBe(200);
  expect(
    (
      await dashboard().mutate(cookie, "project.create", {
        teamSlug: slug,
        name: "Site",
        slug: "site",
        allowedSourceHosts: ["local"],
      })
    ).status,
  ).toBe(200);
  const key = await dashboard().mutate(cookie, "apiKey.create", {
    teamSlug: slug,
    projectSlug: "site",
    name: "k",
    expiresAt: null,
  });
  const { json } = ((await key.json()) as { result: { data: { json: { publicKey: string; secretKey: string } } } })
    .result.data;
  return { slug, key: json };
}

describe("one member cannot stall the instance", () => {
  it("answers the worst request-log filter over a day at the log's caps within a second, the other tenant unharmed", async () => {
    const cookie = await dashboard().signUp("member");
    const team = await ownTeam(cookie, `filler-${Date.now().toString(36)}`, true);
    // A day at both caps, written through the server's own database process.
    const database: DatabaseHandle = await openDatabase({ kind: "pglite", dataDir: app.dataDir, migrate: false });
    try {
      const [project] = await database.db.select({ id: projects.id }).from(projects).where(eq(projects.slug, "site"));
      await fillRequestLog(database.db, project!.id, {
        failures: 86_400,
        successes: 172_800,
        newest: new Date(),
        everyMs: 333,
        source: `local/${"a".repeat(250)}`,
      });
      // A day of rows arrives over a day, each minute's seen by the scheduler's table upkeep; at once,
      // they are seen at its next minute (db/table-upkeep.ts).
      await analyzedSince(database, new Date());
    } finally {
      await database.close();
    }
    const today = new Date().toISOString().slice(0, 10);
    // The filled day spans yesterday too (just after midnight, today alone holds a few minutes of it).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    for (const source of [`${"a".repeat(63)}b`, `local/${"a".repeat(2041)}b`]) {
      const measured = await whileOtherTenantWorks(() =>
        dashboard().query(cookie, "usage.requestLog", {
          teamSlug: team.slug,
          projectSlug: "site",
          range: { from: yesterday, to: today },
          source,
        }),
      );
      expect(measured.response.status).toBe(200);
      expect(measured.readMs).toBeLessThan(1000);
      expect(measured.during.signIn).toBeLessThan(measured.alone.signIn + 200);
      expect(measured.during.image).toBeLessThan(measured.alone.image + 200);
    }
  }, 240_000);
});

let width = 200;
/** The other tenant's new image: a variant never made before, so a transform each time. */
const newImage = () => timed(() => fetch(signedFor(app.baseUrl, vars, `w_${width++}`, "local/photo.jpg")));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("one account gets one share of the transforms", () => {
  it("leaves another tenant's new images within twice their median alone while four of its teams search for quality", async () => {
    const cookie = await dashboard().signUp("searcher");
    const suffix = Date.now().toString(36);
    const teams = [];
    for (let i = 0; i < 4; i++) teams.push(await ownTeam(cookie, `search-${i}-${suffix}`, i === 0));
    const alone: number[] = [];
    for (let i = 0; i < 9; i++) alone.push(await newImage());

    let searching = true;
    let searched = 0;
    const searches = teams.map(async (team, t) => {
      for (let n = 0; searching; n++) {
        const url = buildSignedUrl({
          baseUrl: app.baseUrl,
          projectSlug: "site",
          ...team.key,
          operations: `w_${600 + t * 1000 + n},f_avif,q_auto`,
          source: "local/photo.jpg",
        });
        const response = await fetch(url, { headers: { accept: "image/avif,image/webp" } });
        await response.arrayBuffer();
        if (response.status === 200) searched++;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const during: number[] = [];
    for (let i = 0; i < 9; i++) during.push(await newImage());
    searching = false;
    await Promise.all(searches);
    expect(searched).toBeGreaterThan(0);
    expect(median(during)).toBeLessThanOrEqual(2 * median(alone));
  });
});

describe("faces and HEIC from one account", () => {
  it("leave another tenant's new images within twice their median alone while two teams look for faces and decode HEIC", async () => {
    const cookie = await dashboard().signUp("facer");
    const suffix = Date.now().toString(36);
    const teams = [await ownTeam(cookie, `faces-${suffix}`, true), await ownTeam(cookie, `heic-${suffix}`, false)];
    const alone: number[] = [];
    for (let i = 0; i < 9; i++) alone.push(await newImage());

    let working = true;
    const made = { faces: 0, heic: 0 };
    // Three requests in flight for each team, each URL a new variant.
    const loops = teams.flatMap((team, t) => [0, 1, 2].map((lane) => ({ team, t, lane })));
    const work = loops.map(async ({ team, t, lane }) => {
      for (let n = lane * 1000; working; n++) {
        const [operations, source] =
          t === 0
            ? [`w_${300 + n},h_300,g_face,f_webp`, "local/face.jpg"]
            : [`w_${100 + n},f_webp`, "local/photo.heic"];
        const url = buildSignedUrl({ baseUrl: app.baseUrl, projectSlug: "site", ...team.key, operations, source });
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.status === 200) made[t === 0 ? "faces" : "heic"]++;
      }
    });
    // Past the first searches' start-up (a transform process, the detector loaded): the steady load.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const during: number[] = [];
    for (let i = 0; i < 15; i++) during.push(await newImage());
    working = false;
    await Promise.all(work);
    expect(made.faces).toBeGreaterThan(0);
    expect(made.heic).toBeGreaterThan(0);
    console.log(
      `faces and HEIC: the other tenant's new image ${Math.round(median(alone))} ms alone, ${Math.round(median(during))} ms during (${made.faces} face searches, ${made.heic} HEIC decodes)`,
    );
    expect(median(during)).toBeLessThanOrEqual(2 * median(alone));
  });
});
