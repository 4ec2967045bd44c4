import type { IncomingMessage } from "node:http";
import { AppError } from "@/server/errors";
import { isForbiddenHostname } from "./ip-policy";
import type { BlockedCode } from "./open-checked-socket";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Checks what can be checked on a URL before any lookup: http/https only, no credentials, and not a
 * local-only or metadata host name. Applied to the first URL and to every redirect hop.
 */
export function assertFetchableUrl(url: URL, code: BlockedCode): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError(code, { detail: `scheme ${url.protocol} is not fetchable` });
  }
  if (url.username !== "" || url.password !== "") throw new AppError(code, { detail: "credentials in the source URL" });
  if (isForbiddenHostname(url.hostname)) throw new AppError(code, { detail: `host name ${url.hostname} is forbidden` });
}

/** The Location of a redirect response, or null when the response is final. */
export function redirectLocation(response: IncomingMessage): string | null {
  if (!REDIRECT_STATUSES.has(response.statusCode ?? 0)) return null;
  return response.headers.location ?? null;
}

/**
 * Resolves a Location (relative ones against the current URL) into the next hop and checks the scheme,
 * name and address policies; the fetcher then asks the project's allowlist (FetchOptions.mayFollow):
 * open redirects on CDNs and buckets are common, so an allowed origin vouches for nothing.
 * An https → http downgrade is refused: the origin chose TLS, and a plain-text hop would let anyone
 * on the path substitute the image we then cache and serve under the project's name.
 */
export function resolveRedirect(from: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch (cause) {
    throw new AppError("SOURCE_REDIRECT_FORBIDDEN", {
      detail: `unparseable Location ${location.slice(0, 200)}`,
      cause,
    });
  }
  assertFetchableUrl(next, "SOURCE_REDIRECT_FORBIDDEN");
  if (from.protocol === "https:" && next.protocol === "http:") {
    throw new AppError("SOURCE_REDIRECT_FORBIDDEN", { detail: `https → http downgrade to ${next.host}` });
  }
  return next;
}
