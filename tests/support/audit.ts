import { auditTrail, commandLineActor } from "@/server/audit/trail";

/** Fixtures set tenants up as an operator would: their changes are written as the command line's. */
export const setupAudit = auditTrail(commandLineActor, () => new Date());
