import { AppError } from "@/server/errors";
import type { TransformResult } from "@/server/image";
import type { ResultStore } from "@/server/result-store/types";

/** The longest a signed link to the bucket is valid. */
const LINK_SECONDS = 6 * 3600;
/** The shortest: a link must outlive the browser's trip from the redirect to the bucket. */
const LINK_MIN_SECONDS = 60;
/** How long browsers and CDNs keep a redirect, at most: always inside its link's life. */
const REDIRECT_SECONDS = 3600;
/**
 * An object this process wrote or read this recently is taken to be in the bucket without asking: the
 * store prunes the oldest written first, so a fresh one is the last to go.
 */
const FRESH_MS = 10 * 60_000;
/** Objects remembered per process, so a popular large image is not uploaded again at every request. */
const REMEMBERED = 1000;

export interface OversizeDeps {
  /** The largest body answered directly. */
  maxBytes: number;
  /** The result store, when it can sign links (S3); otherwise larger outputs are refused. */
  store: ResultStore | null;
  now: () => Date;
}

export interface OversizeInput {
  /** The result's key in the store (result-keys.ts). */
  key: string;
  result: TransformResult;
  /** This request read the result from the store: the object is there. */
  stored: boolean;
  /** This request's transform is being written back to the store: true once it was kept. */
  written?: Promise<boolean>;
  team: string;
  /** The answer's success headers: a redirect keeps its Vary, tags and timing, and drops the rest. */
  headers: Headers;
  /** How long the answer itself may be kept (signature expiry, a fallback's minute): the redirect no longer. */
  maxSeconds: number;
}

export type Oversize = (input: OversizeInput) => Promise<{ status: 307; headers: Headers } | null>;

/**
 * Outputs over the deployment's response cap (Vercel's functions answer at most 4.5 MB) go out as a
 * 307 to a presigned URL of the object in the result bucket; without a bucket that can sign, or when
 * the bucket will not keep an object that large, a 413 OUTPUT_TOO_LARGE that says what to change.
 * Null: the output fits, answer it as usual.
 */
export function createOversize(deps: OversizeDeps): Oversize {
  const store = deps.store?.link ? deps.store : null;
  /** When each object was last written or seen in the bucket by this process. */
  const seen = new Map<string, number>();
  /** Uploads in flight: concurrent requests for one large output share one. */
  const uploads = new Map<string, Promise<void>>();

  function remember(key: string, at: number): void {
    seen.delete(key);
    seen.set(key, at);
    if (seen.size > REMEMBERED) seen.delete(seen.keys().next().value!);
  }

  async function upload(bucket: ResultStore, input: OversizeInput): Promise<void> {
    if (input.written && (await input.written)) return;
    let kept;
    try {
      kept = await bucket.put(input.key, input.result, input.team);
    } catch (error) {
      throw new AppError("NOT_READY", { detail: "storing a large output for its link failed", cause: error });
    }
    if (kept === "too-large") throw tooLarge(input.result, deps.maxBytes, "larger than the store keeps");
  }

  /** Makes sure the object is in the bucket: read or written just now, else uploaded (once) here. */
  async function ensureStored(bucket: ResultStore, input: OversizeInput, nowMs: number): Promise<void> {
    if (!input.stored) {
      const seenAt = seen.get(input.key);
      if (seenAt !== undefined && nowMs - seenAt < FRESH_MS) return;
      let pending = uploads.get(input.key);
      if (!pending) {
        pending = upload(bucket, input).finally(() => uploads.delete(input.key));
        uploads.set(input.key, pending);
      }
      await pending;
    }
    remember(input.key, nowMs);
  }

  return async (input) => {
    if (input.result.body.length <= deps.maxBytes) return null;
    if (!store?.link) throw tooLarge(input.result, deps.maxBytes, "no result bucket to link to");
    const nowMs = deps.now().getTime();
    await ensureStored(store, input, nowMs);
    // Signed here, each time (no request to the bucket): a link never outlives the URL's own expiry.
    const linkSeconds = Math.min(LINK_SECONDS, Math.max(LINK_MIN_SECONDS, input.maxSeconds));
    const url = await store.link(input.key, linkSeconds);
    const seconds = Math.min(REDIRECT_SECONDS, input.maxSeconds);
    const headers = new Headers(input.headers);
    // The image's own headers belong to the bucket's answer; this one only points there.
    for (const name of ["content-type", "etag", "content-security-policy"]) headers.delete(name);
    headers.set("Location", url);
    headers.set("Cache-Control", `public, max-age=${seconds}, s-maxage=${seconds}`);
    headers.set("CDN-Cache-Control", `public, max-age=${seconds}`);
    return { status: 307, headers };
  };
}

function tooLarge(result: TransformResult, maxBytes: number, detail: string): AppError {
  return new AppError("OUTPUT_TOO_LARGE", {
    message: `The output is ${result.body.length} bytes; this deployment answers at most ${maxBytes}. Ask for a smaller size or a compressed format (f_webp, f_avif)`,
    detail,
  });
}
