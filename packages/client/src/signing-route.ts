import type { Fit, Format } from "./operations.js";
import { signUrl, type SigningKeys } from "./sign.js";

export interface SigningRouteOptions extends SigningKeys {
  /**
   * Hosts whose images may be signed: `cdn.example.com`, or `cdn.example.com:8443` for another port
   * than the scheme's default. Required, with no default (createSigningRoute throws without it): a
   * route that signed any URL for anyone would spend your quota on their images.
   */
  allowedHosts: readonly string[];
  /**
   * Your site's public origin, e.g. `https://www.example.com`. With it, a `src` starting with `/` (an
   * image under next's public/ folder) is fetched by OptStuff from this origin, whose host is then
   * allowed too; without it such a `src` is refused.
   */
  siteUrl?: string;
  /** Widths allowed (next.config's deviceSizes + imageSizes); default any width 1–maxWidth. */
  widths?: readonly number[];
  /** Default 3840, next/image's largest default device size. */
  maxWidth?: number;
  /** Default 75, as next/image. */
  defaultQuality?: number;
  /** Default `auto`: AVIF or WebP as the browser accepts. */
  format?: Format;
  /** Signed URLs last at least this long (seconds). Default one day. */
  expiresIn?: number;
}

const DEFAULT_EXPIRES_IN = 86_400;

/** Why a request is not signed; answered as 400. */
class Refusal {
  constructor(readonly message: string) {}
}

/**
 * A GET handler (App Router route, or anything taking a Request) answering 302 to the signed URL. The
 * redirect may be cached for as long as the signed URL is certainly still valid, minus a margin, so
 * browsers and CDNs do not ask again for every image.
 */
export function createSigningRoute(options: SigningRouteOptions): (request: Request) => Promise<Response> {
  assertAllowedHosts(options?.allowedHosts);
  const site = options.siteUrl === undefined ? undefined : new URL(options.siteUrl);
  const allowed = new Set([...options.allowedHosts.map(hostEntry), ...(site ? [site.host] : [])]);
  return async (request) => {
    const url = new URL(request.url);
    const source = resolveSource(url.searchParams.get("src") ?? "", site, url.pathname);
    if (source instanceof Refusal) return refuse(source);
    if (!allowed.has(source.host)) return refuse(new Refusal(`images from ${source.host} are not signed here`));
    const size = requestedSize(url.searchParams, options);
    if (size instanceof Refusal) return refuse(size);

    const now = Date.now();
    // The parsed form is signed, so OptStuff fetches exactly the URL whose host was checked here.
    const location = await signUrl({
      ...options,
      operations: { ...size, format: options.format ?? "auto" },
      source: source.href,
      expiresIn: options.expiresIn ?? DEFAULT_EXPIRES_IN,
      now,
    });
    const exp = Number(new URL(location).searchParams.get("exp"));
    // Cache the redirect for at most half the signed URL's remaining life, so a cached redirect never
    // points at an expired URL.
    const maxAge = Math.max(0, Math.floor((exp - now / 1000) / 2));
    return new Response(null, {
      status: 302,
      headers: { Location: location, "Cache-Control": `public, max-age=${maxAge}` },
    });
  };
}

/**
 * Types stop a TypeScript caller from leaving allowedHosts out; a JavaScript caller has none, and
 * learns here what to write instead of reading "Cannot read properties of undefined". There is no
 * default: a route that signed any host would let anyone spend the project's quota on their images.
 */
function assertAllowedHosts(hosts: unknown): void {
  if (!Array.isArray(hosts)) {
    throw new TypeError(
      'createSigningRoute: allowedHosts is required, the list of hosts whose images this route signs, e.g. allowedHosts: ["cdn.example.com"] ([] with siteUrl signs only your site\'s own paths)',
    );
  }
}

/** An allowedHosts entry as the URL parser writes a host (lower case, punycode, no default port). */
function hostEntry(entry: string): string {
  if (typeof entry !== "string") {
    throw new TypeError(
      `allowedHosts: ${String(entry)} is not a host (write "cdn.example.com" or "cdn.example.com:8443")`,
    );
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(`https://${entry}`);
  } catch {
    parsed = undefined;
  }
  if (!parsed || parsed.username || parsed.password || parsed.pathname !== "/" || parsed.search || parsed.hash) {
    throw new TypeError(`allowedHosts: "${entry}" is not a host (write cdn.example.com or cdn.example.com:8443)`);
  }
  return parsed.host;
}

/**
 * The image URL a `src` names: absolute http(s), or a path of the site (no query: a path of this site
 * with a query could be this very route, signing itself in a loop through OptStuff's fetches).
 */
function resolveSource(src: string, site: URL | undefined, routePath: string): URL | Refusal {
  const relative = /^\/(?![/\\])/.test(src);
  if (relative && !site)
    return new Refusal("src must be an absolute http(s) URL (set siteUrl to serve paths of this site)");
  if (relative && /[?#]/.test(src)) return new Refusal("a path of this site must be a file, without a query");
  let source: URL;
  try {
    source = relative ? new URL(src, site) : new URL(src);
  } catch {
    return new Refusal("src must be an absolute http(s) URL");
  }
  if ((source.protocol !== "https:" && source.protocol !== "http:") || source.username || source.password)
    return new Refusal("src must be an absolute http(s) URL without credentials");
  if (relative && source.pathname === routePath) return new Refusal("src must not be this route");
  // Next.js collapses `//` in a request path before OptStuff's route sees it, so the signature would never match.
  if (source.pathname.includes("//")) return new Refusal("src must not contain an empty path segment (//)");
  return source;
}

const FITS: readonly Fit[] = ["cover", "contain", "fill", "inside", "outside"];

/** w (required), q, and for adapters that send a box (Nuxt Image, unpic) h and fit. */
function requestedSize(
  params: URLSearchParams,
  options: SigningRouteOptions,
): { width: number; height?: number; fit?: Fit; quality: number } | Refusal {
  const width = Number(params.get("w"));
  const maxWidth = options.maxWidth ?? 3840;
  if (!Number.isInteger(width) || width < 1 || width > maxWidth || (options.widths && !options.widths.includes(width)))
    return new Refusal("w is not an allowed width");
  const quality = params.has("q") ? Number(params.get("q")) : (options.defaultQuality ?? 75);
  if (!Number.isInteger(quality) || quality < 1 || quality > 100)
    return new Refusal("q must be an integer from 1 to 100");
  const height = params.has("h") ? Number(params.get("h")) : undefined;
  if (height !== undefined && (!Number.isInteger(height) || height < 1 || height > maxWidth))
    return new Refusal(`h must be an integer from 1 to ${maxWidth}`);
  const fit = params.get("fit") ?? undefined;
  if (fit !== undefined && !FITS.includes(fit as Fit)) return new Refusal(`fit must be one of ${FITS.join(", ")}`);
  return {
    width,
    quality,
    ...(height === undefined ? {} : { height }),
    ...(fit === undefined ? {} : { fit: fit as Fit }),
  };
}

function refuse(refusal: Refusal): Response {
  return new Response(JSON.stringify({ error: refusal.message }), {
    status: 400,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });
}
