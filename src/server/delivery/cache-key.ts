import { createHash } from "node:crypto";
import { acceptClass, canonicalOperations, negotiatesFormat, type ImageOperations } from "@/server/image";
import type { SourceLocation } from "@/server/source";

/** Bumped when the pipeline's output for the same request changes, so old ETags stop matching. */
const PIPELINE_VERSION = "5";

/**
 * Identifies one output variant from the request alone (no fetch, no decode), so a conditional request
 * is answered before any work and identical requests share one transform. The URL is immutable by
 * contract: a changed source is published under a new URL, so the source bytes need not be part of it.
 */
export function variantKey(
  operations: ImageOperations,
  location: SourceLocation | "fallback",
  accept: string | null,
): string {
  // "fallback" (the project's fallback image) cannot collide: the others are a URL or start local:.
  const where = location === "fallback" ? location : sourceIdentity(location);
  const negotiation = negotiatesFormat(operations) ? acceptClass(accept) : "";
  return createHash("sha256")
    .update(`${PIPELINE_VERSION}\n${canonicalOperations(operations)}\n${where}\n${negotiation}`)
    .digest("base64url")
    .slice(0, 32);
}

function sourceIdentity(location: SourceLocation): string {
  if (location.kind === "remote") return location.url.href;
  if (location.kind === "local") return `local:${location.relativePath}`;
  return `s3:${location.alias}@${location.revision ?? ""}/${location.key}`;
}

/** RFC 9110 weak comparison over a list, as If-None-Match requires. */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}
