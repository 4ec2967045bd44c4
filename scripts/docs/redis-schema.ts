/** The generated section of docs/redis-schema.md: the failure policy, from src/server/coordination/failure-policy.ts. */
import { failurePolicy, type FailurePolicy } from "@/server/coordination/failure-policy";
import { code, renderTable, replaceSections } from "./markdown";

const SOURCE = "the failure policy (src/server/coordination/failure-policy.ts)";

function budget({ timeoutMs }: FailurePolicy): string {
  return timeoutMs >= 1000 && timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
}

export function renderFailurePolicyTable(policy: Readonly<Record<string, FailurePolicy>> = failurePolicy): string {
  const rows = Object.entries(policy).map(([use, entry]) => [
    code(use),
    budget(entry),
    entry.blocking ? "waits" : "does not wait",
    entry.onFailure,
  ]);
  return renderTable(SOURCE, ["use", "budget", "the image request", "when the call fails or is slower"], rows);
}

export function updateRedisSchemaDoc(markdown: string): string {
  return replaceSections(markdown, { "failure-policy": renderFailurePolicyTable() });
}
