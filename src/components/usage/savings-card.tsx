import { Card } from "@/components/ui/feedback";
import { formatBytes, formatCount, formatName, formatPercent } from "@/lib/format";
import type { SavingsReport } from "@/server/analytics/savings";
import { DataTable } from "./data-table";

/**
 * What the service saved over the range: bytes against the originals, by output format, and the
 * transforms a cache tier spared, and the unique transformations of the 30 days ending with the range
 * (what hosted services bill by). Originals are known only for answers that fetched theirs.
 */
export function SavingsCard({ savings }: { savings: SavingsReport }) {
  const { totals, work, uniqueTransformations: unique } = savings;
  // The words of the outcome chart: served (transformed for the request) and cached make the answers
  // delivered; of those, images carry one (not a 304, not info's JSON).
  const answers = work.transforms + work.spared;
  const notImages = Math.max(0, answers - totals.delivered);
  return (
    <Card title="Savings">
      <div className="space-y-3">
        <p className="text-2xl font-semibold tabular-nums" data-testid="bandwidth-saved">
          {formatBytes(Math.abs(totals.savedBytes))}{" "}
          <span className="text-base font-normal text-muted">
            {totals.savedBytes >= 0 ? "saved" : "larger than the originals"} (
            {formatPercent(totals.savedShare === null ? null : Math.abs(totals.savedShare), 0)})
          </span>
        </p>
        <p className="text-sm text-muted">
          Originals {formatBytes(totals.originalBytes)} → delivered {formatBytes(totals.measuredOutputBytes)}, over the{" "}
          {formatCount(totals.measured)} of the {formatCount(totals.delivered)} images delivered that fetched their
          original (an answer from a cache never sees it).
        </p>
        {savings.byFormat.length > 0 ? (
          <DataTable
            label="Savings by output format"
            testId="savings-by-format"
            rows={savings.byFormat}
            rowKey={(f) => f.format}
            columns={[
              { header: "Format", cell: (f) => formatName(f.format) },
              { header: "Images", numeric: true, cell: (f) => formatCount(f.delivered) },
              { header: "Bytes delivered", numeric: true, cell: (f) => formatBytes(f.outputBytes) },
              { header: "Saved", numeric: true, cell: (f) => formatBytes(f.savedBytes) },
              { header: "Saved share", numeric: true, cell: (f) => formatPercent(f.savedShare, 0) },
            ]}
          />
        ) : null}
        <p className="text-sm" data-testid="transforms-spared">
          {formatCount(answers)} answers delivered: {formatCount(work.transforms)} served (transformed for the request)
          and {formatCount(work.spared)} cached ({formatPercent(work.sparedShare, 0)} spared a transform);{" "}
          {formatCount(totals.delivered)} images and {formatCount(notImages)} not modified or JSON.
        </p>
        <p className="text-sm" data-testid="unique-transformations">
          <span className="font-semibold tabular-nums">
            {unique.atLeast ? "At least " : ""}
            {formatCount(unique.count)}
          </span>{" "}
          unique transformations in the 30 days {unique.from} to {unique.to} (distinct source, operations and format;
          the unit hosted image services bill by).
        </p>
      </div>
    </Card>
  );
}
