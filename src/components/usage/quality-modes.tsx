import { formatBytes, formatCount, formatName, formatPercent } from "@/lib/format";
import { DataTable } from "./data-table";

export interface QualityModeRow {
  mode: string;
  format: string;
  requests: number;
  meanBytes: number | null;
  savedShare: number | null;
  meanScore: number | null;
  minScore: number | null;
}

/** A mode as the reader of the page knows it: the URL's spelling where it has one. */
function describeMode(mode: string): string {
  if (mode === "fixed") return "Fixed quality (q_ or the format's default)";
  if (mode === "maxbytes") return "Byte budget (maxbytes_)";
  if (mode === "placeholder") return "Placeholder";
  if (mode.startsWith("f_best:")) return `f_best at ${mode.slice(7)}`;
  return mode;
}

const score = (value: number | null) => (value === null ? "–" : value.toFixed(1));

/** What each way of choosing quality delivered: sizes against the originals, and the score reached. */
export function QualityModes({ rows }: { rows: readonly QualityModeRow[] }) {
  if (rows.length === 0) return <p className="text-sm text-muted">No images were delivered in this range.</p>;
  return (
    <div className="space-y-3">
      <DataTable
        label="Images by quality mode"
        testId="quality-modes"
        rows={rows}
        rowKey={(r) => `${r.mode}|${r.format}`}
        columns={[
          { header: "Quality mode", cell: (r) => describeMode(r.mode) },
          { header: "Format", cell: (r) => formatName(r.format) },
          { header: "Images delivered", numeric: true, cell: (r) => formatCount(r.requests) },
          {
            header: "Mean size",
            numeric: true,
            cell: (r) => (r.meanBytes === null ? "–" : formatBytes(Math.round(r.meanBytes))),
          },
          { header: "Smaller than originals", numeric: true, cell: (r) => formatPercent(r.savedShare) },
          {
            header: "Score (mean / lowest)",
            numeric: true,
            cell: (r) => `${score(r.meanScore)} / ${score(r.minScore)}`,
          },
        ]}
      />
      <p className="text-sm text-muted">
        q_auto and f_best choose each image&apos;s quality for a perceptual score (SSIMULACRA 2: 90 visually lossless,
        80 very high, 70 high, 60 medium-high); the score is theirs only. &ldquo;Smaller than originals&rdquo; counts
        the images that fetched their original (cache hits never see it).
      </p>
    </div>
  );
}
