import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usageRecord } from "@/server/db/schema";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { clearOfWindowEdge } from "../../support/clock";
import { signUp, type TestUser } from "../../support/dashboard";
import { tokenOf } from "../../support/tenant-world";
import { createExportHandler } from "@/server/http/export-route";
import { usageExport } from "@/server/http/exports";
import { buildSignedUrl } from "../../support/signed-url";

/** Images served through the real route, flushed by the real job, read back through the procedures. */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
const projectSlug = "gallery";
const scope = () => ({ teamSlug, projectSlug });
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const served = { requests: 0, bytes: 0, original: 0, measuredOutput: 0, misses: 0, byKey: new Map<string, number>() };
let keys: Array<{ id: string; publicKey: string; secretKey: string }>;

function imagePath(key: { publicKey: string; secretKey: string }, operations: string, signature?: string): string {
  const url = buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations, source: "local/photo.jpg" }).slice(
    "http://x".length,
  );
  return signature ? url.replace(/sig=[^&]+/, `sig=${signature}`) : url;
}

beforeAll(async () => {
  // The file counts what it serves by the UTC day: it starts clear of midnight.
  await clearOfWindowEdge(86_400_000, 120_000);
  // In process: the flush sweeps every bucket of its Redis, and this file's numbers must be its own.
  app = await createTestApp({ env: NO_REDIS });
  owner = await signUp(app.services, "usage");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Usage",
      slug: `usage-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Gallery", slug: projectSlug, allowedSourceHosts: ["local"] });
  await owner.caller.project.create({ teamSlug, name: "Quiet", slug: "quiet" });
  keys = [
    await owner.caller.apiKey.create({ ...scope(), name: "web", expiresAt: null }),
    await owner.caller.apiKey.create({ ...scope(), name: "mobile", expiresAt: null }),
  ];
  for (const [key, operations] of [
    [0, "w_30"],
    [0, "w_31"],
    [0, "w_32"],
    [1, "w_33"],
    [1, "w_33"],
  ] as const) {
    const response = await app.fetch(imagePath(keys[key]!, operations));
    expect(response.status).toBe(200);
    served.requests++;
    served.bytes += (await response.arrayBuffer()).byteLength;
    served.byKey.set(keys[key]!.id, (served.byKey.get(keys[key]!.id) ?? 0) + 1);
  }
  for (let i = 0; i < 2; i++) expect((await app.fetch(imagePath(keys[0]!, "w_34", "B".repeat(32)))).status).toBe(403);
  await app.settled();
  for (const outcome of app.outcomes.filter((o) => o.status === "success" && o.sourceBytes !== undefined)) {
    served.misses++;
    served.original += outcome.sourceBytes!;
    served.measuredOutput += outcome.outputBytes!;
  }
  const flushed = await app.services.jobs.cron.flushUsage({ safetyLagMs: -60_000 }); // the current minute too
  expect(flushed.requests).toBe(served.requests);
}, 180_000);
afterAll(() => app.close());

describe("project usage", () => {
  it("reports exact metered totals per day and per key, with freshness", async () => {
    const usage = await owner.caller.usage.project({ ...scope(), range: { preset: "7d" } });
    expect(usage.range).toMatchObject({
      from: day(-6),
      to: day(0),
      days: 7,
      previous: { from: day(-13), to: day(-7) },
    });
    expect(usage.series).toHaveLength(7);
    expect(usage.series.at(-1)).toEqual({ date: day(0), requests: served.requests, bytes: served.bytes });
    expect(usage.series.slice(0, -1).every((p) => p.requests === 0)).toBe(true);
    expect(usage.totals).toEqual({ requests: served.requests, bytes: served.bytes });
    expect(usage.byKey.map((k) => [k.name, k.requests])).toEqual([
      ["web", 3],
      ["mobile", 2],
    ]);
    // The test app runs no scheduler of its own: the page cannot promise a delay.
    expect(usage.metering).toEqual({
      meteredUpTo: expect.any(Date),
      lastFlushFailed: false,
      appearsWithinSeconds: null,
    });
  });

  it("derives success rate, timing, top sources and bandwidth saved from the request statistics", async () => {
    const { log, savings, totals } = await owner.caller.usage.project({ ...scope(), range: { preset: "7d" } });
    expect(log.logged).toBe(7);
    expect(log.successRate).toBeCloseTo(5 / 7, 10);
    expect(log.statuses).toEqual([
      { status: "success", requests: 5 },
      { status: "sig_invalid", requests: 2 },
    ]);
    const durations = app.outcomes
      .filter((o) => o.status === "success")
      .map((o) => o.durationMs)
      .sort((a, b) => a - b);
    // From the histogram: the bucket holding the 95th percentile, interpolated by rank inside it.
    const bounds = [0, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];
    const rank = 0.95 * durations.length;
    const upper = bounds.findIndex((bound, i) => i > 0 && durations.filter((d) => d <= bound).length >= rank);
    const inside = durations.filter((d) => d > bounds[upper - 1]! && d <= bounds[upper]!).length;
    const below = durations.filter((d) => d <= bounds[upper - 1]!).length;
    const p95 = bounds[upper - 1]! + ((rank - below) / inside) * (bounds[upper]! - bounds[upper - 1]!);
    expect(log.processing.averageMs).toBeCloseTo(durations.reduce((a, b) => a + b, 0) / durations.length, 6);
    expect(log.processing.p95Ms).toBeCloseTo(p95, 6);
    expect(savings.topSources).toEqual([{ sourceUrl: "local/photo.jpg", requests: 5, outputBytes: served.bytes }]);
    expect(served.misses).toBe(4); // the repeated variant was a cache hit
    // Exactly what the route served (its outcomes); here every delivery is an image, as metered.
    expect(savings.totals).toEqual({
      delivered: app.outcomes.filter((o) => o.status === "success" && o.outputFormat).length,
      outputBytes: totals.bytes,
      measured: 4,
      originalBytes: served.original,
      measuredOutputBytes: served.measuredOutput,
      savedBytes: served.original - served.measuredOutput,
      savedShare: 1 - served.measuredOutput / served.original,
    });
    expect(totals).toEqual({ requests: served.requests, bytes: served.bytes });
    const formats = new Map<string, number>();
    for (const o of app.outcomes.filter((o) => o.status === "success"))
      formats.set(o.outputFormat!, (formats.get(o.outputFormat!) ?? 0) + 1);
    expect(new Map(savings.byFormat.map((f) => [f.format, f.delivered]))).toEqual(formats);
    expect(savings.work).toEqual({ transforms: 4, spared: 1, sparedShare: 1 / 5 });
    // w_30, w_31, w_32 and w_33 (twice): four variants delivered, as the route's outcomes name them.
    const variants = new Set(app.outcomes.filter((o) => o.status === "success").map((o) => o.variant));
    expect(variants.size).toBe(4);
    expect(savings.uniqueTransformations).toEqual({ from: day(-29), to: day(0), count: variants.size, atLeast: false });
  });

  it("compares with the previous period of the same length", async () => {
    const [key] = keys;
    await app.services.database.db.insert(usageRecord).values([
      {
        projectId: (await owner.caller.project.get(scope())).project.id,
        apiKeyId: key!.id,
        date: day(-8),
        requests: 40,
        bytes: 4000,
      },
    ]);
    const usage = await owner.caller.usage.project({ ...scope(), range: { preset: "7d" } });
    expect(usage.previous).toEqual({ requests: 40, bytes: 4000 });
    const custom = await owner.caller.usage.project({ ...scope(), range: { from: day(-8), to: day(-8) } });
    expect(custom.totals).toEqual({ requests: 40, bytes: 4000 });
    expect(custom.range.previous).toEqual({ from: day(-9), to: day(-9) });
  });

  it("pages the request log newest first and filters by status", async () => {
    const first = await owner.caller.usage.requestLog({ ...scope(), range: { preset: "7d" }, limit: 3 });
    expect(first.rows).toHaveLength(3);
    const second = await owner.caller.usage.requestLog({
      ...scope(),
      range: { preset: "7d" },
      limit: 3,
      before: first.nextBefore!,
    });
    const third = await owner.caller.usage.requestLog({
      ...scope(),
      range: { preset: "7d" },
      limit: 3,
      before: second.nextBefore!,
    });
    const all = [...first.rows, ...second.rows, ...third.rows];
    expect(all).toHaveLength(7);
    expect(third.nextBefore).toBeNull();
    expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort((a, b) => b - a));
    expect(all.find((r) => r.status === "success")).toMatchObject({
      keyName: expect.any(String),
      sourceUrl: "local/photo.jpg",
      httpStatus: 200,
    });
    const failures = await owner.caller.usage.requestLog({
      ...scope(),
      range: { preset: "7d" },
      status: "sig_invalid",
    });
    expect(failures.rows.map((r) => [r.status, r.httpStatus, r.keyName])).toEqual([
      ["sig_invalid", 403, "web"],
      ["sig_invalid", 403, "web"],
    ]);
    await expect(
      owner.caller.usage.requestLog({ ...scope(), range: { preset: "7d" }, status: "nonsense" as "success" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("finds one request by the id its response carried, whatever the filters, in its own project only", async () => {
    const refused = app.outcomes.find((o) => o.status === "sig_invalid")!;
    // A status filter that would exclude it and a range of another day: the id wins.
    const found = await owner.caller.usage.requestLog({
      ...scope(),
      range: { from: day(-30), to: day(-30) },
      status: "success",
      requestId: refused.requestId,
    });
    expect(found.rows.map((r) => [r.requestId, r.status, r.httpStatus, r.keyName])).toEqual([
      [refused.requestId, "sig_invalid", 403, "web"],
    ]);
    expect(found.nextBefore).toBeNull();
    const pasted = await owner.caller.usage.requestLog({
      ...scope(),
      range: { preset: "7d" },
      requestId: ` ${refused.requestId.toUpperCase()} `,
    });
    expect(pasted.rows.map((r) => r.requestId)).toEqual([refused.requestId]);
    const elsewhere = await owner.caller.usage.requestLog({
      teamSlug,
      projectSlug: "quiet",
      range: { preset: "7d" },
      requestId: refused.requestId,
    });
    expect(elsewhere.rows).toEqual([]);
    await expect(
      owner.caller.usage.requestLog({ ...scope(), range: { preset: "7d" }, requestId: "not-an-id" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/request id looks like/) });
  });

  it("refuses ranges that are inverted, in the future, invalid or longer than 90 days, saying why", async () => {
    const cases: Array<[{ from: string; to: string }, RegExp]> = [
      [{ from: day(-100), to: day(0) }, /at most 90 days/],
      [{ from: day(-1), to: day(-2) }, /must not be after/],
      [{ from: day(0), to: day(1) }, /future/],
      [{ from: "2026-02-30", to: "2026-03-01" }, /not a valid date/],
      [{ from: "yesterday", to: day(0) }, /YYYY-MM-DD/],
    ];
    for (const [range, message] of cases) {
      await expect(owner.caller.usage.project({ ...scope(), range })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(message),
      });
    }
    const longest = await owner.caller.usage.project({ ...scope(), range: { from: day(-89), to: day(0) } });
    expect(longest.series).toHaveLength(90);
  });
});

describe("team usage", () => {
  it("totals the team and breaks it down per project, quiet projects included", async () => {
    const usage = await owner.caller.usage.team({ teamSlug, range: { preset: "30d" } });
    expect(usage.totals).toEqual({ requests: served.requests + 40, bytes: served.bytes + 4000 });
    expect(usage.byProject.map((p) => [p.slug, p.requests])).toEqual([
      [projectSlug, served.requests + 40],
      ["quiet", 0],
    ]);
    expect(usage.series).toHaveLength(30);
  });
});

describe("every request by outcome", () => {
  it("splits the range's requests into served, cached, refused and failed, by the hour up to 7 days and by the day beyond", async () => {
    const missing = buildSignedUrl({
      baseUrl: "http://x",
      projectSlug,
      ...keys[1]!,
      operations: "w_35",
      source: "local/no-such-photo.jpg",
    }).slice("http://x".length);
    expect((await app.fetch(missing)).status).toBe(404);
    await app.settled();
    const expected = { served: 4, cached: 1, refused: 2, failed: 1, all: 8 };
    const week = await owner.caller.usage.project({ ...scope(), range: { preset: "7d" } });
    expect(week.outcomes.granularity).toBe("hour");
    expect(week.outcomes.totals).toEqual(expected);
    expect(week.outcomes.totals.all).toBe(week.log.logged); // the same rows as the request statistics
    // Every hour from the range's first to the current one, no later hour.
    const now = new Date();
    const firstHour = Date.parse(`${day(-6)}T00:00:00Z`);
    const currentHour = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
    expect(week.outcomes.buckets).toHaveLength((currentHour - firstHour) / 3_600_000 + 1);
    expect(week.outcomes.buckets[0]!.start).toBe(new Date(firstHour).toISOString());
    const busy = week.outcomes.buckets.filter((b) => b.served + b.cached + b.refused + b.failed > 0);
    expect(busy.map((b) => b.start).every((start) => Date.parse(start) >= currentHour - 3_600_000)).toBe(true);
    const summed = { served: 0, cached: 0, refused: 0, failed: 0 };
    for (const b of week.outcomes.buckets)
      for (const k of Object.keys(summed) as Array<keyof typeof summed>) summed[k] += b[k];
    expect(summed).toEqual({ served: 4, cached: 1, refused: 2, failed: 1 });

    const team = await owner.caller.usage.team({ teamSlug, range: { preset: "30d" } });
    expect(team.outcomes.granularity).toBe("day");
    expect(team.outcomes.buckets).toHaveLength(30);
    expect(team.outcomes.buckets.at(-1)).toEqual({
      start: `${day(0)}T00:00:00.000Z`,
      served: 4,
      cached: 1,
      refused: 2,
      failed: 1,
    });
    expect(team.outcomes.totals).toEqual(expected);

    // A past day of the hourly week: 24 quiet hours. The metered ledger row inserted for it above was never a request.
    const quiet = await owner.caller.usage.project({ ...scope(), range: { from: day(-5), to: day(-5) } });
    expect(quiet.outcomes.granularity).toBe("hour");
    expect(quiet.outcomes.buckets).toHaveLength(24);
    expect(quiet.outcomes.totals).toEqual({ served: 0, cached: 0, refused: 0, failed: 0, all: 0 });
    // A day before it has been folded into one row (stats-compaction.ts): drawn as that day.
    const past = await owner.caller.usage.project({ ...scope(), range: { from: day(-8), to: day(-8) } });
    expect(past.outcomes.granularity).toBe("day");
    expect(past.outcomes.buckets).toHaveLength(1);
  });

  it("filters the request log by source: any case, anywhere in the URL, wildcards taken literally", async () => {
    const log = (source: string) =>
      owner.caller.usage.requestLog({ ...scope(), range: { preset: "7d" }, source, limit: 100 });
    const missing = await log("NO-SUCH");
    expect(missing.rows.map((r) => [r.sourceUrl, r.status, r.httpStatus])).toEqual([
      ["local/no-such-photo.jpg", "source_error", 404],
    ]);
    // The refusals by signature logged no source (an unsigned URL's source is the prober's text).
    expect((await log("local/photo")).rows.map((r) => r.status)).toEqual(Array(5).fill("success"));
    expect((await log("photo.jpg")).rows).toHaveLength(6);
    expect((await log("%")).rows).toEqual([]);
    expect((await log("local_photo")).rows).toEqual([]);
    expect((await log("  ")).rows).toHaveLength(8); // blank: no filter
    await expect(log("x".repeat(2049))).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("at most 2048 characters"),
    });
  });
});

describe("usage as CSV", () => {
  const exportUsage = (query: string, cookie: string | null) =>
    createExportHandler(
      async () => app.services,
      usageExport,
    )(new Request(`http://127.0.0.1/api/export/usage?${query}`, { headers: cookie ? { cookie } : {} }));
  const parse = (text: string) =>
    text
      .split("\r\n")
      .filter(Boolean)
      .map((line) => line.split(","));

  it("agrees exactly with the usage pages: delivered and bytes with the ledger, requests with the statistics", async () => {
    const team = await owner.caller.usage.team({ teamSlug, range: { preset: "30d" } });
    const response = await exportUsage(`team=${teamSlug}&preset=30d`, owner.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="usage-${teamSlug}-${day(-29)}-${day(0)}.csv"`,
    );
    const [header, ...rows] = parse(await response.text());
    expect(header).toEqual([
      "date (UTC)",
      "project",
      "delivered",
      "bytes delivered",
      "requests",
      "served",
      "cached",
      "refused",
      "failed",
      "unique transformations",
    ]);
    const total = (column: number) => rows.reduce((sum, row) => sum + Number(row[column]), 0);
    expect([total(2), total(3)]).toEqual([team.totals.requests, team.totals.bytes]);
    expect([total(4), total(5), total(6), total(7), total(8)]).toEqual([
      team.outcomes.totals.all,
      team.outcomes.totals.served,
      team.outcomes.totals.cached,
      team.outcomes.totals.refused,
      team.outcomes.totals.failed,
    ]);
    // A quiet project has no row; each row's requests are the sum of its outcomes.
    expect(new Set(rows.map((row) => row[1]))).toEqual(new Set([projectSlug]));
    for (const row of rows)
      expect(Number(row[4])).toBe(Number(row[5]) + Number(row[6]) + Number(row[7]) + Number(row[8]));
    // All served today: the day's distinct variants are the 30 days' unique transformations.
    expect(rows.find((row) => row[0] === day(0))?.[9]).toBe(String(team.savings.uniqueTransformations.count));
    expect(rows.map((row) => row[0])).toEqual([...rows.map((row) => row[0]!)].sort());

    // One project, over explicit days: its rows only.
    const one = await exportUsage(`team=${teamSlug}&project=quiet&from=${day(-3)}&to=${day(0)}`, owner.cookie);
    expect(one.status).toBe(200);

    // Before the request statistics' 91 days, the ledger's figures stand and the requests are unknown.
    await app.services.database.db.insert(usageRecord).values({
      projectId: (await owner.caller.project.get(scope())).project.id,
      apiKeyId: keys[0]!.id,
      date: day(-100),
      requests: 3,
      bytes: 300,
    });
    const old = await exportUsage(`team=${teamSlug}&from=${day(-100)}&to=${day(-100)}`, owner.cookie);
    expect(parse(await old.text())[1]).toEqual([day(-100), projectSlug, "3", "300", "", "", "", "", "", ""]);
    expect(one.headers.get("content-disposition")).toContain(`usage-${teamSlug}-quiet-`);
    expect(parse(await one.text())).toHaveLength(1);
  });

  it("is refused to the signed out, a stranger, a member, an unknown project and a range over a year", async () => {
    const query = `team=${teamSlug}&preset=7d`;
    expect((await exportUsage(query, null)).status).toBe(401);
    const stranger = await signUp(app.services, "stranger");
    expect((await exportUsage(query, stranger.cookie)).status).toBe(404);
    const member = await signUp(app.services, "reader");
    const invitation = await owner.caller.team.invite({ teamSlug, email: member.email, role: "member" });
    await member.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
    expect((await exportUsage(query, member.cookie)).status).toBe(403);
    expect((await exportUsage(`team=${teamSlug}&project=nope`, owner.cookie)).status).toBe(404);
    for (const [bad, message] of [
      [`from=${day(-3)}`, "Give both from and to, or neither"],
      [`preset=7d&from=${day(-3)}&to=${day(0)}`, "Give either a preset or from and to, not both"],
      ["from=yesterday&to=today", "Choose a day (YYYY-MM-DD)"],
    ]) {
      const refused = await exportUsage(`team=${teamSlug}&${bad}`, owner.cookie);
      expect(refused.status, bad).toBe(400);
      expect(await refused.json(), bad).toMatchObject({ error: message });
    }
    // A project of another team is not found under this one.
    expect((await exportUsage(`team=${teamSlug}&project=blog`, owner.cookie)).status).toBe(404);
    const long = await exportUsage(`team=${teamSlug}&from=${day(-400)}&to=${day(0)}`, owner.cookie);
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ error: "A range covers at most 366 days" });
  });
});
