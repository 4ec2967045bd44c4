import type { Writable } from "node:stream";

/**
 * What commands print. Results go to stdout (as text, or as JSON with --json, for scripts); notes and
 * refusals go to stderr, so `optstuff … --json | jq` reads only the result.
 */
export interface Output {
  json: boolean;
  /** A result: JSON as given with --json, else the text. */
  result(value: unknown, text: () => string): void;
  /** A line for the person at the terminal, never part of the result. */
  note(line: string): void;
}

export function createOutput(stdout: Pick<Writable, "write">, stderr: Pick<Writable, "write">, json: boolean): Output {
  return {
    json,
    result: (value, text) => void stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : ensureNewline(text())),
    note: (line) => void stderr.write(ensureNewline(line)),
  };
}

/** Columns padded to their widest cell; an empty list says so in words. */
export function table(rows: Array<Record<string, string>>, empty: string): string {
  if (rows.length === 0) return empty;
  const headers = Object.keys(rows[0]!);
  const width = (h: string) => Math.max(h.length, ...rows.map((r) => (r[h] ?? "").length));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(width(headers[i]!))))
      .join("  ")
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map((r) => line(headers.map((h) => r[h] ?? "")))].join(
    "\n",
  );
}

export const day = (date: Date | null | undefined, none = "never") => (date ? date.toISOString().slice(0, 10) : none);

function ensureNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
