import type { S3ClientConfig } from "@aws-sdk/client-s3";

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
