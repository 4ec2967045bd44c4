/**
 * npm run bench:fleet — N instances' request logs writing one busy project's statistics into one real
 * PostgreSQL (TEST_DATABASE_URL, or a throwaway PostgreSQL 15 cluster), for N = 1, 4, 16, 32
 * (BENCH_FLEET="1,4"). Each simulated instance is the product's own request log (createRequestLog) on
 * its own connection pool, fed by 32 requests in a closed loop (each records its outcome and waits for
 * the batch that carries it, as a request's after-response work does): all cache hits of one project,
 * ten sources, so every batch adds to the same per-project hour, minute, day and source rows.
 *
 * Reports per N: batch transactions and outcomes a second, the ratio to N × one instance (the issue's
 * target: ≥ 0.8 up to 16), p50/p99 of an outcome's wait for its batch, and lock waits sampled from
 * pg_stat_activity every 20 ms (mean and most backends waiting on a lock at once). Checks that
 * request_stats counts every outcome exactly; exits 1 when it does not.
 * BENCH_SECONDS (default 5) is each run's length; BENCH_IN_FLIGHT (default 32) the requests an instance keeps
 * in flight (200, a full batch, makes each instance write as fast as the database lets it). Results: a table and artifacts/bench-fleet.json.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { eq, sum } from "drizzle-orm";
import postgres from "postgres";
import { createCounters } from "@/server/coordination/counters";
import { createMemoryKeyValue } from "@/server/coordination/memory-key-value";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { requestStats } from "@/server/db/schema";
import type { RequestOutcome } from "@/server/delivery/delivery-types";
import { auditTrail, commandLineActor } from "@/server/audit/trail";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { createRequestLog } from "@/server/usage/request-log";
import { percentile } from "./lib/load";
import { startPostgres } from "./lib/postgres";

const FLEET = (process.env.BENCH_FLEET ?? "1,4,16,32").split(",").map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 32);
const CONNECTIONS_PER_INSTANCE = 2;

interface Row {
  instances: number;
  transactionsPerSecond: number;
  outcomesPerSecond: number;
  /** Outcomes a second ÷ (N × one instance's). */
  scaling: number;
  waitP50Ms: number;
  waitP99Ms: number;
  lockWaitsMean: number;
  lockWaitsMax: number;
  counted: number;
  recorded: number;
}

function outcome(projectId: string, apiKeyId: string, n: number): RequestOutcome {
  return {
    requestId: randomUUID(),
    status: "success",
    httpStatus: 200,
    projectId,
    apiKeyId,
    sourceUrl: `https://images.example/photo-${n % 10}.jpg`,
    operations: "w_640,f_auto",
    variant: `variant-${n % 10}`,
    outputFormat: "webp",
    qualityMode: "fixed",
    sourceBytes: 250_000,
    outputBytes: 40_000,
    sentBytes: 40_000,
    durationMs: 3,
    cache: "hit",
  };
}

/**
 * Transactions committed in the database so far. Read on a connection of its own, after every other
 * connection closed: a backend reports its counts when it ends (or at most once a second).
 */
async function commits(url: string): Promise<number> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  const [row] = await client<Array<{ commits: string }>>`
    select xact_commit::text as commits from pg_stat_database where datname = current_database()`;
  await client.end({ timeout: 5 });
  return Number(row!.commits);
}

async function run(url: string, instances: number, ids: { projectId: string; apiKeyId: string }): Promise<Row> {
  const handles: DatabaseHandle[] = await Promise.all(
    Array.from({ length: instances }, () =>
      openDatabase({ kind: "postgres", url, migrate: false, maxConnections: CONNECTIONS_PER_INSTANCE }),
    ),
  );
  const logs = handles.map((handle) =>
    createRequestLog({
      db: handle.db,
      kv: createMemoryKeyValue(),
      counters: createCounters(),
      logSampled: () => {},
    }),
  );
  const before = await commits(url);
  const [{ counted: countedBefore } = { counted: 0 }] = await handles[0]!.db
    .select({ counted: sum(requestStats.requests).mapWith(Number) })
    .from(requestStats)
    .where(eq(requestStats.projectId, ids.projectId));

  const waits: number[] = [];
  let recorded = 0;
  let sampled = true;
  const sampling = postgres(url, { max: 1, onnotice: () => {} });
  const lockSamples: number[] = [];
  const sampler = (async () => {
    while (sampled) {
      const [row] = await sampling<Array<{ waiting: number }>>`
        select count(*)::int as waiting from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`;
      lockSamples.push(row!.waiting);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  const started = performance.now();
  const until = started + SECONDS * 1000;
  let n = 0;
  await Promise.all(
    logs.flatMap((log) =>
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < until) {
          const asked = performance.now();
          await log.record(outcome(ids.projectId, ids.apiKeyId, n++), new Date());
          waits.push(performance.now() - asked);
          recorded += 1;
        }
      }),
    ),
  );
  const elapsed = (performance.now() - started) / 1000;
  sampled = false;
  await sampler;
  const [{ counted: countedAfter } = { counted: 0 }] = await handles[0]!.db
    .select({ counted: sum(requestStats.requests).mapWith(Number) })
    .from(requestStats)
    .where(eq(requestStats.projectId, ids.projectId));
  await Promise.all(handles.map((handle) => handle.close()));
  await sampling.end({ timeout: 5 });
  const after = await commits(url);
  // The sampler's statements, the two reads of the totals and the first commit count read commit too.
  const transactions = after - before - lockSamples.length - 3;
  return {
    instances,
    transactionsPerSecond: transactions / elapsed,
    outcomesPerSecond: recorded / elapsed,
    scaling: 0,
    waitP50Ms: percentile(waits, 50),
    waitP99Ms: percentile(waits, 99),
    lockWaitsMean: lockSamples.reduce((a, b) => a + b, 0) / Math.max(1, lockSamples.length),
    lockWaitsMax: Math.max(0, ...lockSamples),
    counted: (countedAfter ?? 0) - (countedBefore ?? 0),
    recorded,
  };
}

async function main(): Promise<void> {
  const server = await startPostgres();
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  const name = `optstuff_fleet_${randomBytes(6).toString("hex")}`;
  let failed = false;
  try {
    const [{ server_version: version } = { server_version: "?" }] = await admin<
      Array<{ server_version: string }>
    >`show server_version`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    const setup = await openDatabase({ kind: "postgres", url: url.toString() });
    const { project, key } = await bootstrap(
      {
        db: setup.db,
        secretBox: createSecretBox("bench"),
        audit: auditTrail(commandLineActor, () => new Date()),
        now: () => new Date(),
      },
      { teamSlug: "fleet", projectSlug: "busy", keyName: "key" },
    );
    await setup.close();
    console.log(
      `PostgreSQL ${version} (${server.origin}), Node ${process.versions.node}; ${IN_FLIGHT} requests in flight an instance, ${SECONDS} s a run`,
    );
    const rows: Row[] = [];
    for (const instances of FLEET) {
      const row = await run(url.toString(), instances, { projectId: project.id, apiKeyId: key.id });
      row.scaling = row.outcomesPerSecond / (instances * (rows[0]?.outcomesPerSecond ?? row.outcomesPerSecond));
      rows.push(row);
      if (row.counted !== row.recorded) failed = true;
      console.log(`N=${instances}: ${Math.round(row.outcomesPerSecond)} outcomes/s`);
    }
    const f = (x: number, d = 0) => x.toFixed(d);
    console.log(
      "\n| instances | transactions/s | outcomes/s | ÷ (N × one) | wait p50 / p99 ms | lock waits mean / max | counted exactly |",
    );
    console.log("|---|---|---|---|---|---|---|");
    for (const r of rows)
      console.log(
        `| ${r.instances} | ${f(r.transactionsPerSecond)} | ${f(r.outcomesPerSecond)} | ${f(r.scaling, 2)} | ${f(r.waitP50Ms, 1)} / ${f(r.waitP99Ms, 1)} | ${f(r.lockWaitsMean, 1)} / ${r.lockWaitsMax} | ${r.counted === r.recorded ? "yes" : `no: ${r.counted} of ${r.recorded}`} |`,
      );
    const worst = rows.filter((r) => r.instances <= 16).reduce((a, b) => (b.scaling < a.scaling ? b : a));
    console.log(`\nworst scaling up to 16 instances: ${f(worst.scaling, 2)} at N=${worst.instances} (target ≥ 0.80)`);
    mkdirSync("artifacts", { recursive: true });
    writeFileSync("artifacts/bench-fleet.json", JSON.stringify({ version, seconds: SECONDS, rows }, null, 2));
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end({ timeout: 5 });
    await server.stop();
  }
  if (failed) {
    console.error("request_stats did not count every outcome exactly");
    process.exit(1);
  }
}

await main();
