import { choice, group, integer, text, textWithDefault } from "@/server/config/setting";

/** Results kept across restarts and shared between instances (docs/caching.md). */
export const resultStoreSettings = group("Result store", {
  OPTSTUFF_RESULT_STORE: choice(["auto", "files", "s3", "none"], {
    default: "auto",
    doc: "`auto`: the S3-compatible bucket when `OPTSTUFF_RESULT_STORE_S3_BUCKET` is set, else files under `OPTSTUFF_DATA_DIR`, except on Vercel (read-only files), where only a bucket can be used.",
  }),
  OPTSTUFF_RESULT_STORE_BYTES: integer({
    default: 2 * 1024 ** 3,
    min: 1024 * 1024,
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
