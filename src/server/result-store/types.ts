import type { TransformResult } from "@/server/image";

/**
 * Durable, shared results (the L2 behind the in-process cache): files under the data directory on the
 * embedded default, an S3-compatible bucket when scaled out. A lost object costs one transform; a
 * damaged one is detected on read (length and SHA-256) and reported as a miss, never served; the
 * write-back of that miss's transform replaces it (and the files store, or a bucket once the object is
 * older than any write in progress, deletes it).
 *
 * Keys are `/`-separated segments of [A-Za-z0-9_-] built by result-keys.ts (project / source / variant),
 * so a purge deletes by prefix on either backend (a bucket names each segment by a keyed digest that
 * keeps prefixes: object-names.ts).
 */
export interface ResultStore {
  readonly kind: "files" | "s3";
  /** The stored result, or null when absent or damaged. Throws only when the store cannot answer. */
  get(key: string): Promise<TransformResult | null>;
  /**
   * Stores a result. `team` is whose it is (the project's team): when the store is full, the team
   * holding the most goes first (files learn teams here; a bucket's pruning asks the database).
   */
  put(key: string, result: TransformResult, team?: string): Promise<Kept>;
  /**
   * S3 only: a presigned URL anyone can GET the stored object at until it expires, for outputs too
   * large to answer directly (delivery/oversize.ts). The object is not checked: sign after a put. It
   * shows the object's keyed name and, as every SigV4 link, the access key id (docs/security.md).
   */
  link?(key: string, expiresInSeconds: number): Promise<string>;
  /** Deletes every object whose key starts with `prefix` (a whole segment path); answers how many. */
  deletePrefix(prefix: string): Promise<number>;
  /**
   * Bytes and objects held, as last known (files: exact; S3: as of the last listing). Every tenant's
   * results together: for the operator (metrics), never shown to a tenant.
   */
  size(): StoreSize;
  /**
   * One project's share (the keys under its first segment), when the store can count it without a
   * listing: files exactly, from the index it keeps anyway; S3 null (it would list the bucket).
   */
  projectSize(projectId: string): StoreSize | null;
  /** Brings the store under its byte bound, least recently used first (S3: oldest written first). */
  prune(): Promise<{ deleted: number; bytes: number }>;
  close(): Promise<void>;
}

/** Whether a put kept the result: one larger than a quarter of the store is not kept ("too-large"). */
export type Kept = "stored" | "too-large";

export interface StoreSize {
  bytes: number;
  objects: number;
}

/** Object metadata both backends keep next to the body, and check on every read. */
export interface StoredMeta {
  contentType: string;
  format: TransformResult["format"];
  width: number;
  height: number;
  negotiated: boolean;
  /** What q_auto chose, when it chose: served again with the result (contract §3: never recomputed). */
  measured?: TransformResult["measured"];
  length: number;
  sha256: string;
}

export const KEY_PATTERN = /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/** The bucket results are kept in when scaled out. */
export interface S3Settings {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/** Where results are kept: files under the data directory, or an S3-compatible bucket. */
export type ResultStoreSettings =
  { kind: "files"; root: string; maxBytes: number } | ({ kind: "s3"; maxBytes: number } & S3Settings);
