import type { ProjectConfig } from "@/server/config-cache/model";
import { AppError } from "@/server/errors";
import { describesSourceOnly, KEEP_REDRAWN, keepsFromSource, type ImageOperations } from "@/server/image";

/**
 * Fills in the watermark the output will carry, before the variant key is made: the URL's wm_ values
 * over the project's settings, and the uploaded image's hash, so a new upload or new settings make new
 * variants and nothing stale is served. A project that puts its watermark on every output does so with
 * its own placement (a URL may not move or fade it); `info` alone and placeholders carry none.
 */
export function placeWatermark(ops: ImageOperations, project: Pick<ProjectConfig, "watermark">): ImageOperations {
  const mark = project.watermark;
  const always = mark?.always === true && !describesSourceOnly(ops) && !ops.placeholder;
  if (!ops.watermark && !always) return ops;
  if (!mark) {
    throw new AppError("INVALID_OPERATION", {
      message: "This project has no watermark: an admin uploads one under Project → Images",
    });
  }
  if (mark.always && ops.watermark && Object.keys(ops.watermark).length > 0) {
    throw new AppError("INVALID_OPERATION", {
      message: "This project puts its watermark on every output with its own placement: drop the wm_ values",
    });
  }
  // A watermark the project puts on every output: a URL's meta_keep or cs_keep cannot have its way.
  if (keepsFromSource(ops)) throw new AppError("INVALID_OPERATION", { message: KEEP_REDRAWN });
  const { opacity, gravity, x, y, scale, sha256 } = mark;
  return { ...ops, watermark: { opacity, gravity, x, y, scale, ...ops.watermark, sha256 } };
}
