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
 * the last seconds: the newer bytes are used (the config catches up within its bound).
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

  async function read(projectId: string, kind: "watermark" | "fallback"): Promise<Buffer> {
    const [row] = await db
      .select({ bytes: projectImages.bytes })
      .from(projectImages)
      .where(and(eq(projectImages.projectId, projectId), eq(projectImages.kind, kind)))
      .limit(1);
    // Deleted since the config was read: the next request sees the config without it.
    if (!row)
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
    const bytes = await reading.run(key, () => read(projectId, kind));
    if (!kept.has(key)) keep(key, bytes);
    return bytes;
  };
}
