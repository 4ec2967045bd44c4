import { endsLikeExpiry, sign, signaturePayload } from "./signature";

export interface SignedUrlInput {
  baseUrl: string;
  projectSlug: string;
  publicKey: string;
  secretKey: string;
  /** Operations segment, e.g. `w_800,f_webp`; `_` for none. */
  operations: string;
  /** Source as signed: `cdn.example.com/a.jpg`, `https://…`, or `local/demo.jpg`. */
  source: string;
  /** Unix seconds. */
  exp?: number;
}

// Also in packages/client (which imports nothing from src/), the dashboard's Node snippet and the
// docs' snippets; tests hold all of them byte-equal to this builder.
const SCHEME_SLASHES = /^(https?%3A)\/\//i;

/**
 * Builds a URL the way the reference client does: each source segment goes through
 * encodeURIComponent, so the route sees exactly the signed source after its single decode. The `//`
 * after an explicit scheme is written as one `/`: Next.js answers any `//` in a path with a 308 to
 * the collapsed path, and the route restores `https:/host` to `https://host` before verifying
 * (contract §1), so the collapsed form saves that round trip and signs the same payload.
 */
export function buildSignedUrl(input: SignedUrlInput): string {
  const payload = signaturePayload(input.operations, input.source, input.exp);
  if (input.exp === undefined && endsLikeExpiry(payload)) {
    throw new RangeError(
      "A source ending in ?exp=N needs an exp of its own: without one the server refuses it (contract §2)",
    );
  }
  const signature = sign(input.secretKey, payload);
  const path = input.source.split("/").map(encodeURIComponent).join("/").replace(SCHEME_SLASHES, "$1/");
  const query = new URLSearchParams({ key: input.publicKey, sig: signature });
  if (input.exp !== undefined) query.set("exp", String(input.exp));
  const base = input.baseUrl.replace(/\/+$/, "");
  return `${base}/api/v1/${encodeURIComponent(input.projectSlug)}/${encodeURIComponent(input.operations)}/${path}?${query}`;
}
