/**
 * npm run bench:faces — what g_face and g_auto keep and cost. On hand-annotated group portraits
 * (bench/face-annotations.ts) and views cut from them with one face off-centre (a landscape with the
 * face at a side, a portrait with it high), crops to 1:1, 4:5 and 16:9 made by the product's geometry
 * (planGeometry with the faces found) are checked for whether every annotated face stays whole, against
 * g_attention (libvips's crop, read back from sharp) and a centre crop. Then what the detector costs:
 * per view at each side it can work at, the worst named, at 1 MP, the whole transform with and without
 * it, and the memory it takes. Results: tables on stdout and artifacts/bench-faces.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import sharp from "sharp";
import { DEFAULT_TRANSFORM_LIMITS, parseOperations } from "@/server/image";
import { configureSharp, transformImage } from "@/server/image/engine";
import { DETECTOR_SIDE, tinyFaceDetector, type FaceDetector } from "@/server/image/faces/detector";
import { findFaces } from "@/server/image/faces/find-faces";
import { coverRegion, subjectCrop } from "@/server/image/faces/subject-crop";
import type { Region } from "@/server/image/orientation";
import { planGeometry } from "@/server/image/plan-geometry";
import { ANNOTATED, type Box } from "./face-annotations";
import { fmt, percentile } from "./lib/load";

const PHOTOS = "node_modules/@vladmandic/face-api/demo";
const SIDES = [224, DETECTOR_SIDE, 416];
const TARGET_MS = 50;
const CROPS = { "1:1": [400, 400], "4:5": [400, 500], "16:9": [640, 360] } as const;
type Aspect = keyof typeof CROPS;
const STRATEGIES = ["face", "auto", "attention", "centre"] as const;
type Strategy = (typeof STRATEGIES)[number];
/** Hand-drawn boxes are a few pixels loose: a face counts as whole within 5 % of its side. */
const SLACK = 0.05;

interface View {
  name: string;
  body: Buffer;
  width: number;
  height: number;
  /** Annotated faces wholly inside the view, in its pixels. */
  faces: Box[];
}

async function views(): Promise<View[]> {
  const out: View[] = [];
  for (const { file, faces } of ANNOTATED) {
    const photo = readFileSync(`${PHOTOS}/${file}`);
    const { width, height } = await sharp(photo).metadata();
    out.push({ name: file, body: photo, width: width!, height: height!, faces: [...faces] });
    for (const [i, face] of faces.entries()) {
      for (const shape of ["wide", "tall"] as const) {
        const window = windowAround(face, shape, i % 2 === 0, width!, height!);
        const body = await sharp(photo).extract(window).jpeg({ quality: 90 }).toBuffer();
        const inside = faces.filter((f) => contains(window, f, 0)).map((f) => shift(f, window));
        out.push({
          name: `${file} face ${i + 1} ${shape}`,
          body,
          width: window.width,
          height: window.height,
          faces: inside,
        });
      }
    }
  }
  return out;
}

/** A 3:2 view with the face at a side, or a 2:3 view with it high: where a centre crop loses it. */
function windowAround(face: Box, shape: "wide" | "tall", left: boolean, width: number, height: number): Region {
  const cx = face.left + face.width / 2;
  const cy = face.top + face.height / 2;
  let w: number, h: number, fx: number, fy: number;
  if (shape === "wide") {
    h = Math.min(height, face.height * 3);
    w = Math.min(width, h * 1.5);
    h = w / 1.5;
    [fx, fy] = [left ? 0.2 : 0.8, 0.45];
  } else {
    w = Math.min(width, face.width * 3.5);
    h = Math.min(height, w * 1.5);
    w = h / 1.5;
    [fx, fy] = [0.5, 0.2];
  }
  const clamp = (v: number, max: number) => Math.round(Math.min(Math.max(v, 0), max));
  const region = { width: Math.round(w), height: Math.round(h) };
  return { ...region, left: clamp(cx - fx * w, width - region.width), top: clamp(cy - fy * h, height - region.height) };
}

const shift = (b: Box, by: Region): Box => ({ ...b, left: b.left - by.left, top: b.top - by.top });

function contains(region: Region, face: Box, slack: number): boolean {
  const dx = face.width * slack;
  const dy = face.height * slack;
  return (
    face.left + dx >= region.left &&
    face.top + dy >= region.top &&
    face.left + face.width - dx <= region.left + region.width &&
    face.top + face.height - dy <= region.top + region.height
  );
}

/** The region each strategy keeps, in the view's pixels. */
async function cropOf(view: View, aspect: Aspect, strategy: Strategy, faces: Region[]): Promise<Region> {
  const [w, h] = CROPS[aspect];
  const source = { width: view.width, height: view.height };
  if (strategy === "attention") {
    const { info } = await sharp(view.body)
      .resize(w, h, { position: "attention" })
      .toBuffer({ resolveWithObject: true });
    const scale = Math.max(w / view.width, h / view.height);
    const left = Math.abs(info.cropOffsetLeft ?? 0) / scale;
    const top = Math.abs(info.cropOffsetTop ?? 0) / scale;
    return { left, top, width: w / scale, height: h / scale };
  }
  const kept = coverRegion(source, { width: w, height: h }, true);
  if (strategy === "centre") return subjectCrop(source, kept, []);
  const ops = parseOperations(`w_${w},h_${h},g_${strategy}`);
  const plan = planGeometry({ source, ops, maxOutputDimension: 8192, keepFrames: false, faces });
  if (plan.crop) return plan.crop;
  if (strategy === "auto") return cropOf(view, aspect, "attention", faces);
  return subjectCrop(source, kept, []);
}

/** Whether the annotated faces fit one crop of this shape at all (else no strategy can keep them all). */
function fits(view: View, aspect: Aspect): boolean {
  if (view.faces.length === 0) return false;
  const [w, h] = CROPS[aspect];
  const kept = coverRegion(view, { width: w, height: h }, true);
  const from = { x: Math.min(...view.faces.map((f) => f.left)), y: Math.min(...view.faces.map((f) => f.top)) };
  const to = {
    x: Math.max(...view.faces.map((f) => f.left + f.width)),
    y: Math.max(...view.faces.map((f) => f.top + f.height)),
  };
  return to.x - from.x <= kept.width && to.y - from.y <= kept.height;
}

async function timeDetector(all: View[], detector: FaceDetector) {
  const times: Array<{ name: string; ms: number }> = [];
  const found = new Map<string, Region[]>();
  for (const view of all) {
    const start = performance.now();
    const faces = await findFaces(view.body, view, DEFAULT_TRANSFORM_LIMITS, detector);
    times.push({ name: view.name, ms: performance.now() - start });
    found.set(view.name, faces);
  }
  return { times, found };
}

async function main(): Promise<void> {
  configureSharp();
  const all = await views();
  const rssBefore = process.memoryUsage().rss;
  await findFaces(all[0]!.body, all[0]!, DEFAULT_TRANSFORM_LIMITS); // loads TensorFlow.js and the weights
  const loadedMb = (process.memoryUsage().rss - rssBefore) / 2 ** 20;

  const bySide: Record<number, unknown> = {};
  const keeps: Array<Record<string, string | number>> = [];
  for (const side of SIDES) {
    const detector = tinyFaceDetector(side);
    await timeDetector(all.slice(0, 2), detector); // warm
    const { times, found } = await timeDetector(all, detector);
    const ms = times.map((t) => t.ms);
    const worst = times.reduce((a, b) => (b.ms > a.ms ? b : a));
    const detected = all.reduce(
      (n, v) => n + v.faces.filter((f) => (found.get(v.name) ?? []).some((d) => overlaps(d, f))).length,
      0,
    );
    const annotated = all.reduce((n, v) => n + v.faces.length, 0);
    bySide[side] = { p50: percentile(ms, 50), p95: percentile(ms, 95), worst, detected, annotated };
    for (const aspect of Object.keys(CROPS) as Aspect[]) {
      for (const strategy of STRATEGIES) {
        if (side !== DETECTOR_SIDE && (strategy === "attention" || strategy === "centre")) continue;
        let possible = 0,
          whole = 0,
          facesKept = 0,
          faces = 0;
        const lost: string[] = [];
        for (const view of all) {
          if (view.faces.length === 0) continue;
          const region = await cropOf(view, aspect, strategy, found.get(view.name) ?? []);
          const kept = view.faces.filter((f) => contains(region, f, SLACK)).length;
          faces += view.faces.length;
          facesKept += kept;
          if (fits(view, aspect)) {
            possible++;
            if (kept === view.faces.length) whole++;
            else lost.push(view.name);
          }
        }
        keeps.push({
          side,
          aspect,
          strategy,
          whole,
          possible,
          share: whole / possible,
          facesKept,
          faces,
          lost: lost.slice(0, 4).join("; "),
        });
      }
    }
  }

  // 1 MP: the time g_face adds to a whole transform, and the detector alone.
  const photo = await sharp(all[0]!.body).resize(1224, 816).jpeg({ quality: 85 }).toBuffer();
  const timeOf = async (segment: string) => {
    const ops = parseOperations(segment);
    await transformImage(photo, ops, { accept: null }, DEFAULT_TRANSFORM_LIMITS);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      await transformImage(photo, ops, { accept: null }, DEFAULT_TRANSFORM_LIMITS);
      times.push(performance.now() - start);
    }
    return percentile(times, 50);
  };
  const plain = await timeOf("w_400,h_400,f_webp");
  const withFaces = await timeOf("w_400,h_400,f_webp,g_face");
  const detectorAt1Mp: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    await findFaces(photo, { width: 1224, height: 816 }, DEFAULT_TRANSFORM_LIMITS);
    detectorAt1Mp.push(performance.now() - start);
  }

  console.log(
    `views: ${all.length} (${ANNOTATED.length} photographs, ${all.reduce((n, v) => n + v.faces.length, 0)} faces counted across views)`,
  );
  console.log("\n| side | detector p50 ms | p95 ms | worst | annotated faces found |");
  console.log("|---|---|---|---|---|");
  for (const side of SIDES) {
    const s = bySide[side] as {
      p50: number;
      p95: number;
      worst: { name: string; ms: number };
      detected: number;
      annotated: number;
    };
    console.log(
      `| ${side} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${s.worst.name} ${fmt(s.worst.ms)} | ${s.detected}/${s.annotated} |`,
    );
  }
  console.log(
    "\n| side | crop | strategy | every face whole (where they fit) | faces kept | first views that lost one |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const k of keeps) {
    console.log(
      `| ${k.side} | ${k.aspect} | ${k.strategy} | ${k.whole}/${k.possible} (${fmt(Number(k.share) * 100, 0)} %) | ${k.facesKept}/${k.faces} | ${k.lost} |`,
    );
  }
  const p50 = percentile(detectorAt1Mp, 50);
  console.log(
    `\nat 1 MP (1224×816 JPEG): detector ${fmt(p50)} ms p50 (${p50 <= TARGET_MS ? "within" : "over"} the ${TARGET_MS} ms target); ` +
      `whole w_400,h_400 WebP ${fmt(plain)} ms plain, ${fmt(withFaces)} ms with g_face (+${fmt(withFaces - plain)} ms)` +
      `\nmemory: loading the detector added ${fmt(loadedMb, 0)} MB of RSS`,
  );
  mkdirSync("artifacts", { recursive: true });
  writeFileSync(
    "artifacts/bench-faces.json",
    JSON.stringify({ bySide, keeps, at1Mp: { detectorP50: p50, plain, withFaces }, loadedMb }, null, 2),
  );
}

/** A detection matches an annotated face when it covers at least a third of it. */
function overlaps(d: Region, f: Box): boolean {
  const x = Math.max(0, Math.min(d.left + d.width, f.left + f.width) - Math.max(d.left, f.left));
  const y = Math.max(0, Math.min(d.top + d.height, f.top + f.height) - Math.max(d.top, f.top));
  return x * y >= (f.width * f.height) / 3;
}

void main();
