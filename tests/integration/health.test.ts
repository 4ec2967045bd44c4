import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkHealth } from "@/server/health";
import { createTestApp, type TestApp } from "../support/app";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => app?.close());

describe("health", () => {
  it("is ready when the database answers", async () => {
    const report = await checkHealth(async () => app.services);
    expect(report.status).toBe("ok");
    expect(report.checks?.database?.ok).toBe(true);
  });

  it("is unavailable, naming the failed check without detail, when the database is gone", async () => {
    const report = await checkHealth(async () => ({
      ...app.services,
      database: { ...app.services.database, ping: () => Promise.reject(new Error("password authentication failed for postgres://u:secret@db")) },
    }));
    expect(report).toEqual({ status: "unavailable", checks: { database: { ok: false, error: "unreachable" } } });
    expect(JSON.stringify(report)).not.toContain("secret");
  });
});
