import { describe, expect, it } from "vitest";
import { csvStream, type CsvCell } from "@/server/export/csv-stream";

async function* pagesOf(...pages: CsvCell[][][]) {
  for (const page of pages) yield page;
}

describe("csvStream", () => {
  it("reads on past empty pages, quotes what needs it and shows formulas instead of running them", async () => {
    const errors: unknown[] = [];
    const stream = csvStream(["a", "b"], pagesOf([], [[1, "=SUM(A1)"]], [], [["x,y", null]], []), (e) =>
      errors.push(e),
    );
    expect(await new Response(stream).text()).toBe(`a,b\r\n1,'=SUM(A1)\r\n"x,y",\r\n`);
    expect(errors).toEqual([]);
  });

  it("fails the download when a page fails after the first byte, and reports it", async () => {
    const errors: unknown[] = [];
    async function* failing() {
      yield [[1, 2]] as CsvCell[][];
      throw new Error("database gone");
    }
    const stream = csvStream(["a", "b"], failing(), (e) => errors.push(e));
    await expect(new Response(stream).text()).rejects.toThrow("database gone");
    expect(errors).toHaveLength(1);
  });
});
