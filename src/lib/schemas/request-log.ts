import { z } from "zod";

/**
 * The request log's source filter: text up to this long is looked for inside the kept part of each
 * source name (the newest rows first, a bounded number per call); longer text is taken as a whole
 * source and found exactly, by its hash, over the whole range.
 */
export const SOURCE_CONTAINS_MAX = 64;

/** A whole source is at most the route's 2,048 bytes (parse-request.ts). */
export const requestLogSourceFilter = z
  .string()
  .trim()
  .max(2048, { error: "Source filter: at most 2048 characters (the longest source a URL may name)" })
  .optional()
  .transform((source) => source || undefined);

/** How the filter matched: said beside the rows, so an empty page explains itself. */
export type SourceMatch = "contains" | "exact";

export const sourceMatchOf = (source: string): SourceMatch =>
  source.length <= SOURCE_CONTAINS_MAX ? "contains" : "exact";
