import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/api/root";

/** What the card is told of the team's stream: its state, and where "the bucket" is. */
export type AuditStreamStatus = inferRouterOutputs<AppRouter>["auditStream"]["status"];
