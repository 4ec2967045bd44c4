import { randomUUID } from "node:crypto";
import type { WebhookSender } from "@/server/webhooks/sender";
import type { AuditArchive } from "@/server/audit-stream/archive";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { PublicNames } from "@/server/delivery/public-names";
import type { MeteringFreshness } from "@/server/usage/metering-freshness";
import type { SessionUser } from "@/server/auth/session-user";
import type { Database } from "@/server/db/client";
import type { Logger } from "@/server/log";
import type { Mailer } from "@/server/mail/mailer";
import type { DashboardAdmission } from "@/server/ratelimit/dashboard-admission";
import type { AccountLanes } from "@/server/ratelimit/account-lanes";
import type { DashboardReads } from "@/server/db/dashboard-reads";
import type { ResultStore } from "@/server/result-store/types";
import { auditTrail, userActor, type AuditActor } from "@/server/audit/trail";
import type { SignInProvider } from "@/server/auth/providers";
import type { TenancyBase, TenancyDeps } from "@/server/tenancy/deps";
import type { RegistrationPolicy } from "@/server/tenancy/registration";
import type { PreviewOperations } from "@/server/delivery/preview-operations";
import type { UploadCheck } from "@/server/image/check-upload";

/**
 * What the dashboard's procedures use, and nothing more: no secrets, no auth instance, no image route.
 * Built from the services by the tRPC adapter (src/server/http/trpc-route.ts).
 */
export interface DashboardServices {
  db: Database;
  /** Without an actor: procedures use the context's `tenancy`, which writes down who they act for. */
  tenancy: TenancyBase;
  /** Called after writes that change what the image route reads. */
  invalidate: ConfigInvalidator;
  /** The durable result store (a project's share of it, purges); null without one. */
  store: ResultStore | null;
  /** The Cache-Tag values a purge answers with, as image responses carry them. */
  publicNames: PublicNames;
  logger: Logger;
  /** Sends invitations; null without SMTP (the link is shown to copy). */
  mailer: Mailer | null;
  /** Origin of this server in snippets and printed URLs. */
  publicBaseUrl: string;
  /** How current metering is, for the usage pages. */
  freshness(): Promise<MeteringFreshness>;
  /** Decodes an uploaded image in a transform process, under its team's share. */
  checkUpload: UploadCheck;
  /** The sample photo as a project's operations make it (the preset editor's and watermark's preview). */
  previewOperations: PreviewOperations;
  /** The per-account and per-team windows (changes, purges, slug checks, uploads), across instances. */
  admission: DashboardAdmission;
  /** Where reads of logs and statistics run: a time limit on PostgreSQL, a cancel when the client goes. */
  dashboardReads: DashboardReads;
  /** One heavy read at a time per account. */
  readLanes: AccountLanes;
  /** The social sign-in buttons configured. */
  authProviders: SignInProvider[];
  /** Sends a webhook's test and redeliveries now (the scheduled sending is the alert check's). */
  webhooks: WebhookSender;
  /** Where a stream to "the bucket" writes on this instance; null when it keeps no results. */
  auditArchive: AuditArchive | null;
  /** Who may create an account (the sign-up page shows what it allows). */
  registration: RegistrationPolicy;
  /** The clock the usage pages' ranges end at (the tenancy functions carry their own in `tenancy`). */
  now: () => Date;
}

export interface Context {
  services: DashboardServices;
  /** From the session cookie only; never from input. */
  user: SessionUser | null;
  requestId: string;
  /** The tenancy functions' dependencies, their audit entries written as this request's user. */
  tenancy: TenancyDeps;
}

/** Where a request came from, as the audit log records it (the address as the rate limits compute it). */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

export function createContext(
  services: DashboardServices,
  user: SessionUser | null,
  origin: RequestOrigin = { ip: null, userAgent: null },
): Context {
  // A public procedure changes nothing: its actor is never written, but it is still named.
  const actor: AuditActor = user ? userActor(user, origin) : { type: "user", id: null, label: "signed out", ...origin };
  const tenancy = { ...services.tenancy, audit: auditTrail(actor, services.tenancy.now) };
  return { services, user, requestId: randomUUID(), tenancy };
}
