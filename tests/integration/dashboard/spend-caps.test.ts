import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLog } from "@/server/db/schema";
import { enforceSpendCaps } from "@/server/spend-caps/enforce-caps";
import { createTestApp, type TestApp } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { signUp, type TestUser } from "../../support/dashboard";
import { buildSignedUrl } from "../../support/signed-url";

/**
 * Spend caps end to end: real image requests through the route, the real usage flush and the check
 * after it, the key's cached config invalidated, the alert check, the audit log.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
const projectSlug = "partner";
const scope = () => ({ teamSlug, projectSlug });
const DAY_MS = 86_400_000;
const NO_CAP = { transformsPerDay: null, transformsPerMonth: null, bytesPerDay: null, bytesPerMonth: null };

beforeAll(async () => {
  app = await createTestApp();
  owner = await signUp(app.services, "cap-owner");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Capping",
      slug: `capping-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Partner", slug: projectSlug, allowedSourceHosts: ["local"] });
}, 60_000);
afterAll(async () => app.close());

/** The requests so far, flushed into the usage totals (the current minute too), and the caps checked. */
const meter = async () => {
  await app.settled();
  return app.services.jobs.cron.flushUsage({ safetyLagMs: -60_000 });
};
const image = (key: { publicKey: string; secretKey: string }, operations: string, init?: RequestInit) =>
  app.fetch(
    buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations, source: "local/photo.jpg" }).slice(
      "http://x".length,
    ),
    init,
  );
const keyRow = async (id: string) => (await owner.caller.apiKey.list(scope())).find((key) => key.id === id)!;
const nextUtcMidnight = () => Math.ceil((Date.now() + 1) / DAY_MS) * DAY_MS;
const entries = (keyId: string, action: string) =>
  app.services.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetId, keyId), eq(auditLog.action, action)))
    .orderBy(auditLog.id);

describe("spend caps per key", () => {
  it("are set in the key's dialog's terms, refused out of order or out of bounds with the field named, and audited", async () => {
    const key = await owner.caller.apiKey.create({ ...scope(), name: "caps-form", expiresAt: null });
    expect((await keyRow(key.id)).spendCap).toBeNull();
    const update = (spendCap: Record<string, number | null>) =>
      owner.caller.apiKey.update({ ...scope(), keyId: key.id, spendCap: { ...NO_CAP, ...spendCap } as never });
    await expect(update({ transformsPerDay: 10, transformsPerMonth: 5 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("A day's transforms cannot be capped above the month's"),
    });
    for (const bad of [0, -1, 1.5, 10 ** 16])
      await expect(update({ bytesPerMonth: bad })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    expect((await keyRow(key.id)).spendCap).toBeNull(); // nothing refused was kept

    await update({ transformsPerMonth: 1000, bytesPerDay: 5_000_000 });
    const row = await keyRow(key.id);
    expect(row.spendCap).toEqual({ ...NO_CAP, transformsPerMonth: 1000, bytesPerDay: 5_000_000 });
    expect(row.capUses).toEqual([
      { cap: "transformsPerMonth", limit: 1000, spent: 0, percent: 0 },
      { cap: "bytesPerDay", limit: 5_000_000, spent: 0, percent: 0 },
    ]);
    // Saved again unchanged: no entry; every cap emptied: stored as none.
    await update({ transformsPerMonth: 1000, bytesPerDay: 5_000_000 });
    await update({});
    expect((await keyRow(key.id)).spendCap).toBeNull();
    const changes = (await entries(key.id, "api_key.updated")).map((entry) => entry.changes);
    expect(changes).toEqual([
      { spendCap: { from: null, to: { ...NO_CAP, transformsPerMonth: 1000, bytesPerDay: 5_000_000 } } },
      { spendCap: { from: { ...NO_CAP, transformsPerMonth: 1000, bytesPerDay: 5_000_000 }, to: null } },
    ]);
  });

  it("refuses a key's new transforms once a cap is reached, until the UTC day ends, and still serves what it made", async () => {
    await clearOfWindowEdge(DAY_MS, 90_000); // the day's cap ends at UTC midnight
    const key = await owner.caller.apiKey.create({
      ...scope(),
      name: "storefront",
      expiresAt: null,
      spendCap: { ...NO_CAP, transformsPerDay: 5 },
    });
    for (const width of [40, 41, 42, 43]) expect((await image(key, `w_${width}`)).status).toBe(200);
    const first = await meter();
    expect(first.caps).toMatchObject({ reached: 0 });
    await app.services.jobs.cron.checkAlerts();
    const alerts = async () =>
      (await owner.caller.alerts.current({ teamSlug })).filter((alert) => alert.kind === "keySpendCap");
    expect(await alerts()).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('Key "storefront" of Partner has spent 4 of its 5 transforms a day (80 %)'),
      }),
    ]);

    // The fifth is still made: the cap holds from the flush that counts it.
    expect((await image(key, "w_44")).status).toBe(200);
    expect((await meter()).caps).toMatchObject({ reached: 1, released: 0 });
    const transformsBefore = app.outcomes.filter((o) => o.cache === "miss").length;
    const refused = await image(key, "w_45");
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { code: string; error: string };
    expect(body.code).toBe("SPEND_CAP_REACHED");
    expect(body.error).toContain("cap of 5 transforms a day");
    const midnight = nextUtcMidnight();
    expect(refused.headers.get("x-ratelimit-limit")).toBe("5");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("x-ratelimit-reset"))).toBe(midnight / 1000);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(Math.abs(retryAfter - (midnight - Date.now()) / 1000)).toBeLessThan(5);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    // Images already made are served, as a hit, a 304 and a HEAD; nothing new is transformed.
    const made = await image(key, "w_40");
    expect(made.status).toBe(200);
    expect((await image(key, "w_40", { headers: { "If-None-Match": made.headers.get("etag")! } })).status).toBe(304);
    expect((await image(key, "w_41", { method: "HEAD" })).status).toBe(200);
    await app.settled();
    expect(app.outcomes.filter((o) => o.cache === "miss").length).toBe(transformsBefore);
    expect(app.outcomes.find((o) => o.httpStatus === 429)?.status).toBe("cap_reached");

    // The key's row, the audit log (by the server) and the alert say so.
    const row = await keyRow(key.id);
    expect(row.capReached).toEqual({ cap: "transformsPerDay", until: new Date(midnight) });
    expect(row.capUses).toEqual([{ cap: "transformsPerDay", limit: 5, spent: 5, percent: 100 }]);
    const [reached, ...again] = await entries(key.id, "api_key.cap_reached");
    expect(again).toHaveLength(0);
    expect(reached).toMatchObject({ actorType: "system", actorLabel: "spend-cap check", teamId: expect.any(String) });
    expect(reached!.changes).toEqual({
      capReached: { from: null, to: "transformsPerDay: 5 of 5" },
      refusedUntil: { from: null, to: new Date(midnight).toISOString() },
    });
    // Checked again: the same mark, no second entry, no write.
    expect((await meter()).caps).toMatchObject({ reached: 0, released: 0 });
    expect(await entries(key.id, "api_key.cap_reached")).toHaveLength(1);
    // Renamed in the dialog, which sends the same caps (in another order): still held, one entry for the name.
    await owner.caller.apiKey.update({
      ...scope(),
      keyId: key.id,
      name: "storefront",
      spendCap: { bytesPerMonth: null, transformsPerDay: 5, bytesPerDay: null, transformsPerMonth: null },
    });
    expect((await keyRow(key.id)).capReached).toEqual({ cap: "transformsPerDay", until: new Date(midnight) });
    expect((await image(key, "w_45")).status).toBe(429);
    // Its cap lowered and so released, then two checks at once (two instances after their flushes): one
    // marks it, and writes one entry.
    await owner.caller.apiKey.update({ ...scope(), keyId: key.id, spendCap: { ...NO_CAP, transformsPerDay: 4 } });
    expect((await keyRow(key.id)).capReached).toBeNull();
    const check = () =>
      enforceSpendCaps({ db: app.services.database.db, invalidate: app.services.invalidate, now: () => new Date() });
    const both = await Promise.all([check(), check()]);
    expect(both.map((report) => report.reached).sort()).toEqual([0, 1]);
    expect(await entries(key.id, "api_key.cap_reached")).toHaveLength(2);
    await owner.caller.apiKey.update({ ...scope(), keyId: key.id, spendCap: { ...NO_CAP, transformsPerDay: 5 } });
    await meter();
    await app.services.jobs.cron.checkAlerts();
    expect((await alerts()).map((alert) => alert.message)).toContainEqual(
      expect.stringContaining("has spent 5 of its 5 transforms a day (100 %): its new transforms are refused"),
    );

    // The next UTC day releases it (the check at that time), and a raised cap releases it at once.
    const tomorrow = new Date(midnight + 60_000);
    const released = await enforceSpendCaps({
      db: app.services.database.db,
      invalidate: app.services.invalidate,
      now: () => tomorrow,
    });
    expect(released).toMatchObject({ reached: 0, released: 1 });
    expect((await image(key, "w_46")).status).toBe(200);
    expect((await meter()).caps).toMatchObject({ reached: 1 }); // back today: 6 of 5
    expect((await image(key, "w_47")).status).toBe(429);
    await owner.caller.apiKey.update({ ...scope(), keyId: key.id, spendCap: { ...NO_CAP, transformsPerDay: 50 } });
    expect((await keyRow(key.id)).capReached).toBeNull();
    expect((await image(key, "w_47")).status).toBe(200);
  }, 90_000);

  it("counts bytes delivered from the cache against a bytes cap, and a rotated key keeps its caps", async () => {
    await clearOfWindowEdge(DAY_MS, 60_000);
    const key = await owner.caller.apiKey.create({ ...scope(), name: "bytes", expiresAt: null });
    const first = await image(key, "w_60");
    const size = (await first.arrayBuffer()).byteLength;
    expect(size).toBeGreaterThan(100);
    await owner.caller.apiKey.update({
      ...scope(),
      keyId: key.id,
      spendCap: { ...NO_CAP, bytesPerMonth: size * 3 },
    });
    // Hits only: nothing transformed, but bytes delivered.
    for (let i = 0; i < 2; i++) expect((await image(key, `w_60`)).status).toBe(200);
    expect((await meter()).caps).toMatchObject({ reached: 1 });
    const refused = await image(key, "w_61");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: string }).error).toContain("bytes delivered a month");
    expect(Number(refused.headers.get("x-ratelimit-reset")) * 1000).toBe(
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 1, 1),
    );
    expect((await image(key, "w_60")).status).toBe(200);

    // A rotation hands on the caps and the mark, not a fresh budget: the new pair counts the old key's spending.
    const rotated = await owner.caller.apiKey.rotate({ ...scope(), keyId: key.id, graceSeconds: 0 });
    const renewed = await keyRow(rotated.id);
    expect(renewed.spendCap).toEqual({ ...NO_CAP, bytesPerMonth: size * 3 });
    expect(renewed.capReached).toMatchObject({ cap: "bytesPerMonth" });
    expect((await image(rotated, "w_62")).status).toBe(429);
    expect((await meter()).caps).toMatchObject({ released: 0 });
    expect((await keyRow(rotated.id)).capUses).toEqual([
      { cap: "bytesPerMonth", limit: size * 3, spent: size * 4, percent: 133 },
    ]);
    expect((await image(rotated, "w_60")).status).toBe(200);
  }, 60_000);
});
