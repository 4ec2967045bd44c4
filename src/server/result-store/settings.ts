import path from "node:path";
import type { PlatformValues } from "@/server/config/platform-settings";
import type { ServerValues } from "@/server/config/server-settings";
import { choice, group, integer, text, textWithDefault, type ValuesOf } from "@/server/config/setting";
import type { ResultStoreSettings } from "./types";

/** Results kept across restarts and shared between instances (docs/caching.md). */
export const resultStoreSettings = group("Result store", {
  OPTSTUFF_RESULT_STORE: choice(["auto", "files", "s3", "none"], {
    default: "auto",
    doc: "`auto`: the S3-compatible bucket when `OPTSTUFF_RESULT_STORE_S3_BUCKET` is set, else files under `OPTSTUFF_DATA_DIR`, except on Vercel (read-only files), where only a bucket can be used.",
  }),
  OPTSTUFF_RESULT_STORE_BYTES: integer({
    default: 2 * 1024 ** 3,
    // Small enough for a test of eviction to fill it with a few thumbnails.
    min: 16 * 1024,
    doc: "Bytes the store keeps, least recently used evicted first (a bucket: oldest written).",
  }),
  OPTSTUFF_RESULT_STORE_S3_BUCKET: text({
    doc: "An S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, …), the same for every instance.",
  }),
  OPTSTUFF_RESULT_STORE_S3_ENDPOINT: text({
    defaultText: "AWS",
    doc: "Anything but AWS: MinIO, R2 (`https://<account>.r2.cloudflarestorage.com`), ….",
  }),
  OPTSTUFF_RESULT_STORE_S3_REGION: textWithDefault({ default: "us-east-1", doc: "The bucket's region (R2: `auto`)." }),
  OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID: text({
    defaultText: "the SDK's default chain (an instance role, `AWS_*` variables)",
    doc: "The bucket's access key, with its secret: both or neither.",
  }),
  OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY: text({ doc: "The access key's secret.", secret: true }),
  OPTSTUFF_RESULT_STORE_S3_PREFIX: textWithDefault({
    default: "results/",
    doc: "The key prefix inside the bucket, so one bucket can hold other things (a preview's `preview/`).",
  }),
  OPTSTUFF_RESULT_STORE_S3_PATH_STYLE: choice(["auto", "on", "off"], {
    default: "auto",
    doc: "Path-style URLs, as MinIO and most self-hosted servers want (`auto`: on when an endpoint is set).",
  }),
});

export type ResultStoreValues = ValuesOf<typeof resultStoreSettings>;

/** Which store, and where; null keeps results in memory only. */
export function resultStoreOf(
  v: ResultStoreValues & Pick<ServerValues, "OPTSTUFF_DATA_DIR"> & Pick<PlatformValues, "VERCEL">,
): ResultStoreSettings | null {
  const kind =
    v.OPTSTUFF_RESULT_STORE === "auto"
      ? v.OPTSTUFF_RESULT_STORE_S3_BUCKET
        ? "s3"
        : v.VERCEL === undefined
          ? "files"
          : "none"
      : v.OPTSTUFF_RESULT_STORE;
  if (kind === "none") return null;
  const maxBytes = v.OPTSTUFF_RESULT_STORE_BYTES;
  if (kind === "files") return { kind, maxBytes, root: path.join(path.resolve(v.OPTSTUFF_DATA_DIR), "results") };
  return {
    kind,
    maxBytes,
    // env.ts refuses s3 without a bucket.
    bucket: v.OPTSTUFF_RESULT_STORE_S3_BUCKET!,
    prefix: v.OPTSTUFF_RESULT_STORE_S3_PREFIX,
    endpoint: v.OPTSTUFF_RESULT_STORE_S3_ENDPOINT,
    region: v.OPTSTUFF_RESULT_STORE_S3_REGION,
    accessKeyId: v.OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID,
    secretAccessKey: v.OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY,
    forcePathStyle:
      v.OPTSTUFF_RESULT_STORE_S3_PATH_STYLE === "auto"
        ? v.OPTSTUFF_RESULT_STORE_S3_ENDPOINT !== undefined
        : v.OPTSTUFF_RESULT_STORE_S3_PATH_STYLE === "on",
  };
}
