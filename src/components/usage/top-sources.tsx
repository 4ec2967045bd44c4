import { formatBytes, formatCount } from "@/lib/format";
import { DataTable } from "./data-table";

/** The source images that cost the most bytes delivered over the range. */
export function TopSources({
  sources,
}: {
  sources: ReadonlyArray<{ sourceUrl: string; requests: number; outputBytes: number }>;
}) {
  if (sources.length === 0) return <p className="text-sm text-muted">No images were delivered in this range.</p>;
  return (
    <DataTable
      label="Top source images"
      testId="top-sources"
      rows={sources}
      rowKey={(s) => s.sourceUrl}
      columns={[
        { header: "Source", cell: (s) => <span className="font-mono text-xs break-all">{s.sourceUrl}</span> },
        { header: "Delivered", numeric: true, cell: (s) => formatCount(s.requests) },
        { header: "Bytes delivered", numeric: true, cell: (s) => formatBytes(s.outputBytes) },
      ]}
    />
  );
}
