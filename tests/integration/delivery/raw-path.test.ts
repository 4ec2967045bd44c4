import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app";

// Contract §4: malformed percent-encoding anywhere in the path is the JSON 400, counted like any other
// refusal. The route decodes the raw path itself (Next's router would fail first with a 500 page).
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});

afterAll(async () => {
  await app?.close();
});

/** A valid signed path with one part replaced by a malformed escape. */
function malformed(part: "slug" | "operations" | "source", escape: string): string {
  const signed = app.signedPath("w_20", "local/photo.jpg");
  const [pathname, query] = signed.split("?");
  const [, , , slug, operations, ...source] = pathname!.split("/");
  const parts = { slug: slug!, operations: operations!, source: source.join("/") };
  parts[part] = part === "source" ? `local/${escape}.jpg` : `${parts[part]}${escape}`;
  return `/api/v1/${parts.slug}/${parts.operations}/${parts.source}?${query}`;
}

describe("malformed percent-encoding in the path", () => {
  it.each([
    ["slug", "%zz"],
    ["operations", "%E0%A4%A"],
    ["source", "%C0%AF"],
    ["source", "%"],
    ["source", "%ED%A0%80"], // a lone UTF-16 surrogate, encoded
  ] as const)(
    "answers the contract's JSON 400 with a request id (%s: %s), logged and counted",
    async (part, escape) => {
      const before = app.outcomes.length;
      const response = await app.fetch(malformed(part, escape));
      expect(response.status).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-store");
      const body = (await response.json()) as { code: string; error: string; requestId: string };
      expect(body).toEqual({
        code: "BAD_REQUEST",
        error: "Malformed percent-encoding in the path",
        requestId: response.headers.get("x-request-id"),
      });
      await app.settled();
      expect(app.outcomes.slice(before)).toEqual([
        expect.objectContaining({ requestId: body.requestId, status: "bad_request", httpStatus: 400 }),
      ]);
    },
  );

  it("still serves a well-formed path, its Content-Length the body's", async () => {
    const response = await app.fetch(app.signedPath("w_20", "local/photo.jpg"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-length")).toBe(String((await response.arrayBuffer()).byteLength));
  });
});
