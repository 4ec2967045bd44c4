import { createHash } from "node:crypto";
import type { CacheGenerations } from "@/server/config-cache";
import { acceptClass, canonicalOperations, negotiatesFormat, type ImageOperations } from "@/server/image";
import type { SourceLocation } from "@/server/source";
import type { PublicNames } from "./public-names";

/** Bumped when the pipeline's output for the same request changes, so old ETags stop matching. */
const PIPELINE_VERSION = "5";
/**
 * Bumped when `info`'s JSON gains or changes a field (2: palette), so stored descriptions are made
 * again without remaking every image.
 */
const INFO_VERSION = "2";

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
  const version = operations.info ? `${PIPELINE_VERSION}.${INFO_VERSION}` : PIPELINE_VERSION;
  return digest(`${version}\n${canonicalOperations(operations)}\n${where}\n${negotiation}`, 32);
}

function sourceIdentity(location: SourceLocation): string {
  if (location.kind === "remote") return location.url.href;
  if (location.kind === "local") return `local:${location.relativePath}`;
  return `s3:${location.alias}@${location.revision ?? ""}/${location.key}`;
}

/**
 * The source as the request log, purges and Cache-Tag name it: origin and path (no query string, which
 * may carry an origin's tokens), or local/<path>. Purging a source purges every query variant of it.
 */
export function sourceName(location: SourceLocation): string {
  if (location.kind === "local") return `local/${location.relativePath}`;
  if (location.kind === "bucket") return `s3/${location.alias}/${location.key}`;
  return `${location.url.origin}${location.url.pathname}`;
}

/** The generation a source's results must have been made at to be current (after the last purge of it or of its project). */
export function generationOf(cache: CacheGenerations, source: string): number {
  return Math.max(cache.base, cache.sources[source] ?? 0);
}

export interface ResultAddress {
  /** Strong ETag: a keyed digest of the project, the variant and its purge generation (so a purge changes it). */
  etag: string;
  /** L1, result store and transform-lease key: project / source / variant at its generation. */
  storeKey: string;
  /** Prefix of every result of this source in the store (a source purge deletes it). */
  sourcePrefix: string;
  /** The source cache's key: the downloaded bytes are reused for this project, policy and generation only. */
  sourceKey: string;
  /** Cache-Tag / Surrogate-Key values (the project's, the source's), for purging a CDN the same way. */
  tags: string[];
}

interface ProjectScope {
  id: string;
  allowedSourceHosts: readonly string[];
  cache: CacheGenerations;
}

/**
 * Where a variant's result lives, from the request alone (no fetch), so a conditional request is
 * answered before any work. Scoped to the project: a purge is one project's act, and a result fetched
 * through a redirect its source list allows must not reach another project (contract §5). Results are
 * keyed by the variant and never by key or signature, so a key rotation keeps them. What leaves the
 * server (ETag, tags) is named by `names`, keyed digests that reveal neither the project nor the purges.
 */
export function resultAddress(
  project: ProjectScope,
  variant: string,
  location: SourceLocation,
  names: PublicNames,
): ResultAddress {
  const source = sourceName(location);
  const generation = generationOf(project.cache, source);
  // What decides which bytes the source names: the host list (redirects), or the alias's target.
  const policy =
    location.kind === "remote"
      ? [...project.allowedSourceHosts].sort().join(",")
      : location.kind === "bucket"
        ? `bucket:${location.revision ?? ""}`
        : "";
  const sourcePrefix = storePrefixOf(project.id, source);
  return {
    etag: names.etag(project.id, variant, generation),
    storeKey: `${sourcePrefix}/${digest(`${variant}\n${policy}\n${generation}`, 32)}`,
    sourcePrefix,
    sourceKey: `${project.id}\n${generation}\n${policy}\n${location.kind === "remote" ? location.url.href : source}`,
    tags: [names.projectTag(project.id), names.sourceTag(project.id, source)],
  };
}

/**
 * Where the fallback image's output for one variant lives: under the project (a whole purge drops it)
 * at the project's generation, shared by every source that failed with the same operations, and of
 * this image only (its SHA-256): a replaced fallback is never answered from the old one's outputs.
 */
export function fallbackStoreKey(
  project: Pick<ProjectScope, "id" | "cache">,
  variant: string,
  imageSha256: string,
): string {
  return `${project.id}/fallback/${digest(`${variant}\n${project.cache.base}\n${imageSha256}`, 32)}`;
}

/** The store prefix of a source's results in a project, or of the whole project without a source. */
export function storePrefixOf(projectId: string, source?: string): string {
  return source === undefined ? projectId : `${projectId}/${digest(source, 22)}`;
}

function digest(text: string, length: number): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, length);
}
