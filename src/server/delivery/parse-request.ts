import { AppError } from "@/server/errors";
import { parseOperations, type ImageOperations } from "@/server/image";
import { isPublicKeyShape } from "@/server/signing";

export interface ImageRequestParts {
  projectSlug: string;
  /** The operations segment exactly as signed. */
  operationsSegment: string;
  operations: ImageOperations;
  /** The source as signed: decoded once, scheme slashes restored, no scheme added. */
  source: string;
  publicKey: string;
  signature: string;
  exp: number | undefined;
  /** The raw `exp` text, signed as given. */
  expText: string | undefined;
}

export interface RawImageRequest {
  projectSlug: string;
  /** Path segments after the slug, each percent-decoded once (decodeImagePath). */
  segments: readonly string[];
  query: URLSearchParams;
}

const ROUTE_PREFIX = "/api/v1/";

/**
 * The slug and the segments after it, from the path as the client sent it, each segment decoded once
 * as a router would. The route reads the raw path itself: Next's router answers a malformed escape
 * (`%zz`, a truncated or overlong UTF-8 sequence) with its own 500 page before any handler runs.
 */
export function decodeImagePath(pathname: string): Pick<RawImageRequest, "projectSlug" | "segments"> {
  if (!pathname.startsWith(ROUTE_PREFIX))
    throw new AppError("BAD_REQUEST", { message: "Expected /api/v1/{project}/{operations}/{source}" });
  const [projectSlug = "", ...segments] = pathname.slice(ROUTE_PREFIX.length).split("/").map(decodeSegment);
  return { projectSlug, segments };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AppError("BAD_REQUEST", {
      message: "Malformed percent-encoding in the path",
      detail: `undecodable segment ${segment.slice(0, 100)}`,
    });
  }
}

const EXP_SHAPE = /^\d{1,12}$/;

/**
 * The longest source a URL may name, in UTF-8 bytes once decoded: far past any real image address
 * (browsers and CDNs cap whole URLs near 8 KB), and short enough that what the request log and the
 * statistics keep of a source stays small (usage/logged-source.ts).
 */
export const MAX_SOURCE_BYTES = 2048;

/**
 * Pure parsing of the path and query (contract §1). Shape errors are 400; missing or malformed
 * credentials are 401 and are checked only after the path parsed, so a typo is reported as such.
 */
export function parseImageRequest(raw: RawImageRequest): ImageRequestParts {
  const [operationsSegment, ...sourceSegments] = raw.segments;
  if (!raw.projectSlug || !operationsSegment || sourceSegments.length === 0) {
    throw new AppError("BAD_REQUEST", { message: "Expected /api/v1/{project}/{operations}/{source}" });
  }
  const source = restoreSchemeSlashes(sourceSegments.join("/"));
  if (source === "" || source.startsWith("/") || hasControlCharacter(source)) throw new AppError("INVALID_SOURCE");
  if (Buffer.byteLength(source) > MAX_SOURCE_BYTES)
    throw new AppError("INVALID_SOURCE", {
      message: `Invalid source URL: longer than ${MAX_SOURCE_BYTES} bytes`,
      detail: `source of ${Buffer.byteLength(source)} bytes`,
    });
  const operations = parseOperations(operationsSegment);

  const expText = raw.query.get("exp") ?? undefined;
  if (expText !== undefined && !EXP_SHAPE.test(expText)) {
    throw new AppError("BAD_REQUEST", { message: "exp must be Unix seconds" });
  }
  const publicKey = raw.query.get("key");
  const signature = raw.query.get("sig");
  if (!publicKey || !signature) throw new AppError("MISSING_CREDENTIALS");
  if (!isPublicKeyShape(publicKey)) throw new AppError("INVALID_KEY", { detail: "malformed public key" });

  return {
    projectSlug: raw.projectSlug,
    operationsSegment,
    operations,
    source,
    publicKey,
    signature,
    exp: expText === undefined ? undefined : Number(expText),
    expText,
  };
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 0x20 || text.charCodeAt(i) === 0x7f) return true;
  return false;
}

/** Routers and proxies collapse `//`: `https:/host/a.png` is restored to `https://host/a.png`. */
export function restoreSchemeSlashes(source: string): string {
  return source.replace(/^(https?):\/+(?=[^/])/i, (_, scheme: string) => `${scheme}://`);
}
