/**
 * The one error catalogue: every failure the product reports has a code here, with its HTTP status,
 * its public message and the request-log status it is recorded under. The internal cause travels with
 * the error (for logs) but is never sent to a client.
 */
export const deliveryErrors = {
  BAD_REQUEST: { status: 400, message: "Malformed request", log: "bad_request" },
  UNKNOWN_OPERATION: { status: 400, message: "Unknown operation", log: "bad_request" },
  INVALID_OPERATION: { status: 400, message: "Invalid operation value", log: "bad_request" },
  INVALID_SOURCE: { status: 400, message: "Invalid source URL", log: "bad_request" },
  MISSING_CREDENTIALS: { status: 401, message: "Missing key or sig parameter", log: "unauthorized" },
  INVALID_KEY: { status: 401, message: "Invalid API key", log: "unauthorized" },
  KEY_REVOKED: { status: 401, message: "API key has been revoked", log: "key_revoked" },
  KEY_EXPIRED: { status: 401, message: "API key has expired", log: "key_expired" },
  KEY_PROJECT_MISMATCH: { status: 401, message: "API key does not belong to this project", log: "unauthorized" },
  // The three refusals share one public message on purpose: telling a prober which check failed helps
  // them; the precise cause is kept in the request log.
  SIGNATURE_INVALID: { status: 403, message: "Forbidden", log: "sig_invalid", publicCode: "FORBIDDEN" },
  REFERER_NOT_ALLOWED: { status: 403, message: "Forbidden", log: "referer_blocked", publicCode: "FORBIDDEN" },
  SOURCE_NOT_ALLOWED: { status: 403, message: "Forbidden", log: "source_blocked", publicCode: "FORBIDDEN" },
  SIGNATURE_EXPIRED: { status: 403, message: "Signature has expired", log: "sig_expired" },
  // Said in full: only the key's holder can sign such a URL, and they need to know what to change.
  KEY_POLICY_REFUSED: { status: 403, message: "The key's policy does not allow this URL", log: "policy_refused" },
  SOURCE_NOT_FOUND: { status: 404, message: "Source image not found", log: "source_error" },
  SOURCE_GONE: { status: 410, message: "Source image is gone", log: "source_error" },
  SOURCE_TOO_LARGE: { status: 413, message: "Source image exceeds the byte limit", log: "too_large" },
  IMAGE_TOO_LARGE: { status: 413, message: "Source image exceeds the pixel limit", log: "too_large" },
  TRANSFORM_MEMORY_EXCEEDED: {
    status: 413,
    message: "Image processing needs more memory than allowed",
    log: "too_large",
  },
  OUTPUT_TOO_LARGE: {
    status: 413,
    message: "The output is larger than this deployment can answer",
    log: "too_large",
  },
  UNSUPPORTED_IMAGE: { status: 415, message: "Source is not a supported image", log: "unsupported_image" },
  IMAGE_DECODE_FAILED: { status: 422, message: "Source image could not be decoded", log: "unsupported_image" },
  RATE_LIMITED: { status: 429, message: "Rate limit exceeded", log: "rate_limited" },
  // The key's own spend cap (spend-caps/): its new transforms wait for the period's end; images already
  // made are still served. Said in full: the page's owner has to raise the cap or wait.
  SPEND_CAP_REACHED: { status: 429, message: "This key reached its spend cap", log: "cap_reached" },
  SOURCE_FAILED: { status: 502, message: "Source request failed", log: "source_error" },
  SOURCE_REDIRECT_FORBIDDEN: {
    status: 502,
    message: "Source redirected to a forbidden location",
    log: "source_blocked",
  },
  OVERLOADED: { status: 503, message: "Server is busy, retry shortly", log: "overloaded" },
  NOT_READY: { status: 503, message: "Service not ready", log: "error" },
  SOURCE_TIMEOUT: { status: 504, message: "Source request timed out", log: "timeout" },
  TRANSFORM_TIMEOUT: { status: 504, message: "Image processing timed out", log: "timeout" },
  INTERNAL: { status: 500, message: "Internal server error", log: "error" },
} as const satisfies Record<string, { status: number; message: string; log: string; publicCode?: string }>;

/**
 * What the dashboard's procedures refuse. Their callers are signed in and the message names what to
 * fix, so a procedure may replace the message with a more precise one (never with internal detail).
 */
export const dashboardErrors = {
  INVALID_INPUT: { status: 400, message: "Some fields are not valid" },
  UNAUTHENTICATED: { status: 401, message: "Please sign in" },
  NOT_PERMITTED: { status: 403, message: "Your role in this team does not allow this" },
  // The team, or the instance, requires a second factor and the account has none yet.
  SECOND_FACTOR_REQUIRED: {
    status: 403,
    message: "This team requires a second factor: set one up on your account page to open it",
  },
  // Also what a non-member gets for another team's resources: existence is not revealed.
  NOT_FOUND: { status: 404, message: "Not found" },
  SLUG_TAKEN: { status: 409, message: "That slug is already taken" },
  LAST_OWNER: { status: 409, message: "A team needs at least one owner: make someone else owner first" },
  ALREADY_MEMBER: { status: 409, message: "That person is already a member of this team" },
  KEY_NOT_ACTIVE: { status: 409, message: "Only an active key can be changed or rotated" },
  // What one account or team may hold (src/server/tenancy/quotas.ts); the message names the limit.
  QUOTA_REACHED: { status: 409, message: "This would go over a limit of this server" },
  // Past a per-account or per-team window (src/server/ratelimit/dashboard-limits.ts); with Retry-After.
  DASHBOARD_RATE_LIMITED: { status: 429, message: "Too many requests in a short time: wait a moment and try again" },
  // A dashboard read past its time on PostgreSQL (statement_timeout: src/server/db/dashboard-reads.ts).
  READ_TIMED_OUT: {
    status: 503,
    message: "This view took too long to read: choose a shorter range or a narrower filter, and try again",
  },
  // The client closed the request while its read ran: the read stops, and nobody gets this answer.
  CLIENT_GONE: { status: 499, message: "The request was closed before it was answered" },
  INVITATION_INVALID: { status: 410, message: "This invitation is no longer valid" },
  INVITATION_EMAIL_MISMATCH: { status: 403, message: "This invitation was sent to a different email address" },
  // Sign-up refused by the registration policy (OPTSTUFF_REGISTRATION); answered by the auth route.
  REGISTRATION_CLOSED: {
    status: 403,
    message: "Registration on this server is by invitation: open the invitation link you were sent",
  },
} as const satisfies Record<string, { status: number; message: string }>;

/** What the operator routes (cron, metrics) answer besides their reports. */
export const operatorErrors = {
  CRON_UNAUTHORIZED: { status: 401, message: "Missing or wrong cron secret" },
  CRON_NOT_CONFIGURED: { status: 503, message: "CRON_SECRET is not set, so the cron routes are closed" },
  METRICS_UNAUTHORIZED: { status: 401, message: "Missing or wrong metrics token" },
  // Production without OPTSTUFF_METRICS_TOKEN: the counters describe every tenant's traffic.
  METRICS_OFF: { status: 404, message: "Metrics are off: set OPTSTUFF_METRICS_TOKEN to read them" },
} as const satisfies Record<string, { status: number; message: string }>;

/**
 * What the routes that take a body (auth, tRPC, cron) answer before their own handling starts, as
 * JSON `{error, code, requestId}` (src/server/wire/body-limit.ts).
 */
export const requestErrors = {
  BODY_TOO_LARGE: { status: 413, message: "Request body is too large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Send the request body as JSON (Content-Type: application/json)" },
  // A dashboard mutation posted from another site's page (its Origin is not the dashboard's).
  CROSS_SITE_REQUEST: { status: 403, message: "Cross-site request refused: use the dashboard's own pages" },
} as const satisfies Record<string, { status: number; message: string }>;

export const errorCatalogue = { ...deliveryErrors, ...dashboardErrors, ...operatorErrors, ...requestErrors };

export type ErrorCode = keyof typeof errorCatalogue;
export type RequestLogStatus = (typeof deliveryErrors)[keyof typeof deliveryErrors]["log"] | "success";

/** Every status the request log can hold, success first: the dashboard's filter offers these. */
export const requestLogStatuses = ["success", ...new Set(Object.values(deliveryErrors).map((e) => e.log))] as [
  RequestLogStatus,
  ...RequestLogStatus[],
];

export interface AppErrorOptions {
  /** Replaces the catalogue's public message; only for messages that reveal nothing (e.g. which token was unknown). */
  message?: string;
  /** Internal detail for logs; never sent to clients. */
  detail?: string;
  cause?: unknown;
  /** Extra response headers (Retry-After, X-RateLimit-*). */
  headers?: Record<string, string>;
  /** The input field a refusal is about, so a dashboard form shows it at that field (tRPC `fieldErrors`). */
  field?: string;
}

/**
 * Next bundles the instrumentation hook (which builds the services) and each route separately, so a
 * running server holds several copies of this module: an error thrown by a service is an AppError of
 * another copy than the route's. A registered symbol is the same in every copy, and `instanceof` and
 * isAppError check it instead of the class identity.
 */
const APP_ERROR = Symbol.for("optstuff.AppError");

export class AppError extends Error {
  readonly [APP_ERROR] = true;
  readonly code: ErrorCode;
  readonly status: number;
  readonly publicMessage: string;
  readonly detail: string | undefined;
  readonly headers: Record<string, string>;
  readonly field: string | undefined;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const entry = errorCatalogue[code];
    super(options.detail ?? options.message ?? entry.message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = entry.status;
    this.publicMessage = options.message ?? entry.message;
    this.detail = options.detail;
    this.headers = options.headers ?? {};
    this.field = options.field;
  }

  /** The code clients see: refusals that must not be told apart share one. */
  get publicCode(): string {
    const entry = errorCatalogue[this.code];
    return "publicCode" in entry ? entry.publicCode : this.code;
  }

  get logStatus(): RequestLogStatus {
    const entry = errorCatalogue[this.code];
    return "log" in entry ? entry.log : "error";
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as { [APP_ERROR]?: unknown })[APP_ERROR] === true;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** Runs `check`; a refusal it throws is about `field` (a form shows it there). Bugs pass through as they are. */
export function refusingField<T>(field: string, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!isAppError(error) || error.status >= 500) throw error;
    throw new AppError(error.code, {
      message: error.publicMessage,
      detail: error.detail,
      headers: error.headers,
      cause: error,
      field,
    });
  }
}

/** Anything thrown that is not an AppError is a bug: it becomes INTERNAL and keeps its cause. */
export function toAppError(value: unknown): AppError {
  return isAppError(value) ? value : new AppError("INTERNAL", { cause: value, detail: describeCause(value) });
}

/** An error as it crosses to or from a transform process or the download thread (structured clone). */
export interface WireError {
  code: ErrorCode;
  message: string;
  detail: string | undefined;
  headers: Record<string, string>;
}

export function toWireError(thrown: unknown): WireError {
  const error = toAppError(thrown);
  return { code: error.code, message: error.publicMessage, detail: error.detail, headers: error.headers };
}

export function fromWireError(wire: WireError): AppError {
  return new AppError(wire.code, { message: wire.message, detail: wire.detail, headers: wire.headers });
}

function describeCause(value: unknown): string {
  return value instanceof Error ? `${value.name}: ${value.message}` : String(value);
}
