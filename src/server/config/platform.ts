import type { PlatformValues } from "./platform-settings";
import type { ServerValues } from "./server-settings";

/** What tells where and how the server runs: the platform's variables, and the server's address. */
export type PlatformAddress = PlatformValues & Pick<ServerValues, "OPTSTUFF_PUBLIC_BASE_URL" | "HOST" | "PORT">;

/**
 * The public origin, worked out of the settings: the dashboard, the snippets and every command print
 * it. A command run in another shell than the server's lacks the server's settings: it takes the
 * address the server wrote down at start instead (server-address.ts).
 */
export function publicBaseUrl(e: PlatformAddress): string {
  if (e.OPTSTUFF_PUBLIC_BASE_URL) return e.OPTSTUFF_PUBLIC_BASE_URL.replace(/\/+$/, "");
  // A preview is not reached at the production domain: its sign-in would refuse its own pages' origin.
  const [preview] = previewOrigins(e);
  if (preview) return preview;
  if (e.VERCEL_PROJECT_PRODUCTION_URL) return `https://${e.VERCEL_PROJECT_PRODUCTION_URL}`;
  return `http://${visitableHost(e.HOST)}:${e.PORT}`;
}

/** HOST as a URL names it: a wildcard is where the server listens, not an address to visit (loopback reaches it). */
function visitableHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "[::]") return "127.0.0.1";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** A Vercel preview's own origins, its branch's first (stable across its deployments); none elsewhere. */
export function previewOrigins(e: PlatformValues): string[] {
  if (e.VERCEL === undefined || e.VERCEL_ENV !== "preview") return [];
  return [e.VERCEL_BRANCH_URL, e.VERCEL_URL].filter((host) => host !== undefined).map((host) => `https://${host}`);
}

/** Production means secrets must be given, never generated. */
export function isProduction(e: Pick<PlatformValues, "VERCEL" | "NODE_ENV"> & { DATABASE_URL?: string }): boolean {
  return e.VERCEL !== undefined || (e.NODE_ENV === "production" && e.DATABASE_URL !== undefined);
}
