import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { keyFormSchema } from "@/lib/schemas/api-key";
import { presetSchema } from "@/lib/schemas/preset";
import { projectFormSchema } from "@/lib/schemas/project";
import { invitationSchema } from "@/lib/schemas/team";
import { createTrpcRouteHandler } from "@/server/http/trpc-route";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";

/**
 * What the browser gets when a form's input is refused: the catalogue's code and, per field, zod's
 * messages (`data.fieldErrors`), so each error can sit next to its field. Through the HTTP handler,
 * since only there does the error formatter run.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;

beforeAll(async () => {
  app = await createTestApp();
  owner = await signUp(app.services, "fields");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Fields",
      slug: `fields-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Fields", slug: "fields" });
}, 30_000);
afterAll(() => app.close());

/** What the forms hold before anyone types: the fields a case leaves out. */
const formDefaults = { allowedSourceHosts: "", allowedRefererHosts: "" };

interface WireError {
  error: {
    json: {
      message: string;
      data: { httpStatus: number; appCode: string; fieldErrors: Record<string, string[]> | null };
    };
  };
}

async function call(procedure: string, input: unknown): Promise<{ status: number; body: WireError }> {
  const response = await createTrpcRouteHandler(async () => app.services)(
    new Request(`http://optstuff.test/api/trpc/${procedure}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: owner.cookie },
      body: JSON.stringify({ json: input }),
    }),
  );
  return { status: response.status, body: (await response.json()) as WireError };
}

describe("field errors", () => {
  it("names each refused field with its message, and only those", async () => {
    const { status, body } = await call("project.create", {
      teamSlug,
      name: "x".repeat(201),
      slug: "ok-slug",
      allowedSourceHosts: ["a".repeat(301)],
    });
    expect(status).toBe(400);
    const { data } = body.error.json;
    expect(data.appCode).toBe("INVALID_INPUT");
    expect(Object.keys(data.fieldErrors ?? {}).sort()).toEqual(["allowedSourceHosts", "name"]);
    expect(data.fieldErrors?.name?.[0]).toMatch(/80/);
  });

  it("refuses in the same words the dashboard's form shows before sending (one schema for both)", async () => {
    const same = (input: Record<string, string>) => ({ sent: input, typed: input });
    const cases: Array<{ procedure: string; form: z.ZodType; sent: Record<string, unknown>; typed: object }> = [
      { procedure: "project.create", form: projectFormSchema, ...same({ name: " ", slug: "Bad Slug!" }) },
      {
        procedure: "project.create",
        form: projectFormSchema,
        sent: { name: "Site", slug: "site-x", allowedSourceHosts: ["a".repeat(301)] },
        typed: { name: "Site", slug: "site-x", allowedSourceHosts: "a".repeat(301) },
      },
      { procedure: "team.invite", form: invitationSchema, ...same({ email: "not-an-address", role: "member" }) },
      { procedure: "preset.save", form: presetSchema, ...same({ name: "-x", operations: "" }) },
      {
        procedure: "apiKey.create",
        form: keyFormSchema,
        sent: { name: "k", expiresAt: null, rateLimitPerMinute: 0, rateLimitPerDay: 100_000_001 },
        typed: { name: "k", choice: "never", date: "", rateLimitPerMinute: "0", rateLimitPerDay: "100000001" },
      },
    ];
    for (const { procedure, form, sent, typed } of cases) {
      const { status, body } = await call(procedure, { teamSlug, projectSlug: "fields", ...sent });
      expect(status).toBe(400);
      const shown = z.flattenError(form.safeParse({ ...formDefaults, ...typed }).error!).fieldErrors as Record<
        string,
        string[]
      >;
      const refused = body.error.json.data.fieldErrors ?? {};
      expect(Object.keys(refused).length).toBeGreaterThan(0);
      for (const [field, messages] of Object.entries(refused)) expect(shown[field]?.[0]).toBe(messages[0]);
    }
  });

  it("names the field of a refusal only the server can make (a taken slug, a refused host or operation)", async () => {
    const cases = [
      { procedure: "project.create", input: { name: "Again", slug: "fields" }, field: "slug", says: /already/ },
      {
        procedure: "project.create",
        input: { name: "Private", slug: "private-x", allowedSourceHosts: ["10.0.0.1"] },
        field: "allowedSourceHosts",
        says: /"10\.0\.0\.1" is not a valid source host/,
      },
      {
        procedure: "preset.save",
        input: { projectSlug: "fields", name: "hero", operations: "w_0" },
        field: "operations",
        says: /w_0/,
      },
      {
        procedure: "developer.signUrl",
        input: {
          projectSlug: "fields",
          keyId: crypto.randomUUID(),
          operations: "w_0",
          source: "a.example/x.jpg",
          expiresInSeconds: 60,
        },
        field: "operations",
        says: /w_0/,
      },
    ];
    for (const { procedure, input, field, says } of cases) {
      const { status, body } = await call(procedure, { teamSlug, ...input });
      expect(status).toBe(field === "slug" ? 409 : 400);
      expect(Object.keys(body.error.json.data.fieldErrors ?? {})).toEqual([field]);
      expect(body.error.json.data.fieldErrors?.[field]?.[0]).toMatch(says);
      expect(body.error.json.data.fieldErrors?.[field]?.[0]).toBe(body.error.json.message);
    }
  });

  it("names every refused host of a list, not only the first, in the message and at the field", async () => {
    const cases = [
      {
        procedure: "project.create",
        input: {
          name: "Hosts",
          slug: "hosts-x",
          allowedSourceHosts: ["10.0.0.1", "cdn.example.com", "metadata.google.internal"],
        },
        field: "allowedSourceHosts",
        says: '2 source hosts are not valid: "10.0.0.1" (private, loopback and reserved addresses are not allowed); "metadata.google.internal" (local and internal host names are not allowed)',
      },
      {
        procedure: "project.update",
        input: { projectSlug: "fields", allowedRefererHosts: ["local", "shop.example", "192.168.0.9"] },
        field: "allowedRefererHosts",
        says: '2 referer hosts are not valid: "local" (use a host such as example.com, *.example.com or *); "192.168.0.9" (private, loopback and reserved addresses are not allowed)',
      },
    ];
    for (const { procedure, input, field, says } of cases) {
      const { status, body } = await call(procedure, { teamSlug, ...input });
      expect(status, procedure).toBe(400);
      expect(body.error.json.message).toBe(says);
      expect(body.error.json.data.fieldErrors).toEqual({ [field]: [says] });
    }
  });

  it("has none for a refusal that is not about input", async () => {
    const { status, body } = await call("project.create", { teamSlug: "no-such-team", name: "Site", slug: "site" });
    expect(status).toBe(404);
    expect(body.error.json.data.fieldErrors).toBeNull();
  });
});

describe("a mutation posted from another site", () => {
  it("is refused before anything is read or written, whatever its session; the dashboard's own origin passes", async () => {
    const post = (origin: string, slug: string) =>
      createTrpcRouteHandler(async () => app.services)(
        new Request("http://optstuff.test/api/trpc/project.create", {
          method: "POST",
          headers: { "content-type": "application/json", cookie: owner.cookie, origin },
          body: JSON.stringify({ json: { teamSlug, name: "Cross", slug } }),
        }),
      );
    const foreign = await post("https://evil.example", "cross-site");
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ code: "CROSS_SITE_REQUEST" });
    expect((await owner.caller.project.list({ teamSlug })).map((p) => p.slug)).not.toContain("cross-site");
    expect((await post("http://127.0.0.1:3000", "same-site")).status).toBe(200);
    expect((await owner.caller.project.list({ teamSlug })).map((p) => p.slug)).toContain("same-site");
  });
});
