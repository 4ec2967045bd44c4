import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/server/db/client";

const dir = mkdtempSync(path.join(os.tmpdir(), "optstuff-embedded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sharedBuffers(sharedBuffersMb?: number): Promise<string> {
  const database = await openDatabase({ kind: "pglite", dataDir: dir, sharedBuffersMb });
  try {
    const result = (await database.db.execute(sql`show shared_buffers`)) as unknown as {
      rows: Array<{ shared_buffers: string }>;
    };
    return result.rows[0]!.shared_buffers;
  } finally {
    await database.close();
  }
}

describe("the embedded database", () => {
  it("starts with a 16 MB buffer pool unless told otherwise, and nothing is written into its configuration", async () => {
    expect(await sharedBuffers()).toBe("16MB");
    expect(await sharedBuffers(48)).toBe("48MB");
    // A start parameter, not a postgresql.conf edit: the next start chooses again.
    expect(await sharedBuffers()).toBe("16MB");
  }, 60_000);
});
