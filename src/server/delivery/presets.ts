import type { ProjectConfig } from "@/server/config-cache/model";
import { AppError } from "@/server/errors";
import { checkCombination, parseOperations, type ImageOperations } from "@/server/image";

/** What a presets-only project accepts: one pr_{name} and nothing else. */
export function isSinglePreset(ops: ImageOperations): boolean {
  const { preset, ...rest } = ops;
  return preset !== undefined && !Object.values(rest).some((value) => value !== undefined);
}

/**
 * Replaces `pr_{name}` with the project's operations for it; the URL's other tokens win over the
 * preset's values. Runs before the variant key is made, so editing a preset changes the key of that
 * preset's URLs only. A presets-only project takes nothing else: one preset token per URL.
 */
export function expandPreset(
  ops: ImageOperations,
  project: Pick<ProjectConfig, "presets" | "presetsOnly">,
): ImageOperations {
  if (project.presetsOnly && !isSinglePreset(ops)) {
    throw new AppError("INVALID_OPERATION", {
      message: "This project accepts a preset only: the operations must be a single pr_{name}",
    });
  }
  const { preset, ...rest } = ops;
  if (preset === undefined) return ops;
  const segment = Object.hasOwn(project.presets, preset) ? project.presets[preset] : undefined;
  if (segment === undefined) throw new AppError("INVALID_OPERATION", { message: `Unknown preset "${preset}"` });
  const fromPreset = parseOperations(segment);
  // A look (q_auto) or a size (maxbytes_) asked for in the URL wins over the preset's other choice.
  if (rest.qualityTarget !== undefined) delete fromPreset.maxBytes;
  if (rest.maxBytes !== undefined) delete fromPreset.qualityTarget;
  // f_best in the URL chooses by a level: the preset's fixed quality or size gives way to it.
  if (rest.format === "best") {
    delete fromPreset.quality;
    delete fromPreset.maxBytes;
  }
  const expanded: ImageOperations = { ...fromPreset, ...rest };
  checkCombination(expanded);
  return expanded;
}
