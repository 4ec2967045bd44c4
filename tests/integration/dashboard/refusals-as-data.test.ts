import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFUSALS_AS_DATA } from "@/lib/trpc/refusals";
import { createTrpcRouteHandler } from "@/server/http/trpc-route";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";

/**
 * A browser logs every 4xx answer as a console error, so a form the server refuses (an expected
 * answer, shown at its field) filled the console. The dashboard's own client asks for refusals as
 * data: 200, the same error body. Other clients keep the status. Through the HTTP handler.
 */
let app: TestApp;
let owner: TestUser;
let teamSlug: string;

beforeAll(async () => {
  app = await createTestApp();
  owner = await signUp(app.services, "refusals");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Refusals",
      slug: `refusals-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({ teamSlug, name: "Site", slug: "site" });
}, 30_000);
afterAll(() => app.close());

interface Answer {
  status: number;
  body: unknown;
}

async function post(procedure: string, input: unknown, asDashboard: boolean, cookie = owner.cookie): Promise<Answer> {
  const response = await createTrpcRouteHandler(async () => app.services)(
    new Request(`http://optstuff.test/api/trpc/${procedure}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(cookie && { cookie }),
        ...(asDashboard && { [REFUSALS_AS_DATA.header]: REFUSALS_AS_DATA.value }),
      },
      body: JSON.stringify({ json: input }),
    }),
  );
  return { status: response.status, body: await response.json() };
}

async function get(batch: Array<[procedure: string, input: unknown]>, asDashboard: boolean): Promise<Answer> {
  const paths = batch.map(([procedure]) => procedure).join(",");
  const input = JSON.stringify(Object.fromEntries(batch.map(([, json], i) => [i, { json }])));
  const response = await createTrpcRouteHandler(async () => app.services)(
    new Request(`http://optstuff.test/api/trpc/${paths}?batch=1&input=${encodeURIComponent(input)}`, {
      headers: {
        cookie: owner.cookie,
        ...(asDashboard && { [REFUSALS_AS_DATA.header]: REFUSALS_AS_DATA.value }),
      },
    }),
  );
  return { status: response.status, body: await response.json() };
}

describe("refusals answered to the dashboard's client", () => {
  it("come as 200 with the error body a script gets with its status, field errors and code included", async () => {
    const refused = { teamSlug, projectSlug: "site", allowedSourceHosts: ["10.0.0.1"] };
    const script = await post("project.update", refused, false);
    const dashboard = await post("project.update", refused, true);
    expect(script.status).toBe(400);
    expect(dashboard.status).toBe(200);
    const withoutId = (answer: Answer) =>
      JSON.parse(JSON.stringify(answer.body).replace(/"requestId":"[^"]+"/, '"requestId":"…"')) as unknown;
    expect(withoutId(dashboard)).toEqual(withoutId(script));
    expect(dashboard.body).toMatchObject({
      error: {
        json: {
          data: {
            httpStatus: 400,
            appCode: "INVALID_INPUT",
            fieldErrors: { allowedSourceHosts: [expect.stringContaining('"10.0.0.1"')] },
          },
        },
      },
    });

    // A conflict, a refusal of the schema, a missing session: each a refusal, each as data.
    for (const [procedure, input, cookie, httpStatus] of [
      ["project.create", { teamSlug, name: "Again", slug: "site" }, owner.cookie, 409],
      ["project.create", { teamSlug, name: " ", slug: "Bad Slug!" }, owner.cookie, 400],
      ["project.create", { teamSlug, name: "Signed out", slug: "signed-out" }, "", 401],
    ] as const) {
      const answer = await post(procedure, input, true, cookie);
      expect(answer.status, procedure).toBe(200);
      expect(answer.body, procedure).toMatchObject({ error: { json: { data: { httpStatus } } } });
      expect((await post(procedure, input, false, cookie)).status, procedure).toBe(httpStatus);
    }
  });

  it("in a batch too, beside the answers that succeeded", async () => {
    const batch: Array<[string, unknown]> = [
      ["team.get", { teamSlug }],
      ["project.get", { teamSlug, projectSlug: "no-such-project" }],
    ];
    const script = await get(batch, false);
    const dashboard = await get(batch, true);
    expect(script.status).toBe(207);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toMatchObject([
      { result: { data: { json: { team: { slug: teamSlug } } } } },
      { error: { json: { data: { httpStatus: 404 } } } },
    ]);
  });
});
