import { eq, gt, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import { auditLog, projects, sourcePurges, teams } from "@/server/db/schema";
import { recordRegistrationPolicy } from "@/server/tenancy/registration-record";
import { auditTrail, userActor } from "@/server/audit/trail";
import { createExportHandler } from "@/server/http/export-route";
import { auditExport } from "@/server/http/exports";
import { MAX_SOURCE_PURGES } from "@/server/tenancy/cache-purge";
import { updateProject } from "@/server/tenancy/projects";
import { createTestApp, type TestApp } from "../../support/app";
import { authRequest, CALLER_ORIGIN, signUp } from "../../support/dashboard";
import { buildTenantWorld } from "../../support/tenant-world";
import { EXAMPLE_BUCKET } from "../../support/buckets";
import { auditCases, NOT_AUDITED, type AuditWorld } from "./audit-cases";

type ProcedureDef = { _def: { type: "query" | "mutation" | "subscription" } };
const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
const mutations = Object.keys(procedures).filter((path) => procedures[path]!._def.type === "mutation");

const DAY_MS = 24 * 3600 * 1000;
let app: TestApp;
let world: AuditWorld;

beforeAll(async () => {
  app = await createTestApp();
  world = { ...(await buildTenantWorld(app.services, "audit")), services: app.services, keyIds: [] };
}, 60_000);
afterAll(() => app.close());

const db = () => app.services.database.db;
const lastId = async () => (await db().select({ id: auditLog.id }).from(auditLog).orderBy(auditLog.id)).at(-1)?.id ?? 0;
const entriesAfter = (id: number) => db().select().from(auditLog).where(gt(auditLog.id, id)).orderBy(auditLog.id);
const teamIdOf = async (slug: string) => (await db().select().from(teams).where(eq(teams.slug, slug)))[0]?.id;

describe("audit entries of the dashboard's changes", () => {
  it("has a case for every mutation, and names the one that changes nothing", () => {
    expect([...Object.keys(auditCases), ...Object.keys(NOT_AUDITED)].sort()).toEqual(mutations.sort());
  });

  it("writes exactly one entry for each change, as the caller, from where the call came", async () => {
    const teamId = await teamIdOf(world.teamSlug);
    for (const [path, testCase] of Object.entries(auditCases)) {
      await testCase.prepare?.(world);
      const from = await lastId();
      await testCase.call(world);
      const entries = await entriesAfter(from);
      expect(
        entries.map((e) => e.action),
        path,
      ).toEqual([testCase.action]);
      const caller = (testCase.by ?? ((w) => w.owner))(world);
      expect(entries[0], path).toMatchObject({
        actorType: "user",
        actorId: caller.id,
        actorLabel: caller.email,
        ip: CALLER_ORIGIN.ip,
        userAgent: CALLER_ORIGIN.userAgent,
      });
      if (["account.createTeam", "account.completeOnboarding"].includes(path)) continue;
      // A team's deletion is the instance's entry: the team's own entries go with it.
      expect(entries[0]!.teamId, path).toBe(path === "team.delete" ? null : teamId);
    }
    expect(await db().select().from(auditLog).where(eq(auditLog.teamId, teamId!))).toEqual([]);
  }, 120_000);

  it("writes nothing for a preview, which changes nothing", async () => {
    const w = await buildTenantWorld(app.services, "preview");
    const from = await lastId();
    await w.owner.caller.preset.preview({ teamSlug: w.teamSlug, projectSlug: w.projectSlug, operations: "w_10" });
    expect(await entriesAfter(from)).toEqual([]);
  });
});

describe("what an entry holds", () => {
  let w: Awaited<ReturnType<typeof buildTenantWorld>>;
  const project = () => ({ teamSlug: w.teamSlug, projectSlug: w.projectSlug });
  let teamIdOfWorld: string;
  beforeAll(async () => {
    w = await buildTenantWorld(app.services, "holds");
    teamIdOfWorld = (await teamIdOf(w.teamSlug))!;
  }, 60_000);

  it("records before → after of what changed, and nothing that did not", async () => {
    const from = await lastId();
    await w.owner.caller.project.update({ ...project(), name: "Site", allowedRefererHosts: ["www.example.com"] });
    const [entry] = await entriesAfter(from);
    expect(entry!.changes).toEqual({ allowedRefererHosts: { from: [], to: ["www.example.com"] } });
    expect(entry!.targetLabel).toBe("Site (site)");
    // Saving the same settings again changes nothing and writes nothing.
    await w.owner.caller.project.update({ ...project(), name: "Site", allowedRefererHosts: ["www.example.com"] });
    expect(await entriesAfter(entry!.id)).toEqual([]);
  });

  it("never holds a secret: a key's, a bucket's, an invitation's token", async () => {
    const from = await lastId();
    const key = await w.owner.caller.apiKey.create({ ...project(), name: "secrets", expiresAt: null });
    const rotated = await w.owner.caller.apiKey.rotate({ ...project(), keyId: key.id, graceSeconds: 0 });
    await w.owner.caller.sourceBucket.save({ ...project(), ...EXAMPLE_BUCKET });
    await w.owner.caller.sourceBucket.save({
      ...project(),
      ...EXAMPLE_BUCKET,
      secretAccessKey: "second-bucket-secret",
    });
    const invitation = await w.owner.caller.team.invite({
      teamSlug: w.teamSlug,
      email: "x@example.com",
      role: "member",
    });
    const entries = await entriesAfter(from);
    const text = JSON.stringify(entries);
    for (const secret of [key.secretKey, rotated.secretKey, EXAMPLE_BUCKET.secretAccessKey, "second-bucket-secret"])
      expect(text).not.toContain(secret);
    expect(text).not.toContain(invitation.link.slice(invitation.link.lastIndexOf("/") + 1));
    expect(text).not.toContain(EXAMPLE_BUCKET.accessKeyId);
    const buckets = entries.filter((e) => e.action === "bucket.saved");
    expect(buckets.map((e) => e.changes?.secretAccessKey)).toEqual([
      { from: "[redacted]", to: "[redacted]" },
      { from: "[redacted]", to: "[redacted]" },
    ]);
    expect(buckets[0]!.changes?.accessKeyIdHint).toEqual({ from: null, to: "…MPLE" });
  });

  it("says what a purge did in an admin's words: what was purged, and only when it was widened, why", async () => {
    const projectId = (await db().select().from(projects).where(eq(projects.slug, w.projectSlug))).find(
      (p) => p.teamId === teamIdOfWorld,
    )!.id;
    const from = await lastId();
    await w.owner.caller.cache.purge({ ...project(), source: "local/photo.jpg" });
    await w.owner.caller.cache.purge(project());
    // As many single-source purges as the project keeps: the next one purges every source.
    await db()
      .insert(sourcePurges)
      .values(
        Array.from({ length: MAX_SOURCE_PURGES }, (_, i) => ({ projectId, source: `local/p${i}.jpg`, generation: 1 })),
      );
    await w.owner.caller.cache.purge({ ...project(), source: "local/photo.jpg" });
    const entries = await entriesAfter(from);
    expect(entries.map((e) => [e.action, e.targetLabel, e.changes])).toEqual([
      ["cache.purged", "local/photo.jpg", null],
      ["cache.purged", "every source", null],
      [
        "cache.purged",
        "local/photo.jpg",
        {
          scope: {
            from: "local/photo.jpg",
            to: `every source (${MAX_SOURCE_PURGES} sources were purged one by one since the last whole purge)`,
          },
        },
      ],
    ]);
    // No counters or flags of the cache's inner workings.
    expect(JSON.stringify(entries.map((e) => e.changes))).not.toMatch(/generation|widened/);
  });

  it("says when an invitation replaced the address's open one", async () => {
    const from = await lastId();
    await w.owner.caller.team.invite({ teamSlug: w.teamSlug, email: "twice@example.com", role: "member" });
    await w.owner.caller.team.invite({ teamSlug: w.teamSlug, email: "twice@example.com", role: "admin" });
    const entries = await entriesAfter(from);
    expect(entries.map((e) => [e.action, e.targetLabel, e.changes?.role, e.changes?.replacedInvitations])).toEqual([
      ["invitation.created", "twice@example.com", { from: null, to: "member" }, undefined],
      ["invitation.created", "twice@example.com", { from: null, to: "admin" }, { from: 1, to: 0 }],
    ]);
  });

  it("writes no entry for a change that was refused", async () => {
    await w.owner.caller.project.create({ teamSlug: w.teamSlug, name: "Taken", slug: "taken" });
    const from = await lastId();
    await expect(w.owner.caller.project.update({ ...project(), slug: "taken" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect(await entriesAfter(from)).toEqual([]);
  });

  it("makes no change when its entry cannot be written: the two share a transaction", async () => {
    const [row] = await db().select().from(projects).where(eq(projects.slug, w.projectSlug));
    const failing = {
      ...app.services.dashboard.tenancy,
      audit: {
        record: async (tx: Parameters<ReturnType<typeof auditTrail>["record"]>[0], event: never) => {
          await auditTrail(userActor({ id: w.owner.id, email: w.owner.email }, CALLER_ORIGIN), () => new Date()).record(
            tx,
            event,
          );
          throw new Error("the log's disk is full");
        },
      },
    };
    const from = await lastId();
    await expect(
      updateProject(failing, { teamId: row!.teamId, projectId: row!.id }, { name: "Never saved" }),
    ).rejects.toThrow("the log's disk is full");
    const [after] = await db().select().from(projects).where(eq(projects.id, row!.id));
    expect(after!.name).toBe(row!.name);
    expect(await entriesAfter(from)).toEqual([]);
  });
});

describe("sign-ins in the instance's log", () => {
  it("writes a sign-in with its address and user agent, and a wrong password for an existing account only", async () => {
    const user = await signUp(app.services, "signs");
    const from = await lastId();
    const headers = { address: "198.51.100.23" };
    const ok = await authRequest(
      app.services,
      "/sign-in/email",
      { email: user.email, password: "correct horse battery" },
      headers,
    );
    expect(ok.status).toBe(200);
    const wrong = await authRequest(
      app.services,
      "/sign-in/email",
      { email: user.email, password: "wrong password!" },
      headers,
    );
    expect(wrong.status).toBe(401);
    const nobody = await authRequest(
      app.services,
      "/sign-in/email",
      { email: "nobody-here@example.com", password: "wrong password!" },
      headers,
    );
    expect(nobody.status).toBe(401);
    const entries = await entriesAfter(from);
    // The wrong password is nobody's act until proven: written as anonymous, the account as its target.
    expect(entries.map((e) => [e.action, e.teamId, e.actorType, e.actorId, e.targetId, e.ip])).toEqual([
      ["account.signed_in", null, "user", user.id, user.id, "198.51.100.23"],
      ["account.sign_in_failed", null, "anonymous", null, user.id, "198.51.100.23"],
    ]);
    expect(JSON.stringify(entries)).not.toContain("wrong password!");
  });
});

describe("reading the log", () => {
  let w: Awaited<ReturnType<typeof buildTenantWorld>>;
  let teamId: string;
  const DAY = 24 * 3600 * 1000;
  beforeAll(async () => {
    w = await buildTenantWorld(app.services, "reads");
    teamId = (await teamIdOf(w.teamSlug))!;
  }, 60_000);

  it("shows a team's entries to its admins only: a member is refused, a stranger finds no team", async () => {
    const page = await w.admin.caller.audit.list({ teamSlug: w.teamSlug });
    expect(page.entries.map((e) => e.action)).toContain("api_key.created");
    expect(page.entries.every((e) => e.says.length > 0)).toBe(true);
    await expect(w.member.caller.audit.list({ teamSlug: w.teamSlug })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(world.newcomer!.caller.audit.list({ teamSlug: w.teamSlug })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("shows the instance's entries to the instance's owner only", async () => {
    // The first account of this test app owns the instance.
    const page = await world.owner.caller.audit.instanceList({ action: "account.signed_in" });
    expect(page.entries.length).toBeGreaterThan(0);
    expect(page.entries.every((e) => e.action === "account.signed_in")).toBe(true);
    expect((await world.owner.caller.account.me()).ownsInstance).toBe(true);
    expect((await w.owner.caller.account.me()).ownsInstance).toBe(false);
    await expect(w.owner.caller.audit.instanceList({})).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("filters by actor, action, target and days, and pages a 10,000-entry log without a gap or a repeat", async () => {
    const now = Date.now();
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      teamId,
      actorType: i % 2 ? "user" : "cli",
      actorId: i % 2 ? w.admin.id : null,
      actorLabel: i % 2 ? w.admin.email : "command line",
      action: i % 3 ? "preset.saved" : "api_key.revoked",
      targetType: i % 3 ? "preset" : "api_key",
      targetId: `t${i}`,
      targetLabel: i % 3 ? `pr_hero${i}` : `key ${i} (pk_x)`,
      // Spread over 200 days, oldest first.
      createdAt: new Date(now - (10_000 - i) * 1728_000),
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await db()
        .insert(auditLog)
        .values(rows.slice(i, i + 1000));
    const seen = new Set<number>();
    let before: number | undefined;
    let pages = 0;
    do {
      const page = await w.owner.caller.audit.list({ teamSlug: w.teamSlug, limit: 100, before, actor: "cli" });
      for (const entry of page.entries) {
        expect(seen.has(entry.id)).toBe(false);
        expect(entry.actor.type).toBe("cli");
        seen.add(entry.id);
      }
      before = page.next ?? undefined;
      pages++;
    } while (before !== undefined);
    expect(seen.size).toBe(5000);
    expect(pages).toBe(Math.ceil(seen.size / 100));
    await expect(w.owner.caller.audit.list({ teamSlug: w.teamSlug, limit: 10_000 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });

    const byAdmin = await w.owner.caller.audit.list({
      teamSlug: w.teamSlug,
      actor: w.admin.id,
      action: "api_key.revoked",
    });
    expect(byAdmin.entries.every((e) => e.actor.id === w.admin.id && e.action === "api_key.revoked")).toBe(true);
    const target = await w.owner.caller.audit.list({ teamSlug: w.teamSlug, target: "HERO99", targetType: "preset" });
    expect(target.entries.map((e) => e.target.label).every((l) => l.startsWith("pr_hero99"))).toBe(true);
    expect(target.entries.length).toBeGreaterThan(0);
    // A wildcard in the target is a character, not a pattern.
    expect((await w.owner.caller.audit.list({ teamSlug: w.teamSlug, target: "%" })).entries).toEqual([]);
    const day = new Date(now - 5 * DAY).toISOString().slice(0, 10);
    const oneDay = await w.owner.caller.audit.list({ teamSlug: w.teamSlug, from: day, to: day, limit: 100 });
    expect(oneDay.entries.length).toBe(50);
    expect(oneDay.entries.every((e) => e.createdAt.toISOString().startsWith(day))).toBe(true);
    await expect(
      w.owner.caller.audit.list({ teamSlug: w.teamSlug, from: "2020-01-01", to: "2022-01-01" }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    const actors = await w.owner.caller.audit.actors({ teamSlug: w.teamSlug });
    expect(actors).toEqual(
      expect.arrayContaining([
        { id: "cli", label: "command line" },
        { id: w.admin.id, label: w.admin.email },
      ]),
    );
  }, 60_000);
});

describe("exporting the log as CSV", () => {
  let w: Awaited<ReturnType<typeof buildTenantWorld>>;
  let teamId: string;
  const exportAudit = (query: string, cookie: string | null) =>
    createExportHandler(
      async () => app.services,
      auditExport,
    )(new Request(`http://127.0.0.1/api/export/audit?${query}`, { headers: cookie ? { cookie } : {} }));
  beforeAll(async () => {
    w = await buildTenantWorld(app.services, "exports");
    teamId = (await teamIdOf(w.teamSlug))!;
  }, 60_000);

  it("refuses the signed out, a stranger, a member, and a range over a year", async () => {
    const query = `team=${w.teamSlug}`;
    expect((await exportAudit(query, null)).status).toBe(401);
    expect((await exportAudit(query, world.newcomer!.cookie)).status).toBe(404);
    expect((await exportAudit(query, w.member.cookie)).status).toBe(403);
    const tooLong = await exportAudit(`${query}&from=2024-01-01&to=2025-06-01`, w.owner.cookie);
    expect(tooLong.status).toBe(400);
    expect(await tooLong.json()).toMatchObject({ error: "A range covers at most 366 days" });
    expect((await exportAudit("", w.owner.cookie)).status).toBe(404);
  });

  it("streams a year of entries, every one once, with formulas shown rather than run", async () => {
    const now = Date.now();
    const year = 20_000;
    const rows = Array.from({ length: year }, (_, i) => ({
      teamId,
      actorType: "user",
      actorId: w.admin.id,
      actorLabel: w.admin.email,
      action: "preset.saved",
      targetType: "preset",
      targetId: `t${i}`,
      targetLabel: i === 0 ? '=HYPERLINK("https://evil.example","x")' : `pr_${i}`,
      changes: { operations: { from: null, to: `w_${i},q_80` } },
      createdAt: new Date(now - 2 * DAY_MS - i * 1500_000),
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await db()
        .insert(auditLog)
        .values(rows.slice(i, i + 1000));
    const to = new Date(now - 2 * DAY_MS).toISOString().slice(0, 10);
    const from = new Date(now - 2 * DAY_MS - 365 * DAY_MS).toISOString().slice(0, 10);
    const response = await exportAudit(`team=${w.teamSlug}&from=${from}&to=${to}`, w.owner.cookie);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-exports-/);
    const text = await response.text();
    const lines = text.split("\r\n").filter(Boolean);
    expect(lines[0]).toBe(
      "time (UTC),actor,actor id,action,target type,target,target id,project id,changes,ip,user agent",
    );
    const expected = rows.filter((r) => r.createdAt.toISOString().slice(0, 10) >= from).length;
    expect(lines.length - 1).toBe(expected);
    expect(new Set(lines.slice(1).map((l) => l.split(",")[6])).size).toBe(expected);
    expect(text).toContain(`"'=HYPERLINK(""https://evil.example"",""x"")"`);
    expect(text).not.toMatch(/(^|,)=HYPERLINK/m);
  }, 60_000);
});

describe("retention", () => {
  it("deletes entries older than the setting in the daily maintenance, and keeps the rest", async () => {
    const now = Date.now();
    const old = { actorType: "cli", actorLabel: "command line", action: "cache.purged", targetType: "cache" };
    const [gone, kept] = await db()
      .insert(auditLog)
      .values([
        { ...old, targetId: "gone", targetLabel: "gone", createdAt: new Date(now - 366 * DAY_MS) },
        { ...old, targetId: "kept", targetLabel: "kept", createdAt: new Date(now - 364 * DAY_MS) },
      ])
      .returning({ id: auditLog.id });
    const report = await app.services.jobs.cron.dailyMaintenance();
    expect(report.parts.auditLogRetention).toMatchObject({ ok: true, result: { deleted: 1 } });
    const left = await db()
      .select({ id: auditLog.id })
      .from(auditLog)
      .where(inArray(auditLog.id, [gone!.id, kept!.id]));
    expect(left).toEqual([{ id: kept!.id }]);
  });
});

describe("the registration policy", () => {
  it("is written when a start finds it changed, once however many instances start together", async () => {
    const deps = { db: db(), now: () => new Date() };
    const policies = await db().select().from(auditLog).where(eq(auditLog.action, "instance.registration_changed"));
    expect(policies).toEqual([]);
    const invite = { mode: "invite-only" as const, emailDomains: [] };
    const together = await Promise.all([1, 2, 3].map(() => recordRegistrationPolicy(deps, invite)));
    expect(together.sort()).toEqual([false, false, true]);
    expect(await recordRegistrationPolicy(deps, invite)).toBe(false);
    expect(await recordRegistrationPolicy(deps, { mode: "open", emailDomains: ["example.com"] })).toBe(true);
    const written = await db()
      .select()
      .from(auditLog)
      .where(eq(auditLog.action, "instance.registration_changed"))
      .orderBy(auditLog.id);
    expect(written.map((e) => [e.teamId, e.actorType, e.changes])).toEqual([
      [null, "system", { policy: { from: null, to: "invite-only" } }],
      [null, "system", { policy: { from: "invite-only", to: "open; domains: example.com" } }],
    ]);
  });
});
