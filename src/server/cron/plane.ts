import type { WebhookSender } from "@/server/webhooks/sender";
import type { AuditStreamer } from "@/server/audit-stream/streamer";
import type { AuditValues } from "@/server/audit/settings";
import type { DatabaseValues } from "@/server/db/settings";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { Coordination } from "@/server/coordination/create-coordination";
import type { DatabaseHandle } from "@/server/db/client";
import type { Logger } from "@/server/log";
import type { Mailer } from "@/server/mail/mailer";
import type { ResultStore } from "@/server/result-store/types";
import type { SecretBox } from "@/server/signing";
import { createSourceFetcher, type NetDeps } from "@/server/source";
import { fetchLimitsOf, localSourceRootOf, type SourceValues } from "@/server/source/settings";
import { scheduleOnDemand } from "./cron-clock";
import { createCronJobs, type CronJobs } from "./jobs";

/** What the plane takes of the clients every plane shares (shared.ts), and of the others. */
export interface JobsShared {
  database: DatabaseHandle;
  coordination: Coordination;
  invalidate: ConfigInvalidator;
  secretBox: SecretBox;
  webhooks: WebhookSender;
  auditStream: AuditStreamer;
  logger: Logger;
  now: () => Date;
  /** The result store the daily maintenance keeps under its bound; null without one. */
  store: ResultStore | null;
  /** Null without SMTP: alerts show in the dashboard only. */
  mailer: Mailer | null;
  /** The dashboard's address, for the links in the alert mails. */
  dashboardUrl: string;
}

export interface JobsPlane {
  cron: CronJobs;
  /** Runs the jobs on their schedule in this process (servers only); stop() ends it. */
  scheduler: ReturnType<typeof scheduleOnDemand>;
}

/** The cron jobs (the routes Vercel Cron calls) and the in-process scheduler that runs them elsewhere. */
export function createJobsPlane(
  env: SourceValues & AuditValues & Pick<DatabaseValues, "DATABASE_URL">,
  shared: JobsShared,
  seams: { net?: NetDeps } = {},
): JobsPlane {
  const { database, coordination, logger } = shared;
  const cron = createCronJobs({
    db: database.db,
    kv: coordination.kv,
    redis: coordination.redis,
    invalidate: shared.invalidate,
    logger,
    now: shared.now,
    store: shared.store,
    auditRetentionDays: env.OPTSTUFF_AUDIT_RETENTION_DAYS,
    tendsTables: database.kind === "pglite",
    alerts: {
      limiter: coordination.limiter,
      mailer: shared.mailer,
      secretBox: shared.secretBox,
      // Its own bucket clients: probing every bucket must not push out those the image route uses.
      fetcher: createSourceFetcher({
        limits: fetchLimitsOf(env),
        localRoot: localSourceRootOf(env, env.DATABASE_URL === undefined),
        net: seams.net,
      }),
      dashboardUrl: shared.dashboardUrl,
      webhooks: shared.webhooks,
      auditStream: shared.auditStream,
    },
    schedule: () => scheduler.options(),
  });
  const scheduler = scheduleOnDemand(cron, logger);
  return { cron, scheduler };
}
