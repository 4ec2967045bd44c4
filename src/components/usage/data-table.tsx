import type { ReactNode } from "react";
import { cn } from "@/lib/cn";

export interface Column<Row> {
  header: string;
  cell(row: Row): ReactNode;
  numeric?: boolean;
}

/** A plain, scrollable table: the daily figures, breakdowns, top sources and the request log share it. */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  label,
  testId,
}: {
  columns: ReadonlyArray<Column<Row>>;
  rows: readonly Row[];
  rowKey(row: Row): string;
  label: string;
  testId?: string;
}) {
  return (
    <div className="-mx-4 overflow-x-auto px-4">
      <table className="w-full min-w-max text-left text-sm tabular-nums" aria-label={label} data-testid={testId}>
        <thead>
          <tr className="text-xs text-neutral-600">
            {columns.map((c) => (
              <th key={c.header} scope="col" className={cn("py-2 pr-4 font-medium", c.numeric && "text-right")}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className="border-t border-neutral-100">
              {columns.map((c) => (
                <td key={c.header} className={cn("py-2 pr-4", c.numeric && "text-right")}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
