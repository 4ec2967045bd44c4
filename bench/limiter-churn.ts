import { signUrl } from "@optstuff/client";
/**
 * npm run bench:limiter-churn — the in-process limiter under address churn, through the full route in
 * process (embedded default: in-process coordination). A key spends its day of transforms; then
 * BENCH_ADDRESSES cache hits (101,000 by default: past the 100,000 address windows kept) arrive from as
 * many IPv6 /64s. Reported: memory before and after (RSS and heap, after a GC), the address windows
 * held, and whether the spent day window still refuses a new variant (it must).
 * Results: a table on stdout and artifacts/bench-limiter-churn.json.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createImageRouteHandler } from "@/server/http/image-route";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import { benchProject, inProcessServices, sourceRootWithDot } from "./lib/in-process";
import { fmt } from "./lib/load";

const ADDRESSES = Number(process.env.BENCH_ADDRESSES ?? 101_000);
const DAY_LIMIT = 40;
const BASE = "http://optstuff.bench";

const mb = (bytes: number) => bytes / 1024 / 1024;
function memory() {
  globalThis.gc?.();
  const usage = process.memoryUsage();
  return { rssMb: mb(usage.rss), heapMb: mb(usage.heapUsed) };
}

async function main(): Promise<void> {
  const root = await sourceRootWithDot(8, "#00f");
  const services = await inProcessServices(root, { OPTSTUFF_AUTH_FAILURES_PER_MINUTE: "60" });
  const { project, key } = await benchProject(services, "churn", { perMinute: DAY_LIMIT, perDay: DAY_LIMIT });
  const handler = createImageRouteHandler(async () => services);
  const sign = (operations: string) =>
    signUrl({ baseUrl: BASE, projectSlug: project.slug, ...key, operations, source: "local/dot.png" });
  const from = (i: number) => `2001:db8:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}::1`;
  const get = async (url: string, address: string) => {
    const response = await handler.web(new Request(url, { headers: { [PEER_ADDRESS_HEADER]: address } }), () => {});
    await response.arrayBuffer();
    return response.status;
  };

  // The key's day: DAY_LIMIT variants made (one address each, so no address window refuses).
  for (let i = 0; i < DAY_LIMIT; i++)
    if ((await get(await sign(`w_${i + 1}`), from(1_000_000 + i))) !== 200) throw new Error("seed");
  const refusedBefore = await get(await sign("w_99"), from(2_000_000));
  const before = memory();

  const hit = await sign("w_1");
  const started = performance.now();
  for (let i = 0; i < ADDRESSES; i++) await get(hit, from(i));
  const seconds = (performance.now() - started) / 1000;
  const after = memory();
  const refusedAfter = await get(await sign("w_98"), from(2_000_001));
  const held = (services.coordination.limiter as unknown as { size?: () => unknown }).size?.() ?? null;
  await services.close();
  rmSync(root, { recursive: true, force: true });

  const result = { addresses: ADDRESSES, seconds, before, after, held, refusedBefore, refusedAfter };
  console.log(
    `${ADDRESSES.toLocaleString("en")} cache hits from as many IPv6 /64s in ${fmt(seconds)} s (in process)\n`,
  );
  console.log("| | RSS MB | heap MB |\n|---|---|---|");
  console.log(`| after the key's day was spent | ${fmt(before.rssMb)} | ${fmt(before.heapMb)} |`);
  console.log(`| after the churn | ${fmt(after.rssMb)} | ${fmt(after.heapMb)} |`);
  console.log(`\nwindows held: ${JSON.stringify(held)}`);
  console.log(
    `a new variant of the spent key: ${refusedBefore} before the churn, ${refusedAfter} after (429 expected both times)`,
  );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-limiter-churn.json", JSON.stringify(result, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
