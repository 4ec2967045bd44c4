/**
 * npm run bench:flush — one usage flush at scale: 1,000,000 increments over 1,000 API keys and the 1,440
 * minute buckets of one past UTC day, buffered in a real redis-server and moved by one flushUsageBuffer
 * run, through the Upstash-compatible endpoint, into real PostgreSQL (TEST_DATABASE_URL, or a throwaway
 * cluster). Measures wall time, rows and increments per second, SQL statements and Redis round trips,
 * and checks every key's totals to the unit. Two smaller runs follow on the same buckets: a tenth of the
 * increments over 100 keys (a tenth of the rows: statements should not move), then the same with 50
 * buckets per batch (statements should grow with the batches).
 * Results: a table on stdout and artifacts/bench-flush.json; exits 1 when a total is off.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { count, sql, sum } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { Redis as IORedis, type ChainableCommander } from "ioredis";
import postgres from "postgres";
import { keySpecs, redisKeys, TTL_SECONDS } from "@/server/coordination/keys";
import type { KeyValue } from "@/server/coordination/types";
import { createUpstashClient } from "@/server/coordination/upstash-client";
import { createUpstashKeyValue } from "@/server/coordination/upstash-key-value";
import { openDatabase, type Database } from "@/server/db/client";
import * as schema from "@/server/db/schema";
import { createSecretBox } from "@/server/signing";
import { bootstrap } from "@/server/tenancy/bootstrap";
import { insertApiKey } from "@/server/tenancy/create-api-key";
import { usageFields } from "@/server/usage/buffer-usage";
import {
  defaultFlushOptions,
  flushUsageBuffer,
  type FlushOptions,
  type FlushReport,
} from "@/server/usage/flush-usage-buffer";
import { startRedisServer } from "../tools/redis-rest/redis-process";
import { createRedisRestServer, type RedisRestServer, type RedisRestStats } from "../tools/redis-rest/server";
import { startPostgres } from "./lib/postgres";
import { auditTrail, commandLineActor } from "@/server/audit/trail";

const MINUTES = 1_440;
const PROJECTS = 10;
const KEYS_PER_PROJECT = 100;
const TARGET_MS = 30_000;
const SEED = 20_261_121;

interface Scenario {
  label: string;
  increments: number;
  keys: number;
  options: FlushOptions;
}

const SCENARIOS: Scenario[] = [
  { label: "full", increments: 1_000_000, keys: 1_000, options: defaultFlushOptions },
  { label: "tenth, 100 keys", increments: 100_000, keys: 100, options: defaultFlushOptions },
  {
    label: "tenth, 100 keys, 50 buckets/batch",
    increments: 100_000,
    keys: 100,
    options: { ...defaultFlushOptions, bucketsPerBatch: 50 },
  },
];

interface BenchKey {
  projectId: string;
  apiKeyId: string;
}

type Tally = Map<string, { requests: number; bytes: number }>;

interface Bench {
  db: Database;
  databaseUrl: string;
  redis: IORedis;
  endpoint: RedisRestServer;
  token: string;
  keys: BenchKey[];
  /** 00:00 UTC of the day the increments fall on: two days back, so every bucket is past the safety lag. */
  dayStart: number;
}

interface Result {
  label: string;
  increments: number;
  keys: number;
  buckets: number;
  bucketsPerBatch: number;
  wallMs: number;
  /** Upserted rows summed over the batches (one per key and date per batch), as FlushReport.rows. */
  rowsUpserted: number;
  /** usage_record rows afterwards: one per key and date. */
  rowsInTable: number;
  rowsPerSecond: number;
  incrementsPerSecond: number;
  transactions: number;
  statements: { total: number; perTransaction: number; logged: number; wire: number; byKind: Record<string, number> };
  redis: {
    roundTrips: number;
    commands: number;
    byKind: RedisRestStats["byKind"];
    byCommand: Record<string, number>;
    serverCpuMs: number;
  };
  /** Bodies between the flush and the endpoint: Upstash refuses requests over 10 MB, and every reply is held in memory whole. */
  http: { requestBytes: number; responseBytes: number; largestResponseBytes: number };
  /** Time inside the KeyValue calls; the rest is transactions and aggregation. */
  splitMs: { scan: number; claim: number; release: number; rest: number };
  /** CPU of this process, which also runs the Upstash-compatible endpoint. */
  cpuMs: number;
  report: FlushReport;
  problems: string[];
}

/** mulberry32: the same seed buffers the same increments on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

async function seedKeys(db: Database): Promise<BenchKey[]> {
  const secretBox = createSecretBox("bench");
  const byProject: BenchKey[][] = [];
  for (let p = 0; p < PROJECTS; p++) {
    const { project, key } = await bootstrap(
      { db, secretBox, audit: auditTrail(commandLineActor, () => new Date()), now: () => new Date() },
      { teamSlug: "bench", projectSlug: `project-${p}`, keyName: "key-0" },
    );
    // Past the dashboard's 50 active keys a project (tenancy/quotas.ts): the insert alone, as a fixture.
    const more = await Promise.all(
      Array.from({ length: KEYS_PER_PROJECT - 1 }, (_, k) =>
        insertApiKey({ db, secretBox }, { projectId: project.id, name: `key-${k + 1}` }, new Date()),
      ),
    );
    byProject.push([key, ...more].map(({ id }) => ({ projectId: project.id, apiKeyId: id })));
  }
  // Round robin, so the first 100 keys still span every project.
  return Array.from({ length: KEYS_PER_PROJECT }, (_, k) => byProject.map((keys) => keys[k]!)).flat();
}

async function execAll(pipeline: ChainableCommander): Promise<void> {
  const failed = (await pipeline.exec())?.find(([error]) => error);
  if (failed) throw failed[0];
}

/**
 * Writes the increments straight into redis-server (setup is not measured), one HINCRBY per field
 * usageFields gives, into the bucket redisKeys builds: the request path's format, not a copy of it.
 */
async function bufferIncrements(bench: Bench, keys: readonly BenchKey[], increments: number): Promise<Tally> {
  const random = seeded(SEED);
  const buckets = Array.from({ length: MINUTES }, (_, m) =>
    redisKeys.usageBucket(new Date(bench.dayStart + m * 60_000)),
  );
  const tally: Tally = new Map(keys.map((key) => [key.apiKeyId, { requests: 0, bytes: 0 }]));
  let pipeline = bench.redis.pipeline();
  for (let i = 1; i <= increments; i++) {
    const key = keys[Math.floor(random() * keys.length)]!;
    const bucket = buckets[Math.floor(random() * MINUTES)]!;
    // One in ten a 304 or HEAD (no body), the rest 2 KB to 400 KB.
    const bytes = random() < 0.1 ? 0 : 2_000 + Math.floor(random() * 398_000);
    for (const [field, by] of Object.entries(usageFields({ ...key, requests: 1, bytes, transforms: 0 })))
      pipeline.hincrby(bucket, field, by);
    const kept = tally.get(key.apiKeyId)!;
    kept.requests += 1;
    kept.bytes += bytes;
    if (i % 10_000 === 0) {
      await execAll(pipeline);
      pipeline = bench.redis.pipeline();
    }
  }
  for (const bucket of buckets) pipeline.expire(bucket, TTL_SECONDS.usageBucket);
  await execAll(pipeline);
  return tally;
}

/** `select`, `insert`… and the table, e.g. `insert usage_record`; BEGIN and COMMIT alone. */
function statementKind(query: string): string {
  const verb = query.trimStart().split(/\s/, 1)[0]!.toLowerCase();
  const table = /\b(?:from|into|update)\s+"([^"]+)"/i.exec(query)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/**
 * The flush's own database client, configured like openDatabase's, counting twice: what drizzle issues
 * (its logger, blind to BEGIN and COMMIT, which postgres.js sends itself) and what postgres.js puts on
 * the wire (its debug hook, which sees those too). The two must differ by exactly two per transaction.
 */
function countingDatabase(url: string) {
  const counts = { logged: 0, wire: 0, byKind: {} as Record<string, number> };
  const client = postgres(url, {
    max: 10,
    onnotice: () => {},
    connect_timeout: 10,
    idle_timeout: 30,
    debug: (_connection, query) => {
      counts.wire++;
      const kind = statementKind(query);
      counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
    },
  });
  const db = drizzle(client, { schema, logger: { logQuery: () => void counts.logged++ } }) as unknown as Database;
  return {
    db,
    counts,
    /** Opens the connection (and its type lookup) before counting starts. */
    async warm() {
      await client`select 1`;
      Object.assign(counts, { logged: 0, wire: 0, byKind: {} });
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/** The same KeyValue, adding the time spent in each call the flush makes to Redis. */
function timed(kv: KeyValue, spent: Result["splitMs"]): KeyValue {
  const time =
    <A extends unknown[], R>(phase: "scan" | "claim" | "release", call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const started = performance.now();
      try {
        return await call(...args);
      } finally {
        spent[phase] += performance.now() - started;
      }
    };
  return {
    ...kv,
    scan: time("scan", kv.scan),
    claimHashes: time("claim", kv.claimHashes),
    releaseClaims: time("release", kv.releaseClaims),
  };
}

/** redis-server's own CPU so far (INFO cpu), to tell its Lua work from the endpoint's and the client's. */
async function redisCpuMs(redis: IORedis): Promise<number> {
  const info = await redis.info("cpu");
  const seconds = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? NaN);
  return (seconds("used_cpu_user") + seconds("used_cpu_sys")) * 1000;
}

/** Counts the bytes of every HTTP exchange made through the global fetch (what @upstash/redis uses) until restored. */
function measureHttp(): { totals: Result["http"]; restore(): void } {
  const totals = { requestBytes: 0, responseBytes: 0, largestResponseBytes: 0 };
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    if (typeof init?.body === "string") totals.requestBytes += Buffer.byteLength(init.body);
    const response = await original(input, init);
    // The endpoint always sends Content-Length, so the body need not be read twice.
    const length = Number(response.headers.get("content-length") ?? 0);
    totals.responseBytes += length;
    totals.largestResponseBytes = Math.max(totals.largestResponseBytes, length);
    return response;
  };
  return { totals, restore: () => void (globalThis.fetch = original) };
}

async function scanAll(redis: IORedis, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, page] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 1_000);
    cursor = next;
    keys.push(...page);
  } while (cursor !== "0");
  return keys;
}

/** Everything that must hold after the flush, as a list of what does not. */
async function verify(
  bench: Bench,
  keys: readonly BenchKey[],
  tally: Tally,
  report: FlushReport,
): Promise<{ problems: string[]; rowsInTable: number }> {
  const problems: string[] = [];
  const total = [...tally.values()].reduce(
    (a, t) => ({ requests: a.requests + t.requests, bytes: a.bytes + t.bytes }),
    { requests: 0, bytes: 0 },
  );
  const expectedReport = {
    outcome: "flushed",
    scanned: MINUTES,
    applied: MINUTES,
    alreadyApplied: 0,
    empty: 0,
    skippedRecent: 0,
    ...total,
    droppedRequests: 0,
  };
  const actualReport = {
    outcome: report.outcome,
    ...report.buckets,
    requests: report.requests,
    bytes: report.bytes,
    droppedRequests: report.droppedRequests,
  };
  for (const [field, expected] of Object.entries(expectedReport)) {
    const actual = actualReport[field as keyof typeof actualReport];
    if (actual !== expected) problems.push(`report ${field}: ${actual}, expected ${expected}`);
  }

  const day = new Date(bench.dayStart).toISOString().slice(0, 10);
  const projectOf = new Map(keys.map((key) => [key.apiKeyId, key.projectId]));
  const recorded: Tally = new Map();
  const record = schema.usageRecord;
  const rows = await bench.db
    .select({
      projectId: record.projectId,
      apiKeyId: record.apiKeyId,
      date: record.date,
      requests: record.requests,
      bytes: record.bytes,
    })
    .from(record);
  for (const row of rows) {
    if (projectOf.get(row.apiKeyId) !== row.projectId || row.date !== day)
      problems.push(`unexpected usage_record row ${row.apiKeyId} ${row.projectId} ${row.date}`);
    const before = recorded.get(row.apiKeyId) ?? { requests: 0, bytes: 0 };
    recorded.set(row.apiKeyId, { requests: before.requests + row.requests, bytes: before.bytes + row.bytes });
  }
  for (const [apiKeyId, expected] of tally) {
    const actual = recorded.get(apiKeyId) ?? { requests: 0, bytes: 0 };
    if (actual.requests !== expected.requests || actual.bytes !== expected.bytes) {
      problems.push(
        `key ${apiKeyId}: ${actual.requests} requests / ${actual.bytes} bytes recorded, ${expected.requests} / ${expected.bytes} buffered`,
      );
    }
  }
  const keysUsed = [...tally.values()].filter((t) => t.requests > 0).length;
  if (rows.length !== keysUsed)
    problems.push(`usage_record has ${rows.length} rows, expected one per key used (${keysUsed})`);

  const [ledger] = await bench.db
    .select({ rows: count(), requests: sum(schema.usageFlushLedger.requests) })
    .from(schema.usageFlushLedger);
  if (ledger?.rows !== MINUTES) problems.push(`ledger has ${ledger?.rows} rows, expected ${MINUTES}`);
  if (Number(ledger?.requests) !== total.requests)
    problems.push(`ledger counts ${ledger?.requests} requests, expected ${total.requests}`);

  const left = await scanAll(bench.redis, `${keySpecs.usageBucket.prefix}*`);
  if (left.length > 0) problems.push(`${left.length} bucket keys left in Redis, e.g. ${left[0]}`);
  if (await bench.redis.exists(redisKeys.usageFlushLock())) problems.push("the flush lock is still held");
  return {
    problems: problems.length > 10 ? [...problems.slice(0, 10), `… and ${problems.length - 10} more`] : problems,
    rowsInTable: rows.length,
  };
}

async function runScenario(bench: Bench, scenario: Scenario): Promise<Result> {
  const keys = bench.keys.slice(0, scenario.keys);
  await bench.db.execute(sql`truncate ${schema.usageRecord}, ${schema.usageFlushLedger}`);
  const tally = await bufferIncrements(bench, keys, scenario.increments);
  const database = countingDatabase(bench.databaseUrl);
  try {
    await database.warm();
    const splitMs = { scan: 0, claim: 0, release: 0, rest: 0 };
    const kv = timed(
      createUpstashKeyValue(createUpstashClient({ url: bench.endpoint.url, token: bench.token })),
      splitMs,
    );
    bench.endpoint.resetStats();
    const redisCpu = await redisCpuMs(bench.redis);
    const http = measureHttp();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report = await flushUsageBuffer({ kv, db: database.db, now: () => new Date() }, scenario.options).finally(
      http.restore,
    );
    const wallMs = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    const stats = bench.endpoint.stats();
    const serverCpuMs = (await redisCpuMs(bench.redis)) - redisCpu;
    const counts = structuredClone(database.counts);
    splitMs.rest = wallMs - splitMs.scan - splitMs.claim - splitMs.release;

    const { problems, rowsInTable } = await verify(bench, keys, tally, report);
    const total = counts.logged + 2 * report.batches;
    if (counts.wire !== total)
      problems.push(
        `postgres.js sent ${counts.wire} statements, drizzle logged ${counts.logged} + BEGIN/COMMIT ${2 * report.batches}`,
      );
    return {
      label: scenario.label,
      increments: scenario.increments,
      keys: scenario.keys,
      buckets: report.buckets.scanned,
      bucketsPerBatch: scenario.options.bucketsPerBatch,
      wallMs,
      rowsUpserted: report.rows,
      rowsInTable,
      rowsPerSecond: report.rows / (wallMs / 1000),
      incrementsPerSecond: scenario.increments / (wallMs / 1000),
      transactions: report.batches,
      statements: {
        total,
        perTransaction: total / report.batches,
        logged: counts.logged,
        wire: counts.wire,
        byKind: counts.byKind,
      },
      redis: {
        roundTrips: stats.requests,
        commands: stats.commands,
        byKind: stats.byKind,
        byCommand: stats.byCommand,
        serverCpuMs,
      },
      http: http.totals,
      splitMs,
      cpuMs: (user + system) / 1000,
      report,
      problems,
    };
  } finally {
    await database.close();
  }
}

function print(results: Result[]): void {
  const n = (value: number, digits = 0) =>
    value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
  console.log(
    "\n| run | increments | keys | buckets | buckets/batch | wall s | rows upserted (in table) | rows/s | increments/s | SQL statements | transactions | Redis round trips |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const cells = [
      n(r.increments),
      n(r.keys),
      n(r.buckets),
      n(r.bucketsPerBatch),
      n(r.wallMs / 1000, 2),
      `${n(r.rowsUpserted)} (${n(r.rowsInTable)})`,
    ];
    cells.push(
      n(r.rowsPerSecond),
      n(r.incrementsPerSecond),
      n(r.statements.total),
      n(r.transactions),
      n(r.redis.roundTrips),
    );
    console.log(`| ${r.label} | ${cells.join(" | ")} |`);
  }
  for (const r of results) {
    const kinds = Object.entries(r.statements.byKind)
      .map(([kind, times]) => `${kind} ${times}`)
      .join(", ");
    const commands = Object.entries(r.redis.byCommand)
      .map(([name, times]) => `${name} ${times}`)
      .join(", ");
    const split = Object.entries(r.splitMs)
      .map(([phase, ms]) => `${phase} ${n(ms)}`)
      .join(", ");
    console.log(`\n${r.label}:`);
    console.log(`  SQL ${n(r.statements.perTransaction, 1)} per transaction: ${kinds}`);
    const mb = (bytes: number) => `${n(bytes / 1e6, 1)} MB`;
    console.log(`  Redis ${n(r.redis.commands)} commands in ${n(r.redis.roundTrips)} round trips: ${commands}`);
    console.log(
      `  HTTP ${mb(r.http.requestBytes)} sent, ${mb(r.http.responseBytes)} received, largest reply ${mb(r.http.largestResponseBytes)}`,
    );
    console.log(
      `  ms in ${split}; CPU ms: this process (flush + endpoint) ${n(r.cpuMs)}, redis-server ${n(r.redis.serverCpuMs)}`,
    );
    for (const problem of r.problems) console.log(`  WRONG: ${problem}`);
  }
  const full = results[0]!;
  console.log(
    `\ntarget < ${TARGET_MS / 1000} s for ${n(full.increments)} increments: ${full.wallMs < TARGET_MS ? "met" : "NOT met"} (${n(full.wallMs / 1000, 2)} s)`,
  );
  const [a, b, c] = results;
  if (a && b && c) {
    console.log(
      `statements: ${n(a.statements.total)} for ${n(a.rowsUpserted)} rows and ${n(b.statements.total)} for ${n(b.rowsUpserted)} rows (${a.transactions} batches each); ${n(c.statements.total)} with ${c.transactions} batches`,
    );
  }
}

async function main(): Promise<void> {
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    const server = await startPostgres();
    cleanup.push(() => server.stop());
    const admin = postgres(server.url, { max: 1, onnotice: () => {} });
    cleanup.push(() => admin.end({ timeout: 5 }));
    const [{ server_version: version } = { server_version: "?" }] = await admin<
      Array<{ server_version: string }>
    >`show server_version`;
    const name = `optstuff_bench_${randomBytes(6).toString("hex")}`;
    await admin.unsafe(`create database ${name}`);
    cleanup.push(() => admin.unsafe(`drop database if exists ${name} with (force)`));
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    const handle = await openDatabase({ kind: "postgres", url: url.toString() });
    cleanup.push(() => handle.close());

    const redisServer = await startRedisServer();
    cleanup.push(() => redisServer.stop());
    const token = randomBytes(16).toString("hex");
    const endpoint = await createRedisRestServer({ redis: { host: redisServer.host, port: redisServer.port }, token });
    cleanup.push(() => endpoint.close());
    const redis = new IORedis({ host: redisServer.host, port: redisServer.port });
    cleanup.push(async () => redis.disconnect());

    const today = new Date();
    const dayStart = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - 2 * 86_400_000;
    const bench: Bench = {
      db: handle.db,
      databaseUrl: url.toString(),
      redis,
      endpoint,
      token,
      keys: await seedKeys(handle.db),
      dayStart,
    };
    console.log(
      `PostgreSQL ${version} (${server.origin}), redis-server behind the Upstash-compatible endpoint, Node ${process.versions.node}`,
    );
    console.log(
      `${bench.keys.length} keys in ${PROJECTS} projects; increments on ${new Date(dayStart).toISOString().slice(0, 10)}, ${MINUTES} minute buckets`,
    );

    const results: Result[] = [];
    for (const scenario of SCENARIOS) {
      results.push(await runScenario(bench, scenario));
      console.log(`${scenario.label}: ${(results.at(-1)!.wallMs / 1000).toFixed(2)} s`);
    }
    print(results);
    mkdirSync("artifacts", { recursive: true });
    writeFileSync(
      "artifacts/bench-flush.json",
      JSON.stringify(
        {
          measuredAt: new Date().toISOString(),
          postgres: { version, origin: server.origin },
          node: process.versions.node,
          results,
        },
        null,
        2,
      ),
    );
    if (results.some((r) => r.problems.length > 0)) {
      console.error("\nThe flushed totals differ from what was buffered (WRONG lines above).");
      process.exitCode = 1;
    }
  } finally {
    for (const step of cleanup.reverse()) await step().catch((error: unknown) => console.error("cleanup:", error));
  }
}

// Exit through process.exit so the exit hooks stop redis-server and PostgreSQL on Ctrl-C too.
process.once("SIGINT", () => process.exit(130));
process.once("SIGTERM", () => process.exit(143));
main().then(
  () => process.exit(),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
