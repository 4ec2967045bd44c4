import { signUrl } from "@optstuff/client";
/**
 * npm run bench:usage-page — what a busy project's usage page costs the other tenants. One project gets
 * a day of traffic at one address's cap (BENCH_PER_MINUTE cache hits a minute, 1,200 by default: 1.7 M
 * a day) through the real request log, then its usage page (statistics, per-day totals, first log page)
 * is read in a loop while another tenant's cached image is requested. The embedded database runs as the
 * embedded default runs it, in its own process behind a Unix socket (BENCH_EMBEDDED=in-process: PGlite
 * on the thread that serves both, as before). Reported: the other tenant's latency
 * with and without the page loop, the page's own time, and the rows the day left behind.
 * Results: a table on stdout and artifacts/bench-usage-page.json.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { count, eq } from "drizzle-orm";
import { resolveDateRange } from "@/server/analytics/date-range";
import { requestLogPage } from "@/server/analytics/request-log-page";
import { requestLogStats } from "@/server/analytics/request-log-stats";
import { projectUsage } from "@/server/analytics/usage-totals";
import { requestLog, requestSourceStats, requestStats } from "@/server/db/schema";
import { createImageRouteHandler } from "@/server/http/image-route";
import { benchProject, inProcessServices, sourceRootWithDot } from "./lib/in-process";
import { fmt, percentile } from "./lib/load";

const PER_MINUTE = Number(process.env.BENCH_PER_MINUTE ?? 1200);
const MINUTES = Number(process.env.BENCH_MINUTES ?? 1440);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BASE = "http://optstuff.bench";
const PACE_MS = 5;

async function main(): Promise<void> {
  const root = await sourceRootWithDot(8, "#0a0");
  // The embedded database as the server runs it (in a process of its own), or in this one.
  const services =
    process.env.BENCH_EMBEDDED === "in-process"
      ? await inProcessServices(root)
      : await inProcessServices(root, { OPTSTUFF_DATA_DIR: path.join(root, "data") }, "settings");
  const busy = await benchProject(services, "busy");
  const other = await benchProject(services, "other");

  // A day of cache hits at the cap, recorded as the route records them (after the response).
  const seedStarted = performance.now();
  const dayStart = Date.now() - MINUTES * 60_000;
  for (let minute = 0; minute < MINUTES; minute++) {
    const written: Promise<void>[] = [];
    for (let i = 0; i < PER_MINUTE; i++)
      written.push(
        services.usage.requestLog.record(
          {
            requestId: `seed-${minute}-${i}`,
            status: "success",
            httpStatus: 200,
            projectId: busy.project.id,
            apiKeyId: busy.key.id,
            sourceUrl: `local/photo-${i % 20}.jpg`,
            operations: "w_400",
            outputFormat: "webp",
            outputBytes: 20_000,
            cache: "hit",
            durationMs: 1 + (i % 7),
          },
          new Date(dayStart + minute * 60_000 + Math.floor((i * 60_000) / PER_MINUTE)),
        ),
      );
    await Promise.all(written);
    if (minute % 60 === 0) console.error(`seeding: minute ${minute} of ${MINUTES}`);
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.error(`seeded in ${fmt(seedSeconds)} s`);
  const db = services.database.db;
  const rows = async (table: typeof requestLog | typeof requestStats | typeof requestSourceStats) =>
    (await db.select({ n: count() }).from(table).where(eq(table.projectId, busy.project.id)))[0]!.n;
  const left = {
    requestLog: await rows(requestLog),
    requestStats: await rows(requestStats),
    sources: await rows(requestSourceStats),
  };

  const handler = createImageRouteHandler(async () => services);
  const url = new URL(
    await signUrl({
      baseUrl: BASE,
      projectSlug: other.project.slug,
      ...other.key,
      operations: "w_4,f_png",
      source: "local/dot.png",
    }),
  );
  const hit = async () => {
    const response = await handler.web(new Request(url), () => {});
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.arrayBuffer();
  };
  for (let i = 0; i < 200; i++) await hit(); // cached from the first, warm

  const range = resolveDateRange({ preset: "7d" }, new Date());
  const parts = {
    statistics: () => requestLogStats(db, busy.project.id, range),
    dailyTotals: () => projectUsage(db, busy.project.id, range),
    logPage: () => requestLogPage(db, busy.project.id, range, { limit: 25 }),
  };
  const partTimes: Record<string, number> = {};
  for (const [name, run] of Object.entries(parts)) {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    partTimes[name] = percentile(times, 50);
  }
  const page = () => Promise.all(Object.values(parts).map((run) => run()));
  /**
   * Visitors arrive on a clock (every PACE_MS) whether or not the thread is free: each latency runs
   * from the arrival the clock planned, so a request held behind a blocked thread counts the wait.
   */
  const hitsFor = async (seconds: number) => {
    const latencies: number[] = [];
    const start = performance.now();
    for (let i = 0; i * PACE_MS < seconds * 1000; i++) {
      const planned = start + i * PACE_MS;
      const wait = planned - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await hit();
      latencies.push(performance.now() - planned);
    }
    return latencies;
  };
  const alone = await hitsFor(SECONDS);
  let reading = true;
  const pageTimes: number[] = [];
  const reader = (async () => {
    while (reading) {
      const t0 = performance.now();
      await page();
      pageTimes.push(performance.now() - t0);
      // PGlite answers from memory without a macrotask: yield as separate dashboard requests would.
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const beside = await hitsFor(SECONDS);
  reading = false;
  await reader;
  await services.close();
  rmSync(root, { recursive: true, force: true });

  const summary = (latencies: number[]) => ({
    requests: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
  });
  const result = {
    seeded: { perMinute: PER_MINUTE, minutes: MINUTES, requests: PER_MINUTE * MINUTES, seconds: seedSeconds },
    rowsLeft: left,
    otherTenant: { alone: summary(alone), besideUsagePage: summary(beside) },
    usagePage: {
      reads: pageTimes.length,
      p50: percentile(pageTimes, 50),
      max: Math.max(...pageTimes),
      partsP50: partTimes,
    },
  };
  console.log(
    `A day at one address's cap: ${result.seeded.requests.toLocaleString("en")} cache hits (${PER_MINUTE}/min × ${MINUTES} min) recorded in ${fmt(seedSeconds)} s`,
  );
  console.log(
    `rows left: request_log ${left.requestLog.toLocaleString("en")}, request_stats ${left.requestStats.toLocaleString("en")}, request_source_stats ${left.sources.toLocaleString("en")}\n`,
  );
  console.log(
    "| another tenant's cached image, one every 5 ms | requests | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|",
  );
  for (const [label, s] of [
    ["alone", result.otherTenant.alone],
    ["while the busy project's usage page is read in a loop", result.otherTenant.besideUsagePage],
  ] as const)
    console.log(`| ${label} | ${s.requests} | ${fmt(s.p50, 2)} | ${fmt(s.p99, 2)} | ${fmt(s.max, 2)} |`);
  console.log(
    `\nusage page (statistics + daily totals + first log page): ${pageTimes.length} reads, p50 ${fmt(result.usagePage.p50)} ms, max ${fmt(result.usagePage.max)} ms`,
  );
  console.log(
    `  alone, p50 of 10: statistics ${fmt(partTimes.statistics!)} ms, daily totals ${fmt(partTimes.dailyTotals!)} ms, first log page ${fmt(partTimes.logPage!)} ms`,
  );
  const p99 = result.otherTenant.besideUsagePage.p99;
  console.log(
    `target: other tenant's p99 ≤ 50 ms beside the page: ${p99 <= 50 ? "met" : "NOT met"} (${fmt(p99, 2)} ms)`,
  );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-usage-page.json", JSON.stringify(result, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
