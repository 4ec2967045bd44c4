import { randomBytes } from "node:crypto";
import { stampMinute } from "./aggregate-claims";
import { applyClaimsIn } from "./apply-claims";
import { bufferedMinutes, takeMinutes } from "./database-buffer";
import { countApplied, type FlushRun } from "./flush-run";

/**
 * The minutes buffered in usage_buffer (no shared Redis), oldest first, per batch in one transaction:
 * take the batch's rows out of the buffer, record each minute in the ledger and add it to usage_record.
 * A crash before the commit leaves the rows where they were; after it, they are gone and applied: the
 * transaction is the exactly-once. The claim id is new per run and only names the ledger rows (its own
 * prefix, so it never meets a Redis claim of the same minute). Answers the minute of the first bucket
 * left for the next run.
 */
export async function flushDatabaseBuffer(run: FlushRun): Promise<number | null> {
  const { deps, options, report } = run;
  const ready: Array<{ stamp: string; minute: number }> = [];
  for (const stamp of await bufferedMinutes(deps.db)) {
    const minute = stampMinute(stamp)?.getTime();
    if (minute === undefined) continue;
    report.buckets.scanned++;
    if (minute > run.newestReady) report.buckets.skippedRecent++;
    else ready.push({ stamp, minute });
  }
  await deps.faults?.("scanned");
  const claim = `db-${randomBytes(9).toString("base64url")}`;
  for (let i = 0; i < ready.length; i += options.bucketsPerBatch) {
    if (!run.mayStartBatch()) {
      report.buckets.deferred += ready.length - i;
      return ready[i]!.minute;
    }
    const batch = ready.slice(i, i + options.bucketsPerBatch).map((b) => b.stamp);
    const applied = await deps.db.transaction(async (tx) => {
      const claimed = await takeMinutes(tx, batch, claim);
      report.buckets.empty += batch.length - claimed.length;
      await deps.faults?.("claimed");
      const result = await applyClaimsIn(tx, claimed);
      await deps.faults?.("ledger-written");
      return result;
    });
    await deps.faults?.("committed");
    countApplied(report, applied);
  }
  return null;
}
