import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { sign, signaturePayload } from "@/server/signing";
import { pixelBombPng, svgEmbedding } from "../support/hostile";
import { serveLocalSources } from "../support/served-local-sources";

/**
 * Hostile inputs against the built app as `npm start` runs it: what the client gets (status, JSON
 * body, request id, time) once Next's own request path and the transform processes are in the way.
 */
const served = serveLocalSources(async () => ({
  "embed.svg": svgEmbedding(pixelBombPng(10_000, 10_000)),
  "small.jpg": await sharp({ create: { width: 64, height: 48, channels: 3, background: "#2a6" } })
    .jpeg()
    .toBuffer(),
}));
const { signed } = served;

describe("hostile inputs through the served app", () => {
  it("answers an SVG carrying a 10000² data: PNG with the contract's 413, quickly", async () => {
    const started = performance.now();
    const response = await fetch(signed("f_png", "local/embed.svg"));
    expect(response.status).toBe(413);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as { code: string; requestId: string };
    expect(body.code).toBe("IMAGE_TOO_LARGE");
    expect(body.requestId).toBe(response.headers.get("x-request-id"));
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it("scales an 8192² enlarged AVIF at q99 down to the AVIF area and answers within the budget", async () => {
    const started = performance.now();
    const response = await fetch(signed("w_8192,h_8192,fit_fill,enlarge,f_avif,q_99", "local/small.jpg"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/avif");
    const meta = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect(meta.width! * meta.height!).toBeLessThanOrEqual(3840 * 2160);
    expect(performance.now() - started).toBeLessThan(25_000);
  });

  it("refuses an expired URL whose exp was moved into the source (403, not served forever)", async () => {
    const exp = Math.floor(Date.now() / 1000) - 60;
    const expired = new URL(signed("w_20", "local/small.jpg", exp));
    expect((await fetch(expired)).status).toBe(403);
    const sig = sign(served.vars.OPTSTUFF_SECRET_KEY!, signaturePayload("w_20", "local/small.jpg", exp));
    const { OPTSTUFF_PROJECT_SLUG: slug, OPTSTUFF_PUBLIC_KEY: key } = served.vars;
    const replay = `${served.app.baseUrl}/api/v1/${slug}/w_20/local/small.jpg%3Fexp%3D${exp}?key=${key}&sig=${sig}`;
    const response = await fetch(replay);
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe("FORBIDDEN");
  });
});
