import { describeError, type Logger } from "@/server/log";
import { traced } from "@/server/telemetry/spans";

export interface MaintenancePart {
  name: string;
  run(): Promise<Record<string, unknown> | number>;
}

export interface MaintenanceReport {
  ok: boolean;
  parts: Record<string, { ok: true; result: Record<string, unknown> | number } | { ok: false; error: string }>;
  durationMs: number;
}

/**
 * Runs every part, each on its own: one failing (Redis down for the flush, say) does not keep the
 * others from running. The report names each part's result or error; `ok` is false if any failed.
 */
export async function runMaintenance(parts: readonly MaintenancePart[], logger: Logger): Promise<MaintenanceReport> {
  const started = performance.now();
  const report: MaintenanceReport = { ok: true, parts: {}, durationMs: 0 };
  for (const part of parts) {
    try {
      report.parts[part.name] = { ok: true, result: await traced(`maintenance ${part.name}`, {}, () => part.run()) };
    } catch (error) {
      report.ok = false;
      report.parts[part.name] = { ok: false, error: error instanceof Error ? error.message : String(error) };
      logger.log("error", "daily maintenance part failed", { part: part.name, ...describeError(error) });
    }
  }
  report.durationMs = Math.round(performance.now() - started);
  return report;
}
