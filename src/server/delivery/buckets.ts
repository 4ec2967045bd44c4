import type { ProjectConfig } from "@/server/config-cache/model";
import { AppError } from "@/server/errors";
import type { SecretBox } from "@/server/signing";
import type { BucketSettings } from "@/server/source";

/** The secret is sealed bound to the bucket row: a sealed value copied onto another row will not open. */
export function bucketSealContext(bucketId: string): string {
  return `bucket:${bucketId}`;
}

/** The alias's settings with the secret opened: only when the object is read, never logged or cached. */
export function bucketSettings(
  project: Pick<ProjectConfig, "buckets">,
  alias: string,
  secretBox: SecretBox,
): BucketSettings {
  const bucket = project.buckets[alias];
  if (!bucket)
    throw new AppError("SOURCE_NOT_ALLOWED", { detail: `bucket alias ${alias} is not one of the project's buckets` });
  const { endpoint, region, prefix, forcePathStyle, accessKeyId } = bucket;
  const secretAccessKey = secretBox.open(bucket.sealedSecret, bucketSealContext(bucket.id));
  return { endpoint, region, bucket: bucket.bucket, prefix, forcePathStyle, accessKeyId, secretAccessKey };
}
