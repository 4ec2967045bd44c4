import { and, eq } from "drizzle-orm";
import type { Database } from "@/server/db/client";
import { projectImages } from "@/server/db/schema";
import { AppError } from "@/server/errors";
import { createSingleFlight } from "@/server/single-flight";

export type ProjectImageLoader = (projectId: string, kind: "watermark" | "fallback", sha256: string) => Promise<Buffer>;

/** A few projects' watermarks and fallbacks (512 KiB each at most) stay in memory. */
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The project's uploaded images, read from the database once per instance and then served from memory
 * by hash (least recently used out first; concurrent misses share one read). Only a transform asks:
 * cache hits never read them. Another hash in the database than the config names means an upload in
 * the last seconds: the request is refused with Retry-After (the config catches up within its bound),
 * so no output is ever made from one image under the other's hash.
 */
export function createProjectImageLoader(db: Database, maxBytes = DEFAULT_MAX_BYTES): ProjectImageLoader {
  const kept = new Map<string, Buffer>();
  const reading = createSingleFlight<Buffer>();
  let total = 0;

  function keep(key: string, bytes: Buffer): void {
    kept.set(key, bytes);
    total += bytes.length;
    for (const [old, value] of kept) {
      if (total <= maxBytes) break;
      kept.delete(old);
      total -= value.length;
    }
  }

  async function read(projectId: string, kind: "watermark" | "fallback", sha256: string): Promise<Buffer> {
    const [row] = await db
      .select({ bytes: projectImages.bytes, sha256: projectImages.sha256 })
      .from(projectImages)
      .where(and(eq(projectImages.projectId, projectId), eq(projectImages.kind, kind)))
      .limit(1);
    // Deleted or replaced since the config was read: its outputs would be keyed by the old hash and
    // hold the new image. The next request reads the new config (its L1 lasts a second).
    if (!row || row.sha256 !== sha256)
      throw new AppError("NOT_READY", {
        message: `The project's ${kind} just changed: retry`,
        headers: { "Retry-After": "2" },
      });
    return row.bytes;
  }

  return async (projectId, kind, sha256) => {
    const key = `${projectId}:${kind}:${sha256}`;
    const hit = kept.get(key);
    if (hit) {
      kept.delete(key);
      kept.set(key, hit);
      return hit;
    }
    const bytes = await reading.run(key, () => read(projectId, kind, sha256));
    if (!kept.has(key)) keep(key, bytes);
    return bytes;
  };
}
