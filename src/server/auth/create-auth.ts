import { betterAuth } from "better-auth";
import { APIError, createAuthMiddleware } from "better-auth/api";
import { NAME_MAX_LENGTH, nameSchema } from "@/lib/schemas/names";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { genericOAuth, type GenericOAuthConfig } from "better-auth/plugins/generic-oauth";
import { twoFactor } from "better-auth/plugins/two-factor";
import { and, eq } from "drizzle-orm";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/schemas/account";
import type { RateLimiter } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { account, passkey, session, twoFactor as twoFactorTable, user, verification } from "@/server/db/schema";
import { isAppError } from "@/server/errors";
import type { Logger } from "@/server/log";
import type { NewAccount, SignUpOrigin } from "@/server/tenancy/onboarding";
import type { AccountCandidate } from "@/server/tenancy/registration";
import { OIDC_PROVIDER_ID, oidcRefusal, type OidcConfig } from "./oidc";
import { checkPasskeyRequest, PASSKEY_PATHS, passkeys } from "./passkeys";
import { createAuthRateLimitStorage } from "./rate-limit-storage";
import { createTransactionScope } from "./transaction-scope";

export interface OAuthCredentials {
  clientId: string;
  clientSecret: string;
}

export interface AuthOptions {
  db: Database;
  secret: string;
  /** The dashboard's public origin; cookies are Secure when it is https. */
  baseUrl: string;
  /** Origins allowed to post to the auth endpoints besides baseUrl. */
  trustedOrigins: string[];
  limiter: RateLimiter;
  github: OAuthCredentials | null;
  google: OAuthCredentials | null;
  /** Single sign-on with the company's OpenID Connect provider (oidc.ts). */
  oidc: OidcConfig | null;
  /** Runs once per new account (where it starts: onboarding.ts), with the invitation its sign-up carried. */
  onUserCreated(account: NewAccount, origin: SignUpOrigin): Promise<void>;
  /** Runs on every sign-in, sign-up included, with where it came from (better-auth's session row). */
  onSignedIn(session: AccountOrigin): Promise<void>;
  /** Runs when an account turns its second factor on or off, makes new recovery codes, adds or removes a passkey. */
  onSecurityChanged(change: AccountSecurityChange, origin: AccountOrigin): Promise<void>;
  /** better-auth's own log lines go through it (and its redaction). */
  logger: Logger;
  /** The registration policy, run inside better-auth's sign-up transaction on the database given. */
  registration: {
    /** Throws an AppError when the account may not be created. */
    admit(candidate: AccountCandidate, db: Database): Promise<void>;
    /** No account exists yet: the one being created becomes the instance's owner. */
    isFirstAccount(db: Database): Promise<boolean>;
    /** Orders account creations: held by the sign-up transaction until it ends. */
    lockAccountCreation(db: Database): Promise<void>;
  };
}

export interface AccountOrigin {
  userId: string;
  ip: string | null;
  userAgent: string | null;
}

export type AccountSecurityChange = "enabled" | "disabled" | "codes_renewed" | "passkey_added" | "passkey_removed";

/** The header carrying the client address the app computed (never the client's own claim). */
export const CLIENT_ADDRESS_HEADER = "x-optstuff-client-address";

export function createAuth(options: AuthOptions) {
  const socialProviders = {
    ...(options.github && { github: options.github }),
    ...(options.google && { google: options.google }),
  };
  const scope = createTransactionScope(options.db);
  return betterAuth({
    database: drizzleAdapter(scope.db, {
      provider: "pg",
      schema: { user, session, account, verification, twoFactor: twoFactorTable, passkey },
      transaction: true,
    }),
    secret: options.secret,
    baseURL: options.baseUrl,
    trustedOrigins: options.trustedOrigins,
    telemetry: { enabled: false },
    // Its default writes errors with console.error, driver errors (and their query parameters) included.
    logger: {
      level: "warn",
      log: (level, message, ...args) =>
        options.logger.log(level, `better-auth: ${message}`, args.length > 0 ? { details: args } : undefined),
    },
    user: {
      // Set by the create hook below, never by a client (input: false makes better-auth refuse it).
      additionalFields: { instanceRole: { type: "string", required: false, input: false } },
      // Every way an account is created (email, GitHub, Google) passes here; a refusal answers 403.
      validateUserInfo: async ({ user: candidate, source }, ctx) => {
        // Single sign-on admits by the provider's word (a verified address at an allowed domain), at
        // every sign-in, not only the first: an address moved out of bounds is refused.
        if (options.oidc && source.oauth?.providerId === OIDC_PROVIDER_ID)
          return oidcRefusal(options.oidc, candidate) ?? undefined;
        if (source.action !== "create-user") return;
        try {
          await options.registration.admit(
            {
              email: String(candidate.email ?? ""),
              emailVerified: source.method === "oauth" && candidate.emailVerified === true,
              invitationToken: invitationTokenOf(ctx.body),
            },
            scope.current(),
          );
        } catch (error) {
          if (isAppError(error)) return { error: error.code, errorDescription: error.publicMessage };
          throw error;
        }
      },
    },
    emailAndPassword: {
      enabled: true,
      autoSignIn: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
    },
    socialProviders,
    plugins: [
      // Always present (its types with it); without the settings it has no provider.
      genericOAuth({ config: options.oidc ? [singleSignOn(options.oidc)] : [] }),
      twoFactor({
        issuer: "OptStuff",
        // Setting up, renewing and removing the factor ask for the password: a stolen session alone
        // cannot do them. An account with no password (GitHub or Google only) cannot set one up here.
        allowPasswordless: false,
        // Ten single-use recovery codes, shown once, sealed at rest like the secret.
        backupCodeOptions: { amount: 10, length: 10 },
      }),
      passkeys(options.baseUrl),
    ],
    // A display name is shown to every member of every team the user joins: bounded like the
    // dashboard's other names (better-auth takes any string; 60,000 characters were accepted).
    hooks: {
      // New recovery codes and passkeys change no row better-auth has a hook for: said after the
      // endpoint answered.
      after: createAuthMiddleware(async (ctx) => {
        const change = ANSWERED_CHANGES.get(ctx.path);
        if (!change || ctx.context.returned instanceof Error) return;
        const userId = ctx.context.session?.user.id;
        if (userId) await options.onSecurityChanged(change, originOf(userId, ctx.headers));
      }),
      before: createAuthMiddleware(async (ctx) => {
        // An ID token posted by a client skips the provider's round trip (and its nonce): refused.
        const social = ctx.path === "/sign-in/social" ? (ctx.body as { provider?: unknown; idToken?: unknown }) : null;
        if (social?.provider === OIDC_PROVIDER_ID && social.idToken)
          throw new APIError("BAD_REQUEST", { message: "Sign in through the provider's page" });
        // A device remembered for 30 days would skip the code, and its sign-ins the audit log.
        if (SECOND_FACTOR_CODE_PATHS.has(ctx.path) && (ctx.body as { trustDevice?: unknown } | undefined)?.trustDevice)
          throw new APIError("BAD_REQUEST", {
            message: "This server does not remember devices: a code is asked at every sign-in",
          });
        await checkPasskeyRequest(ctx, scope.current());
        if (ctx.path !== "/sign-up/email" && ctx.path !== "/update-user") return;
        const name = (ctx.body as { name?: unknown } | undefined)?.name;
        if (name === undefined && ctx.path === "/update-user") return;
        const checked = nameSchema.safeParse(name);
        if (!checked.success)
          throw new APIError("BAD_REQUEST", { message: checked.error.issues[0]?.message ?? "Invalid name" });
      }),
    },
    session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
    // A provider's sign-in that failed before its own error address was known (a lost state) comes back
    // to the sign-in page, which says why, instead of better-auth's own error page.
    onAPIError: { errorURL: `${options.baseUrl}/sign-in` },
    rateLimit: {
      // On everywhere, not only in production: the embedded default is reachable too.
      enabled: true,
      window: 60,
      max: 100,
      customRules: {
        "/sign-in/email": { window: 60, max: 10 },
        "/sign-up/email": { window: 60, max: 10 },
        "/get-session": false,
      },
      customStorage: createAuthRateLimitStorage(options.limiter),
    },
    advanced: {
      useSecureCookies: options.baseUrl.startsWith("https:"),
      // Explicit: better-auth turns both checks off by itself when it detects a test runner.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
    },
    databaseHooks: {
      user: {
        create: {
          before: async (created, ctx) => {
            // A provider's name (GitHub, Google) is not ours to refuse: kept to the bound instead.
            created = {
              ...created,
              name: String(created.name ?? "")
                .trim()
                .slice(0, NAME_MAX_LENGTH),
            };
            const db = scope.current();
            await options.registration.lockAccountCreation(db);
            if (await options.registration.isFirstAccount(db)) return { data: { ...created, instanceRole: "owner" } };
            // Single sign-on admitted it by the provider's word (validateUserInfo), whatever the policy.
            if (isSingleSignOn(ctx)) return { data: created };
            // Admitted before the lock, possibly as "the first account" while another sign-up was
            // becoming it: the policy is asked again now that the other one has committed.
            try {
              const candidate = {
                email: String(created.email ?? ""),
                emailVerified: created.emailVerified === true,
                invitationToken: invitationTokenOf(ctx?.body),
              };
              await options.registration.admit(candidate, db);
            } catch (error) {
              if (isAppError(error)) return false;
              throw error;
            }
            return { data: created };
          },
          after: async (created, ctx) =>
            options.onUserCreated(
              {
                id: created.id,
                name: created.name,
                email: created.email,
                emailVerified: created.emailVerified === true,
                instanceRole: typeof created.instanceRole === "string" ? created.instanceRole : null,
              },
              {
                invitationToken: invitationTokenOf(ctx?.body),
                joinTeam: isSingleSignOn(ctx) ? options.oidc?.team : null,
              },
            ),
        },
        update: {
          // The plugin turns the factor on once the first code is confirmed, and off on request.
          after: async (updated, ctx) => {
            const change = SECOND_FACTOR_CHANGES[ctx?.path ?? ""];
            if (!change || updated.twoFactorEnabled !== (change === "enabled")) return;
            // Off on an account that never had one changes nothing (its confirmed secret is deleted after this).
            if (change === "disabled" && !(await hasConfirmedFactor(scope.current(), updated.id))) return;
            // Sessions made before the factor was on never gave a code: signed out (the plugin then
            // issues the confirming request a new one).
            if (change === "enabled") await scope.current().delete(session).where(eq(session.userId, updated.id));
            await options.onSecurityChanged(change, originOf(updated.id, ctx?.headers));
          },
        },
      },
      session: {
        create: {
          // An account with a second factor gets a session only through its code (the password's
          // session is the plugin's to turn into a challenge), or as a replacement of its own session
          // while signed in: GitHub and Google sign-ins, which the plugin does not challenge, are refused.
          before: async (created, ctx) => {
            if (!(await hasSecondFactor(scope.current(), created.userId))) return;
            if (ctx && SECOND_FACTOR_SESSION_PATHS.has(ctx.path)) return;
            if (ctx?.context.session?.user.id === created.userId) return;
            return false;
          },
          after: async (created, ctx) => {
            // A password accepted for an account with a second factor: that session is dropped at once
            // for the code's challenge, and the session its code makes is the sign-in.
            if (ctx?.path === "/sign-in/email" && (await hasSecondFactor(scope.current(), created.userId))) return;
            // Turning the factor on or off replaces the session the request came with: not a sign-in.
            if (ctx?.context.session?.user.id === created.userId) return;
            await options.onSignedIn({
              userId: created.userId,
              ip: created.ipAddress || null,
              userAgent: created.userAgent || null,
            });
          },
        },
      },
    },
  });
}

/**
 * The company's OpenID Connect provider, found by its discovery document when better-auth starts: its
 * ID token is checked (signature against its keys, issuer, audience, expiry, nonce), and PKCE is used.
 */
function singleSignOn(config: OidcConfig): GenericOAuthConfig {
  return {
    providerId: OIDC_PROVIDER_ID,
    discoveryUrl: `${config.issuer}/.well-known/openid-configuration`,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    scopes: ["openid", "email", "profile"],
    pkce: true,
    requireIdTokenVerification: true,
  };
}

/** The provider's callback of single sign-on (better-auth's `/callback/:id` with the provider's id). */
function isSingleSignOn(ctx: { path?: string; params?: unknown } | null | undefined): boolean {
  return ctx?.path === "/callback/:id" && (ctx.params as { id?: unknown } | undefined)?.id === OIDC_PROVIDER_ID;
}

/** Where a code is given: a sign-in's challenge, or the first code confirming the factor. */
const SECOND_FACTOR_CODE_PATHS = new Set(["/two-factor/verify-totp", "/two-factor/verify-backup-code"]);
/**
 * Where an account with a second factor may get a session made: its code, its password's challenge,
 * or a passkey (which verified its user: both factors at once).
 */
const SECOND_FACTOR_SESSION_PATHS = new Set([...SECOND_FACTOR_CODE_PATHS, "/sign-in/email", PASSKEY_PATHS.signIn]);

const SECOND_FACTOR_CHANGES: Record<string, AccountSecurityChange> = {
  "/two-factor/verify-totp": "enabled",
  "/two-factor/disable": "disabled",
};

/** Changes known only from an endpoint's answer. */
const ANSWERED_CHANGES = new Map<string, AccountSecurityChange>([
  ["/two-factor/generate-backup-codes", "codes_renewed"],
  [PASSKEY_PATHS.register, "passkey_added"],
  [PASSKEY_PATHS.remove, "passkey_removed"],
]);

function originOf(userId: string, headers: Headers | undefined): AccountOrigin {
  return {
    userId,
    ip: headers?.get(CLIENT_ADDRESS_HEADER) ?? null,
    userAgent: headers?.get("user-agent") ?? null,
  };
}

async function hasConfirmedFactor(db: Database, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: twoFactorTable.id })
    .from(twoFactorTable)
    .where(and(eq(twoFactorTable.userId, userId), eq(twoFactorTable.verified, true)))
    .limit(1);
  return row !== undefined;
}

async function hasSecondFactor(db: Database, userId: string): Promise<boolean> {
  const [row] = await db.select({ enabled: user.twoFactorEnabled }).from(user).where(eq(user.id, userId)).limit(1);
  return row?.enabled === true;
}

export type Auth = ReturnType<typeof createAuth>;

/** The sign-up form sends the token of the invitation link it was opened from as `invitation`. */
function invitationTokenOf(body: unknown): string | null {
  const token = typeof body === "object" && body !== null ? (body as { invitation?: unknown }).invitation : undefined;
  return typeof token === "string" && token.length > 0 && token.length <= 200 ? token : null;
}
