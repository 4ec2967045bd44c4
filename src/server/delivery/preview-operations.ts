import { readFile } from "node:fs/promises";
import type { ConfigStore } from "@/server/config-cache/config-store";
import { AppError, isAppError } from "@/server/errors";
import { jobCost, type ImageOperations, type TransformLimits, type Transformer } from "@/server/image";
import type { TransformScheduler } from "@/server/image/transform-scheduler";
import { withDefaultQuality } from "./default-quality";
import type { ProjectImageLoader } from "./project-image-bytes";
import { placeWatermark } from "./watermark";

/** An image as the preview describes it. */
export interface PreviewFacts {
  format: string;
  width: number;
  height: number;
  bytes: number;
}

export interface OperationsPreview {
  before: PreviewFacts;
  after: PreviewFacts & { ms: number };
  /** The output as a data: URL, or null past PREVIEW_MAX_BYTES (the facts are still given). */
  image: string | null;
}

/** The photo previews show, relative to the working directory (traced into the tRPC function). */
export const PREVIEW_SAMPLE = "demo/photo.jpg";

/** A preview is a look, not a delivery: smaller outputs and a shorter budget than the image API's. */
export function previewLimits(limits: TransformLimits): TransformLimits {
  return {
    ...limits,
    maxOutputDimension: Math.min(limits.maxOutputDimension, 2048),
    maxOutputPixels: Math.min(limits.maxOutputPixels, 2048 * 2048),
    timeoutMs: Math.min(limits.timeoutMs, 10_000),
  };
}

/** What a preview sends back inline at most: a dashboard answer, not a download. */
export const PREVIEW_MAX_BYTES = 2 * 1024 * 1024;
/** What the dashboard's browsers take: f_auto shows what most visitors get. */
const PREVIEW_ACCEPT = "image/avif,image/webp,image/*,*/*;q=0.8";

export type PreviewOperations = (projectId: string, ops: ImageOperations) => Promise<OperationsPreview>;

/**
 * The image a project's operations make of the sample photo, as its image URLs would make it: the
 * project's default quality and watermark applied the same way, decoded and encoded in a transform
 * process under the share of the account that owns the team, as the image route's work (a preview waits
 * its turn like any source, and costs what its operations cost).
 * Nothing is fetched, cached or metered: the sample is the server's own file.
 */
export function createOperationsPreview(deps: {
  config: Pick<ConfigStore, "getProject">;
  projectImages: ProjectImageLoader;
  scheduler: TransformScheduler;
  transform: Transformer;
  limits: TransformLimits;
  samplePath: string;
  now?: () => number;
}): PreviewOperations {
  let sample: Promise<{ input: Buffer; facts: PreviewFacts }> | undefined;
  const now = deps.now ?? (() => performance.now());
  // Read and described once (the server's own file, trusted): its facts are the "before".
  const loadSample = async () => {
    const input = await readFile(deps.samplePath);
    const info = await deps.scheduler.run("preview-sample", (priority) =>
      deps.transform(input, { info: true }, { accept: null }, deps.limits, priority),
    );
    const { format, width, height } = JSON.parse(info.body.toString("utf8")) as PreviewFacts;
    return { input, facts: { format, width, height, bytes: input.byteLength } };
  };
  return async (projectId, asked) => {
    const project = await deps.config.getProject(projectId);
    if (!project) throw new AppError("NOT_FOUND");
    let ops: ImageOperations;
    try {
      ops = placeWatermark(withDefaultQuality(asked, project), project);
    } catch (error) {
      // What the image API would refuse for this project, said at the operations field.
      if (isAppError(error))
        throw new AppError("INVALID_INPUT", { message: error.publicMessage, cause: error, field: "operations" });
      throw error;
    }
    sample ??= loadSample().catch((error: unknown) => {
      sample = undefined;
      throw error;
    });
    const { input, facts: before } = await sample;
    const mark = ops.watermark?.sha256;
    const watermark = mark ? await deps.projectImages(projectId, "watermark", mark) : undefined;
    // The time of the work, not of the wait for a slot (as the request log's processing time).
    let ms = 0;
    const result = await deps.scheduler.run(
      project.account,
      async (priority) => {
        const started = now();
        const made = await deps.transform(input, ops, { accept: PREVIEW_ACCEPT, watermark }, deps.limits, priority);
        ms = now() - started;
        return made;
      },
      { cost: jobCost(ops) },
    );
    const bytes = result.body.byteLength;
    return {
      before,
      after: { format: result.format, width: result.width, height: result.height, bytes, ms },
      image: bytes <= PREVIEW_MAX_BYTES ? `data:${result.contentType};base64,${result.body.toString("base64")}` : null,
    };
  };
}
