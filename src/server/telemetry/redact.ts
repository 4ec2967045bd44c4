import type { Attributes } from "@opentelemetry/api";

/**
 * What a span may say about a URL. Next's own request span records the target (`http.target`), and
 * a target carries secrets in several places: the image URL's signature and key in its query, the
 * source (a presigned URL's credentials percent-encoded in it) in its path, an invitation's token,
 * OAuth's code and state, the inputs of tRPC queries. So a URL attribute keeps its path's shape
 * only: the image API's project and operations, then `[source]`; an invitation's path without its
 * token; never a query.
 */
const URL_ATTRIBUTES = new Set(["http.target", "http.url", "url.full", "url.path", "url.original"]);
const QUERY_ATTRIBUTES = new Set(["url.query"]);

/** Any other text: the known secret parameters, should one appear in it. */
const SECRET_PARAMETERS =
  /([?&](?:sig|key|token|code|state|signature|x-amz-signature|x-amz-credential|x-amz-security-token)=)[^&#\s]*/gi;

export function redactText(value: string): string {
  return value.replace(SECRET_PARAMETERS, "$1[redacted]");
}

export function redactUrl(value: string): string {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(value)?.[0] ?? "";
  const rest = value.slice(origin.length);
  const cut = rest.search(/[?#]/);
  const path = (cut >= 0 ? rest.slice(0, cut) : rest)
    .replace(/^(\/api\/v1\/[^/]+\/[^/]+)\/.*$/, "$1/[source]")
    .replace(/^\/invite\/[^/]+/, "/invite/[token]");
  return `${origin}${path}${cut >= 0 ? "?[redacted]" : ""}`;
}

/** Rewrites, in place, every string attribute that could carry a secret. */
export function redactAttributes(attributes: Attributes): void {
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value !== "string") continue;
    const safe = QUERY_ATTRIBUTES.has(name)
      ? "[redacted]"
      : URL_ATTRIBUTES.has(name)
        ? redactUrl(value)
        : redactText(value);
    if (safe !== value) attributes[name] = safe;
  }
}
