import os from "node:os";
import path from "node:path";
import { choice, group, integer, machineInteger, type ValuesOf } from "@/server/config/setting";
import type { TransformLimits } from "./types";

/** What one transform may cost, and how many run at once (measured in docs/benchmarks.md). */
export const imageSettings = group("Transforms", {
  OPTSTUFF_MAX_INPUT_PIXELS: integer({
    default: 50_000_000,
    min: 1,
    doc: "Input pixels over all decoded frames: an 8K photo, or a 100-frame 700×700 animation.",
  }),
  OPTSTUFF_MAX_OUTPUT_DIMENSION: integer({ default: 8192, min: 1, doc: "The largest output width or height." }),
  OPTSTUFF_MAX_OUTPUT_PIXELS: integer({
    default: 24_000_000,
    min: 1,
    doc: "The largest output area of one frame (a 6000×4000 photo); larger results are scaled down to fit.",
  }),
  OPTSTUFF_MAX_AVIF_PIXELS: integer({
    default: 3840 * 2160,
    min: 1,
    doc: "The largest AVIF output area (3840×2160), whose encoder no timeout interrupts: `f_auto` answers WebP above it, `f_avif` is scaled down to it.",
  }),
  OPTSTUFF_MAX_FRAMES: integer({ default: 500, min: 1, doc: "Animation frames decoded at most." }),
  OPTSTUFF_TRANSFORM_TIMEOUT_MS: integer({
    default: 20_000,
    min: 1000,
    doc: "A transform's budget, in ms: long enough for a large AVIF on a slow core, short enough to free the slot.",
  }),
  OPTSTUFF_WEBP_EFFORT: integer({
    default: 4,
    min: 0,
    max: 6,
    doc: "WebP encoder effort (libwebp's default): 2 encodes 30–40 % faster for a few percent more bytes.",
  }),
  OPTSTUFF_TRANSFORM_CONCURRENCY: machineInteger({
    default: () => 2 * os.availableParallelism(),
    min: 1,
    defaultText: "twice the cores",
    doc: "Transforms at once: a core is never idle while a finished transform's JavaScript runs (`npm start` sizes libuv's pool to it + 4).",
  }),
  OPTSTUFF_TRANSFORM_QUEUE: integer({
    default: 64,
    min: 0,
    doc: "Transforms waiting beyond the running ones before 503.",
  }),
  OPTSTUFF_TRANSFORM_FAIR_SHARE: choice(["on", "off"], {
    default: "on",
    doc: "Teams take turns for transform slots, a team may fill half the queue, one slot is kept for teams with nothing running, a team's extra jobs run at low CPU priority while another team has work; `off`: one first-come queue.",
  }),
  OPTSTUFF_TRANSFORM_ISOLATION: choice(["auto", "process", "none"], {
    default: "auto",
    doc: "Where transforms run: `process` (child processes killed past the time budget or the memory cap, since some native calls ignore libvips' timeout), `none` (this process); `auto` runs the stills that cannot run away (JPEG of a few scans, PNG, WebP and still GIF within 24 MP and the output budgets) in this process and everything else (SVG, AVIF/HEIF, animation, large outputs…) in child processes, except on Vercel, whose function limits bound each call: `none` there. `process` keeps cache hits quicker while transforms load the cores (bench:cache), at more CPU and memory per transform.",
  }),
  OPTSTUFF_TRANSFORM_JOBS_PER_PROCESS: integer({
    default: 2,
    min: 1,
    max: 16,
    doc: "Transforms one transform process runs at once: they share its start-up and libraries (≈ 60 MB a process). A job killed past its budget ends its neighbours too; they are run again, each alone.",
  }),
  OPTSTUFF_TRANSFORM_MEMORY_MB: integer({
    default: 512,
    min: 64,
    doc: "Resident memory a transform process may reach before its job is ended (413).",
  }),
  OPTSTUFF_TRANSFORM_NICE: integer({
    default: 10,
    min: 0,
    max: 19,
    doc: "CPU niceness of the transform processes, and (Linux) of the server's own threads but its main one from the first transform placed in it on: when the cores are busy, cache hits, 304s and the dashboard go first; a team's extra jobs in the processes run at 19.",
  }),
  OPTSTUFF_SVG_FONTS: choice(["bundled", "system"], {
    default: "bundled",
    doc: "The fonts SVG text is drawn with: `bundled` (DejaVu, the same on every machine and the only fonts on Vercel) or `system` (the machine's fontconfig).",
  }),
});

export type ImageValues = ValuesOf<typeof imageSettings>;

/** The bundled fonts for SVG text (DejaVu, from the dejavu-fonts-ttf package), as fontconfig reads them. */
export const FONT_CONFIG = "assets/fonts.conf";

export function transformLimitsOf(v: ImageValues): TransformLimits {
  return {
    maxInputPixels: v.OPTSTUFF_MAX_INPUT_PIXELS,
    maxOutputDimension: v.OPTSTUFF_MAX_OUTPUT_DIMENSION,
    maxOutputPixels: v.OPTSTUFF_MAX_OUTPUT_PIXELS,
    maxAvifPixels: v.OPTSTUFF_MAX_AVIF_PIXELS,
    maxFrames: v.OPTSTUFF_MAX_FRAMES,
    timeoutMs: v.OPTSTUFF_TRANSFORM_TIMEOUT_MS,
    webpEffort: v.OPTSTUFF_WEBP_EFFORT,
  };
}

/** The fontconfig file SVG text is drawn with; null: the machine's fonts. */
export const fontConfigOf = (v: ImageValues): string | null =>
  v.OPTSTUFF_SVG_FONTS === "bundled" ? path.resolve(FONT_CONFIG) : null;

const defaults = imageSettings.settings;

/** The limits of a transform when nothing else is configured (the command line's doctor, benchmarks, tests). */
export const DEFAULT_TRANSFORM_LIMITS: Readonly<TransformLimits> = {
  maxInputPixels: defaults.OPTSTUFF_MAX_INPUT_PIXELS.default,
  maxOutputDimension: defaults.OPTSTUFF_MAX_OUTPUT_DIMENSION.default,
  maxOutputPixels: defaults.OPTSTUFF_MAX_OUTPUT_PIXELS.default,
  maxAvifPixels: defaults.OPTSTUFF_MAX_AVIF_PIXELS.default,
  maxFrames: defaults.OPTSTUFF_MAX_FRAMES.default,
  timeoutMs: defaults.OPTSTUFF_TRANSFORM_TIMEOUT_MS.default,
  webpEffort: defaults.OPTSTUFF_WEBP_EFFORT.default,
};
