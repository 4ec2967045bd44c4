import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requestLog } from "@/server/db/schema";
import { pruneRequestLog, REQUEST_LOG_RETENTION_DAYS } from "@/server/usage/retention";
import { createTestApp, type TestApp, NO_REDIS } from "../../support/app";
import { buildTenantWorld } from "../../support/tenant-world";

/** Retention walks each project's own index in batches: every project's old rows go, nothing newer. */
let app: TestApp;
const projectIds: string[] = [];

beforeAll(async () => {
  app = await createTestApp({ env: NO_REDIS });
  const world = await buildTenantWorld(app.services, "retention");
  await world.owner.caller.project.create({
    teamSlug: world.teamSlug,
    name: "Shop",
    slug: "shop",
    allowedSourceHosts: [],
  });
  for (const projectSlug of ["site", "shop"]) {
    const { project } = await world.owner.caller.project.get({ teamSlug: world.teamSlug, projectSlug });
    projectIds.push(project.id);
  }
});

afterAll(() => app?.close());

it("deletes every project's rows past the retention, in batches, and keeps the rest", async () => {
  const now = new Date("2026-11-28T12:00:00Z");
  const day = 86_400_000;
  const cutoff = now.getTime() - REQUEST_LOG_RETENTION_DAYS * day;
  const row = (projectId: string, at: number) => ({
    requestId: randomUUID(),
    projectId,
    status: "success",
    httpStatus: 200,
    createdAt: new Date(at),
  });
  const [site, shop] = projectIds as [string, string];
  await app.services.database.db.insert(requestLog).values([
    // 7 old rows in one project (more than two batches of 3), 2 in the other, one a second past the cutoff.
    ...Array.from({ length: 7 }, (_, i) => row(site, cutoff - (i + 1) * day)),
    row(shop, cutoff - 1000),
    row(shop, cutoff - 40 * day),
    // Kept: the cutoff itself and newer.
    row(site, cutoff),
    row(site, now.getTime()),
    row(shop, cutoff + 1000),
  ]);
  const left = async (projectId: string) =>
    (await app.services.database.db.select().from(requestLog).where(eq(requestLog.projectId, projectId))).map((r) =>
      r.createdAt.getTime(),
    );
  expect(await pruneRequestLog(app.services.database.db, now, 3)).toBe(9);
  expect((await left(site)).sort()).toEqual([cutoff, now.getTime()]);
  expect(await left(shop)).toEqual([cutoff + 1000]);
  // Twice: nothing left to delete.
  expect(await pruneRequestLog(app.services.database.db, now, 3)).toBe(0);
});
