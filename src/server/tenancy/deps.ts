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
}

/** The database and the clock: what functions that only read and write rows at a moment need. */
export type TenancyClock = Pick<TenancyDeps, "db" | "now">;
