import type { ImageInfo } from "@optstuff/client";
import { parseOperations } from "./operations/parse";
import type { TransformScheduler } from "./transform-scheduler";
import type { Transformer } from "./transformer";
import type { TransformLimits } from "./types";

/** What an uploaded image is, once decoded where decoding is bounded. */
export interface UploadFacts {
  format: string;
  width: number;
  height: number;
}

/**
 * Decodes bytes a tenant uploaded (a watermark, a fallback image) the way a source is decoded: in a
 * transform process (killed past its time or memory), through the scheduler under the tenant's share.
 * Decoding them in the server held libuv's pool threads: eight uploads of a JPEG made of 28,500
 * progressive scans (13 s each) stalled every other account's sign-in, file reads and DNS for a minute.
 */
export type UploadCheck = (bytes: Buffer, tenant: string) => Promise<UploadFacts>;

/** The longest side of a project's uploaded image (a watermark, a fallback). */
export const MAX_PROJECT_IMAGE_SIDE = 2048;

/**
 * An upload is decoded within the sources' bounds, tightened: its sides are checked after (a 4096×512
 * banner is refused for its side, not its area), and 5 s is far more than an honest 2048² image needs.
 */
export function uploadLimits(sources: TransformLimits): TransformLimits {
  return {
    ...sources,
    maxInputPixels: MAX_PROJECT_IMAGE_SIDE * MAX_PROJECT_IMAGE_SIDE,
    maxFrames: Math.min(sources.maxFrames, 1000),
    timeoutMs: Math.min(sources.timeoutMs, 5000),
  };
}

/** The `info` operation decodes the first frame, within these bounds; a refusal is the pipeline's AppError. */
const INFO = parseOperations("info");

export function createUploadCheck(deps: {
  scheduler: TransformScheduler;
  transform: Transformer;
  limits: TransformLimits;
}): UploadCheck {
  return async (bytes, tenant) => {
    const result = await deps.scheduler.run(tenant, (priority) =>
      deps.transform(bytes, INFO, { accept: null }, deps.limits, priority),
    );
    const info = JSON.parse(result.body.toString("utf8")) as ImageInfo;
    return { format: info.format, width: info.width, height: info.height };
  };
}
