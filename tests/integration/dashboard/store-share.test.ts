import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, filesStore, NO_REDIS, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";

/**
 * The result store is shared by every project of the instance: its size says how much every other
 * tenant serves. A tenant's pages show their own project's share of it, and nothing of the whole.
 */
let app: TestApp;
let root: string;
let owner: TestUser;
let tenant: TestUser;
let tenantScope: { teamSlug: string; projectSlug: string };

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), "optstuff-share-"));
  app = await createTestApp({ env: { ...NO_REDIS, ...filesStore(root, 64 * 1024 * 1024) } });
  // The first account owns the instance and adopts team "acme", whose project "blog" serves images.
  owner = await signUp(app.services, "owner");
  tenant = await signUp(app.services, "tenant");
  const team = await tenant.caller.account.createTeam({ name: "Tenant", slug: "tenant-team" });
  await tenant.caller.project.create({
    teamSlug: team.slug,
    name: "Site",
    slug: "site",
    allowedSourceHosts: ["local"],
  });
  tenantScope = { teamSlug: team.slug, projectSlug: "site" };
  for (const width of [40, 41, 42]) {
    expect((await app.fetch(app.signedPath(`w_${width}`, "local/photo.jpg"))).status).toBe(200);
  }
  await app.services.delivery.results!.drain();
}, 60_000);
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

const range = { preset: "7d" } as const;

describe("the result store on a tenant's pages", () => {
  it("shows a tenant their project's share, never the instance's size", async () => {
    const instance = app.services.delivery.results!.store.size();
    expect(instance.objects).toBe(3);

    const status = await tenant.caller.cache.status(tenantScope);
    const usage = await tenant.caller.usage.project({ ...tenantScope, range });
    for (const answer of [status, usage]) {
      expect(answer.store).toEqual({ kind: "files", project: { bytes: 0, objects: 0 } });
      expect(JSON.stringify(answer)).not.toContain(String(instance.bytes));
    }
  });

  it("counts the results of the project it is asked about, exactly, on the files store", async () => {
    const instance = app.services.delivery.results!.store.size();
    const blog = { teamSlug: "acme", projectSlug: "blog" };
    const status = await owner.caller.cache.status(blog);
    const usage = await owner.caller.usage.project({ ...blog, range });
    // The only project with results: its share is the whole store, counted per project.
    expect(status.store).toEqual({ kind: "files", project: instance });
    expect(usage.store).toEqual(status.store);
  });
});
