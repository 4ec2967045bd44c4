import { rateLimitSubjects } from "@/server/coordination/keys";
import { AppError } from "@/server/errors";
import type { WindowLimit } from "@/server/ratelimit/dashboard-limits";

/** How many of something one account, team or project may hold; checked where it is made. */
export interface HeldQuota {
  max: number;
  /** The refusal, naming the limit and how to make room. */
  refusal: string;
  /** Why this number; docs/security.md (dashboard) repeats it. */
  reason: string;
}

/**
 * What one account or team may hold or make. Generous: a real organisation never meets them; they bound
 * the rows, cached configs and decodes one account can make the server carry. Enforced in the domain
 * functions that create (createTeam, createProject, createApiKey, uploadProjectImage), which the
 * dashboard and the command line share, so both meet the same refusal. Each counts under a lock of the
 * parent row (the owner, the team, the project), so concurrent creations cannot pass the limit together.
 */
export const quotas = {
  teamsPerAccount: {
    max: 20,
    refusal: "An account may own at most 20 teams: delete one, or make someone else its owner, first",
    reason:
      "Every account can make teams, and each can hold projects and keys: teams are the multiplier of every other quota.",
  },
  projectsPerTeam: {
    max: 50,
    refusal: "A team may have at most 50 projects: delete one first",
    reason: "Each project is a cached configuration on every instance and a set of keys; sites number a handful.",
  },
  activeKeysPerProject: {
    max: 50,
    refusal: "A project may have at most 50 active API keys: revoke one first (a rotation replaces a key)",
    reason:
      "Keys are one per environment or deployment; every active key can be looked up and cached by the image route. A rotation does not add one, and revoked, expired and rotating keys do not count.",
  },
  uploadsPerTeamHour: {
    window: "hour",
    max: 60,
    subject: rateLimitSubjects.teamUploads,
    per: "team",
    what: "uploads",
    reason:
      "Each upload (a watermark, a fallback) is decoded in a transform process under the team's share, and invalidates the project's cached config on every instance; a logo is replaced a few times, not sixty times an hour.",
  },
} as const satisfies Record<string, HeldQuota | WindowLimit>;

/** Refuses one more when `held` already reach the quota (QUOTA_REACHED, the limit named). */
export function assertBelowQuota(quota: HeldQuota, held: number): void {
  if (held >= quota.max)
    throw new AppError("QUOTA_REACHED", { message: quota.refusal, detail: `${held} held, quota ${quota.max}` });
}
