/**
 * The prose columns of the image API's error table in docs/errors.md: when each code is answered, and
 * what the integrator does about it. Keyed by code, so the compiler refuses a missing or stale key;
 * renderDeliveryErrorTable checks again at run time (the unit tests run without tsc).
 */
import type { deliveryErrors } from "@/server/errors";

type DeliveryCode = keyof typeof deliveryErrors;

export const errorWhen = {
  BAD_REQUEST:
    "The path is not `/{project}/{operations}/{source}`, a path segment has malformed percent-encoding (`%zz`, a truncated or overlong UTF-8 sequence), the operations segment is empty, or `exp` is not 1–12 digits.",
  UNKNOWN_OPERATION: "A token name is not in the operations table; the message names the token.",
  INVALID_OPERATION:
    "A token's value is malformed or out of range, a token is empty, there are more than 64 tokens, or `c_` starts outside the image; the message names the token and its syntax.",
  INVALID_SOURCE:
    "The source is empty, longer than 2,048 bytes, starts with `/`, has control characters, another scheme than http/https, credentials, an unparseable host or port, or a `local/` path with an empty, `.` or `..` segment or a backslash.",
  MISSING_CREDENTIALS: "`key` or `sig` is absent or empty.",
  INVALID_KEY: "`key` is not `pk_` + 22 base64url characters (checked before any lookup), or no key has it.",
  KEY_REVOKED: "The key was revoked (immediate).",
  KEY_EXPIRED: "The key's expiry date has passed.",
  KEY_PROJECT_MISMATCH: "The key belongs to a project whose slug is not the URL's `{projectSlug}`.",
  SIGNATURE_INVALID: "`sig` does not match the payload (wrong secret, or the operations, source or `exp` changed).",
  REFERER_NOT_ALLOWED:
    "The project, or the key's policy, has a referer allowlist and the `Referer` is missing, unparseable or not on it.",
  SOURCE_NOT_ALLOWED:
    "The source is not on the project's allowed sources, is `local/` with no local root or escapes it, or its host name or any resolved address is forbidden.",
  SIGNATURE_EXPIRED: "The signature is valid but `exp` is not in the future.",
  KEY_POLICY_REFUSED:
    "The signature is valid but the key's policy refuses the URL: an operation or preset it may not sign, no `exp` or one further ahead than it allows. The message names which.",
  SOURCE_NOT_FOUND: "The origin answered 404, or the local file does not exist or is not a regular file.",
  SOURCE_GONE: "The origin answered 410.",
  SOURCE_TOO_LARGE: "The declared, streamed or on-disk size is over `OPTSTUFF_MAX_SOURCE_BYTES`.",
  IMAGE_TOO_LARGE:
    "Width × height × decoded frames (plus the rasters an SVG embeds) is over `OPTSTUFF_MAX_INPUT_PIXELS`, the frames are over `OPTSTUFF_MAX_FRAMES`, or the output is too large for its format.",
  OUTPUT_TOO_LARGE:
    "The output is larger than the deployment answers directly (`OPTSTUFF_RESPONSE_MAX_BYTES`; on Vercel 4.4 MB, under its 4.5 MB cap on function responses) and no S3 result bucket can hold it for a redirect.",
  TRANSFORM_MEMORY_EXCEEDED:
    "The transform process grew past `OPTSTUFF_TRANSFORM_MEMORY_MB` (an SVG's filters, an enormous output) and was ended.",
  UNSUPPORTED_IMAGE:
    "Empty, not an image, or a format other than JPEG, PNG, WebP, GIF, AVIF, HEIC, TIFF, SVG (e.g. BMP, or HEIF of another codec); or an SVG that would be passed through but carries active content or is gzipped.",
  IMAGE_DECODE_FAILED: "The bytes claim a supported format but do not decode (truncated, corrupt).",
  RATE_LIMITED:
    "A new transform (a result-cache miss) would exceed the key's minute or day window or the client address's transform window; any request would exceed the address's request window; or the address failed authentication too often this minute. Cache hits and 304s never spend the key's windows. With Retry-After and X-RateLimit-Limit, -Remaining, -Reset of the refusing window.",
  SPEND_CAP_REACHED:
    "A new transform (a result-cache miss) under a key that reached one of its spend caps (transforms or bytes delivered this UTC day or month). Images already made are still served. With Retry-After until the period ends, and X-RateLimit-Limit (the cap), -Remaining (0), -Reset.",
  SOURCE_FAILED:
    "DNS failed, no address connected, TLS failed, the origin answered another status than 200/404/410 or a compressed body, or the connection broke.",
  SOURCE_REDIRECT_FORBIDDEN:
    "A redirect leads to a forbidden scheme, name or address, carries credentials, goes from https to http, or exceeds `OPTSTUFF_MAX_REDIRECTS`.",
  OVERLOADED:
    "Every transform slot is busy and the queue (`OPTSTUFF_TRANSFORM_QUEUE`) is full; sent with `Retry-After`.",
  NOT_READY: "Reserved; not raised by the image route in this version.",
  SOURCE_TIMEOUT: "The whole fetch (DNS, connect, headers, body, every redirect) exceeded `OPTSTUFF_FETCH_TIMEOUT_MS`.",
  TRANSFORM_TIMEOUT:
    "Processing exceeded `OPTSTUFF_TRANSFORM_TIMEOUT_MS`; a native call that libvips cannot interrupt is stopped by ending its transform process.",
  INTERNAL: "A bug, or an API-key secret that no configured master secret opens. The body never carries the cause.",
} as const satisfies Record<DeliveryCode, string>;

/** The fix from the integrator's side; the operator's setting where only the server can change the outcome. */
export const errorFix = {
  BAD_REQUEST:
    "Build the path as `/api/v1/{project}/{operations}/{source}`, `_` for no operations, `exp` in Unix seconds ([Request](url-format.md#request)).",
  UNKNOWN_OPERATION: "Use a token from the [operations table](url-format.md#operations); names are case-sensitive.",
  INVALID_OPERATION: "Give the named token a value its syntax allows ([operations table](url-format.md#operations)).",
  INVALID_SOURCE:
    "Write the source as `host/path`, `https://host/path` or `local/path`, without credentials ([Source](url-format.md#source)).",
  MISSING_CREDENTIALS: "Send both `key` and `sig`; check that no proxy or CDN strips the query string.",
  INVALID_KEY: "Check `OPTSTUFF_PUBLIC_KEY`; copy it from the dashboard's API keys page.",
  KEY_REVOKED: "Create a key on the API keys page and sign with the new pair; revocation is final.",
  KEY_EXPIRED:
    "Create a key on the API keys page; an expired key cannot be changed (extend an active key's expiry before it passes).",
  KEY_PROJECT_MISMATCH: "Use the slug of the key's project (`OPTSTUFF_PROJECT_SLUG`), or a key of the URL's project.",
  SIGNATURE_INVALID:
    "Sign exactly `{operations}/{source}[?exp=…]` with the whole `sk_…` string as the HMAC key ([signing.md](signing.md#pitfalls)).",
  REFERER_NOT_ALLOWED:
    "Add the embedding site's host to the project's referer hosts (dashboard → project settings), and to the key's policy where it has a list (API keys → Policy); a page with `Referrer-Policy: no-referrer` sends none.",
  SOURCE_NOT_ALLOWED:
    "Add the host to the project's allowed sources (dashboard → project settings); private and internal addresses are never allowed.",
  KEY_POLICY_REFUSED:
    "Sign with a key whose policy allows it, or widen this key's policy (dashboard → API keys → Policy; [Key policies](url-format.md#key-policies)).",
  SIGNATURE_EXPIRED:
    "Sign with a later `exp`, beyond how long the embedding page is cached; bucket expiries ([signing.md](signing.md#expiry)).",
  SOURCE_NOT_FOUND: "Check the source URL on the origin, or the file under the local root.",
  SOURCE_GONE: "The origin removed the image: update or drop the URL.",
  SOURCE_TOO_LARGE: "Use a smaller original; operators can raise `OPTSTUFF_MAX_SOURCE_BYTES`.",
  IMAGE_TOO_LARGE:
    "Use a smaller original or ask for a smaller output; operators can raise `OPTSTUFF_MAX_INPUT_PIXELS` or `OPTSTUFF_MAX_FRAMES`.",
  UNSUPPORTED_IMAGE: "Convert the source to a supported format; for a refused SVG, ask for `f_png`.",
  IMAGE_DECODE_FAILED: "Export the source again: it is truncated or corrupt.",
  RATE_LIMITED:
    "Honour `Retry-After`; raise the key's transform limits in the dashboard (API keys → edit), or the per-address ones (`OPTSTUFF_ADDRESS_REQUESTS_PER_MINUTE`, `OPTSTUFF_ADDRESS_TRANSFORMS_PER_MINUTE`) when many visitors share one address. Refused after repeated 401/403s: fix the key or signature first.",
  SPEND_CAP_REACHED:
    "Wait for the period's start (`Retry-After`), or raise or clear the cap in the dashboard (API keys → Limits) or with `optstuff keys caps`. The message names the cap that was reached.",
  SOURCE_FAILED: "Check the origin as the server reaches it: DNS, TLS certificate, a `200` with an uncompressed body.",
  SOURCE_REDIRECT_FORBIDDEN: "Check the origin's redirects, or point the URL at the final location.",
  OVERLOADED:
    "Retry after `Retry-After`; operators can raise `OPTSTUFF_TRANSFORM_QUEUE` or `OPTSTUFF_TRANSFORM_CONCURRENCY`, or add instances.",
  NOT_READY: "Retry later.",
  SOURCE_TIMEOUT: "Check how fast the origin answers the server; operators can raise `OPTSTUFF_FETCH_TIMEOUT_MS`.",
  TRANSFORM_TIMEOUT:
    "Ask for a smaller output or use a smaller original; operators can raise `OPTSTUFF_TRANSFORM_TIMEOUT_MS`.",
  OUTPUT_TOO_LARGE:
    "Ask for a smaller size or a compressed format (`f_webp`, `f_avif`); operators configure an S3 result bucket, whose signed links answer large outputs ([Self-hosting](self-hosting.md)).",
  TRANSFORM_MEMORY_EXCEEDED:
    "Use a simpler or smaller original (an SVG's filters are the usual cause); operators can raise `OPTSTUFF_TRANSFORM_MEMORY_MB`.",
  INTERNAL:
    "Report it with the `requestId`; the server log has the cause. Operators: a key secret no master secret opens needs its master back (`OPTSTUFF_KEY_ENCRYPTION_SECRET_PREVIOUS`).",
} as const satisfies Record<DeliveryCode, string>;
