import type { AuditTrail } from "@/server/audit/trail";
import type { ConfigInvalidator } from "@/server/config-cache";
import type { Database } from "@/server/db/client";
import type { SecretBox } from "@/server/signing";
import type { SourceHostPolicy } from "./source-hosts";

/** What the tenancy domain functions need; built once in the composition root. */
export interface TenancyDeps {
  db: Database;
  /** Called before a write that changes what the image route reads returns. */
  invalidate: ConfigInvalidator;
  secretBox: SecretBox;
  hostPolicy: SourceHostPolicy;
  now: () => Date;
  /** Every account must use a second factor to open any team (OPTSTUFF_REQUIRE_SECOND_FACTOR). */
  secondFactorRequired: boolean;
  /** Writes who made a change, in the change's transaction: bound to the actor of this call. */
  audit: AuditTrail;
}

/** The dependencies without an actor: what the composition root holds until a call names one. */
export type TenancyBase = Omit<TenancyDeps, "audit">;

/** The database and the clock: what functions that only read and write rows at a moment need. */
export type TenancyClock = Pick<TenancyDeps, "db" | "now">;
