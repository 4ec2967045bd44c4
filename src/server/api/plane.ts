import type { Env } from "@/env";
import type { Auth, AuthOptions } from "@/server/auth/create-auth";
import { oauthOf, oidcOf } from "@/server/auth/settings";
import { enabledProviders, type SignInProvider } from "@/server/auth/providers";
import { createSignInFailureLimit, type SignInFailureLimit } from "@/server/auth/sign-in-failures";
import { recordAccountSecurityChange, recordSignIn } from "@/server/audit/sign-ins";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { Coordination } from "@/server/coordination/create-coordination";
import type { Counters } from "@/server/coordination/counters";
import type { DatabaseHandle } from "@/server/db/client";
import { createDashboardReads, type DashboardReads } from "@/server/db/dashboard-reads";
import { lazyOnce } from "@/server/lazy-once";
import { describeError, type Logger, type SampledLog } from "@/server/log";
import { createMailer, type Mailer } from "@/server/mail/mailer";
import { smtpOf } from "@/server/mail/settings";
import { createAccountLanes, type AccountLanes } from "@/server/ratelimit/account-lanes";
import { createDashboardAdmission, type DashboardAdmission } from "@/server/ratelimit/dashboard-admission";
import type { SecretBox } from "@/server/signing";
import type { TenancyBase } from "@/server/tenancy/deps";
import { setUpNewAccount } from "@/server/tenancy/onboarding";
import {
  admitAccount,
  findInstanceOwner,
  isFirstAccount,
  lockAccountCreation,
  type RegistrationPolicy,
} from "@/server/tenancy/registration";
import { registrationOf } from "@/server/tenancy/settings";
import { adoptOwnerlessTeams } from "@/server/tenancy/teams";
import { publicBaseUrl as publicBaseUrlOf } from "@/server/config/platform";
import { trustedOriginsOf } from "./origins";

/** What the plane takes of the clients every plane shares (shared.ts). */
export interface DashboardShared {
  database: DatabaseHandle;
  secrets: { auth: string };
  coordination: Coordination;
  counters: Counters;
  invalidate: ConfigInvalidator;
  secretBox: SecretBox;
  logger: Logger;
  logSampled: SampledLog;
  now: () => Date;
}

export interface DashboardPlane {
  /**
   * better-auth, loaded and built by the first request that needs it (a sign-in, a dashboard page):
   * the image API's and the cron routes' cold starts do not pay for it.
   */
  auth(): Promise<Auth>;
  /** Wrong passwords per account and quarter hour, shared by every instance (Redis). */
  signInFailures: SignInFailureLimit;
  /** The dashboard's per-account and per-team windows (changes, purges, slug checks, uploads). */
  admission: DashboardAdmission;
  /** Where the dashboard's reads of logs and statistics run (a time limit on PostgreSQL). */
  dashboardReads: DashboardReads;
  /** One heavy dashboard read at a time per account. */
  readLanes: AccountLanes;
  /** Null without SMTP: invitation links are shown to copy. */
  mailer: Mailer | null;
  /** Without an actor: each caller binds one (src/server/audit/trail.ts). */
  tenancy: TenancyBase;
  /** Origin of this server in printed URLs, snippets and the auth cookies. */
  publicBaseUrl: string;
  authProviders: SignInProvider[];
  /** Who may create an account (the sign-up page shows what it allows). */
  registration: RegistrationPolicy;
  /** Origins whose pages may post dashboard mutations: the public base URL's and OPTSTUFF_TRUSTED_ORIGINS. */
  dashboardOrigins: string[];
}

/** Sign-in and accounts, the dashboard's limits and reads, tenancy and mail. */
export function createDashboardPlane(env: Env, shared: DashboardShared): DashboardPlane {
  const { database, coordination, logger, now } = shared;
  const publicBaseUrl = publicBaseUrlOf(env);
  const trustedOrigins = trustedOriginsOf(env);
  const oauth = oauthOf(env);
  const oidc = oidcOf(env);
  const registration = registrationOf(env);
  const authOptions: AuthOptions = {
    db: database.db,
    secret: shared.secrets.auth,
    baseUrl: publicBaseUrl,
    trustedOrigins,
    limiter: coordination.limiter,
    ...oauth,
    oidc,
    onUserCreated: (account, origin) => setUpNewAccount({ db: database.db, now }, account, origin),
    // The instance's owner adopts the teams nobody can see at each sign-in: a team whose last member's
    // account is gone, or one the command line made later without an owner (the quickstart's demo,
    // made before any account existed, is adopted when the owner's account is created: onboarding.ts).
    onSignedIn: async (session) => {
      try {
        const audit = await recordSignIn({ db: database.db, now }, session);
        if (!audit || (await findInstanceOwner(database))?.id !== session.userId) return;
        const adopted = await adoptOwnerlessTeams({ db: database.db, audit }, session.userId);
        if (adopted.length > 0)
          logger.log("info", "the instance owner adopted teams nobody belonged to", { teams: adopted });
      } catch (error) {
        // The sign-in has happened: its entry or the adoption is missed, the next sign-in tries again.
        logger.log(
          "error",
          "after a sign-in, its audit entry or adopting ownerless teams failed",
          describeError(error),
        );
      }
    },
    onSecurityChanged: async (change, origin) => {
      try {
        await recordAccountSecurityChange({ db: database.db, now }, change, origin);
      } catch (error) {
        // The change has happened; only its entry is missed, and the log says so.
        logger.log(
          "error",
          "a change to how an account signs in was made but its audit entry failed",
          describeError(error),
        );
      }
    },
    logger,
    registration: {
      admit: (candidate, db) => admitAccount({ db, now }, registration, candidate),
      isFirstAccount: (db) => isFirstAccount({ db }),
      lockAccountCreation: (db) => lockAccountCreation({ db }),
    },
  };
  return {
    auth: lazyOnce(async (): Promise<Auth> => {
      const { createAuth } = await import("@/server/auth/create-auth");
      return createAuth(authOptions);
    }),
    mailer: createMailer(smtpOf(env)),
    tenancy: {
      db: database.db,
      invalidate: shared.invalidate,
      secretBox: shared.secretBox,
      hostPolicy: { allowLoopback: env.OPTSTUFF_ALLOW_LOOPBACK_SOURCES },
      now,
      secondFactorRequired: env.OPTSTUFF_REQUIRE_SECOND_FACTOR,
    },
    publicBaseUrl,
    // The same list better-auth checks sign-ins against.
    dashboardOrigins: [publicBaseUrl, ...trustedOrigins].flatMap((url) => {
      try {
        return [new URL(url).origin];
      } catch {
        return [];
      }
    }),
    authProviders: enabledProviders({ ...oauth, oidc }),
    dashboardReads: createDashboardReads(database, undefined, (error) =>
      logger.log(
        "warn",
        "a dashboard read's cancel could not be sent; it ends at its time limit",
        describeError(error),
      ),
    ),
    readLanes: createAccountLanes(),
    admission: createDashboardAdmission({
      limiter: coordination.limiter,
      now: () => now().getTime(),
      onLimiterError: (error) => {
        shared.counters.increment("ratelimit_fail_open");
        shared.logSampled("ratelimit-dashboard", "warn", "dashboard limit skipped (fail-open)", describeError(error));
      },
    }),
    signInFailures: createSignInFailureLimit(coordination.limiter, {
      onLimiterError: (error) =>
        logger.log("warn", "sign-in failure limit unavailable; the attempt went on", describeError(error)),
    }),
    registration,
  };
}
