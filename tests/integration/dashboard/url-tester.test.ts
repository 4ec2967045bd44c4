import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTrpcRouteHandler } from "@/server/http/trpc-route";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { buildSignedUrl } from "../../support/signed-url";
import { createTestNetwork } from "../source/loopback-network";

/**
 * The URL tester signs only what the image route will let through the project's source policy: a
 * refused source is named at the tester's source field with the list to change, and the tester and the
 * route agree on every entry kind (host, subdomain, scheme, port, `*`, `*.`, `local`, bucket alias).
 * The network answers no name, so a source the policy lets through ends at the fetch (502), never
 * outside the machine.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;
let key: { id: string; publicKey: string; secretKey: string };
const projectSlug = "tester";

beforeAll(async () => {
  app = await createTestApp({ seams: { net: createTestNetwork().net } });
  owner = await signUp(app.services, "tester");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Tester",
      slug: `tester-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Tester", slug: projectSlug, allowedSourceHosts: [] });
  key = await owner.caller.apiKey.create({ teamSlug, projectSlug, name: "tester", expiresAt: null });
  await owner.caller.sourceBucket.save({
    teamSlug,
    projectSlug,
    alias: "media",
    endpoint: "http://127.0.0.1:9",
    region: "us-east-1",
    bucket: "photos",
    prefix: "",
    forcePathStyle: true,
    accessKeyId: "AKIAEXAMPLE",
    secretAccessKey: "never-read-here",
  });
}, 60_000);
afterAll(() => app?.close());

const allow = (allowedSourceHosts: string[]) =>
  owner.caller.project.update({ teamSlug, projectSlug, allowedSourceHosts });

interface WireError {
  error: {
    json: {
      message: string;
      data: { httpStatus: number; appCode: string; fieldErrors: Record<string, string[]> | null };
    };
  };
}

/** Through the HTTP handler, as the browser posts it: only there does the error formatter run. */
async function signOverHttp(source: string): Promise<{ status: number; body: WireError }> {
  const response = await createTrpcRouteHandler(async () => app.services)(
    new Request("http://optstuff.test/api/trpc/developer.signUrl", {
      method: "POST",
      headers: { "content-type": "application/json", cookie: owner.cookie },
      body: JSON.stringify({
        json: { teamSlug, projectSlug, keyId: key.id, operations: "w_100", source, expiresInSeconds: 3600 },
      }),
    }),
  );
  return { status: response.status, body: (await response.json()) as WireError };
}

describe("the URL tester's source policy", () => {
  it("refuses a host the project does not allow at the source field, naming the host and the list to change", async () => {
    await allow(["cdn.example.com"]);
    const { status, body } = await signOverHttp("other.example/photo.jpg");
    expect(status).toBe(400);
    expect(body.error.json.data.appCode).toBe("INVALID_INPUT");
    expect(body.error.json.data.fieldErrors).toEqual({
      source: [
        "https://other.example is not one of this project's allowed source hosts: add it in Settings (Allowed source hosts)",
      ],
    });
    expect(body.error.json.message).toBe(body.error.json.data.fieldErrors!.source![0]);
  });

  it("names the list for local and bucket sources too", async () => {
    await allow(["*"]);
    const local = await signOverHttp("local/photo.jpg");
    expect(local.status).toBe(400);
    expect(local.body.error.json.data.fieldErrors?.source?.[0]).toBe(
      'local/ sources are not allowed in this project ("*" admits remote hosts only): add "local" to its allowed source hosts in Settings',
    );
    const bucket = await signOverHttp("s3/archive/photo.jpg");
    expect(bucket.status).toBe(400);
    expect(bucket.body.error.json.data.fieldErrors?.source?.[0]).toMatch(/no bucket "archive".*Buckets tab/);
  });

  it("signs exactly what the image route lets through the policy, for every kind of entry", async () => {
    const cases: Array<{ list: string[]; allowed: string[]; refused: string[] }> = [
      {
        list: ["cdn.example.com"],
        allowed: ["cdn.example.com/a.jpg", "img.cdn.example.com/a.jpg", "http://cdn.example.com/a.jpg"],
        refused: ["other.example/a.jpg", "cdn.example.com:8443/a.jpg", "notcdn.example.com/a.jpg", "local/photo.jpg"],
      },
      { list: ["*.example.com"], allowed: ["a.example.com/x.jpg"], refused: ["example.com/x.jpg"] },
      {
        list: ["https://cdn.example.com:8443"],
        allowed: ["cdn.example.com:8443/x.jpg"],
        refused: ["http://cdn.example.com:8443/x.jpg", "cdn.example.com/x.jpg"],
      },
      { list: ["*"], allowed: ["anything.example/x.jpg"], refused: ["local/photo.jpg"] },
      {
        list: ["local"],
        allowed: ["local/photo.jpg", "local/missing.jpg"],
        refused: ["cdn.example.com/x.jpg"],
      },
      {
        list: [],
        allowed: ["s3/media/a.jpg"],
        refused: ["cdn.example.com/x.jpg", "local/photo.jpg", "s3/other/a.jpg"],
      },
    ];
    for (const { list, allowed, refused } of cases) {
      await allow(list);
      for (const source of [...allowed, ...refused]) {
        // The route's answer to the source signed with the same key outside the tester, and its logged cause.
        const url = buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations: "w_100", source });
        const answer = await app.fetch(url.slice(url.indexOf("/api/v1/")));
        await app.settled();
        const logged = app.outcomes.at(-1)?.status;
        const signing = owner.caller.developer.signUrl({
          teamSlug,
          projectSlug,
          keyId: key.id,
          operations: "w_100",
          source,
          expiresInSeconds: 3600,
        });
        const label = `${JSON.stringify(list)} ${source}`;
        if (refused.includes(source)) {
          await expect(signing, label).rejects.toMatchObject({ code: "BAD_REQUEST" });
          expect([answer.status, logged], label).toEqual([403, "source_blocked"]);
        } else {
          await expect(signing, label).resolves.toMatchObject({ url: expect.stringContaining("/api/v1/tester/") });
          expect(logged, label).not.toBe("source_blocked");
          expect(answer.status, label).not.toBe(403);
        }
      }
    }
  });
});
