import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appRouter } from "@/server/api/root";
import {
  apiKeys,
  projects,
  teamInvitations,
  teamMembers,
  teams,
  teamWebhooks,
  auditStreams,
  webhookDeliveries,
} from "@/server/db/schema";
import { atLeast, permissions, type Permission } from "@/server/tenancy/roles";
import { createTestApp, type TestApp } from "../../support/app";
import { buildTenantWorld, type TenantWorld } from "../../support/tenant-world";
import { isolationCases, type Target } from "./isolation-cases";

/**
 * The tenant-isolation suite: every procedure of the app router is attempted by a user of team A
 * against team B (by path, and by B's resource ids under A's own path), and by B's member and admin
 * where the roles table reserves it for more. Team B's rows must be byte-for-byte unchanged after.
 */
type ProcedureDef = { _def: { type: "query" | "mutation" | "subscription"; meta?: { permission?: Permission } } };
const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
const tenantCases = Object.entries(isolationCases).filter(([, c]) => c.scope === "team" || c.scope === "project");

let app: TestApp;
let a: TenantWorld;
let b: TenantWorld;
let before: unknown;

beforeAll(async () => {
  app = await createTestApp();
  a = await buildTenantWorld(app.services, "alpha");
  b = await buildTenantWorld(app.services, "beta");
  before = await snapshot(b.teamSlug);
}, 60_000);
afterAll(() => app.close());

const targetOf = (w: TenantWorld): Target => w;

async function snapshot(teamSlug: string) {
  const db = app.services.database.db;
  const [team] = await db.select().from(teams).where(eq(teams.slug, teamSlug));
  const projectRows = await db.select().from(projects).where(eq(projects.teamId, team!.id));
  const keyRows = projectRows.length
    ? await db
        .select()
        .from(apiKeys)
        .where(
          inArray(
            apiKeys.projectId,
            projectRows.map((p) => p.id),
          ),
        )
    : [];
  return {
    team,
    members: await db.select().from(teamMembers).where(eq(teamMembers.teamId, team!.id)).orderBy(teamMembers.userId),
    invitations: await db
      .select()
      .from(teamInvitations)
      .where(eq(teamInvitations.teamId, team!.id))
      .orderBy(teamInvitations.id),
    projects: projectRows,
    keys: keyRows.sort((x, y) => x.id.localeCompare(y.id)),
    webhooks: await db.select().from(teamWebhooks).where(eq(teamWebhooks.teamId, team!.id)).orderBy(teamWebhooks.id),
    deliveries: await db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.teamId, team!.id))
      .orderBy(webhookDeliveries.id),
    auditStream: await db.select().from(auditStreams).where(eq(auditStreams.teamId, team!.id)),
  };
}

describe("tenant isolation", () => {
  it("has a case for every procedure and no case for a procedure that does not exist", () => {
    expect(Object.keys(isolationCases).sort()).toEqual(Object.keys(procedures).sort());
  });

  it("gives every team and project procedure a permission from the roles table", () => {
    for (const [path, testCase] of tenantCases) {
      const permission = procedures[path]!._def.meta?.permission;
      expect(permission, path).toBeDefined();
      expect(Object.keys(permissions), path).toContain(permission);
      // A project procedure must take the project from its path: the case says so and the input needs it.
      if (testCase.scope === "project") expect(path.split(".")[0], path).not.toBe("team");
    }
  });

  it.each(tenantCases)("%s: a user of team A cannot reach team B by its path", async (_path, testCase) => {
    await expect(testCase.call(a.owner.caller, targetOf(b))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it.each(tenantCases.filter(([, c]) => c.takesResourceId))(
    "%s: team B's ids are not found under team A's path",
    async (_path, testCase) => {
      const mixed: Target = { ...b, teamSlug: a.teamSlug, projectSlug: a.projectSlug };
      await expect(testCase.call(a.owner.caller, mixed)).rejects.toMatchObject({ code: "NOT_FOUND" });
    },
  );

  it.each(tenantCases.filter(([path]) => !atLeast("member", permissions[procedures[path]!._def.meta!.permission!])))(
    "%s: a member of team B is refused what the table reserves for admins",
    async (_path, testCase) => {
      await expect(testCase.call(b.member.caller, targetOf(b))).rejects.toMatchObject({ code: "FORBIDDEN" });
    },
  );

  it.each(tenantCases.filter(([path]) => permissions[procedures[path]!._def.meta!.permission!] === "owner"))(
    "%s: an admin of team B is refused what the table reserves for owners",
    async (_path, testCase) => {
      await expect(testCase.call(b.admin.caller, targetOf(b))).rejects.toMatchObject({ code: "FORBIDDEN" });
    },
  );

  it.each(tenantCases.filter(([path]) => procedures[path]!._def.type === "query"))(
    "%s: the member of team B may read",
    async (_path, testCase) => {
      const permission = procedures[_path]!._def.meta!.permission!;
      const call = testCase.call(b.member.caller, targetOf(b));
      if (atLeast("member", permissions[permission])) await expect(call).resolves.toBeDefined();
      else await expect(call).rejects.toMatchObject({ code: "FORBIDDEN" });
    },
  );

  it.each(["account.acceptInvitation", "account.declineInvitation"])(
    "%s: a user of team A cannot use team B's invitation meant for someone else",
    async (path) => {
      await expect(isolationCases[path]!.call(a.owner.caller, targetOf(b))).rejects.toMatchObject({
        code: "FORBIDDEN",
      });
    },
  );

  it("leaves every row of team B exactly as it was", async () => {
    expect(await snapshot(b.teamSlug)).toEqual(before);
  });
});
