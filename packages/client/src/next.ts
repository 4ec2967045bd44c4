/**
 * next/image integration without secrets in the browser: the loader (which also runs in the browser)
 * only points at a route of your own app; that route signs on the server and redirects to OptStuff.
 *
 *   // image-loader.ts (next.config: images: { loader: "custom", loaderFile: "./image-loader.ts" })
 *   export default createImageLoader({ route: "/api/image" });
 *   // app/api/image/route.ts
 *   export const GET = createSigningRoute({ baseUrl, projectSlug, publicKey, secretKey, allowedHosts: ["cdn.example.com"] });
 */
import { signUrl, type SigningKeys } from "./sign.js";
import type { Format } from "./operations.js";

/** What next/image passes to a loader. */
export interface ImageLoaderProps {
  src: string;
  width: number;
  quality?: number;
}

export interface LoaderOptions {
  /** Path (or URL) of the signing route. Default `/api/image`. */
  route?: string;
}

/** A next/image loader: `/api/image?src=…&w=…[&q=…]`, resolved and signed by createSigningRoute. */
export function createImageLoader(options: LoaderOptions = {}): (props: ImageLoaderProps) => string {
  const route = options.route ?? "/api/image";
  return ({ src, width, quality }) => {
    const query = new URLSearchParams({ src, w: String(width) });
    if (quality !== undefined) query.set("q", String(quality));
    return `${route}?${query.toString()}`;
  };
}

export interface SigningRouteOptions extends SigningKeys {
  /**
   * Hosts whose images may be signed (exact, lower case). Required: without it the route would sign
   * any URL for anyone, spending your quota on their images.
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

/**
 * A GET handler (App Router route, or anything taking a Request) answering 302 to the signed URL. The
 * redirect may be cached for as long as the signed URL is certainly still valid, minus a margin, so
 * browsers and CDNs do not ask again for every image.
 */
export function createSigningRoute(options: SigningRouteOptions): (request: Request) => Promise<Response> {
  const site = options.siteUrl === undefined ? undefined : new URL(options.siteUrl);
  const allowed = new Set([...options.allowedHosts, ...(site ? [site.hostname] : [])].map((host) => host.toLowerCase()));
  const maxWidth = options.maxWidth ?? 3840;
  const expiresIn = options.expiresIn ?? DEFAULT_EXPIRES_IN;
  return async (request) => {
    const params = new URL(request.url).searchParams;
    const refusal = (message: string) => new Response(JSON.stringify({ error: message }), { status: 400, headers: { "Content-Type": "application/json", "Cache-Control": "no-store" } });
    const src = params.get("src") ?? "";
    const relative = src.startsWith("/") && !src.startsWith("//");
    if (relative && !site) return refusal("src must be an absolute http(s) URL (set siteUrl to serve paths of this site)");
    let source: URL;
    try {
      source = relative ? new URL(src, site) : new URL(src);
    } catch {
      return refusal("src must be an absolute http(s) URL");
    }
    if ((source.protocol !== "https:" && source.protocol !== "http:") || source.username || source.password) return refusal("src must be an absolute http(s) URL without credentials");
    if (!allowed.has(source.hostname.toLowerCase())) return refusal(`images from ${source.hostname} are not signed here`);
    const width = Number(params.get("w"));
    if (!Number.isInteger(width) || width < 1 || width > maxWidth || (options.widths && !options.widths.includes(width))) return refusal("w is not an allowed width");
    const quality = params.has("q") ? Number(params.get("q")) : (options.defaultQuality ?? 75);
    if (!Number.isInteger(quality) || quality < 1 || quality > 100) return refusal("q must be an integer from 1 to 100");

    const now = Date.now();
    const location = await signUrl({ ...options, operations: { width, quality, format: options.format ?? "auto" }, source: relative ? source.href : src, expiresIn, now });
    const exp = Number(new URL(location).searchParams.get("exp"));
    // Cache the redirect for at most half the signed URL's remaining life, so a cached redirect never
    // points at an expired URL.
    const maxAge = Math.max(0, Math.floor((exp - now / 1000) / 2));
    return new Response(null, { status: 302, headers: { Location: location, "Cache-Control": `public, max-age=${maxAge}` } });
  };
}
