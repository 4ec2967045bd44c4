/**
 * npm run bench:audit — what the audit log adds to a change and to a sign-in. The busiest change is a
 * project's settings save (name and host lists: one locked read, one update, the entry); it is timed
 * with the real trail and with a trail that writes nothing, alternating, so the difference is the
 * entry's cost inside the same transaction. A sign-in is timed whole through the auth route (password
 * hash included), and its entry (the account's lookup and the insert) on its own. On the embedded
 * database (PGlite in process) and on PostgreSQL 15 (TEST_DATABASE_URL, or a throwaway cluster).
 * Results: a table on stdout and artifacts/bench-audit-write.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { recordSignIn } from "@/server/audit/sign-ins";
import { auditTrail, userActor, type AuditTrail } from "@/server/audit/trail";
import { createAuthRouteHandler } from "@/server/http/auth-route";
import { PEER_ADDRESS_HEADER } from "@/server/ratelimit/client-address";
import type { Services } from "@/server/services";
import { updateProject } from "@/server/tenancy/projects";
import { benchProject, sourceRootWithDot } from "./lib/in-process";
import { fmt, percentile } from "./lib/load";
import { onBothDatabases } from "./lib/both-databases";

const CHANGES = Number(process.env.BENCH_CHANGES ?? 400);
const SIGN_INS = Number(process.env.BENCH_SIGN_INS ?? 40);
const NOTHING: AuditTrail = { record: async () => {} };

interface Figures {
  database: string;
  changeWithEntryMs: { p50: number; p95: number };
  changeWithoutEntryMs: { p50: number; p95: number };
  signInMs: { p50: number; p95: number };
  signInEntryMs: { p50: number; p95: number };
}

const summary = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

async function measure(services: Services, database: string): Promise<Figures> {
  const { project } = await benchProject(services, `audit-${randomBytes(3).toString("hex")}`);
  const scope = { teamId: project.teamId, projectId: project.id };
  const actor = userActor({ id: "bench-user", email: "bench@example.com" }, { ip: "203.0.113.1", userAgent: "bench" });
  const withEntry = { ...services.dashboard.tenancy, audit: auditTrail(actor, services.dashboard.tenancy.now) };
  const withoutEntry = { ...services.dashboard.tenancy, audit: NOTHING };
  const timed = { with: [] as number[], without: [] as number[] };
  for (let i = 0; i < CHANGES; i++) {
    // Every save changes the lists, so every save with the trail writes an entry.
    const hosts = [`cdn${i}.example.com`, "local", `img${i}.example.com`];
    for (const [name, deps] of i % 2
      ? ([
          ["with", withEntry],
          ["without", withoutEntry],
        ] as const)
      : ([
          ["without", withoutEntry],
          ["with", withEntry],
        ] as const)) {
      const started = performance.now();
      await updateProject(deps, scope, {
        name: `Site ${i}`,
        allowedSourceHosts: hosts,
        allowedRefererHosts: hosts.slice(0, 1),
      });
      timed[name].push(performance.now() - started);
    }
  }

  const auth = createAuthRouteHandler(async () => services);
  const origin = services.dashboard.publicBaseUrl;
  const post = (path: string, body: unknown) =>
    auth(
      new Request(`${origin}/api/auth${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          origin,
          [PEER_ADDRESS_HEADER]: `198.51.100.${1 + Math.floor(Math.random() * 250)}`,
        },
        body: JSON.stringify(body),
      }),
    );
  const email = `bench-${randomBytes(4).toString("hex")}@example.com`;
  const password = "a long enough password";
  const made = await post("/sign-up/email", { email, password, name: "Bench" });
  if (made.status !== 200) throw new Error(`sign-up failed: ${made.status} ${await made.text()}`);
  const { user } = (await made.json()) as { user: { id: string } };
  const signIns: number[] = [];
  for (let i = 0; i < SIGN_INS; i++) {
    const started = performance.now();
    const response = await post("/sign-in/email", { email, password });
    if (response.status !== 200) throw new Error(`sign-in failed: ${response.status}`);
    signIns.push(performance.now() - started);
  }
  const entries: number[] = [];
  const deps = { db: services.database.db, now: services.dashboard.tenancy.now };
  for (let i = 0; i < CHANGES; i++) {
    const started = performance.now();
    await recordSignIn(deps, { userId: user.id, ip: "198.51.100.7", userAgent: "bench" });
    entries.push(performance.now() - started);
  }
  return {
    database,
    changeWithEntryMs: summary(timed.with),
    changeWithoutEntryMs: summary(timed.without),
    signInMs: summary(signIns),
    signInEntryMs: summary(entries),
  };
}

async function main(): Promise<void> {
  const root = await sourceRootWithDot(8, "#0a0");
  const results = await onBothDatabases(root, measure);
  console.log(`\naudit log write cost (${CHANGES} saves each way, ${SIGN_INS} sign-ins, ${CHANGES} sign-in entries)`);
  console.log("database | save p50/p95 with entry | without | sign-in p50/p95 | its entry p50/p95 (ms)");
  for (const r of results)
    console.log(
      `${r.database} | ${fmt(r.changeWithEntryMs.p50, 2)} / ${fmt(r.changeWithEntryMs.p95, 2)} | ${fmt(r.changeWithoutEntryMs.p50, 2)} / ${fmt(r.changeWithoutEntryMs.p95, 2)} | ${fmt(r.signInMs.p50)} / ${fmt(r.signInMs.p95)} | ${fmt(r.signInEntryMs.p50, 2)} / ${fmt(r.signInEntryMs.p95, 2)}`,
    );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-audit-write.json",
    JSON.stringify({ changes: CHANGES, signIns: SIGN_INS, results }, null, 2),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
