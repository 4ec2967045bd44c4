import type { WireError } from "@/server/errors";
import type { TransformResult } from "../types";
import type { ImageOperations, TransformLimits } from "../types";
import type { SharpSettings } from "../configure-sharp";

/**
 * Messages between the server and a transform process. Pixels never cross the IPC channel (its
 * serialisation costs 30–180 ms for 6 MB, measured): source and output travel as files in a
 * per-pool directory on tmpfs, and the messages carry only their paths and the small facts.
 */
export interface JobMessage {
  id: number;
  inputPath: string;
  outputPath: string;
  /** The project's watermark image, when the operations place one. */
  watermarkPath?: string;
  ops: ImageOperations;
  accept: string | null;
  limits: TransformLimits;
}

export type JobReply =
  { id: number; ok: true; result: Omit<TransformResult, "body"> } | { id: number; ok: false; error: WireError };

/** Passed as the child's first argument. */
export interface ChildSettings {
  sharp: SharpSettings;
}
