import { randomUUID } from "node:crypto";
import { AppError, isAppError } from "@/server/errors";
import { BODY_LIMITS, isJsonContentType, readBodyWithin } from "@/server/wire/body-limit";
import { errorResponse } from "@/server/wire/error-response";
import { clientAddress, type ClientAddressPolicy } from "@/server/ratelimit/client-address";
import type { Auth } from "./create-auth";
import { CLIENT_ADDRESS_HEADER } from "./create-auth";
import type { SignInAttempt, SignInFailureLimit } from "./sign-in-failures";

export interface AuthRequestDeps {
  auth: Pick<Auth, "handler">;
  signInFailures: SignInFailureLimit;
  clientAddresses: ClientAddressPolicy;
  /** The account a pending second-factor challenge (its cookie) belongs to, by e-mail; null for none. */
  challengedAccount(cookieHeader: string | null): Promise<string | null>;
  /** The signed-in account of these headers, by e-mail; null when signed out. */
  sessionAccount(headers: Headers): Promise<string | null>;
  /** A wrong password (401) for this address, from where it came: the audit log's failed sign-in. */
  onWrongPassword(email: string, origin: { ip: string | null; userAgent: string | null }): Promise<void>;
}

/** The one better-auth path whose failures count against an account by the e-mail in its body (password sign-in). */
const SIGN_IN_PATH = "/api/auth/sign-in/email";
/**
 * A second factor's codes, counted against the account their challenge belongs to in the same window:
 * a guessed code is a guessed password's second half.
 */
const SECOND_FACTOR_PATHS = new Set(["/api/auth/two-factor/verify-totp", "/api/auth/two-factor/verify-backup-code"]);
/**
 * Changes to the second factor and new passkeys, confirmed with the password while signed in: a wrong one (400
 * INVALID_PASSWORD) counts against the session's account too, or a stolen session would be a way to
 * guess it past the window.
 */
const PASSWORD_CONFIRM_PATHS = new Set([
  ...["enable", "disable", "generate-backup-codes", "get-totp-uri"].map((path) => `/api/auth/two-factor/${path}`),
  "/api/auth/passkey/verify-registration",
]);

/**
 * A request to better-auth's endpoints, in order: the body read within its cap (413), the client
 * address computed as the image route does (trusted proxy hops) and handed over in a header of our
 * own that replaces any copy the client sent, the account's failure window for a password sign-in
 * (429), then better-auth, whose answer settles that window.
 */
export async function serveAuthRequest(request: Request, deps: AuthRequestDeps): Promise<Response> {
  let attempt: (SignInAttempt & { email: string; kind: "password" | "code" | "confirm" }) | null = null;
  let forwarded: Request;
  let address: string;
  try {
    const body =
      request.method === "GET" || request.method === "HEAD" ? null : await readBodyWithin(request, BODY_LIMITS.auth);
    const path = new URL(request.url).pathname;
    if (request.method === "POST" && path === SIGN_IN_PATH)
      attempt = await beginSignIn(request, body, deps.signInFailures);
    else if (request.method === "POST" && SECOND_FACTOR_PATHS.has(path))
      attempt = await beginFor(await deps.challengedAccount(request.headers.get("cookie")), "code", deps);
    else if (request.method === "POST" && PASSWORD_CONFIRM_PATHS.has(path))
      attempt = await beginFor(await deps.sessionAccount(request.headers), "confirm", deps);
    const headers = new Headers(request.headers);
    address = clientAddress(request.headers, deps.clientAddresses);
    headers.set(CLIENT_ADDRESS_HEADER, address);
    forwarded = new Request(request.url, { method: request.method, headers, body, signal: request.signal });
  } catch (thrown) {
    if (!isAppError(thrown)) throw thrown;
    return errorResponse(thrown, randomUUID(), request.method);
  }
  const response = await deps.auth.handler(forwarded);
  await attempt?.settle(attempt.kind === "confirm" && (await isWrongPassword(response)) ? 401 : response.status);
  if (attempt?.kind === "password" && response.status === 401)
    await deps.onWrongPassword(attempt.email, {
      ip: address === "unknown" ? null : address,
      userAgent: request.headers.get("user-agent"),
    });
  return response;
}

/** A code for a challenge, or a password confirming a change: counted against its account, if any. */
async function beginFor<K extends "code" | "confirm">(
  email: string | null,
  kind: K,
  deps: Pick<AuthRequestDeps, "signInFailures">,
): Promise<(SignInAttempt & { email: string; kind: K }) | null> {
  return email === null ? null : { ...(await deps.signInFailures.begin(email)), email, kind };
}

/** better-auth answers a wrong confirming password with 400 and its code (other 400s are not guesses). */
async function isWrongPassword(response: Response): Promise<boolean> {
  if (response.status !== 400) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown } | null;
  return body?.code === "INVALID_PASSWORD";
}

/**
 * better-auth would also read a form-encoded or multipart sign-in; the e-mail the failures count
 * against must be the one it checks, so this endpoint takes JSON only (what its client sends) and
 * the e-mail is read from exactly those bytes.
 */
async function beginSignIn(
  request: Request,
  body: ArrayBuffer | null,
  limit: SignInFailureLimit,
): Promise<(SignInAttempt & { email: string; kind: "password" }) | null> {
  if (!isJsonContentType(request.headers.get("content-type"))) throw new AppError("UNSUPPORTED_MEDIA_TYPE");
  const email = emailOf(body);
  // Without an e-mail better-auth refuses the request before checking any password.
  return email === null ? null : { ...(await limit.begin(email)), email, kind: "password" as const };
}

function emailOf(body: ArrayBuffer | null): string | null {
  if (!body) return null;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(body));
    const email = typeof parsed === "object" && parsed !== null ? (parsed as { email?: unknown }).email : undefined;
    return typeof email === "string" ? email : null;
  } catch {
    return null; // better-auth answers invalid JSON with 400, before any password
  }
}
