import { endsLikeExpiry, sign, signaturePayload } from "@/server/signing";

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

// The tests' own builder, written apart from packages/client (which the product uses to build URLs):
// it signs with the server's signature code, so the kit, the dashboard's snippets and the docs' snippets
// are each held byte-equal to a second implementation of the contract, not to themselves.
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

/** A URL signed with a bootstrapped project's credentials (the OPTSTUFF_* variables bootstrapProject returns). */
export function signedFor(
  baseUrl: string,
  credentials: Readonly<Record<string, string>>,
  operations: string,
  source: string,
  exp?: number,
): string {
  const need = (name: string) => {
    const value = credentials[name];
    if (!value) throw new Error(`the credentials lack ${name}`);
    return value;
  };
  return buildSignedUrl({
    baseUrl,
    projectSlug: need("OPTSTUFF_PROJECT_SLUG"),
    publicKey: need("OPTSTUFF_PUBLIC_KEY"),
    secretKey: need("OPTSTUFF_SECRET_KEY"),
    operations,
    source,
    exp,
  });
}
