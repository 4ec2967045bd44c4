import { createHash } from "node:crypto";
import type { BucketConfig } from "./model";

/**
 * A digest of where an alias reads from: a new bucket, endpoint, prefix or access key makes a new one.
 * Not the sealed secret: re-sealing under a new master, or a new secret for the same key, reads the
 * same objects and must not throw the project's cached results away.
 */
export function bucketRevision(settings: Omit<BucketConfig, "revision" | "id" | "sealedSecret">): string {
  const { endpoint, region, bucket, prefix, forcePathStyle, accessKeyId } = settings;
  return createHash("sha256")
    .update(JSON.stringify([endpoint, region, bucket, prefix, forcePathStyle, accessKeyId]))
    .digest("base64url")
    .slice(0, 16);
}
