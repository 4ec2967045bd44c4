import { stringify } from "csv-stringify/sync";

export type CsvCell = string | number | boolean | null;

/**
 * A CSV file made page by page as the client reads it: one page of rows in memory at a time, however
 * long the file. A cell starting with `=`, `+`, `-` or `@` (a key named `=HYPERLINK(…)`) is quoted
 * with a leading `'` so a spreadsheet shows it instead of running it.
 */
export function csvStream(
  header: readonly string[],
  pages: AsyncIterable<CsvCell[][]>,
  /** A page failed after the response began: the client's download is cut off as failed, not short. */
  onError: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = pages[Symbol.asyncIterator]();
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(lines([[...header]])));
        return;
      }
      // A pull that enqueues nothing is not called again: read on past empty pages.
      for (;;) {
        let next: IteratorResult<CsvCell[][]>;
        try {
          next = await iterator.next();
        } catch (error) {
          onError(error);
          controller.error(error);
          return;
        }
        if (next.done) return controller.close();
        if (next.value.length > 0) return controller.enqueue(encoder.encode(lines(next.value)));
      }
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

function lines(rows: CsvCell[][]): string {
  return stringify(rows, { escape_formulas: true, record_delimiter: "\r\n", cast: { boolean: (b) => String(b) } });
}
