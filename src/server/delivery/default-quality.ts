import type { ProjectConfig } from "@/server/config-cache/model";
import { describesSourceOnly, type ImageOperations } from "@/server/image";

/**
 * The project's default quality mode (dashboard → Presets): q_auto at its level for a URL that, once
 * its preset is expanded, names no quality of its own (q_, q_auto, maxbytes_). Runs before the variant
 * key is made, so the key and the ETag say which mode made the bytes. Placeholders and `info` alone
 * have no quality to choose; `info` with operations describes what the same URL without it makes.
 */
export function withDefaultQuality(
  ops: ImageOperations,
  project: Pick<ProjectConfig, "defaultQuality">,
): ImageOperations {
  const level = project.defaultQuality;
  if (!level || describesSourceOnly(ops) || ops.placeholder) return ops;
  if (ops.quality !== undefined || ops.qualityTarget !== undefined || ops.maxBytes !== undefined) return ops;
  return { ...ops, qualityTarget: level };
}

/**
 * The same operations at the format's default quality, without a search: what the interim answer
 * makes (interim.ts); f_best starts from f_auto's answer (negotiate.ts). Keys left undefined are
 * dropped, as the variant key drops them, so that an operation the variant key does not see cannot
 * change the format negotiated (an SVG passes through only without operations).
 */
export function withoutSearch({ qualityTarget: _, ...ops }: ImageOperations): ImageOperations {
  const defined = Object.fromEntries(Object.entries(ops).filter(([, value]) => value !== undefined)) as ImageOperations;
  return defined.format === "best" ? { ...defined, format: "auto" } : defined;
}
