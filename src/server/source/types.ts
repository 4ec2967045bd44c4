import type { Socket } from "node:net";

/** Where an image comes from, after the URL's source part was parsed (contract §1). */
export type SourceLocation =
  | { kind: "remote"; url: URL }
  /** A file under the configured local source root, addressed as `local/<path>` in image URLs. */
  | { kind: "local"; relativePath: string }
  /**
   * An object in one of the project's private buckets, `s3/{alias}/{key}`. `revision` is the alias's
   * current target (delivery fills it from the project's config), so keys change when it is re-pointed.
   */
  | { kind: "bucket"; alias: string; key: string; revision?: string };

export interface FetchLimits {
  /** Largest source accepted, checked while streaming. Default 25 MB. */
  maxBytes: number;
  /** Whole download budget (connect + headers + body). Default 10 s. */
  timeoutMs: number;
  /** Redirects followed, each hop re-checked. Default 3. */
  maxRedirects: number;
  /** Loopback origins allowed (development and tests only; never by default). */
  allowLoopback: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** The network seams: real DNS and TCP by default; tests inject recorders. */
export interface NetDeps {
  lookup(hostname: string): Promise<ResolvedAddress[]>;
  connect(options: { address: string; port: number; family: 4 | 6 }): Socket;
}

export interface FetchedSource {
  bytes: Buffer;
  /** Content-Type the origin declared, if any (informational: sharp sniffs the bytes). */
  contentType: string | null;
  /** Where the bytes finally came from, after redirects (for logs). */
  finalUrl: string;
  /** The final response's status and headers (remote sources): what the source cache's policy reads. */
  response?: { status: number; headers: Record<string, string | string[] | undefined> };
  /** A conditional request was answered 304: `bytes` is empty, the caller's copy is still current. */
  notModified?: boolean;
}

export interface FetchOptions {
  signal?: AbortSignal;
  /**
   * The project's own source policy, asked again for every redirect hop (contract §5): a host the
   * project did not allow is not fetched because an allowed one redirected there.
   */
  mayFollow?: (url: URL) => boolean;
  /**
   * Revalidation of a copy the caller holds (If-None-Match / If-Modified-Since, source-cache.ts): a 304
   * answer resolves as `notModified` instead of failing.
   */
  conditional?: { ifNoneMatch?: string; ifModifiedSince?: string };
  /** Where a bucket location reads, credentials opened (delivery resolves them from the project's config). */
  bucket?: BucketSettings;
}

export interface SourceFetcher {
  fetch(location: SourceLocation, options?: FetchOptions): Promise<FetchedSource>;
}

/** A tenant's S3-compatible bucket (AWS S3, R2, GCS interoperability, MinIO) used as an image source. */
export interface BucketSettings {
  /** Base URL, `https://…` or `http://…`: no credentials, query or fragment. */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Prepended to every key read from this bucket. Default: none. */
  prefix?: string;
  /** Shown instead of the bucket name in `finalUrl` (logs). Default: the bucket name. */
  alias?: string;
}
