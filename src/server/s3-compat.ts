import type { S3ClientConfig } from "@aws-sdk/client-s3";
import type { S3Settings } from "@/server/result-store/types";

/**
 * What every S3 client of the server sets, the result store's and the private sources' alike: the
 * SDK's default CRC checksums on every request and response break most non-AWS servers (R2, MinIO,
 * s3rver), and a request is waiting, so one attempt within its budget and no retries.
 */
export const S3_COMPATIBLE: Pick<
  S3ClientConfig,
  "requestChecksumCalculation" | "responseChecksumValidation" | "maxAttempts"
> = {
  requestChecksumCalculation: "WHEN_REQUIRED",
  responseChecksumValidation: "WHEN_REQUIRED",
  maxAttempts: 1,
};

/**
 * The client of the instance's own bucket (the results and the audit archive): the operator's keys
 * when set, else the SDK's default chain (environment, instance role).
 */
export function instanceBucketClientConfig(settings: S3Settings): S3ClientConfig {
  return {
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials:
      settings.accessKeyId && settings.secretAccessKey
        ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
        : undefined,
    ...S3_COMPATIBLE,
  };
}
