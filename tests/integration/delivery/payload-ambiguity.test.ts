import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sign, signaturePayload } from "@/server/signing";
import { createTestApp, type TestApp } from "../../support/app";
import { makePng } from "../../support/images";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";
import { buildSignedUrl } from "../../support/signed-url";

// Contract §2: `{ops}/{source}?exp=N` is also what a source ending in `?exp=N` signs without exp.
let app: TestApp;
let origin: Origin;

beforeAll(async () => {
  // The origin routes by path and ignores the query, as most CDNs and buckets do.
  origin = await startOrigin({ "/a.png": serveBytes(await makePng(40, 40), "image/png") });
  app = await createTestApp({ sourceHosts: [origin.host] });
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

const source = () => `http://${origin.host}/a.png`;
const pastExp = () => Math.floor(Date.now() / 1000) - 3600;

/** The expired URL with its `?exp=N` moved into the source (`%3F`, `%3D`) and no exp parameter. */
function replayAsPermanent(expiredPath: string, exp: number): string {
  const url = new URL(expiredPath, "http://x");
  url.searchParams.delete("exp");
  const [pathname] = expiredPath.split("?");
  return `${pathname}%3Fexp%3D${exp}?${url.searchParams}`;
}

describe("payload ambiguity (contract §2)", () => {
  it("refuses an expired URL replayed with its exp moved into the source", async () => {
    const exp = pastExp();
    const expired = app.signedPath("w_10", source(), { exp });
    const expiredResponse = await app.fetch(expired);
    expect(expiredResponse.status).toBe(403);
    expect((await expiredResponse.json()).error).toBe("Signature has expired");

    const replay = await app.fetch(replayAsPermanent(expired, exp));
    expect(replay.status).toBe(403);
    expect(await replay.json()).toMatchObject({ code: "FORBIDDEN" });
    await app.settled();
    expect(app.outcomes.at(-1)?.status).toBe("sig_invalid");
  });

  it("refuses a source ending in ?exp=digits without exp even when genuinely signed that way", async () => {
    // Signed by hand: the builders refuse to write this URL.
    const sig = sign(app.key.secretKey, signaturePayload("w_10", `${source()}?exp=1`));
    const path = `/api/v1/${app.projectSlug}/w_10/http%3A/${origin.host}/a.png%3Fexp%3D1?key=${app.key.publicKey}&sig=${sig}`;
    expect((await app.fetch(path)).status).toBe(403);
  });

  it("keeps serving sources with a query, a fragment-like or a trailing ?, and ?exp= that is not all digits", async () => {
    for (const variant of [`${source()}?v=2`, `${source()}?`, `${source()}?exp=soon`, `${source()}?exp=1&v=2`]) {
      const response = await app.fetch(app.signedPath("w_10", variant));
      expect(response.status, variant).toBe(200);
    }
  });

  it("still serves a source ending in ?exp=N when the URL carries its own exp", async () => {
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const response = await app.fetch(app.signedPath("w_12", `${source()}?exp=5`, { exp }));
    expect(response.status).toBe(200);
  });

  it("the server's builder refuses to sign what the route would refuse", () => {
    const keys = { publicKey: app.key.publicKey, secretKey: app.key.secretKey };
    expect(() =>
      buildSignedUrl({
        baseUrl: "http://x",
        projectSlug: "blog",
        ...keys,
        operations: "_",
        source: "cdn.example.com/a.png?exp=12",
      }),
    ).toThrow(/exp/);
    // The payload of the contract's vectors is untouched.
    expect(
      sign(
        "sk_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
        signaturePayload("w_800,f_webp", "images.example.com/photo.jpg", 1706500000),
      ),
    ).toBe("h_lXxUEYefTOzUjHQOcmBfifgpOJgM9J");
  });
});
