import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../support/app";
import { signUp, type TestUser } from "../../support/dashboard";
import { pixelBombPng, scanBombJpeg } from "../../support/hostile";
import { startOrigin, type Origin } from "../../support/origin";
import { tokenOf } from "../../support/tenant-world";
import { near, pixel, solid } from "../image/generate";
import { buildSignedUrl } from "../../support/signed-url";

/** The watermark and the fallback image, from the dashboard's procedures to the pixels of the real image route. */
let app: TestApp;
let owner: TestUser;
let origin: Origin;
let teamSlug: string;
let key: { publicKey: string; secretKey: string };
const projectSlug = "shop";
const RED = [255, 0, 0, 255];
const GREEN = [0, 255, 0, 255];
const BLUE = [0, 0, 255, 255];

const png = async (width: number, height: number, colour: [number, number, number]) =>
  (await solid(width, height, colour).png().toBuffer()).toString("base64");

beforeAll(async () => {
  origin = await startOrigin({
    "/broken.jpg": (_, response) => void response.writeHead(500).end("upstream broke"),
    "/text.jpg": (_, response) =>
      void response.writeHead(200, { "Content-Type": "text/plain" }).end("not an image at all"),
    "/slow.jpg": () => undefined,
  });
  app = await createTestApp({
    env: { OPTSTUFF_FETCH_TIMEOUT_MS: "700" },
  });
  owner = await signUp(app.services, "images");
  teamSlug = (
    await owner.caller.account.completeOnboarding({
      name: "Images",
      slug: `images-${owner.id.slice(0, 8).toLowerCase()}`,
    })
  ).slug;
  await owner.caller.project.create({
    teamSlug,
    name: "Shop",
    slug: projectSlug,
    allowedSourceHosts: ["local", origin.host],
  });
  key = await owner.caller.apiKey.create({ teamSlug, projectSlug, name: "images", expiresAt: null });
}, 30_000);
afterAll(async () => {
  await app.close();
  await origin.close();
});

const scope = () => ({ teamSlug, projectSlug });
const get = (operations: string, source = "local/photo.jpg", headers: Record<string, string> = {}) => {
  const url = buildSignedUrl({ baseUrl: "http://x", projectSlug, ...key, operations, source });
  return app.fetch(url.slice(url.indexOf("/api/v1/")), { headers });
};
const body = async (response: Response) => Buffer.from(await response.arrayBuffer());
const settings = { opacity: 1, gravity: "southeast", x: 0, y: 0, scale: 0.25, always: false } as const;

describe("the project's watermark", () => {
  it("is placed by wm with the project's settings, which the URL's values override; a new upload or setting makes new variants", async () => {
    expect((await get("w_200,f_png,wm")).status).toBe(400);
    await owner.caller.projectImage.upload({ ...scope(), kind: "watermark", base64: await png(100, 50, [255, 0, 0]) });
    await owner.caller.projectImage.setWatermark({ ...scope(), ...settings });
    // 200×133 output: the mark is 50×25 in the bottom-right corner.
    const marked = await get("w_200,f_png,wm");
    expect(marked.status).toBe(200);
    const image = await body(marked);
    expect(near(await pixel(image, 199, 132), RED, 2)).toBe(true);
    expect(near(await pixel(image, 151, 109), RED, 2)).toBe(true);
    expect(near(await pixel(await body(await get("w_200,f_png")), 199, 132), RED, 60)).toBe(false);
    // The URL's values: top-left, half opacity.
    const moved = await body(await get("w_200,f_png,wm_0.5_northwest_0_0"));
    expect(near(await pixel(moved, 199, 132), RED, 60)).toBe(false);
    expect((await pixel(moved, 2, 2))[0]).toBeGreaterThan(100);
    expect((await pixel(moved, 2, 2))[0]).toBeLessThan(250);

    await owner.caller.projectImage.upload({ ...scope(), kind: "watermark", base64: await png(100, 50, [0, 255, 0]) });
    const replaced = await get("w_200,f_png,wm", "local/photo.jpg", { "If-None-Match": marked.headers.get("etag")! });
    expect(replaced.status).toBe(200);
    expect(near(await pixel(await body(replaced), 199, 132), GREEN, 2)).toBe(true);
    await owner.caller.projectImage.setWatermark({ ...scope(), ...settings, gravity: "southwest" });
    const resettled = await body(await get("w_200,f_png,wm"));
    expect(near(await pixel(resettled, 1, 132), GREEN, 2)).toBe(true);
    expect((await owner.caller.projectImage.get(scope())).watermark).toMatchObject({
      format: "png",
      width: 100,
      height: 50,
      settings: { gravity: "southwest" },
    });
  });

  it("on every output when the project says so, with its own placement; info and a deleted watermark", async () => {
    await owner.caller.projectImage.setWatermark({ ...scope(), ...settings, always: true });
    try {
      expect(near(await pixel(await body(await get("w_200,f_png")), 199, 132), GREEN, 2)).toBe(true);
      expect(near(await pixel(await body(await get("w_200,f_png,wm")), 199, 132), GREEN, 2)).toBe(true);
      const moved = await get("w_200,f_png,wm_0.5");
      expect(moved.status).toBe(400);
      expect(((await moved.json()) as { error: string }).error).toMatch(/every output/);
      // The watermark redraws the pixels: the source's metadata cannot ride on them.
      for (const segment of ["w_200,f_png,meta_keep", "w_200,f_png,cs_keep"]) {
        const kept = await get(segment);
        expect(kept.status, segment).toBe(400);
        expect(((await kept.json()) as { error: string }).error).toMatch(/meta_keep and cs_keep cannot be combined/);
      }
      expect((await get("info")).headers.get("content-type")).toMatch(/json/);
    } finally {
      await owner.caller.projectImage.setWatermark({ ...scope(), ...settings });
    }
    await owner.caller.projectImage.delete({ ...scope(), kind: "watermark" });
    const refused = await get("w_200,f_png,wm");
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toMatch(/no watermark/);
    expect((await get("w_200,f_png")).status).toBe(200);
  });
});

describe("the fallback image", () => {
  it("answers a failed source with the fallback, transformed, cached briefly, saying so; the error is logged", async () => {
    expect((await get("w_100,f_png", "local/missing.jpg")).status).toBe(404);
    await owner.caller.projectImage.upload({ ...scope(), kind: "fallback", base64: await png(300, 200, [0, 0, 255]) });
    for (const [source, code] of [
      ["local/missing.jpg", "SOURCE_NOT_FOUND"],
      [`http://${origin.host}/broken.jpg`, "SOURCE_FAILED"],
      [`http://${origin.host}/text.jpg`, "UNSUPPORTED_IMAGE"],
      [`http://${origin.host}/slow.jpg`, "SOURCE_TIMEOUT"],
    ] as const) {
      const response = await get("w_100,f_png", source);
      expect(response.status, source).toBe(200);
      expect(response.headers.get("x-optstuff-fallback")).toBe(code);
      expect(response.headers.get("cache-control")).toBe("public, max-age=60, s-maxage=60");
      expect(response.headers.get("etag")).toBeNull();
      const image = await body(response);
      expect(await sharp(image).metadata()).toMatchObject({ format: "png", width: 100, height: 67 });
      expect(near(await pixel(image, 50, 30), BLUE, 2)).toBe(true);
    }
    await app.settled();
    const logged = app.outcomes.filter((o) => o.sourceUrl?.endsWith("missing.jpg") && o.httpStatus === 200);
    expect(logged.map((o) => o.status)).toEqual(["source_error"]);
    // Made once per variant: the next failure with the same operations is a cache hit.
    await get("w_100,f_png", "local/missing.jpg");
    await app.settled();
    expect(app.outcomes.at(-1)).toMatchObject({ status: "source_error", httpStatus: 200, cache: "hit" });
  });

  it("answers with the new image at once when the fallback is replaced, not the old one's stored outputs", async () => {
    // The variant was made from the blue fallback and kept (memory and store) by the test before.
    const before = await body(await get("w_100,f_png", "local/missing.jpg"));
    expect(near(await pixel(before, 50, 30), BLUE, 2)).toBe(true);
    await owner.caller.projectImage.upload({ ...scope(), kind: "fallback", base64: await png(300, 200, [0, 255, 0]) });
    const after = await get("w_100,f_png", "local/missing.jpg");
    expect(after.headers.get("x-optstuff-fallback")).toBe("SOURCE_NOT_FOUND");
    expect(near(await pixel(await body(after), 50, 30), GREEN, 2)).toBe(true);
  });

  it("does not stand in for the request's own faults, and goes once deleted", async () => {
    expect((await get("w_0", "local/missing.jpg")).status).toBe(400);
    expect((await get("w_100", "https://elsewhere.example/a.jpg")).status).toBe(403);
    await owner.caller.projectImage.delete({ ...scope(), kind: "fallback" });
    expect((await get("w_100,f_png", "local/missing.jpg")).status).toBe(404);
  });
});

describe("uploads", () => {
  it("refuse what is not a small raster image, with a message naming the problem", async () => {
    const upload = (base64: string) => owner.caller.projectImage.upload({ ...scope(), kind: "watermark", base64 });
    await expect(upload(Buffer.from("hello").toString("base64"))).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "That file is not an image we take: upload a PNG, JPEG, WebP, GIF or AVIF image",
    });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>').toString("base64");
    await expect(upload(svg)).rejects.toMatchObject({ message: expect.stringContaining("PNG, JPEG, WebP, GIF, AVIF") });
    await expect(upload(await png(3000, 10, [0, 0, 0]))).rejects.toMatchObject({
      message: expect.stringContaining("at most 2048 px"),
    });
    // Refused by its header in a transform process: the server itself parses nothing an uploader sent.
    await expect(upload(pixelBombPng(20_000, 20_000).toString("base64"))).rejects.toMatchObject({
      message: "The image is too large: at most 2048 px a side",
    });
    await expect(upload("A".repeat(800_000))).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("512 KiB"),
    });
    await expect(upload("")).rejects.toMatchObject({ message: "The file is empty" });
    // A PNG cut short: the header parses, the pixels do not.
    const whole = Buffer.from(await png(200, 200, [9, 9, 9]), "base64");
    await expect(upload(whole.subarray(0, 60).toString("base64"))).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      owner.caller.projectImage.setWatermark({ ...scope(), ...settings, scale: 0.01 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(owner.caller.projectImage.setWatermark({ ...scope(), ...settings })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("are decoded in a transform process, and one that decodes too long is refused there", async () => {
    // 28,500 progressive scans over 2048² blocks: about 13 s of libjpeg's time, in one call that no
    // timeout interrupts; the transform process running it is killed past the upload's 5 s.
    const refused = await owner.caller.projectImage
      .upload({ ...scope(), kind: "fallback", base64: scanBombJpeg(2048, 28_500).toString("base64") })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: "BAD_REQUEST",
      message: "The image takes too long to decode: save it again (baseline, not progressive) and upload that",
    });
  });

  it("are for admins; members see them", async () => {
    await owner.caller.projectImage.upload({ ...scope(), kind: "fallback", base64: await png(10, 10, [1, 2, 3]) });
    const member = await signUp(app.services, "images-member");
    const invitation = await owner.caller.team.invite({ teamSlug, email: member.email, role: "member" });
    await member.caller.account.acceptInvitation({ token: tokenOf(invitation.link) });
    expect((await member.caller.projectImage.get(scope())).fallback).toMatchObject({
      width: 10,
      height: 10,
      preview: expect.stringMatching(/^data:image\/png;base64,/),
    });
    await expect(
      member.caller.projectImage.upload({ ...scope(), kind: "fallback", base64: await png(10, 10, [0, 0, 0]) }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.caller.projectImage.delete({ ...scope(), kind: "fallback" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});
