import type { ReactNode } from "react";
import { cn } from "@/lib/cn";

export interface Column<Row> {
  header: string;
  cell(row: Row): ReactNode;
  numeric?: boolean;
}

/**
 * A table, and on a phone a list: below the `sm` width each row is a block of "header: value" lines,
 * so no column is ever off-screen. The explicit roles keep it a
 * table to screen readers whatever the CSS display; on a phone each value carries its own label. Cells wrap at any width; a scroll is the last resort.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  label,
  testId,
  oneLine = false,
}: {
  columns: ReadonlyArray<Column<Row>>;
  rows: readonly Row[];
  rowKey(row: Row): string;
  label: string;
  testId?: string;
  /** From `sm` up, each row on one line (a log read row by row): the table scrolls sideways instead. */
  oneLine?: boolean;
}) {
  return (
    // A table that scrolls sideways is a region the keyboard can reach and scroll (one line per row).
    <div
      className="sm:-mx-4 sm:overflow-x-auto sm:px-4"
      {...(oneLine ? { tabIndex: 0, role: "region", "aria-label": `${label}, scrolls sideways` } : {})}
    >
      <table
        role="table"
        className="block w-full text-left text-sm tabular-nums sm:table"
        aria-label={label}
        data-testid={testId}
      >
        <thead role="rowgroup" className="hidden sm:table-header-group">
          <tr role="row" className="text-xs text-muted">
            {columns.map((c) => (
              <th
                key={c.header}
                role="columnheader"
                scope="col"
                className={cn("py-2 pr-4 font-medium", c.numeric && "text-right")}
              >
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup" className="block sm:table-row-group">
          {rows.map((row) => (
            <tr key={rowKey(row)} role="row" className="block border-t border-line-faint py-2 sm:table-row sm:py-0">
              {columns.map((c) => (
                <td
                  key={c.header}
                  role="cell"
                  className={cn(
                    "flex justify-between gap-4 py-0.5 break-words sm:table-cell sm:py-2 sm:pr-4",
                    c.numeric ? "sm:text-right" : "text-right sm:text-left",
                    oneLine && "sm:whitespace-nowrap",
                  )}
                >
                  {/* The phone's label, where the column headers are hidden: read with the value. */}
                  <span className="shrink-0 text-xs text-muted sm:hidden">{c.header}</span>
                  {/* One flex item beside the label, whatever the cell holds. */}
                  <span className="min-w-0">{c.cell(row)}</span>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
