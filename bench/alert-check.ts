/**
 * npm run bench:alerts — one alert check of a whole instance: 200 teams, 1,000 projects, 5,000 keys.
 * 10 % of the keys delivered enough since yesterday to be asked about (day limit 1,000, 500 delivered);
 * 5 % of the projects fail 30 % of their requests over the last 15 minutes; 1 % of the keys expire
 * within the week. The first check records and mails every alert (a mailer that counts); the next ones
 * find the same alerts in the same windows and mail nothing. Timed on the embedded database (PGlite in
 * process) and on PostgreSQL 15, with the limiter calls counted (each is a Redis command on Upstash).
 * Buckets are left out: their probe is an S3 request, bounded to 30 a check whatever the count.
 * Results: a table on stdout and artifacts/bench-alert-check.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { randomBytes, randomUUID } from "node:crypto";
import { checkAlerts } from "@/server/alerts/check-alerts";
import { createMemoryRateLimiter } from "@/server/coordination/memory-rate-limiter";
import { apiKeys, projects, requestMinuteStats, teamMembers, teams, usageRecord, user } from "@/server/db/schema";
import { createLogger } from "@/server/log";
import type { Services } from "@/server/services";
import { sourceRootWithDot } from "./lib/in-process";
import { fmt, percentile } from "./lib/load";
import { onBothDatabases } from "./lib/both-databases";

const TEAMS = 200;
const PROJECTS_PER_TEAM = 5;
const KEYS_PER_PROJECT = 5;
const CHECKS = Number(process.env.BENCH_CHECKS ?? 20);

interface Figures {
  database: string;
  firstCheckMs: number;
  checkMs: { p50: number; p95: number };
  alerts: number;
  mails: number;
  limiterCallsPerCheck: number;
}

async function seed(services: Services): Promise<void> {
  const db = services.database.db;
  const now = Date.now();
  const today = new Date(now).toISOString().slice(0, 10);
  const tag = randomBytes(3).toString("hex");
  const teamRows = Array.from({ length: TEAMS }, (_, t) => ({
    id: randomUUID(),
    name: `Team ${t}`,
    slug: `alerts-${tag}-${t}`,
  }));
  await db.insert(teams).values(teamRows);
  // An owner each: every alert has someone to mail.
  const owners = teamRows.map((team, t) => ({
    id: `bench-${tag}-${t}`,
    name: `Owner ${t}`,
    email: `owner-${tag}-${t}@example.com`,
  }));
  await db.insert(user).values(owners);
  await db
    .insert(teamMembers)
    .values(teamRows.map((team, t) => ({ teamId: team.id, userId: owners[t]!.id, role: "owner" as const })));
  const projectRows = teamRows.flatMap((team, t) =>
    Array.from({ length: PROJECTS_PER_TEAM }, (_, p) => ({
      id: randomUUID(),
      teamId: team.id,
      name: `Project ${t}.${p}`,
      slug: `p${p}`,
    })),
  );
  await db.insert(projects).values(projectRows);
  const keyRows = projectRows.flatMap((project, p) =>
    Array.from({ length: KEYS_PER_PROJECT }, (_, k) => {
      const n = p * KEYS_PER_PROJECT + k;
      return {
        id: randomUUID(),
        projectId: project.id,
        name: `key ${n}`,
        publicKey: `pk_bench_${tag}_${n}`,
        encryptedSecret: "not-a-secret",
        rateLimitPerDay: n % 10 === 0 ? 1000 : null,
        expiresAt: n % 100 === 1 ? new Date(now + 3 * 86_400_000) : null,
      };
    }),
  );
  for (let i = 0; i < keyRows.length; i += 1000) await db.insert(apiKeys).values(keyRows.slice(i, i + 1000));
  await db
    .insert(usageRecord)
    .values(
      keyRows
        .filter((key) => key.rateLimitPerDay !== null)
        .map((key) => ({ projectId: key.projectId, apiKeyId: key.id, date: today, requests: 500, bytes: 1 })),
    );
  const minute = Math.floor(now / 60_000) * 60_000;
  const minutes = projectRows.flatMap((project, p) =>
    Array.from({ length: 15 }, (_, m) => ({
      projectId: project.id,
      minute: new Date(minute - m * 60_000),
      requests: 10,
      failed: p % 20 === 0 ? 3 : 0,
    })),
  );
  for (let i = 0; i < minutes.length; i += 1000) await db.insert(requestMinuteStats).values(minutes.slice(i, i + 1000));
}

async function measure(services: Services, database: string): Promise<Figures> {
  await seed(services);
  const inner = createMemoryRateLimiter();
  let limiterCalls = 0;
  const limiter = {
    used: (...args: Parameters<typeof inner.used>) => {
      limiterCalls++;
      return inner.used(...args);
    },
  };
  let mails = 0;
  const deps = {
    db: services.database.db,
    limiter,
    mailer: { send: async () => void mails++ },
    secretBox: services.secretBox,
    fetcher: { fetch: () => Promise.reject(new Error("no buckets here")) },
    logger: createLogger("error"),
    now: () => new Date(),
    dashboardUrl: "http://127.0.0.1:3000",
  };
  let started = performance.now();
  const first = await checkAlerts(deps);
  const firstCheckMs = performance.now() - started;
  const mailsFirst = mails;
  const times: number[] = [];
  limiterCalls = 0;
  for (let i = 0; i < CHECKS; i++) {
    started = performance.now();
    await checkAlerts(deps);
    times.push(performance.now() - started);
  }
  if (mails !== mailsFirst) throw new Error(`later checks mailed ${mails - mailsFirst} times`);
  return {
    database,
    firstCheckMs,
    checkMs: { p50: percentile(times, 50), p95: percentile(times, 95) },
    alerts: first.current,
    mails: mailsFirst,
    limiterCallsPerCheck: limiterCalls / CHECKS,
  };
}

async function main(): Promise<void> {
  const root = await sourceRootWithDot(8, "#0a0");
  const results = await onBothDatabases(root, measure);
  console.log(
    `\nalert check of ${TEAMS} teams, ${TEAMS * PROJECTS_PER_TEAM} projects, ${TEAMS * PROJECTS_PER_TEAM * KEYS_PER_PROJECT} keys (${CHECKS} checks after the first)`,
  );
  console.log("database | first check (records, mails) | check p50/p95 | alerts | mails | limiter calls a check");
  for (const r of results)
    console.log(
      `${r.database} | ${fmt(r.firstCheckMs)} ms | ${fmt(r.checkMs.p50)} / ${fmt(r.checkMs.p95)} ms | ${r.alerts} | ${r.mails} | ${r.limiterCallsPerCheck}`,
    );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync("artifacts/bench-alert-check.json", JSON.stringify({ checks: CHECKS, results }, null, 2));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
