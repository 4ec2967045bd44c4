import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  type _Object,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { instanceBucketClientConfig } from "@/server/s3-compat";
import { metaOf, verified } from "./envelope";
import { pruneBucket } from "./s3-prune";
import type { ObjectNames } from "./object-names";
import { KEY_PATTERN, type ResultStore, type S3Settings, type StoredMeta } from "./types";

export interface S3StoreOptions extends S3Settings {
  maxBytes: number;
  /** What the bucket calls each key: never the project or the source in clear (object-names.ts). */
  names: ObjectNames;
  /**
   * The team of each project (the database): pruning evicts from the team that holds the most. A
   * listing names only projects; without this, the oldest go first whoever they belong to.
   */
  teamsOf?: (projectIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** Per call: a slower store is abandoned (the request transforms instead). */
  timeoutMs: number;
  /** Objects per listing page (the server's own bound, 1,000 on S3, when absent). */
  pageSize?: number;
}

/** Eviction goes below the bound so that it does not run again at once. */
const PRUNE_TO = 0.9;

/**
 * Results in an S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, …), shared by every instance.
 * The body is the image itself; its description (StoredMeta) rides in the object's user metadata and
 * is checked on every read. S3 keeps no access time, so eviction removes the oldest written first.
 */
export function createS3Store(options: S3StoreOptions): ResultStore {
  // A failed read is answered by transforming, so one attempt is enough.
  const client = new S3Client(instanceBucketClientConfig(options));
  const prefix = options.prefix;
  let known = { bytes: 0, objects: 0 };

  const signal = () => ({ abortSignal: AbortSignal.timeout(options.timeoutMs) });

  function objectKey(key: string): string {
    if (!KEY_PATTERN.test(key)) throw new Error(`invalid result store key: ${key}`);
    return `${prefix}${options.names.nameOf(key)}`;
  }

  /** The listing under a prefix, a page (up to 1,000 objects) at a time. */
  async function* pages(under: string): AsyncGenerator<_Object[]> {
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: options.bucket,
          Prefix: under,
          ContinuationToken: token,
          MaxKeys: options.pageSize,
        }),
        signal(),
      );
      yield page.Contents ?? [];
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** Each listed object with its project read back from its name (null: a name this store cannot read). */
  const described = (o: _Object) => ({
    key: o.Key!,
    bytes: o.Size ?? 0,
    at: o.LastModified?.getTime() ?? 0,
    project: options.names.projectOf(o.Key!.slice(prefix.length)),
  });

  async function remove(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      try {
        await client.send(
          new DeleteObjectsCommand({
            Bucket: options.bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
          signal(),
        );
      } catch {
        // Not every "S3-compatible" server has a working multi-object delete (GCS's interoperability
        // API has none; s3rver's fails on several keys in one folder): one by one then.
        for (const Key of batch) await client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key }), signal());
      }
    }
  }

  return {
    kind: "s3",
    async get(key) {
      const Key = objectKey(key);
      let object;
      try {
        object = await client.send(new GetObjectCommand({ Bucket: options.bucket, Key }), signal());
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      const body = Buffer.from(await object.Body!.transformToByteArray());
      const meta = metaFrom(object.ContentType, object.Metadata ?? {});
      const result = meta && verified(meta, body);
      if (result) return result;
      // A store without atomic writes (s3rver) shows an object mid-write as empty: deleting that one
      // would lose the write that is landing (the transform this miss causes writes the key again
      // anyway). One older than any write may take is damaged, and goes, so it is not read again.
      const age = object.LastModified ? Date.now() - object.LastModified.getTime() : 0;
      if (age > options.timeoutMs) await remove([Key]);
      return null;
    },
    async put(key, result) {
      const Key = objectKey(key);
      if (result.body.length > options.maxBytes / 4) return "too-large";
      const meta = metaOf(result);
      await client.send(
        new PutObjectCommand({
          Bucket: options.bucket,
          Key,
          Body: result.body,
          ContentType: meta.contentType,
          ContentLength: meta.length,
          Metadata: {
            format: meta.format,
            width: String(meta.width),
            height: String(meta.height),
            negotiated: String(meta.negotiated),
            ...(meta.measured ? measuredMetadata(meta.measured) : {}),
            length: String(meta.length),
            sha256: meta.sha256,
          },
        }),
        signal(),
      );
      known = { bytes: known.bytes + meta.length, objects: known.objects + 1 };
      return "stored";
    },
    // Signed locally with the store's credentials: no request to the bucket. An object never changes
    // under its key, so whoever follows the link may keep the answer for as long as the link lives.
    link: (key, expiresIn) =>
      getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket: options.bucket,
          Key: objectKey(key),
          ResponseCacheControl: `public, max-age=${expiresIn}, immutable`,
        }),
        { expiresIn },
      ),
    async deletePrefix(under) {
      let deleted = 0;
      for await (const page of pages(`${objectKey(under)}/`)) {
        await remove(page.map((o) => o.Key!));
        deleted += page.length;
      }
      return deleted;
    },
    size: () => known,
    // Only a listing of the project's prefix would tell, which is too costly for a page view.
    projectSize: () => null,
    async prune() {
      const pruned = await pruneBucket(
        { pages: () => pages(prefix), describe: described, remove, teamsOf: options.teamsOf },
        options.maxBytes * PRUNE_TO,
        options.maxBytes,
      );
      known = pruned.left;
      return { deleted: pruned.deleted, bytes: pruned.bytes };
    },
    async close() {
      client.destroy();
    },
  };
}

function isMissing(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === "NoSuchKey" || error.$metadata.httpStatusCode === 404);
}

function measuredMetadata(measured: NonNullable<StoredMeta["measured"]>): Record<string, string> {
  const { quality, score, unreached } = measured;
  return { quality: String(quality), score: String(score), ...(unreached ? { unreached: "true" } : {}) };
}

function metaFrom(contentType: string | undefined, metadata: Record<string, string>): StoredMeta | null {
  const { format, width, height, negotiated, length, sha256, quality, score, unreached } = metadata;
  if (!contentType || !format || !width || !height || !negotiated || !length || !sha256) return null;
  return {
    contentType,
    format: format as StoredMeta["format"],
    width: Number(width),
    height: Number(height),
    negotiated: negotiated === "true",
    ...(quality && score
      ? {
          measured: {
            quality: Number(quality),
            score: Number(score),
            ...(unreached === "true" ? { unreached: true as const } : {}),
          },
        }
      : {}),
    length: Number(length),
    sha256,
  };
}
