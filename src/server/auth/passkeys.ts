import { passkey as passkeyPlugin } from "@better-auth/passkey";
import { APIError, BASE_ERROR_CODES } from "@better-auth/core/error";
import { getSessionFromCtx } from "better-auth/api";
import { count, eq } from "drizzle-orm";
import { NAME_MAX_LENGTH } from "@/lib/schemas/names";
import type { Database } from "@/server/db/client";
import { passkey } from "@/server/db/schema";

/** An account keeps this many passkeys at most: each one is listed in every sign-in's options. */
export const PASSKEYS_PER_ACCOUNT = 10;

/** Where a passkey is added (with the account's password) and where one signs in. */
export const PASSKEY_PATHS = {
  options: "/passkey/generate-register-options",
  register: "/passkey/verify-registration",
  signIn: "/passkey/verify-authentication",
  rename: "/passkey/update-passkey",
  remove: "/passkey/delete-passkey",
} as const;

/**
 * better-auth's passkey plugin bound to the dashboard's origin: the relying party is its host name, and
 * only its origin's answers are accepted (not whatever Origin a request carries). Every ceremony must
 * verify the user (a PIN, a fingerprint), so a passkey is both factors at once: it signs in an account
 * that has a second factor too. Resident keys: the sign-in page asks without knowing who signs in.
 */
export function passkeys(baseUrl: string) {
  const url = new URL(baseUrl);
  return passkeyPlugin({
    rpID: url.hostname,
    rpName: "OptStuff",
    origin: url.origin,
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    registration: {
      afterVerification: ({ verification }) => {
        if (!verification.registrationInfo?.userVerified) throw unverifiedUser();
        return Promise.resolve();
      },
    },
    authentication: {
      afterVerification: ({ verification }) => {
        if (!verification.authenticationInfo.userVerified) throw unverifiedUser();
        return Promise.resolve();
      },
    },
  });
}

const unverifiedUser = () =>
  new APIError("UNAUTHORIZED", {
    code: "PASSKEY_USER_NOT_VERIFIED",
    message: "The passkey did not verify you (a PIN, a fingerprint or a face): it cannot be used here",
  });

/** The part of better-auth's endpoint context the checks read. */
interface PasskeyRequest {
  path: string;
  body?: unknown;
  context: {
    internalAdapter: { findCredentialAccount(userId: string): Promise<{ password?: string | null } | null> };
    password: {
      hash(password: string): Promise<string>;
      verify(input: { hash: string; password: string }): Promise<boolean>;
    };
  };
}

/**
 * Before better-auth's passkey endpoints: a passkey is added only with the account's password (a stolen
 * session alone cannot add its own way in), at most PASSKEYS_PER_ACCOUNT of them, and a name is bounded
 * like the dashboard's other names.
 */
export async function checkPasskeyRequest(ctx: PasskeyRequest, db: Database): Promise<void> {
  const body = (ctx.body ?? {}) as { name?: unknown; password?: unknown; createSession?: unknown };
  // Adding a passkey while signed in has no business making a second session.
  if (ctx.path === PASSKEY_PATHS.register && body.createSession)
    throw new APIError("BAD_REQUEST", { message: "Adding a passkey does not sign in again" });
  if (ctx.path === PASSKEY_PATHS.register || ctx.path === PASSKEY_PATHS.rename) {
    if (typeof body.name === "string" && body.name.trim().length > NAME_MAX_LENGTH)
      throw new APIError("BAD_REQUEST", { message: `A passkey's name has at most ${NAME_MAX_LENGTH} characters` });
  }
  if (ctx.path !== PASSKEY_PATHS.options && ctx.path !== PASSKEY_PATHS.register) return;
  const session = await getSessionFromCtx(ctx as never);
  if (!session) return; // the endpoint itself refuses it (401)
  if (ctx.path === PASSKEY_PATHS.register) await confirmPassword(ctx, session.user.id, body.password);
  // Asked at both steps: two ceremonies started side by side would otherwise both pass the first.
  if ((await passkeyCount(db, session.user.id)) >= PASSKEYS_PER_ACCOUNT)
    throw new APIError("BAD_REQUEST", {
      code: "TOO_MANY_PASSKEYS",
      message: `An account keeps at most ${PASSKEYS_PER_ACCOUNT} passkeys: remove one first`,
    });
}

/** As better-auth's own confirmations: 400 INVALID_PASSWORD, hashing anyway when there is none to compare. */
async function confirmPassword(ctx: PasskeyRequest, userId: string, password: unknown): Promise<void> {
  const typed = typeof password === "string" && password.length <= 256 ? password : "";
  const hash = (await ctx.context.internalAdapter.findCredentialAccount(userId))?.password;
  if (!hash || !typed) {
    if (typed) await ctx.context.password.hash(typed);
    throw APIError.from("BAD_REQUEST", BASE_ERROR_CODES.INVALID_PASSWORD);
  }
  if (!(await ctx.context.password.verify({ hash, password: typed })))
    throw APIError.from("BAD_REQUEST", BASE_ERROR_CODES.INVALID_PASSWORD);
}

async function passkeyCount(db: Database, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(passkey).where(eq(passkey.userId, userId));
  return row?.n ?? 0;
}
