import { readFileSync } from "node:fs";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { createProcessPool } from "@/server/image/isolation/process-pool";
import { findFaces } from "@/server/image/faces/find-faces";
import { createTestApp, testTransformIsolation, type TestApp } from "../../support/app";
import { serveBytes, startOrigin, type Origin } from "../../support/origin";

/**
 * g_face, g_auto and fp_ through the route, with the real detector in a transform process. A face
 * (the right-hand woman of @vladmandic/face-api's demo/sample3.jpg, read from the installed package) is
 * pasted at the far right of a plain 2400×800 canvas: a centre crop to a square loses it, g_face must
 * keep the right-hand 800×800. A canvas with a red disc and no face is the face-less case.
 */
const FACE = { left: 1400, top: 180, width: 420, height: 460 };
let withFace: Buffer;
let faceless: Buffer;
let app: TestApp;
let origin: Origin;

const GREY = { r: 128, g: 128, b: 128 };

beforeAll(async () => {
  configureSharp();
  const sample = readFileSync("node_modules/@vladmandic/face-api/demo/sample3.jpg");
  const portrait = await sharp(sample).extract(FACE).toBuffer();
  withFace = await sharp({ create: { width: 2400, height: 800, channels: 3, background: GREY } })
    .composite([{ input: portrait, left: 2400 - FACE.width - 60, top: 170 }])
    .jpeg({ quality: 90 })
    .toBuffer();
  const disc = Buffer.from(`<svg width="300" height="300"><circle cx="150" cy="150" r="140" fill="#e00"/></svg>`);
  faceless = await sharp({ create: { width: 2400, height: 800, channels: 3, background: GREY } })
    .composite([{ input: disc, left: 100, top: 250 }])
    .jpeg({ quality: 90 })
    .toBuffer();
  origin = await startOrigin({
    "/face.jpg": serveBytes(withFace, "image/jpeg"),
    "/faceless.jpg": serveBytes(faceless, "image/jpeg"),
  });
  app = await createTestApp({ sourceHosts: [origin.host], env: { OPTSTUFF_TRANSFORM_ISOLATION: "auto" } });
});

afterAll(async () => {
  await app?.close();
  await origin?.close();
});

async function get(path: string, operations: string) {
  const before = app.services.delivery.transforms.placed!();
  const response = await app.fetch(app.signedPath(operations, `http://${origin.host}${path}`));
  const after = app.services.delivery.transforms.placed!();
  const body = Buffer.from(await response.arrayBuffer());
  const isolated = (after.isolated.faces ?? 0) - (before.isolated.faces ?? 0);
  return { response, body, inProcess: after.inProcess - before.inProcess, isolated };
}

/** Mean absolute difference per sample between two images of the same size. */
async function difference(a: Buffer, b: Buffer): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((img) => sharp(img).removeAlpha().raw().toBuffer()));
  expect(x!.length).toBe(y!.length);
  let sum = 0;
  for (let i = 0; i < x!.length; i++) sum += Math.abs(x![i]! - y![i]!);
  return sum / x!.length;
}

const cropOf = (image: Buffer, left: number) =>
  sharp(image).extract({ left, top: 0, width: 800, height: 800 }).resize(400, 400).png().toBuffer();

describe("g_face and g_auto", () => {
  it("keep a face a centre crop loses, in a transform process, and the answer is cached with its variant", async () => {
    const right = await cropOf(withFace, 1600);
    const centre = await get("/face.jpg", "w_400,h_400,f_png");
    expect(await difference(centre.body, right)).toBeGreaterThan(10);

    const face = await get("/face.jpg", "w_400,h_400,f_png,g_face");
    expect(face.response.status).toBe(200);
    expect(face.inProcess).toBe(0);
    expect(face.isolated).toBe(1);
    expect(await difference(face.body, right)).toBeLessThan(3);

    const auto = await get("/face.jpg", "w_400,h_400,f_png,g_auto");
    expect(await difference(auto.body, right)).toBeLessThan(3);

    const again = await get("/face.jpg", "w_400,h_400,f_png,g_face");
    expect(again.isolated).toBe(0);
    expect(again.body.equals(face.body)).toBe(true);
  });

  it("without a face: g_face keeps the centre, g_auto what attention keeps", async () => {
    const plain = await get("/faceless.jpg", "w_400,h_400,f_png");
    const face = await get("/faceless.jpg", "w_400,h_400,f_png,g_face");
    expect(face.response.status).toBe(200);
    expect(await difference(face.body, plain.body)).toBe(0);
    const attention = await get("/faceless.jpg", "w_400,h_400,f_png,g_attention");
    const auto = await get("/faceless.jpg", "w_400,h_400,f_png,g_auto");
    expect(await difference(auto.body, attention.body)).toBe(0);
    // attention found the red disc, at the left: not the centre.
    expect(await difference(auto.body, plain.body)).toBeGreaterThan(10);
  });

  it("fp_ keeps the point asked for", async () => {
    const left = await get("/faceless.jpg", "w_400,h_400,f_png,fp_0_0.5");
    expect(await difference(left.body, await cropOf(faceless, 0))).toBeLessThan(3);
    const right = await get("/face.jpg", "w_400,h_400,f_png,fp_1_0");
    expect(await difference(right.body, await cropOf(withFace, 1600))).toBeLessThan(3);
  });

  it("info lists the faces found, in source pixels, and an empty list when there are none", async () => {
    const described = await get("/face.jpg", "info,g_face");
    type Box = { left: number; top: number; width: number; height: number; score: number };
    const info = JSON.parse(described.body.toString()) as { faces: Box[]; output?: unknown };
    expect(info.output).toBeUndefined();
    expect(info.faces).toHaveLength(1);
    const [box] = info.faces;
    // Within the pasted portrait (1920..2340 × 170..630).
    expect(box!.left).toBeGreaterThanOrEqual(1880);
    expect(box!.left + box!.width).toBeLessThanOrEqual(2380);
    expect(box!.top).toBeGreaterThanOrEqual(130);
    expect(box!.top + box!.height).toBeLessThanOrEqual(670);
    expect(box!.score).toBeGreaterThan(0.5);
    const none = JSON.parse((await get("/faceless.jpg", "info,g_auto")).body.toString()) as { faces: unknown[] };
    expect(none.faces).toEqual([]);
    const plain = JSON.parse((await get("/face.jpg", "info")).body.toString()) as { faces?: unknown };
    expect(plain.faces).toBeUndefined();
  });
});

describe("g_face in transform processes", () => {
  it("keeps the process that loaded the detector for the next face job, rather than recycling it each time", async () => {
    const pool = createProcessPool({ ...testTransformIsolation(), idleMs: 60_000 });
    try {
      const pids = new Set<number>();
      const sampler = setInterval(() => pool.stats().busyPids.forEach((pid) => pids.add(pid)), 2);
      for (const w of [400, 300, 200]) {
        const result = await pool.transform(
          withFace,
          parseOperations(`w_${w},h_${w},g_face`),
          { accept: null },
          DEFAULT_TRANSFORM_LIMITS,
        );
        expect(result.faces).toHaveLength(1);
      }
      clearInterval(sampler);
      expect(pids.size).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it("answers a truncated source with the decode error, as without g_face", async () => {
    const truncated = withFace.subarray(0, Math.floor(withFace.length * 0.6));
    for (const segment of ["w_400,h_100,g_face", "info,g_face"]) {
      await expect(
        transformImage(truncated, parseOperations(segment), { accept: null }, DEFAULT_TRANSFORM_LIMITS),
      ).rejects.toMatchObject({ code: "IMAGE_DECODE_FAILED" });
    }
  });
});

describe("the detector", () => {
  it("leaves the process's own handlers for uncaught errors as they were", async () => {
    const before = [process.listenerCount("uncaughtException"), process.listenerCount("unhandledRejection")];
    const faces = await findFaces(withFace, { width: 2400, height: 800 }, DEFAULT_TRANSFORM_LIMITS);
    expect(faces).toHaveLength(1);
    expect([process.listenerCount("uncaughtException"), process.listenerCount("unhandledRejection")]).toEqual(before);
  });

  it("looks at the image as oriented by EXIF, and answers in those pixels", async () => {
    // The same picture stored turned a quarter and tagged to be shown upright.
    const stored = await sharp(withFace).rotate(270).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
    const [upright] = await findFaces(withFace, { width: 2400, height: 800 }, DEFAULT_TRANSFORM_LIMITS);
    const [tagged] = await findFaces(stored, { width: 2400, height: 800 }, DEFAULT_TRANSFORM_LIMITS);
    expect(Math.abs(tagged!.left - upright!.left)).toBeLessThan(20);
    expect(Math.abs(tagged!.top - upright!.top)).toBeLessThan(20);
  });
});
