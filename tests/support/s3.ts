import { randomBytes } from "node:crypto";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { S3RVER_CREDENTIALS, startS3rver, type S3rverProcess } from "../../tools/s3-local/s3rver-process";
import type { S3Settings } from "@/server/result-store/types";
import type { TestSettings } from "./settings";

export interface LocalS3 {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** A new, empty bucket; its name. */
  bucket(): Promise<string>;
  /** A client of the server, to look at what a test's store wrote. */
  client: S3Client;
  /** The instance's bucket `bucket` with results under `results/`, as the server reads its settings. */
  settings(bucket: string): S3Settings;
  /** A result store in `bucket`, as a test app's settings (the environment's variables). */
  storeEnv(bucket: string, maxBytes: number): TestSettings;
  /** The server of this test file (null on CI's shared one, which a test must not stop). */
  process: S3rverProcess | null;
  stop(): Promise<void>;
}

/**
 * The S3-compatible server of a test file: CI's shared one when TEST_S3_ENDPOINT names it, else an
 * s3rver of its own. Either way each test takes fresh buckets.
 */
export async function startS3(options: { own?: boolean } = {}): Promise<LocalS3> {
  const shared = options.own ? undefined : process.env.TEST_S3_ENDPOINT;
  const own = shared ? null : await startS3rver();
  const endpoint = shared ?? own!.endpoint;
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    requestChecksumCalculation: "WHEN_REQUIRED",
  });
  return {
    endpoint,
    ...S3RVER_CREDENTIALS,
    async bucket() {
      const name = `optstuff-${randomBytes(6).toString("hex")}`;
      await client.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    client,
    settings: (bucket) => ({
      bucket,
      prefix: "results/",
      endpoint,
      region: "us-east-1",
      ...S3RVER_CREDENTIALS,
      forcePathStyle: true,
    }),
    storeEnv: (bucket, maxBytes) => ({
      OPTSTUFF_RESULT_STORE: "s3",
      OPTSTUFF_RESULT_STORE_BYTES: String(maxBytes),
      OPTSTUFF_RESULT_STORE_S3_BUCKET: bucket,
      OPTSTUFF_RESULT_STORE_S3_PREFIX: "results/",
      OPTSTUFF_RESULT_STORE_S3_ENDPOINT: endpoint,
      OPTSTUFF_RESULT_STORE_S3_REGION: "us-east-1",
      OPTSTUFF_RESULT_STORE_S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      OPTSTUFF_RESULT_STORE_S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      OPTSTUFF_RESULT_STORE_S3_PATH_STYLE: "on",
    }),
    process: own,
    async stop() {
      client.destroy();
      await own?.stop();
    },
  };
}
