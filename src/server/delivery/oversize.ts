import { AppError } from "@/server/errors";
import type { TransformResult } from "@/server/image";
import type { ResultStore } from "@/server/result-store/types";

/** How long a signed link to the bucket is valid. */
const LINK_SECONDS = 6 * 3600;
/** How long browsers and CDNs keep a redirect: always well inside its link's life. */
const REDIRECT_SECONDS = 3600;
/** Links remembered per process, so a popular large image is not uploaded again at every request. */
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
  /** Already in the store (this request read it from there): no upload before signing. */
  stored: boolean;
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
  const links = new Map<string, { url: string; until: number }>();
  const store = deps.store?.link ? deps.store : null;

  async function linkTo(input: OversizeInput, nowMs: number): Promise<{ url: string; until: number }> {
    const known = links.get(input.key);
    if (known && known.until - nowMs >= REDIRECT_SECONDS * 1000) return known;
    if (!store?.link) throw tooLarge(input.result, deps.maxBytes, "no result bucket to link to");
    if (!input.stored) {
      let kept;
      try {
        kept = await store.put(input.key, input.result, input.team);
      } catch (error) {
        throw new AppError("NOT_READY", { detail: "storing a large output for its link failed", cause: error });
      }
      if (kept === "too-large") throw tooLarge(input.result, deps.maxBytes, "larger than the store keeps");
    }
    const link = { url: await store.link(input.key, LINK_SECONDS), until: nowMs + LINK_SECONDS * 1000 };
    links.delete(input.key);
    links.set(input.key, link);
    if (links.size > REMEMBERED) links.delete(links.keys().next().value!);
    return link;
  }

  return async (input) => {
    if (input.result.body.length <= deps.maxBytes) return null;
    const nowMs = deps.now().getTime();
    const link = await linkTo(input, nowMs);
    const seconds = Math.min(REDIRECT_SECONDS, input.maxSeconds);
    const headers = new Headers(input.headers);
    // The image's own headers belong to the bucket's answer; this one only points there.
    for (const name of ["content-type", "etag", "content-security-policy"]) headers.delete(name);
    headers.set("Location", link.url);
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
