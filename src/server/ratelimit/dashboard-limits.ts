import { rateLimitSubjects } from "@/server/coordination/keys";
import type { LimitWindow } from "@/server/coordination/types";
import type { Permission } from "@/server/tenancy/roles";

/** A sliding window over what one account (or one team) does in the dashboard. */
export interface WindowLimit {
  window: LimitWindow;
  max: number;
  /** Whose window: its identifier in the limiter (coordination/keys.ts, rateLimitSubjects). */
  subject: (id: string) => string;
  /** Who is counted, and what, for the refusal: "an account may make at most 60 changes a minute". */
  per: "account" | "team";
  what: string;
  /** Why this number; docs/security.md (dashboard) repeats it. */
  reason: string;
}

/** A tRPC call as the limits see it: its type, its permission (Meta), and a window of its own (Meta). */
export interface DashboardCall {
  type: "query" | "mutation" | "subscription";
  permission?: Permission;
  counts?: "slugCheck" | "export" | "heavyRead";
}

interface CallLimit extends WindowLimit {
  appliesTo(call: DashboardCall): boolean;
}

/**
 * What only takes access away is never refused: during an incident an admin revoking keys and removing
 * people must not meet the limit that a script (or their own retries) spent. Each needs something that
 * was made within the limits first, so these cannot be multiplied.
 */
const TAKES_ACCESS_AWAY: ReadonlySet<Permission> = new Set<Permission>([
  "apiKey.revoke",
  "member.remove",
  "member.leave",
  "invitation.revoke",
]);

const isChange = (call: DashboardCall) =>
  call.type === "mutation" && !(call.permission && TAKES_ACCESS_AWAY.has(call.permission));
const isPurge = (call: DashboardCall) => isChange(call) && call.permission === "cache.purge";
const isSlugCheck = (call: DashboardCall) => call.counts === "slugCheck";
const isExport = (call: DashboardCall) => call.counts === "export";
const isRead = (call: DashboardCall) => call.type === "query";
const isHeavyRead = (call: DashboardCall) => call.counts === "heavyRead";

const CHANGES =
  "A person clicking through the dashboard makes a few changes a minute; 800 purges in 17 s by one account moved another tenant's cached p95 from 27 to 68 ms (issue 27).";

/**
 * Per signed-in account, across every instance (the coordination limiter: Redis, or in process on the
 * embedded default). Numbers a real admin never reaches that still bound what a script with a session
 * cookie can make the server do. Every mutation is a change; a purge is counted besides, in windows of
 * its own: each one makes every purged result be transformed again.
 */
export const dashboardLimits = {
  changesPerMinute: {
    appliesTo: isChange,
    window: "minute",
    max: 60,
    subject: rateLimitSubjects.userChanges,
    per: "account",
    what: "changes",
    reason: CHANGES,
  },
  changesPerHour: {
    appliesTo: isChange,
    window: "hour",
    max: 600,
    subject: rateLimitSubjects.userChanges,
    per: "account",
    what: "changes",
    reason: "A sustained script stays at a tenth of the minute's pace; a busy admin's hour is a few dozen changes.",
  },
  purgesPerMinute: {
    appliesTo: isPurge,
    window: "minute",
    max: 20,
    subject: rateLimitSubjects.userPurges,
    per: "account",
    what: "purges",
    reason:
      "A purge widens to the whole project past 500 sources and every purged result is transformed again: a deploy purges a project once, or a handful of sources.",
  },
  purgesPerHour: {
    appliesTo: isPurge,
    window: "hour",
    max: 200,
    subject: rateLimitSubjects.userPurges,
    per: "account",
    what: "purges",
    reason: "The same, sustained.",
  },
  slugChecksPerMinute: {
    appliesTo: isSlugCheck,
    window: "minute",
    max: 30,
    subject: rateLimitSubjects.userSlugChecks,
    per: "account",
    what: "slug checks",
    reason:
      "The team form checks once per pause in typing (300 ms debounce); a faster pace only enumerates other teams' slugs.",
  },
  slugChecksPerHour: {
    appliesTo: isSlugCheck,
    window: "hour",
    max: 300,
    subject: rateLimitSubjects.userSlugChecks,
    per: "account",
    what: "slug checks",
    reason: "Bounds enumeration to a few thousand slugs a day per account.",
  },
  readsPerMinute: {
    appliesTo: isRead,
    window: "minute",
    max: 600,
    subject: rateLimitSubjects.userReads,
    per: "account",
    what: "reads",
    reason:
      "A dashboard tab asks a few things per page and polls the audit log and alerts every few seconds (about 30 a minute); ten busy tabs stay under it, a script reading in a loop does not.",
  },
  heavyReadsPerMinute: {
    appliesTo: isHeavyRead,
    window: "minute",
    max: 60,
    subject: rateLimitSubjects.userHeavyReads,
    per: "account",
    what: "reads of logs and statistics",
    reason:
      "Each reads a bounded window of the request log or the audit log, or statistics bounded per project (a few hundred ms of short statements for a project; for a team of 50 projects at their caps, about 2 s), one at a time per account and three at a time per process; a person paging and filtering asks a few a minute.",
  },
  exportsPerHour: {
    appliesTo: isExport,
    window: "hour",
    max: 60,
    subject: rateLimitSubjects.userExports,
    per: "account",
    what: "exports",
    reason:
      "An export streams up to a year of rows from the database; an admin downloads a few files while looking into something.",
  },
} as const satisfies Record<string, CallLimit>;

/** The windows a call spends a token of. */
export function limitsFor(call: DashboardCall): WindowLimit[] {
  return Object.values(dashboardLimits).filter((limit) => limit.appliesTo(call));
}
