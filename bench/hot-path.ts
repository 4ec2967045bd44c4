import { signUrl } from "@optstuff/client";
/**
 * npm run bench:hot-path — what authentication and limits add to a request, measured in process so
 * HTTP and Next do not blur it: a 1-pixel transform through the full route (parse, key and project
 * config, signature, referer and source policy, minute and day windows on real Redis) against the same
 * transform produced directly (no auth, no limits). Redis is a real redis-server behind the project's
 * Upstash-compatible endpoint on loopback; round trips are counted there per request, warm and cold,
 * and every command a request costs, after-response work included, one and eight at a time.
 * Results: a table on stdout and artifacts/bench-hot-path.json.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createImageRouteHandler } from "@/server/http/image-route";
import { parseOperations } from "@/server/image";
import { parseSource } from "@/server/source";
import { startRealRedis } from "../tests/support/redis";
import { benchProject, inProcessServices, sourceRootWithDot } from "./lib/in-process";
import { percentile } from "./lib/load";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const BASE = "http://optstuff.bench";

type Latency = { p50: number; p95: number; p99: number };

/** One configuration: coordination on real Redis (through the endpoint) or in process. */
async function measure(root: string, withRedis: boolean) {
  const redis = withRedis ? await startRealRedis() : null;
  const services = await inProcessServices(root, {
    // Measures authentication and limits; a 1×1 PNG's transform is the same wherever it runs.
    OPTSTUFF_RESULT_CACHE_BYTES: "0", // every request transforms: the work under comparison is identical
    UPSTASH_REDIS_REST_URL: redis?.settings.url,
    UPSTASH_REDIS_REST_TOKEN: redis?.settings.token,
  });
  const { project, key } = await benchProject(services, "hot");
  await services.coordination.limiter.warmUp();
  const handler = createImageRouteHandler(async () => services);
  const skip = () => {}; // after-response work is not the hot path
  const operations = "w_1,f_png";
  const url = new URL(
    await signUrl({ baseUrl: BASE, projectSlug: project.slug, ...key, operations, source: "local/dot.png" }),
  );
  const full = async () => {
    const response = await handler.web(new Request(url), skip);
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    await response.arrayBuffer();
  };
  const parsedOperations = parseOperations(operations);
  const location = parseSource("local/dot.png");
  const direct = async () => {
    await services.delivery.route.produce({
      key: "bench",
      sourceKey: "bench",
      tenant: "bench",
      team: "bench",
      location,
      operations: parsedOperations,
      accept: null,
    });
  };

  const time = async (task: () => Promise<void>): Promise<Latency> => {
    const latencies: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      await task();
      latencies.push(performance.now() - t0);
    }
    return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99) };
  };
  for (let i = 0; i < 200; i++) await Promise.all([full(), direct()]); // JIT, script cache, L1

  // Interleaved rounds so drift on this shared machine hits both sides alike.
  const rounds = { full: [] as Latency[], direct: [] as Latency[] };
  for (let round = 0; round < 3; round++) {
    rounds.direct.push(await time(direct));
    rounds.full.push(await time(full));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const summary = (runs: Latency[]) => ({
    p50: median(runs.map((r) => r.p50)),
    p95: median(runs.map((r) => r.p95)),
    p99: median(runs.map((r) => r.p99)),
  });
  const result = { full: summary(rounds.full), direct: summary(rounds.direct) };

  const tripsPer = async (label: string, before: () => Promise<void>) => {
    let trips = 0;
    for (let i = 0; i < 50; i++) {
      await before();
      redis!.endpoint.resetStats();
      await full();
      trips += redis!.endpoint.stats().requests;
    }
    return { label, roundTrips: trips / 50 };
  };
  // Every command a request costs the shared Redis, its after-response work included (request log,
  // usage, activity): requests in flight together share the usage window's one write.
  const commandsPer = async (concurrency: number) => {
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    const send = async () => {
      const response = await handler.web(new Request(url), (task) => task());
      await response.arrayBuffer();
    };
    await settle();
    redis!.endpoint.resetStats();
    const requests = 64;
    for (let i = 0; i < requests; i += concurrency) await Promise.all(Array.from({ length: concurrency }, send));
    await settle();
    const stats = redis!.endpoint.stats();
    return { concurrency, commands: stats.commands / requests, byCommand: stats.byCommand };
  };
  const commands = redis ? [await commandsPer(1), await commandsPer(8)] : [];
  const trips = redis
    ? [
        await tripsPer("warm (L1 holds key and project)", async () => {}),
        await tripsPer("cold (L1 and Redis emptied)", async () => {
          await services.invalidate.project(project.id, [key.publicKey]);
        }),
      ]
    : [];
  await services.close();
  await redis?.stop();
  return {
    coordination: withRedis ? "redis-server via the endpoint" : "in process",
    ...result,
    overhead: { p50: result.full.p50 - result.direct.p50, p95: result.full.p95 - result.direct.p95 },
    roundTrips: trips,
    commands,
  };
}

async function main(): Promise<void> {
  const root = await sourceRootWithDot(1, "#f00", 4);
  const runs = [await measure(root, true), await measure(root, false)];
  rmSync(root, { recursive: true, force: true });

  console.log(
    `${REQUESTS} sequential requests per round, 3 rounds interleaved, medians of the rounds; 1x1 PNG → w_1 PNG, result cache off\n`,
  );
  console.log(
    "| coordination | full route p50 / p95 ms | transform only p50 / p95 ms | auth + limits overhead p50 / p95 ms |\n|---|---|---|---|",
  );
  for (const r of runs) {
    const cells = [r.full, r.direct, r.overhead].map((l) => `${l.p50.toFixed(3)} / ${l.p95.toFixed(3)}`);
    console.log(`| ${r.coordination} | ${cells.join(" | ")} |`);
  }
  for (const r of runs)
    console.log(
      `target ≤ 1 ms at p50 (${r.coordination}): ${r.overhead.p50 <= 1 ? "met" : "NOT met"} (${r.overhead.p50.toFixed(3)} ms)`,
    );
  for (const t of runs[0]!.roundTrips)
    console.log(`blocking Redis round trips per request, ${t.label}: ${t.roundTrips.toFixed(2)}`);
  for (const c of runs[0]!.commands)
    console.log(
      `Redis commands per request, after-response work included, ${c.concurrency} at a time: ${c.commands.toFixed(2)} ${JSON.stringify(c.byCommand)}`,
    );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-hot-path.json", JSON.stringify({ requests: REQUESTS, runs }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
