import { mkdirSync } from "node:fs";
import path from "node:path";
import { instanceBucketClientConfig } from "@/server/s3-compat";
import { lazyOnce } from "@/server/lazy-once";
import type { ResultStoreSettings } from "@/server/result-store/types";
import { writeFileReplacing } from "@/server/write-file-replacing";

/**
 * Where a stream to "the bucket" writes: beside the results, in the same place they are kept. Files
 * under the data directory on the embedded default (`audit/`), the S3-compatible bucket when scaled
 * out (`audit/{results' prefix}`: outside the results' prefix, so their pruning never lists it, and
 * apart for each deployment sharing the bucket under its own prefix, whose team ids may be the same).
 */
export interface AuditArchive {
  readonly kind: "files" | "s3";
  /** Where objects go, as the console shows it: not the path or the bucket's name, which are the operator's. */
  readonly shown: string;
  /** Writes one object whole; writing it again replaces it (a batch sent twice is one object). */
  put(key: string, body: string): Promise<void>;
}

export const AUDIT_ARCHIVE_PREFIX = "audit/";
const S3_PUT_TIMEOUT_MS = 10_000;

/** The archive beside the configured result store; null when results are not kept (or share its prefix). */
export function auditArchiveOf(settings: ResultStoreSettings | null): AuditArchive | null {
  if (!settings) return null;
  if (settings.kind === "files") {
    // turbopackIgnore: the directory is chosen at run time; without it the build traces every `audit*` file.
    const root = path.join(/*turbopackIgnore: true*/ path.dirname(settings.root), "audit");
    return {
      kind: "files",
      shown: "files in the instance's data directory, under audit/",
      async put(key, body) {
        const file = path.join(/*turbopackIgnore: true*/ root, ...key.split("/"));
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileReplacing(file, body);
      },
    };
  }
  // The results' own pruning lists their prefix: an archive inside it would be evicted with them.
  const prefix = settings.prefix;
  if (AUDIT_ARCHIVE_PREFIX.startsWith(prefix) || prefix.startsWith(AUDIT_ARCHIVE_PREFIX)) return null;
  // The SDK is loaded at the first write: an instance whose teams stream nothing never loads it.
  const client = lazyOnce(async () => {
    const { S3Client } = await import("@aws-sdk/client-s3");
    return new S3Client(instanceBucketClientConfig(settings));
  });
  return {
    kind: "s3",
    shown: "the instance's S3 bucket, under audit/",
    async put(key, body) {
      const { PutObjectCommand } = await import("@aws-sdk/client-s3");
      await (
        await client()
      ).send(
        new PutObjectCommand({
          Bucket: settings.bucket,
          Key: `${AUDIT_ARCHIVE_PREFIX}${prefix}${key}`,
          Body: body,
          ContentType: "application/x-ndjson",
        }),
        { abortSignal: AbortSignal.timeout(S3_PUT_TIMEOUT_MS) },
      );
    },
  };
}

/**
 * A batch's object: the team, the first entry's day (UTC), and its entries' ids, zero-padded so that
 * a listing in name order is the log's order.
 */
export function batchObjectKey(teamId: string, batch: { firstId: number; lastId: number; firstAt: Date }): string {
  const day = batch.firstAt.toISOString().slice(0, 10).replaceAll("-", "/");
  const id = (n: number) => String(n).padStart(16, "0");
  return `${teamId}/${day}/${id(batch.firstId)}-${id(batch.lastId)}.ndjson`;
}
