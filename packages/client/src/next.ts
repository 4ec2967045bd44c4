/**
 * next/image integration without secrets in the browser: the loader (which also runs in the browser)
 * only points at a route of your own app; that route signs on the server and redirects to OptStuff.
 *
 *   // image-loader.ts (next.config: images: { loader: "custom", loaderFile: "./image-loader.ts" })
 *   export default createImageLoader({ route: "/api/image" });
 *   // app/api/image/route.ts
 *   export const GET = createSigningRoute({ baseUrl, projectSlug, publicKey, secretKey, allowedHosts: ["cdn.example.com"] });
 */
export { createSigningRoute, type SigningRouteOptions } from "./signing-route.js";

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
