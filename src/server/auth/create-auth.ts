import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { RateLimiter } from "@/server/coordination/types";
import type { Database } from "@/server/db/client";
import { account, session, user, verification } from "@/server/db/schema";
import { createAuthRateLimitStorage } from "./rate-limit-storage";

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
  /** Runs once per new account (the personal team). */
  onUserCreated(account: { id: string; name: string; email: string }): Promise<void>;
}

/** Passwords: long enough to resist guessing, short enough that hashing cannot be used to burn CPU. */
export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 128;

/** The header carrying the client address the app computed (never the client's own claim). */
export const CLIENT_ADDRESS_HEADER = "x-optstuff-client-address";

export function createAuth(options: AuthOptions) {
  const socialProviders = {
    ...(options.github && { github: options.github }),
    ...(options.google && { google: options.google }),
  };
  return betterAuth({
    database: drizzleAdapter(options.db, { provider: "pg", schema: { user, session, account, verification }, transaction: true }),
    secret: options.secret,
    baseURL: options.baseUrl,
    trustedOrigins: options.trustedOrigins,
    telemetry: { enabled: false },
    emailAndPassword: { enabled: true, autoSignIn: true, minPasswordLength: PASSWORD_MIN_LENGTH, maxPasswordLength: PASSWORD_MAX_LENGTH },
    socialProviders,
    session: { expiresIn: 7 * 24 * 3600, updateAge: 24 * 3600 },
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
      user: { create: { after: async (created) => options.onUserCreated(created) } },
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

/** Which sign-in buttons the pages show. */
export function enabledProviders(options: Pick<AuthOptions, "github" | "google">): Array<"github" | "google"> {
  return (["github", "google"] as const).filter((name) => options[name] !== null);
}
