/**
 * Adapters for image components other than next/image. Like the next/image loader they hold no
 * secret (they also run in the browser): they point at your own signing route (createSigningRoute, a
 * Request → Response handler any server framework can mount), which signs and redirects to OptStuff.
 *
 *   // Nuxt Image: providers/optstuff.ts, then image: { providers: { optstuff: { provider: "~/providers/optstuff" } } }
 *   import { defineProvider } from "@nuxt/image/runtime";
 *   export default defineProvider(createNuxtImageProvider({ route: "/api/image" }));
 *
 *   // unpic: <Image src=… width={800} height={600} transformer={createUnpicTransformer()} />
 */
export interface AdapterOptions {
  /** Path (or URL) of the signing route. Default `/api/image`. */
  route?: string;
}

interface Box {
  width?: number | string;
  height?: number | string;
  quality?: number | string;
  fit?: string;
}

/** `/api/image?src=…&w=…[&h=…][&q=…][&fit=…]`; the route checks every value before signing. */
function routeUrl(route: string, src: string, box: Box): string {
  const query = new URLSearchParams({ src });
  for (const [name, value] of [
    ["w", box.width],
    ["h", box.height],
    ["q", box.quality],
    ["fit", box.fit],
  ] as const) {
    if (value !== undefined && value !== "") query.set(name, String(value));
  }
  return `${route}?${query.toString()}`;
}

/** What unpic passes a transformer: the source and the size it lays out. */
export interface UnpicOperations {
  width?: number;
  height?: number;
  quality?: number;
}

/** A transformer for unpic's image components (`transformer` prop). */
export function createUnpicTransformer(
  options: AdapterOptions = {},
): (src: string | URL, operations: UnpicOperations) => string {
  const route = options.route ?? "/api/image";
  return (src, { width, height, quality }) =>
    routeUrl(route, String(src), {
      width,
      height,
      quality,
      ...(width !== undefined && height !== undefined ? { fit: "cover" } : {}),
    });
}

/** Nuxt Image's modifiers this provider reads (format is the route's, AVIF or WebP by Accept). */
export interface NuxtImageModifiers {
  width?: number | string;
  height?: number | string;
  quality?: number | string;
  fit?: string;
}

/** A Nuxt Image custom provider, to pass to its defineProvider. */
export function createNuxtImageProvider(options: AdapterOptions = {}): {
  getImage(src: string, args: { modifiers?: NuxtImageModifiers }): { url: string };
} {
  const route = options.route ?? "/api/image";
  return {
    getImage(src, { modifiers = {} }) {
      return { url: routeUrl(route, src, modifiers) };
    },
  };
}
