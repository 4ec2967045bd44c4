import { buildOperations, type Operations } from "./operations.js";
import { base64url } from "./base64.js";
import { checkKeyPolicy, type KeyPolicy } from "./policy.js";

export interface SigningKeys {
  /** Where OptStuff answers, e.g. `https://img.example.com` (a path prefix is kept). */
  baseUrl: string;
  projectSlug: string;
  /** `pk_…` */
  publicKey: string;
  /** `sk_…`: server side only. */
  secretKey: string;
}

export interface SignUrlInput extends SigningKeys {
  /** An operations string (`w_800,f_webp`) or options for the builder. */
  operations?: string | Operations;
  /** `cdn.example.com/a.jpg` (https is implied), `https://…`, or `local/…`. Signed exactly as given. */
  source: string;
  /** Seconds the URL must stay valid at least; none: it never expires. */
  expiresIn?: number;
  /**
   * Expiry granularity in seconds. The expiry is rounded up to a multiple of it, so every URL signed for
   * the same image within one bucket is the same URL (caches keep working) and none expires sooner
   * than `expiresIn` from now. Default: `expiresIn`, at most one day.
   */
  expiryBucket?: number;
  /**
   * The key's policy (dashboard → API keys → Policy): a URL it would refuse throws a RangeError here,
   * with the server's reason, instead of signing a URL that answers 403.
   */
  policy?: KeyPolicy | null;
  /** For tests: the current time in ms. */
  now?: number;
}

/** Length of the truncated base64url HMAC-SHA256 (the contract's `sig`). */
const SIGNATURE_LENGTH = 32;
const DAY = 86_400;
const encoder = new TextEncoder();

/**
 * The contract's signature: HMAC-SHA256 with the whole secret key as the key, over
 * `{operations}/{source}` plus `?exp={exp}` when the URL expires, base64url, first 32 characters.
 * Web Crypto, so it runs in Node 20+, edge runtimes, Deno, Bun and workers alike.
 */
export async function signature(secretKey: string, operations: string, source: string, exp?: number): Promise<string> {
  const payload = exp === undefined ? `${operations}/${source}` : `${operations}/${source}?exp=${exp}`;
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secretKey),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(payload)));
  return base64url(mac).slice(0, SIGNATURE_LENGTH);
}

/** The expiry (Unix seconds) of a URL asked to last `expiresIn` seconds from `nowMs`, bucketed. */
export function bucketedExpiry(nowMs: number, expiresIn: number, bucket = Math.min(expiresIn, DAY)): number {
  if (!Number.isFinite(expiresIn) || expiresIn <= 0)
    throw new RangeError(`expiresIn must be a positive number of seconds, got ${expiresIn}`);
  if (!Number.isInteger(bucket) || bucket < 1)
    throw new RangeError(`expiryBucket must be a whole number of seconds ≥ 1, got ${bucket}`);
  const earliest = Math.ceil(nowMs / 1000 + expiresIn);
  return Math.ceil(earliest / bucket) * bucket;
}

/** A signed image URL: `{baseUrl}/api/v1/{project}/{operations}/{source}?key=…&sig=…[&exp=…]`. */
export async function signUrl(input: SignUrlInput): Promise<string> {
  const operations = typeof input.operations === "string" ? input.operations : buildOperations(input.operations);
  if (operations === "" || operations.includes("/"))
    throw new RangeError(`operations must be one path segment (use "_" for none), got "${operations}"`);
  if (input.source === "") throw new RangeError("source must not be empty");
  const nowMs = input.now ?? Date.now();
  let exp = input.expiresIn === undefined ? undefined : bucketedExpiry(nowMs, input.expiresIn, input.expiryBucket);
  // Rounding up to the bucket must not take the URL past the longest expiry the key's policy allows.
  const longest = input.policy?.maxExpirySeconds;
  if (exp !== undefined && longest != null && exp - nowMs / 1000 > longest && input.expiresIn! <= longest) {
    exp = Math.ceil(nowMs / 1000 + input.expiresIn!);
  }
  // Without exp, such a source signs the same string as an expiring URL: the server refuses it (contract §2).
  if (exp === undefined && /\?exp=\d+$/.test(input.source))
    throw new RangeError("a source ending in ?exp=N needs expiresIn: the server refuses it without one");
  if (input.policy) checkKeyPolicy(input.policy, operations, exp, nowMs);
  const sig = await signature(input.secretKey, operations, input.source, exp);
  // Each source segment is encoded on its own, so the server's single decode gives back exactly the
  // signed source (a `%20` in the source stays `%20`). The `//` after a scheme is written as one `/`:
  // Next.js answers `//` in a path with a 308, and the server restores `https:/host` (same payload).
  const path = input.source
    .split("/")
    .map(encodeURIComponent)
    .join("/")
    .replace(/^(https?%3A)\/\//i, "$1/");
  const query = new URLSearchParams({ key: input.publicKey, sig });
  if (exp !== undefined) query.set("exp", String(exp));
  const base = input.baseUrl.replace(/\/+$/, "");
  return `${base}/api/v1/${encodeURIComponent(input.projectSlug)}/${encodeURIComponent(operations)}/${path}?${query.toString()}`;
}
